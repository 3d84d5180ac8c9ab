package workqueue

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/internal/clock"
	"github.com/stretchr/testify/require"
)

// AddRateLimited asks the limiter for the delay and adds the item that much
// later; NumRequeues and Forget go to the limiter.
func TestRateLimitingQueue_AddRateLimitedDelaysByWhen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := NewRateLimitingQueueWithConfig(
			NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			QueueConfig{Clock: clk})
		defer q.ShutDown()

		for i, delay := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			q.AddRateLimited("a")
			require.Equal(t, i+1, q.NumRequeues("a"))
			synctest.Wait()
			clk.Step(delay - time.Nanosecond)
			synctest.Wait()
			require.Equal(t, 0, q.Len(), "retry %d came early", i+1)
			clk.Step(time.Nanosecond)
			synctest.Wait()
			require.Equal(t, "a", getQueued(t, q), "retry %d", i+1)
			q.Done("a")
		}

		q.Forget("a")
		require.Equal(t, 0, q.NumRequeues("a"))
		q.AddRateLimited("a")
		synctest.Wait()
		clk.Step(time.Second)
		synctest.Wait()
		require.Equal(t, 1, q.Len(), "after Forget the delay is the base delay again")
	})
}

// A nil limiter means DefaultControllerRateLimiter, not a panic.
func TestRateLimitingQueue_NilLimiterIsDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		q := NewRateLimitingQueueWithConfig[string](nil, QueueConfig{Clock: clk})
		defer q.ShutDown()
		q.AddRateLimited("a")
		require.Equal(t, 1, q.NumRequeues("a"))
		synctest.Wait()
		clk.Step(5 * time.Millisecond)
		synctest.Wait()
		require.Equal(t, 1, q.Len())
	})
}
