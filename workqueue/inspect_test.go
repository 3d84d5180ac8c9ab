package workqueue

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/trace"
)

// The lab sees the queue's three structures and its delays after every
// hop: the queue in Get order, the dirty set, the processing set, and the
// items waiting for their time, soonest first, with when they are due. An
// item that was waiting is gone from Waiting in the very state that shows
// it queued.
func TestWorkQueue_InspectShowsQueueDirtyProcessingWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab, tr := labtest.New(t)
		clk := clock.NewFakeClock(epoch)
		q := NewTypedRateLimitingQueueWithConfig(NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			QueueConfig{Name: "replicaset", Clock: clk, Tracer: tr})
		defer q.ShutDown()

		t.Log("handlers (played by the test): a, b, a again; a worker takes a; a is added again while it has it")
		q.Add("a")
		q.Add("b")
		q.Add("a")
		require.Equal(t, QueueState{Queue: []string{"a", "b"}, Dirty: []string{"a", "b"}, Processing: []string{}, Waiting: []WaitingItem{}},
			labtest.Last[QueueState](lab, "add (deduplicated)"))
		a := getQueued(t, q)
		require.Equal(t, QueueState{Queue: []string{"b"}, Dirty: []string{"b"}, Processing: []string{"a"}, Waiting: []WaitingItem{}},
			labtest.Last[QueueState](lab, "get"))
		q.Add("a")
		require.Equal(t, QueueState{Queue: []string{"b"}, Dirty: []string{"a", "b"}, Processing: []string{"a"}, Waiting: []WaitingItem{}},
			labtest.Last[QueueState](lab, "add (while processing)"), "dirty, not queued: Done will queue it")
		q.Done(a)
		require.Equal(t, []string{"b", "a"}, labtest.Last[QueueState](lab, "done (queued again)").Queue)

		t.Log("worker: b fails, retried after 1s; c is put off for 2s")
		b := getQueued(t, q)
		q.AddRateLimited(b)
		q.Done(b)
		q.AddAfter("c", 2*time.Second)
		synctest.Wait()
		require.Equal(t, []WaitingItem{{Key: "b", Due: epoch.Add(time.Second)}, {Key: "c", Due: epoch.Add(2 * time.Second)}},
			labtest.Last[QueueState](lab, "add after").Waiting)
		require.Empty(t, labtest.Last[QueueState](lab, "retry").Waiting, `"retry" comes before the wait it decides`)

		stepClock(t, clk, time.Second)
		synctest.Wait()
		due := labtest.Last[QueueState](lab, "add")
		require.Equal(t, []string{"a", "b"}, due.Queue)
		require.Equal(t, []WaitingItem{{Key: "c", Due: epoch.Add(2 * time.Second)}}, due.Waiting, "b left Waiting as it joined Queue")

		t.Log("worker: d put off for 1s, due with c; the clock reaches both")
		q.AddAfter("d", time.Second)
		stepClock(t, clk, time.Second)
		synctest.Wait()
		adds := labtest.States[QueueState](lab, "add")
		require.Equal(t, []WaitingItem{{Key: "d", Due: epoch.Add(2 * time.Second)}}, adds[len(adds)-2].Waiting,
			"due together, added one at a time: when c is queued, d still waits")
		require.Equal(t, []string{"a", "b", "c", "d"}, adds[len(adds)-1].Queue)
		require.Empty(t, adds[len(adds)-1].Waiting)

		q.Forget("b")
		labtest.Last[QueueState](lab, "forget")
		for _, e := range lab.Events() {
			require.Equal(t, "replicaset", e.State.Name, "%s: the box is named by QueueConfig.Name", e)
		}
	})
}

// Inspecting off costs nothing: Add, Get and Done (and a Forget) traced to
// a consumer that does not inspect allocate what they did before the lab
// existed; untraced, nothing.
func TestWorkQueue_InspectOffAddsNothing(t *testing.T) {
	on := trace.New(trace.Func(func(trace.Event) {}))
	inspect := trace.New(trace.Inspect(func(trace.Event) {}))
	allocs := func(tr *trace.Tracer) float64 {
		q := NewTypedRateLimitingQueueWithConfig(NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute), QueueConfig{Tracer: tr})
		defer q.ShutDown()
		return testing.AllocsPerRun(100, func() {
			q.Add("default/a")
			q.Add("default/a")
			k, _ := q.Get()
			q.Add(k)
			q.Done(k)
			k, _ = q.Get()
			q.Done(k)
			q.Forget(k)
		})
	}
	off, notInspecting, inspecting := allocs(nil), allocs(on), allocs(inspect)
	t.Logf("add, dedup, get, add while processing, done, get, done, forget: %v allocations untraced, %v traced, %v inspected",
		off, notInspecting, inspecting)
	require.Zero(t, off, "untraced: as before the lab")
	require.Equal(t, 17.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)
}
