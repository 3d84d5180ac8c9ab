package workqueue

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// getResult is what a Get running in its own goroutine returned.
type getResult struct {
	item     string
	shutdown bool
}

// goGet runs Get in a goroutine and delivers its result on the channel.
func goGet(q Interface[string]) <-chan getResult {
	ch := make(chan getResult, 1)
	go func() {
		item, shutdown := q.Get()
		ch <- getResult{item, shutdown}
	}()
	return ch
}

// hasValue reports whether a value is ready on ch, taking it if so.
func hasValue[T any](ch <-chan T) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool { return hasValue(ch) }

// Article: Kubernetes-Informer (smartkeyerror) §2: many events for one key
// while it waits in the queue are processed once.
func TestQueue_DedupWhileQueued(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	defer q.ShutDown()
	for _, key := range []string{"default/a", "default/b", "default/a", "default/a", "default/b"} {
		q.Add(key)
	}
	require.Equal(t, 2, q.Len(), "five adds of two keys must queue two items")
	require.Equal(t, "default/a", getQueued(t, q))
	require.Equal(t, "default/b", getQueued(t, q))
	require.Equal(t, 0, q.Len())
}

// The queue is fair: items come out in the order they first went in.
func TestQueue_FIFOOrder(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	defer q.ShutDown()
	in := []string{"c", "a", "b", "a", "d"}
	for _, key := range in {
		q.Add(key)
	}
	var out []string
	for q.Len() > 0 {
		item := getQueued(t, q)
		out = append(out, item)
		q.Done(item)
	}
	require.Equal(t, []string{"c", "a", "b", "d"}, out)
}

// Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), processNextItem:
// Done unblocks the key for other workers, and until then no other worker
// gets it, so one key is never processed by two workers in parallel.
func TestQueue_NoParallelProcessingOfSameItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
		defer q.ShutDown()
		q.Add("default/web-0")
		require.Equal(t, "default/web-0", getQueued(t, q)) // worker 1 holds it

		q.Add("default/web-0") // an event arrives while worker 1 works
		require.Equal(t, 0, q.Len(), "an item being processed must not be queued for another worker")

		second := goGet(q) // worker 2 asks for work
		synctest.Wait()
		require.False(t, hasValue(second), "worker 2 got the item while worker 1 still held it")

		q.Done("default/web-0")
		synctest.Wait()
		got := <-second
		require.Equal(t, getResult{"default/web-0", false}, got, "worker 2 gets the item only after Done")
		q.Done("default/web-0")
	})
}

// An item re-added (once or many times) while it is processed is queued
// again, once, when Done is called.
func TestQueue_ReAddDuringProcessingRequeuedOnDone(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	defer q.ShutDown()
	q.Add("a")
	item := getQueued(t, q)
	q.Add("a")
	q.Add("a")
	require.Equal(t, 0, q.Len(), "re-added item must wait for Done")
	q.Done(item)
	require.Equal(t, 1, q.Len(), "Done must queue the re-added item exactly once")
	require.Equal(t, "a", getQueued(t, q))
	q.Done("a")
	require.Equal(t, 0, q.Len(), "an item not re-added is not queued again by Done")
}

// Done of an item the queue did not hand out is ignored: it must not put a
// second copy of a queued item in the queue.
func TestQueue_DoneOfItemNotProcessingIsNoop(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	defer q.ShutDown()
	q.Add("a")
	q.Done("a") // a is queued, not processing
	q.Done("never-added")
	require.Equal(t, 1, q.Len())
}

// A Get blocked on an empty queue returns shutdown=true when ShutDown is
// called, and every later Get returns at once.
func TestQueue_ShutDownUnblocksGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
		blocked := []<-chan getResult{goGet(q), goGet(q)}
		synctest.Wait()
		for _, ch := range blocked {
			require.False(t, hasValue(ch), "Get on an empty queue must block")
		}
		t.Log("worker: two workers are blocked in Get on the empty queue; shutting it down")
		q.ShutDown()
		synctest.Wait()
		for _, ch := range blocked {
			require.Equal(t, getResult{"", true}, <-ch)
		}
		t.Log("worker: both Gets returned shutdown=true")
		_, shutdown := q.Get()
		require.True(t, shutdown)
		require.True(t, q.ShuttingDown())
	})
}

