package workqueue

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// Many producers add keys while many workers process them, with real
// goroutines (run it with -race). Checked:
//
//   - no two workers ever hold the same key at once (a per-key in-flight
//     flag that a worker sets on Get and clears before Done);
//   - no Add is lost: for every key, the last processing started after the
//     last Add of that key began. Producers count an Add before making it
//     and workers read the count after Get, so for each key the count a
//     worker last read must equal the final count;
//   - after ShutDown, the workers drain the queue and exit: Get hands out
//     every queued item before reporting shutdown.
func TestQueue_StressManyProducersManyWorkers(t *testing.T) {
	const (
		producers      = 4
		workers        = 8
		keys           = 64
		addsByProducer = 4000
	)
	// 16000 adds: recorded and summed up, not logged one by one.
	rec := trace.NewRecorder()
	q := NewTypedWithConfig[string](QueueConfig{Tracer: rec.Tracer()})
	t.Logf("workqueue: %d producers add %d times each over %d keys while %d workers Get and Done", producers, addsByProducer, keys, workers)
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("default/pod-%d", i)
	}
	index := make(map[string]int, keys)
	for i, name := range names {
		index[name] = i
	}
	var (
		addCount  [keys]atomic.Int64 // Adds begun, per key
		lastSeen  [keys]atomic.Int64 // addCount a worker read after its last Get
		inFlight  [keys]atomic.Bool
		processed atomic.Int64
		overlaps  atomic.Int64
	)

	var workersDone sync.WaitGroup
	for range workers {
		workersDone.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				i := index[key]
				if !inFlight[i].CompareAndSwap(false, true) {
					overlaps.Add(1)
				}
				lastSeen[i].Store(addCount[i].Load())
				processed.Add(1)
				inFlight[i].Store(false)
				q.Done(key)
			}
		})
	}

	var producersDone sync.WaitGroup
	for p := range producers {
		producersDone.Go(func() {
			for n := range addsByProducer {
				i := (n*7 + p*13) % keys
				addCount[i].Add(1)
				q.Add(names[i])
			}
		})
	}
	producersDone.Wait()
	q.ShutDown()
	workersDone.Wait()

	require.Zero(t, overlaps.Load(), "a key was processed by two workers at once")
	for i := range keys {
		require.Equal(t, addCount[i].Load(), lastSeen[i].Load(),
			"key %s: processed last before its last Add (an Add was lost)", names[i])
	}
	require.GreaterOrEqual(t, processed.Load(), int64(keys))
	n := countEvents(rec)
	t.Logf("workqueue: trace: %d add, %d add (deduplicated), %d get, %d done; %d items processed, every key's last Add among them",
		n["add"], n["add (deduplicated)"], n["get"], n["done"], processed.Load())
	require.LessOrEqual(t, processed.Load(), int64(producers*addsByProducer))
	require.Equal(t, 0, q.Len())
	t.Logf("%d adds, %d processed (the rest were deduplicated)", producers*addsByProducer, processed.Load())
}

// The same invariants through the rate-limiting path: producers call Add,
// AddAfter and AddRateLimited concurrently while a goroutine keeps stepping
// the fake clock, so the waiting loop races the producers and the workers.
// Once the producers stop, the clock jumps past every delay and the test
// waits (with a deadline) until every key's last Add has been processed.
func TestRateLimitingQueue_StressAddAfterWithManyWorkers(t *testing.T) {
	const (
		producers      = 4
		workers        = 4
		keys           = 32
		addsByProducer = 1000
	)
	clk := clock.NewFakeClock(epoch)
	rec := trace.NewRecorder()
	q := NewTypedRateLimitingQueueWithConfig(NewItemFastSlowRateLimiter[int](time.Millisecond, 3*time.Millisecond, 2),
		QueueConfig{Clock: clk, Tracer: rec.Tracer()})
	t.Logf("workqueue: %d producers Add, AddAfter and AddRateLimited %d times each over %d keys while the clock ticks and %d workers Get",
		producers, addsByProducer, keys, workers)
	var (
		addCount [keys]atomic.Int64
		lastSeen [keys]atomic.Int64
		inFlight [keys]atomic.Bool
		overlaps atomic.Int64
	)
	var workersDone sync.WaitGroup
	for range workers {
		workersDone.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if !inFlight[key].CompareAndSwap(false, true) {
					overlaps.Add(1)
				}
				lastSeen[key].Store(addCount[key].Load())
				inFlight[key].Store(false)
				q.Forget(key)
				q.Done(key)
			}
		})
	}
	stopClock := make(chan struct{})
	var clockDone sync.WaitGroup
	clockDone.Go(func() {
		for {
			select {
			case <-stopClock:
				return
			default:
				clk.Step(time.Millisecond)
				runtime.Gosched()
			}
		}
	})
	var producersDone sync.WaitGroup
	for p := range producers {
		producersDone.Go(func() {
			for n := range addsByProducer {
				key := (n*5 + p*11) % keys
				addCount[key].Add(1)
				switch n % 3 {
				case 0:
					q.Add(key)
				case 1:
					q.AddAfter(key, time.Duration(n%4)*time.Millisecond)
				default:
					q.AddRateLimited(key)
				}
			}
		})
	}
	producersDone.Wait()
	close(stopClock)
	clockDone.Wait()
	clk.Step(time.Hour) // everything still waiting is now due

	require.Eventually(t, func() bool {
		for i := range keys {
			if lastSeen[i].Load() != addCount[i].Load() {
				return false
			}
		}
		return true
	}, 10*time.Second, time.Millisecond, "some key's last Add was never processed")
	q.ShutDown()
	workersDone.Wait()
	require.Zero(t, overlaps.Load(), "a key was processed by two workers at once")
	n := countEvents(rec)
	t.Logf("workqueue: trace: %d add, %d add (deduplicated), %d add after, %d retry, %d get, %d done; no key processed twice at once",
		n["add"], n["add (deduplicated)"], n["add after"], n["retry"], n["get"], n["done"])
}
