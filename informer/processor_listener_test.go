package informer

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// The ring buffer grows without bound and hands elements back in order,
// across growths and wrap-arounds.
func TestProcessorListener_RingGrowingKeepsOrder(t *testing.T) {
	r := newRingGrowing(2)
	next, want := 0, 0
	for round := range 5 {
		for range 3 + round*7 { // write more than is read: the ring must grow
			r.writeOne(addNotification{newObj: next})
			next++
		}
		for range 2 + round*5 {
			v, ok := r.readOne()
			require.True(t, ok)
			require.Equal(t, addNotification{newObj: want}, v)
			want++
		}
	}
	for v, ok := r.readOne(); ok; v, ok = r.readOne() {
		require.Equal(t, addNotification{newObj: want}, v)
		want++
	}
	require.Equal(t, next, want, "every element written was read back, once")
}

// add never waits for the handler: with the handler blocked, thousands of
// notifications go in (more than the initial buffer), Pending counts them,
// and once released the handler gets every one, in order.
// Article: "informer" notes §2.7 (per-handler unbounded queue).
func TestProcessorListener_AddNeverBlocksOnASlowHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var got []int
		h := ResourceEventHandlerFuncs{AddFunc: func(obj any, _ bool) {
			<-gate
			got = append(got, obj.(int))
		}}
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		done := make(chan struct{})
		go func() { l.pop(); done <- struct{}{} }()
		go func() { l.run(); done <- struct{}{} }()

		const n = 3 * initialBufferSize
		for i := range n {
			l.add(addNotification{newObj: i}) // returns although the handler is blocked
		}
		synctest.Wait()
		t.Logf("informer: %d notifications added while the handler is blocked on the first (the buffer starts at %d); Pending=%d",
			n, initialBufferSize, l.Pending())
		require.Equal(t, n, l.Pending())

		t.Log("handler: unblocked")
		close(gate)
		synctest.Wait()
		t.Logf("informer: the handler got %d notifications; Pending=%d", len(got), l.Pending())
		require.Equal(t, 0, l.Pending())
		require.Len(t, got, n)
		for i, v := range got {
			require.Equal(t, i, v)
		}

		l.stop() // what the processor does to stop a listener
		<-done
		<-done
	})
}

// A stopped listener drops what is still buffered and its goroutines
// return once the handler call in progress finishes.
func TestProcessorListener_StopDropsBuffered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		calls := 0
		h := ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { <-gate; calls++ }}
		p := newSharedProcessor(nil)
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		l.name, l.tracer = "blocked", trace.ForTest(t).Stage(trace.StageInformer)
		t.Log("handler: blocked in its first OnUpdate until the test opens a gate")
		p.addListener(l)
		p.start()
		for range 10 {
			p.distribute(updateNotification{})
		}
		synctest.Wait()
		stopped := make(chan struct{})
		go func() { p.stop(); close(stopped) }()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("stop returned while a handler call was in progress")
		default:
		}
		t.Log("informer: stop is waiting for the call in progress; opening the gate")
		close(gate)
		<-stopped
		t.Logf("handler: %d call(s); the 9 buffered notifications were dropped", calls)
		require.Equal(t, 1, calls, "the call in progress finished; the 9 buffered were dropped")
	})
}