// client-go notes §3 row 13 (kubernetes/kubernetes#131200):
// after ShutDown, Get still hands out every queued item, then reports
// shutdown; Add is ignored.
func TestQueue_ShutDownStillHandsOutQueuedItems(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	q.Add("c") // ignored
	require.Equal(t, 2, q.Len())
	for _, want := range []string{"a", "b"} {
		item, shutdown := q.Get()
		require.False(t, shutdown, "queued item must be handed out after ShutDown")
		require.Equal(t, want, item)
		q.Done(item)
	}
	_, shutdown := q.Get()
	require.True(t, shutdown, "empty queue after ShutDown must report shutdown")
}

// An item re-added while processing, before ShutDown, is queued again by
// Done after ShutDown and still handed out.
func TestQueue_ShutDownKeepsItemReAddedWhileProcessing(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
	q.Add("a")
	item := getQueued(t, q)
	q.Add("a")
	q.ShutDown()
	q.Done(item)
	require.Equal(t, "a", getQueued(t, q))
	q.Done("a")
	_, shutdown := q.Get()
	require.True(t, shutdown)
}

// ShutDownWithDrain returns only when every item handed out by Get is Done.
func TestQueue_ShutDownWithDrainWaitsForDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
		q.Add("a")
		q.Add("b")
		a, b := getQueued(t, q), getQueued(t, q)

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		require.True(t, q.ShuttingDown())
		require.False(t, isClosed(drained), "drain returned with two items processing")

		q.Add("c") // shutting down: ignored
		require.Equal(t, 0, q.Len())

		q.Done(a)
		synctest.Wait()
		require.False(t, isClosed(drained), "drain returned with one item processing")

		q.Done(b)
		synctest.Wait()
		require.True(t, isClosed(drained), "drain must return once nothing is processing")
	})
}

// kubernetes/kubernetes#141079: ShutDownWithDrain waits for processing, not
// for items still queued. They stay queued and Get still hands them out.
func TestQueue_ShutDownWithDrainDoesNotWaitForQueuedItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
		q.Add("a")
		q.Add("b")
		a := getQueued(t, q)

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		require.False(t, isClosed(drained))

		q.Done(a)
		synctest.Wait()
		require.True(t, isClosed(drained), "drain waits for processing only")
		require.Equal(t, 1, q.Len(), "b is still queued after the drain returned")
		require.Equal(t, "b", getQueued(t, q))
		q.Done("b")
		_, shutdown := q.Get()
		require.True(t, shutdown)
	})
}

// A ShutDown while ShutDownWithDrain waits cuts the wait short.
func TestQueue_ShutDownCancelsDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{}))
		q.Add("stuck")
		_ = getQueued(t, q) // a worker that never calls Done

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		require.False(t, isClosed(drained))

		q.ShutDown()
		synctest.Wait()
		require.True(t, isClosed(drained), "ShutDown must release a waiting ShutDownWithDrain")
	})
}

// The FIFO reuses and compacts its slice; items keep their order across a
// compaction.
func TestQueue_FIFOKeepsOrderAcrossCompaction(t *testing.T) {
	var f fifo[int]
	next := 0
	for i := range 5000 {
		f.push(i)
		if i%3 == 0 { // pop one for every three pushed: head grows past 1024
			require.Equal(t, next, f.pop())
			next++
		}
	}
	for f.len() > 0 {
		require.Equal(t, next, f.pop())
		next++
	}
	require.Equal(t, 5000, next)
	require.Zero(t, f.head, "an emptied fifo starts again at the front")
	t.Logf("workqueue: 5000 items pushed, one popped per three pushed, then drained: all %d came out in order; head back at %d", next, f.head)
}
