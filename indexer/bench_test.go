package indexer

import (
	"fmt"
	"runtime"
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

// benchPods returns n pods spread over 100 namespaces, labelled so that
// each app value is shared by 10 pods.
func benchPods(n int) []api.Object {
	pods := make([]api.Object, n)
	for i := range pods {
		pods[i] = &api.Pod{ObjectMeta: api.ObjectMeta{
			Namespace:       fmt.Sprintf("ns-%d", i%100),
			Name:            fmt.Sprintf("pod-%d", i),
			ResourceVersion: "1",
			Labels:          map[string]string{"app": fmt.Sprintf("app-%d", i/10)},
		}}
	}
	return pods
}

func benchIndexers() Indexers {
	return Indexers{NamespaceIndex: MetaNamespaceIndexFunc, "app": LabelIndexFunc("app")}
}

// Add 100k objects to an Indexer with a namespace index and a label index.
func BenchmarkIndexer_Add100k(b *testing.B) {
	pods := benchPods(100_000)
	benchPerObject(b, len(pods), func() func() {
		idx := NewIndexer(MetaNamespaceKeyFunc, benchIndexers())
		return func() {
			for _, p := range pods {
				if err := idx.Add(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// ByIndex lookups in an Indexer holding 100k objects: by namespace (1000
// objects per answer) and by label (10 objects per answer). One op is one
// lookup; ns/object is per object returned.
func BenchmarkIndexer_ByIndex(b *testing.B) {
	pods := benchPods(100_000)
	idx := NewIndexer(MetaNamespaceKeyFunc, benchIndexers())
	for _, p := range pods {
		if err := idx.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		index   string
		value   func(i int) string
		perCall int
	}{
		{NamespaceIndex, func(i int) string { return fmt.Sprintf("ns-%d", i%100) }, 1000},
		{"app", func(i int) string { return fmt.Sprintf("app-%d", i%10_000) }, 10},
	} {
		values := make([]string, 1024)
		for i := range values {
			values[i] = bc.value(i)
		}
		b.Run(fmt.Sprintf("%s-%d-objects", bc.index, bc.perCall), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				objs, err := idx.ByIndex(bc.index, values[i%len(values)])
				if err != nil || len(objs) != bc.perCall {
					b.Fatalf("ByIndex: %d objects, %v", len(objs), err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bc.perCall), "ns/object")
		})
	}
}
