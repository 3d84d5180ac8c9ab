package fakeapiserver

import "testing"

// Seeding 1,000 realistic pods (bench/testdata/pod.json, 3.9 KB each):
// through the write path a client takes (the body decoded, defaulted,
// admitted, validated, encoded: what a POST does after reading it), and
// through Load (read in one pass, stored as it is). ns/op is the 1,000.
//
//	go test ./fakeapiserver -run '^$' -bench BenchmarkSeed1kPods -benchmem -count 5
func BenchmarkSeed1kPods(b *testing.B) {
	pods := make([][]byte, 1000)
	for i := range pods {
		pods[i] = realisticPod(b, i)
	}
	r := lookupResource("", "v1", "pods")
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := New(Options{})
			for _, p := range pods {
				obj, err := decodeObject(p)
				if err != nil {
					b.Fatal(err)
				}
				delete(mapAt(obj, "metadata"), "uid") // a client sends none
				if _, st := s.create(r, "default", obj, false, nil); st != nil {
					b.Fatal(st)
				}
			}
			s.Close()
		}
	})
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := New(Options{})
			if _, err := s.Load("pods", pods); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}
