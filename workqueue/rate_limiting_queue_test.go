package workqueue

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/stretchr/testify/require"
)

// AddRateLimited asks the limiter for the delay and adds the item that much
// later; NumRequeues and Forget go to the limiter.
func TestRateLimitingQueue_AddRateLimitedDelaysByWhen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := NewTypedRateLimitingQueueWithConfig(
			NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			traceConfig(t, QueueConfig{Clock: clk}))
		defer q.ShutDown()

		for i, delay := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			q.AddRateLimited("a")
			require.Equal(t, i+1, q.NumRequeues("a"))
			synctest.Wait()
			stepClock(t, clk, delay-time.Nanosecond)
			synctest.Wait()
			require.Equal(t, 0, q.Len(), "retry %d came early", i+1)
			stepClock(t, clk, time.Nanosecond)
			synctest.Wait()
			require.Equal(t, "a", getQueued(t, q), "retry %d", i+1)
			q.Done("a")
		}

		q.Forget("a")
		require.Equal(t, 0, q.NumRequeues("a"))
		q.AddRateLimited("a")
		synctest.Wait()
		stepClock(t, clk, time.Second)
		synctest.Wait()
		require.Equal(t, 1, q.Len(), "after Forget the delay is the base delay again")
	})
}

// A nil limiter means DefaultControllerRateLimiter, not a panic.
func TestRateLimitingQueue_NilLimiterIsDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := NewTypedRateLimitingQueueWithConfig[string](nil, traceConfig(t, QueueConfig{Clock: clk}))
		defer q.ShutDown()
		q.AddRateLimited("a")
		require.Equal(t, 1, q.NumRequeues("a"))
		synctest.Wait()
		stepClock(t, clk, 5*time.Millisecond)
		synctest.Wait()
		require.Equal(t, 1, q.Len())
	})
}
