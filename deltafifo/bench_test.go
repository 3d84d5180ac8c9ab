package deltafifo

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/kinformer/kinformer/api"
)

// benchPerObject runs the work prepare returns once per iteration (prepare
// itself is not timed) and reports time and allocations per object.
func benchPerObject(b *testing.B, objects int, prepare func() (work func())) {
	var mallocs uint64
	var ms runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		work := prepare()
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		b.StartTimer()
		work()
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
		b.StartTimer()
	}
	n := float64(b.N) * float64(objects)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/object")
	b.ReportMetric(float64(mallocs)/n, "allocs/object")
}

// lenQueue is a Queue that can say how much is queued.
type lenQueue interface {
	Queue
	Len() int
}

func queues() []struct {
	name string
	make func() lenQueue
} {
	return []struct {
		name string
		make func() lenQueue
	}{
		{"DeltaFIFO", func() lenQueue { return NewDeltaFIFO(DeltaFIFOOptions{}) }},
		{"RealFIFO", func() lenQueue { return NewRealFIFO(RealFIFOOptions{}) }},
	}
}

func noop(Deltas, bool) error { return nil }

// Add 100k distinct objects, then Pop them all.
func BenchmarkQueue_AddThenPop100k(b *testing.B) {
	const n = 100_000
	objs := make([]api.Object, n)
	for i := range objs {
		objs[i] = &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), ResourceVersion: "1"}}
	}
	for _, q := range queues() {
		b.Run(q.name, func(b *testing.B) {
			benchPerObject(b, n, func() func() {
				f := q.make()
				return func() {
					for _, o := range objs {
						if err := f.Add(o); err != nil {
							b.Fatal(err)
						}
					}
					for range n {
						if _, err := f.Pop(noop); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

// 1000 keys updated 100 times each, then everything popped. The DeltaFIFO
// pops 1000 times (100 deltas each), the RealFIFO 100,000 times. Per object
// means per update.
func BenchmarkQueue_1kKeysx100Updates(b *testing.B) {
	const keys, updates = 1000, 100
	objs := make([]api.Object, 0, keys*updates)
	for u := range updates {
		for k := range keys {
			objs = append(objs, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", k), ResourceVersion: strconv.Itoa(u + 1)}})
		}
	}
	for _, q := range queues() {
		b.Run(q.name, func(b *testing.B) {
			benchPerObject(b, len(objs), func() func() {
				f := q.make()
				return func() {
					for _, o := range objs {
						if err := f.Update(o); err != nil {
							b.Fatal(err)
						}
					}
					for f.Len() > 0 {
						if _, err := f.Pop(noop); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

// Add and Pop measured apart, 100k distinct objects: allocs/object is what
// one Add (then one Pop) allocates.
func BenchmarkQueue_AddOnly100k(b *testing.B) {
	const n = 100_000
	objs := make([]api.Object, n)
	for i := range objs {
		objs[i] = &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), ResourceVersion: "1"}}
	}
	for _, q := range queues() {
		b.Run(q.name, func(b *testing.B) {
			benchPerObject(b, n, func() func() {
				f := q.make()
				return func() {
					for _, o := range objs {
						if err := f.Add(o); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

func BenchmarkQueue_PopOnly100k(b *testing.B) {
	const n = 100_000
	objs := make([]api.Object, n)
	for i := range objs {
		objs[i] = &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), ResourceVersion: "1"}}
	}
	for _, q := range queues() {
		b.Run(q.name, func(b *testing.B) {
			benchPerObject(b, n, func() func() {
				f := q.make()
				for _, o := range objs {
					if err := f.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				return func() {
					for range n {
						if _, err := f.Pop(noop); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}
