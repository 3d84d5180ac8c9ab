package workqueue

import (
	"log/slog"

	"github.com/kinformer/kinformer/trace"
)

// RateLimitingInterface is a delaying queue that delays retries according to
// a RateLimiter. It is the queue article 004's controller uses.
type RateLimitingInterface[T comparable] interface {
	DelayingInterface[T]
	// AddRateLimited records a failure of item with the rate limiter and
	// adds it after the delay the limiter returns. Call it when processing
	// item failed and should be retried.
	AddRateLimited(item T)
	// Forget clears item's failure history with the rate limiter, so its
	// next failure starts again at the shortest delay. Call it when item
	// was processed successfully, or when you give up on it. It does not
	// remove item from the queue.
	Forget(item T)
	// NumRequeues is the number of failures the rate limiter has recorded
	// for item since it was last forgotten.
	NumRequeues(item T) int
}

// NewTypedRateLimitingQueue returns a rate-limiting queue on the wall clock,
// without metrics. A nil rateLimiter means DefaultControllerRateLimiter.
// Call ShutDown to stop its waiting goroutine.
func NewTypedRateLimitingQueue[T comparable](rateLimiter RateLimiter[T]) RateLimitingInterface[T] {
	return NewTypedRateLimitingQueueWithConfig(rateLimiter, QueueConfig{})
}

// NewTypedRateLimitingQueueWithConfig returns a rate-limiting queue configured by
// config. A nil rateLimiter means DefaultControllerRateLimiter. The limiter
// keeps its own clock: config.Clock only drives the delays.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter RateLimiter[T], config QueueConfig) RateLimitingInterface[T] {
	if rateLimiter == nil {
		rateLimiter = DefaultControllerRateLimiter[T]()
	}
	return &rateLimitingType[T]{
		delayingType: newDelayingQueue[T](config),
		rateLimiter:  rateLimiter,
	}
}

type rateLimitingType[T comparable] struct {
	*delayingType[T]
	rateLimiter RateLimiter[T]
}

// AddRateLimited is AddAfter(item, rateLimiter.When(item)).
func (q *rateLimitingType[T]) AddRateLimited(item T) {
	d := q.rateLimiter.When(item)
	if q.tracer.On() {
		q.traceLocking("retry", slog.Any(trace.KeyKey, item), trace.Delay(d), trace.Count(q.rateLimiter.NumRequeues(item)))
	}
	q.AddAfter(item, d)
}

// Forget clears item's failure history with the rate limiter.
func (q *rateLimitingType[T]) Forget(item T) {
	if q.tracer.On() && q.rateLimiter.NumRequeues(item) > 0 {
		q.traceLocking("forget", slog.Any(trace.KeyKey, item), trace.Reason("its failures are forgotten: the next retry starts from the base delay"))
	}
	q.rateLimiter.Forget(item)
}

// NumRequeues returns the rate limiter's failure count for item.
func (q *rateLimitingType[T]) NumRequeues(item T) int {
	return q.rateLimiter.NumRequeues(item)
}
