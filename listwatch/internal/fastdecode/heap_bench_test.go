package fastdecode

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
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

// keptHeap decodes every body into a new Pod, keeps them all, and returns
// the heap each kept pod costs after a GC, and the mean size of the JSON
// the typed pods keep (each re-marshalled: what the type holds, not what
// the wire carried).
func keptHeap(tb testing.TB, bodies [][]byte) (heapPerPod, keptJSONPerPod float64) {
	tb.Helper()
	kept := make([]*api.Pod, len(bodies))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, b := range bodies {
		p := &api.Pod{}
		if err := json.Unmarshal(b, p); err != nil {
			tb.Fatal(err)
		}
		Compact(p) // as the fast path does
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
	n := float64(len(bodies))
	return heap / n, float64(keptJSON) / n
}

// BenchmarkCachedPodHeap: the heap a cached (decoded and kept) pod costs,
// against the JSON its type keeps. Reported per fixture:
//
//	heap-B/pod       heap per kept pod after GC
//	kept-json-B/pod  len(json.Marshal(pod)): the data the type holds
//	heap/json        the ratio of the two (the target is <= 1.5)
//
// go test ./listwatch/internal/fastdecode -run '^$' -bench CachedPodHeap -benchmem
func BenchmarkCachedPodHeap(b *testing.B) {
	for _, f := range []struct{ name, file string }{
		{"running-1.36", podRunning},
		{"pending-1.36", podPending},
		{"from-apiserver", podFromAPIServer},
	} {
		b.Run(f.name, func(b *testing.B) {
			const n = 5000
			bodies := realisticPods(b, f.file, n)
			var heap, keptJSON float64
			for b.Loop() {
				heap, keptJSON = keptHeap(b, bodies)
			}
			b.ReportMetric(heap, "heap-B/pod")
			b.ReportMetric(keptJSON, "kept-json-B/pod")
			b.ReportMetric(heap/keptJSON, "heap/json")
			b.ReportMetric(0, "ns/op") // one op decodes, GCs and re-marshals 5000 pods: meaningless
		})
	}
}

// BenchmarkDecodePod: the time and garbage of decoding one pod, alone
// (decode) and with Compact (decode+compact), the price paid
// for the smaller cache.
func BenchmarkDecodePod(b *testing.B) {
	bodies := realisticPods(b, podRunning, 1)
	for _, compact := range []bool{false, true} {
		name := "decode"
		if compact {
			name = "decode+compact"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(bodies[0])))
			for b.Loop() {
				var p api.Pod
				if err := json.Unmarshal(bodies[0], &p); err != nil {
					b.Fatal(err)
				}
				if compact {
					Compact(&p)
				}
			}
		})
	}
}
