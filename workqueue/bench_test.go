package workqueue

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kinformer/kinformer/clock"
)

// benchKeys are 10k distinct "namespace/name" keys.
var benchKeys = func() []string {
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("default/pod-%05d", i)
	}
	return keys
}()

// BenchmarkQueue_AddGetDone: one op is one item's Add, Get and Done. The
// producer Adds the 10k distinct keys, 1 or 4 workers Get and Done them, and
// the producer waits until the round is processed before the next one, so
// no Add is deduplicated and every Add is processed exactly once.
func BenchmarkQueue_AddGetDone(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			q := NewTyped[string]()
			var round sync.WaitGroup // items of the current round not yet Done
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						key, shutdown := q.Get()
						if shutdown {
							return
						}
						q.Done(key)
						round.Done()
					}
				})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for left := b.N; left > 0; left -= len(benchKeys) {
				batch := benchKeys[:min(left, len(benchKeys))]
				round.Add(len(batch))
				for _, key := range batch {
					q.Add(key)
				}
				round.Wait()
			}
			b.StopTimer()
			q.ShutDown()
			wg.Wait()
		})
	}
}

// BenchmarkDelaying_AddAfter100k: one op is AddAfter of 100k distinct items
// with shuffled delays (heap inserts); the waiting loop only re-arms its
// timer. ns/item is the cost of one AddAfter.
func BenchmarkDelaying_AddAfter100k(b *testing.B) {
	const n = 100_000
	items, delays := delayBenchInput(n)
	b.ReportAllocs()
	for b.Loop() {
		q := newDelayingQueue[int](QueueConfig{Clock: clock.NewFakeClock(epoch)})
		for i, item := range items {
			q.AddAfter(item, delays[i])
		}
		q.ShutDown()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
}

// BenchmarkDelaying_AddAfter100kAndFire: AddAfter of 100k items, then one
// clock step makes all due and the waiting loop moves them to the queue in
// deadline order, and a worker Gets and Dones them all.
func BenchmarkDelaying_AddAfter100kAndFire(b *testing.B) {
	const n = 100_000
	items, delays := delayBenchInput(n)
	b.ReportAllocs()
	for b.Loop() {
		clk := clock.NewFakeClock(epoch)
		q := newDelayingQueue[int](QueueConfig{Clock: clk})
		for i, item := range items {
			q.AddAfter(item, delays[i])
		}
		clk.Step(time.Duration(n+1) * time.Millisecond)
		for range n {
			item, _ := q.Get()
			q.Done(item)
		}
		q.ShutDown()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
}

func delayBenchInput(n int) (items []int, delays []time.Duration) {
	r := rand.New(rand.NewPCG(1, 2))
	items = make([]int, n)
	delays = make([]time.Duration, n)
	for i := range items {
		items[i] = i
		delays[i] = time.Duration(r.IntN(n)+1) * time.Millisecond
	}
	return items, delays
}
