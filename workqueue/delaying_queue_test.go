package workqueue

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/stretchr/testify/require"
)

// Every delaying test runs in a synctest bubble with a fake clock: the fake
// clock decides when items are due, and synctest.Wait returns once the
// waiting loop has acted on a Step and is blocked again, so no test waits
// on real time.

func newFakeDelayingQueue(t *testing.T) (*delayingType[string], *clock.FakeClock) {
	t.Helper()
	clk := clock.NewFakeClock(epoch)
	q := newDelayingQueue[string](traceConfig(t, QueueConfig{Clock: clk}))
	t.Cleanup(q.ShutDown)
	return q, clk
}

// An item added with AddAfter reaches the queue when its delay has passed on
// the queue's clock, not before.
func TestDelaying_AddAfterWaitsForTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, clk := newFakeDelayingQueue(t)
		q.AddAfter("a", time.Second)
		synctest.Wait()
		require.Equal(t, 0, q.Len())
		require.Equal(t, 1, clk.Waiters(), "the waiting loop arms one timer")

		stepClock(t, clk, 999*time.Millisecond)
		synctest.Wait()
		require.Equal(t, 0, q.Len(), "item added before its delay passed")

		stepClock(t, clk, time.Millisecond)
		synctest.Wait()
		require.Equal(t, 1, q.Len())
		require.Equal(t, 0, clk.Waiters(), "nothing waits, so no timer stays armed")
	})
}

// Items become ready in deadline order, whatever order they were added in;
// equal deadlines keep the order of AddAfter.
func TestDelaying_FiresInDeadlineOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, clk := newFakeDelayingQueue(t)
		q.AddAfter("c", 3*time.Second)
		q.AddAfter("a", 1*time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("b2", 2*time.Second) // same deadline as b, added later
		synctest.Wait()

		stepClock(t, clk, time.Second)
		synctest.Wait()
		require.Equal(t, 1, q.Len(), "only a is due after 1s")

		stepClock(t, clk, 5*time.Second) // b, b2 and c all become due in one step
		synctest.Wait()
		var got []string
		for q.Len() > 0 {
			got = append(got, getQueued(t, q))
		}
		require.Equal(t, []string{"a", "b", "b2", "c"}, got)
	})
}

// Re-adding an item that is already waiting keeps the earlier ready time,
// and the item fires once.
func TestDelaying_ReAddKeepsEarliest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, clk := newFakeDelayingQueue(t)
		q.AddAfter("later-readd", 10*time.Second)
		q.AddAfter("later-readd", 20*time.Second) // later: ignored
		q.AddAfter("earlier-readd", 20*time.Second)
		synctest.Wait()                            // the loop sleeps until 10 s
		q.AddAfter("earlier-readd", 5*time.Second) // earlier: wins, and wakes the loop
		synctest.Wait()

		stepClock(t, clk, 5*time.Second)
		synctest.Wait()
		require.Equal(t, "earlier-readd", getQueued(t, q))
		require.Equal(t, 0, q.Len())

		stepClock(t, clk, 5*time.Second)
		synctest.Wait()
		require.Equal(t, "later-readd", getQueued(t, q))
		q.Done("earlier-readd")
		q.Done("later-readd")

		stepClock(t, clk, time.Minute) // past both discarded ready times
		synctest.Wait()
		require.Equal(t, 0, q.Len(), "a re-added item must not fire a second time")
		require.Equal(t, 0, clk.Waiters())
	})
}

// An item earlier than everything waiting wakes the loop, which re-arms its
// timer for the new earliest time.
func TestDelaying_EarlierItemRearmsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, clk := newFakeDelayingQueue(t)
		q.AddAfter("slow", time.Hour)
		synctest.Wait()
		q.AddAfter("fast", time.Second)
		synctest.Wait()
		require.Equal(t, 1, clk.Waiters(), "one timer, re-armed, not two")

		stepClock(t, clk, time.Second)
		synctest.Wait()
		require.Equal(t, "fast", getQueued(t, q))
		require.Equal(t, 1, clk.Waiters(), "the timer is re-armed for the hour-long item")
	})
}

// jumpingClock is a fake clock that jumps forward once, inside the first
// NewTimer call, before the timer is armed: the moment between the waiting
// loop computing how long to sleep and its timer existing.
type jumpingClock struct {
	*clock.FakeClock
	jump   time.Duration
	jumped bool // only touched by the waiting loop's goroutine
}

func (c *jumpingClock) NewTimer(d time.Duration) clock.Timer {
	if !c.jumped {
		c.jumped = true
		c.Step(c.jump)
	}
	return c.FakeClock.NewTimer(d)
}

// If the clock passes the next ready time while the waiting loop arms its
// timer, the timer (armed relative to the later time) would oversleep; the
// loop sees the clock already there and goes round instead, adding the item
// without another Step.
func TestDelaying_ClockJumpWhileArmingTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &jumpingClock{FakeClock: clock.NewFakeClock(epoch), jump: time.Second}
		q := newDelayingQueue[string](traceConfig(t, QueueConfig{Clock: clk}))
		defer q.ShutDown()
		synctest.Wait() // the waiting loop is idle, nothing pending

		q.AddAfter("a", time.Second) // the loop arms a 1 s timer; the clock jumps 1 s meanwhile
		synctest.Wait()
		require.Equal(t, 1, q.Len(), "the item is due at the clock's time: added without waiting for another Step")
	})
}

// A delay <= 0 adds at once, without the waiting loop.
func TestDelaying_NonPositiveDelayAddsNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, _ := newFakeDelayingQueue(t)
		q.AddAfter("zero", 0)
		q.AddAfter("negative", -time.Second)
		require.Equal(t, 2, q.Len())
	})
}

// ShutDown stops the waiting loop (synctest fails the test if a goroutine
// of the bubble outlives it), drops items still waiting, and ignores later
// AddAfter calls.
func TestDelaying_ShutDownStopsWaitingLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := newDelayingQueue[string](traceConfig(t, QueueConfig{Clock: clk}))
		q.AddAfter("waiting", time.Second)
		synctest.Wait()

		q.ShutDown()
		synctest.Wait()
		require.Equal(t, 0, clk.Waiters(), "the loop's timer must be stopped")
		q.AddAfter("after-shutdown", time.Second)
		q.AddAfter("after-shutdown-now", 0)
		stepClock(t, clk, time.Hour)
		synctest.Wait()
		require.Equal(t, 0, q.Len(), "waiting items are dropped on ShutDown")
		_, shutdown := q.Get()
		require.True(t, shutdown)
	})
}

// ShutDownWithDrain on a delaying queue also stops the loop, and waits for
// processing items.
func TestDelaying_ShutDownWithDrainStopsWaitingLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := newDelayingQueue[string](traceConfig(t, QueueConfig{Clock: clk}))
		q.Add("processing")
		item := getQueued(t, q)
		q.AddAfter("waiting", time.Second)

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		require.False(t, isClosed(drained))
		require.Equal(t, 0, clk.Waiters())
		q.Done(item)
		synctest.Wait()
		require.True(t, isClosed(drained))
	})
}
