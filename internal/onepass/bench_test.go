package onepass

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/kinformer/kinformer/api"
)

// BenchmarkUnmarshalPod decodes one pod as a real cluster sends it
// (bench/testdata/pod.json: probes, env, volumes, five conditions) into
// api.Pod, with encoding/json and with onepass: the yardstick and the
// one-pass decode, measured in the same run.
func BenchmarkUnmarshalPod(b *testing.B) {
	data, err := os.ReadFile("../../bench/testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, dec := range []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"encoding-json", json.Unmarshal}, {"onepass", Unmarshal}} {
		b.Run(dec.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var p api.Pod
				if err := dec.unmarshal(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
