package fastdecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
)

// realisticPods returns n distinct encodings of a pod as kube-apiserver 1.36
// sends it: the fixture with its name, uid, resourceVersion and pod IP made
// unique per pod (labels, annotations, images and conditions stay the same,
// as they do across the pods of one Deployment).
func realisticPods(tb testing.TB, file string, n int) [][]byte {
	tb.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	if bytes.Contains(raw, []byte("__NAME__")) {
		return fromTemplate(bytes.TrimSpace(raw), n)
	}
	var probe api.Pod
	if err := json.Unmarshal(raw, &probe); err != nil {
		tb.Fatal(err)
	}
	out := make([][]byte, n)
	for i := range out {
		s := string(raw)
		s = strings.ReplaceAll(s, `"name":"`+probe.Name+`"`, fmt.Sprintf(`"name":"%s-%06d"`, probe.Name, i))
		s = strings.ReplaceAll(s, `"uid":"`+probe.UID+`"`, fmt.Sprintf(`"uid":"%s%06d"`, probe.UID[:30], i))
		s = strings.ReplaceAll(s, `"resourceVersion":"`+probe.ResourceVersion+`"`, fmt.Sprintf(`"resourceVersion":"%d"`, 1_000_000+i))
		if probe.Status.PodIP != "" {
			s = strings.ReplaceAll(s, `"podIP":"`+probe.Status.PodIP+`"`, fmt.Sprintf(`"podIP":"10.244.%d.%d"`, i/250, i%250+1))
		}
		out[i] = []byte(s)
	}
	return out
}

// fromTemplate fills the pipeline benchmarks' template (benchPod) as they
// do (bench/pods_test.go, appendPod): pod i of a ReplicaSet's, on one of
// 100 nodes.
func fromTemplate(tmpl []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		r := strings.NewReplacer("__NAME__", fmt.Sprintf("web-7d9f8b6c5d-%05d", i),
			"__UID__", fmt.Sprintf("%08x-6dde-4e82-83f3-%012x", i, i*7919),
			"__RV__", strconv.Itoa(1_000_000+i), "__NODE__", strconv.Itoa(i%100))
		out[i] = []byte(r.Replace(string(tmpl)))
	}
	return out
}

// A decode is one of the ways a pod is decoded and compacted.
type decode struct {
	name string
	pod  func(d *Decoder, b []byte) (*api.Pod, error)
}

// decodes are the ways: encoding/json then Compact (how a Get's answer is
// decoded), and the fast path's Decoder, for a program's own objects and
// for a read-only cache (share.go).
var decodes = []decode{
	{"encoding-json+compact", func(_ *Decoder, b []byte) (*api.Pod, error) {
		p := &api.Pod{}
		err := json.Unmarshal(b, p)
		Compact(p)
		return p, err
	}},
	{"decoder", func(d *Decoder, b []byte) (*api.Pod, error) {
		p := &api.Pod{}
		return p, d.Value(b, p, false)
	}},
	{"decoder-for-cache", func(d *Decoder, b []byte) (*api.Pod, error) {
		p := &api.Pod{}
		return p, d.Value(b, p, true)
	}},
}

// keptHeap decodes every body into a new Pod, keeps them all, and returns
// the heap each kept pod costs after a GC, and the mean size of the JSON
// the typed pods keep (each re-marshalled: what the type holds, not what
// the wire carried).
func keptHeap(tb testing.TB, bodies [][]byte, dec decode) (heapPerPod, keptJSONPerPod float64) {
	tb.Helper()
	kept := make([]*api.Pod, len(bodies))
	var d Decoder
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, b := range bodies {
		p, err := dec.pod(&d, b)
		if err != nil {
			tb.Fatal(err)
		}
		kept[i] = p
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	var keptJSON int
	for _, p := range kept {
		b, err := json.Marshal(p)
		if err != nil {
			tb.Fatal(err)
		}
		keptJSON += len(b)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(&d)
	n := float64(len(bodies))
	return heap / n, float64(keptJSON) / n
}

// BenchmarkCachedPodHeap: the heap a cached (decoded and kept) pod costs,
// against the JSON its type keeps, decoded each way (decodes). Reported
// per fixture and way:
//
//	heap-B/pod       heap per kept pod after GC (the Decoder's room and
//	                 the interning tables included, spread over the pods)
//	kept-json-B/pod  len(json.Marshal(pod)): the data the type holds
//	heap/json        the ratio of the two (the target is <= 1.0)
//
// go test ./listwatch/internal/fastdecode -run '^$' -bench CachedPodHeap -benchmem
func BenchmarkCachedPodHeap(b *testing.B) {
	for _, f := range []struct{ name, file string }{
		{"running-1.36", podRunning},
		{"pending-1.36", podPending},
		{"from-apiserver", podFromAPIServer},
		{"bench-pod", benchPod},
	} {
		for _, dec := range decodes {
			b.Run(f.name+"/"+dec.name, func(b *testing.B) {
				const n = 5000
				bodies := realisticPods(b, f.file, n)
				var heap, keptJSON float64
				for b.Loop() {
					heap, keptJSON = keptHeap(b, bodies, dec)
				}
				b.ReportMetric(heap, "heap-B/pod")
				b.ReportMetric(keptJSON, "kept-json-B/pod")
				b.ReportMetric(heap/keptJSON, "heap/json")
				b.ReportMetric(0, "ns/op") // one op decodes, GCs and re-marshals 5000 pods: meaningless
			})
		}
	}
}

// BenchmarkDecodePod: the time and garbage of decoding one pod (the
// running fixture), compacted, each way (decodes).
func BenchmarkDecodePod(b *testing.B) {
	bodies := realisticPods(b, podRunning, 1)
	for _, dec := range decodes {
		b.Run(dec.name, func(b *testing.B) {
			var d Decoder
			b.SetBytes(int64(len(bodies[0])))
			for b.Loop() {
				if _, err := dec.pod(&d, bodies[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
