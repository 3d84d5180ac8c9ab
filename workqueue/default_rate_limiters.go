package workqueue

import (
	"math"
	"sync"
	"time"
)

// RateLimiter decides how long a failed item waits before it is retried.
// Implementations are safe for concurrent use.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it. Every call counts: asking is failing.
	When(item T) time.Duration
	// Forget clears item's history, as if it had never failed. (A limiter
	// shared by all items, such as the token bucket, ignores it.)
	Forget(item T)
	// NumRequeues returns how many failures are recorded for item.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter is the limiter client-go gives controllers:
// the larger of a per-item exponential backoff from 5 ms doubling to
// 1000 s, and a token bucket of 10 qps with a burst of 100 shared by all
// items. The exponential part slows one item that keeps failing; the
// bucket caps the retries of all items together once more than 100 fail in
// a burst (see BucketRateLimiter for how its delays compound).
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		newBucketRateLimiter[T](10, 100, nil),
	)
}

// DefaultItemBasedRateLimiter is a per-item exponential backoff from 1 ms
// doubling to 1000 s, with no overall limit.
func DefaultItemBasedRateLimiter[T comparable]() RateLimiter[T] {
	return NewItemExponentialFailureRateLimiter[T](time.Millisecond, 1000*time.Second)
}

// ItemExponentialFailureRateLimiter delays an item base·2^n, where n is the
// number of failures recorded for it before this one, capped at max:
// with base 5 ms the delays are 5 ms, 10 ms, 20 ms, ... up to max.
type ItemExponentialFailureRateLimiter[T comparable] struct {
	mu        sync.Mutex
	failures  map[T]int
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewItemExponentialFailureRateLimiter returns a per-item exponential
// limiter. A baseDelay <= 0 never delays; a maxDelay below baseDelay caps
// every delay at maxDelay.
func NewItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) *ItemExponentialFailureRateLimiter[T] {
	return &ItemExponentialFailureRateLimiter[T]{
		failures:  make(map[T]int),
		baseDelay: baseDelay,
		maxDelay:  maxDelay,
	}
}

// When returns base·2^(failures so far), capped at max, and records one more
// failure. The doubling is done in float64 and compared with the cap before
// converting, so a long-failing item gets max, never an overflowed negative.
func (r *ItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := r.failures[item]
	r.failures[item] = exp + 1
	if r.baseDelay <= 0 {
		return 0
	}
	backoff := float64(r.baseDelay) * math.Pow(2, float64(exp))
	if backoff >= float64(r.maxDelay) {
		return max(r.maxDelay, 0)
	}
	return time.Duration(backoff)
}

// NumRequeues returns the failures recorded for item.
func (r *ItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// Forget clears item's failures: its next delay is baseDelay again.
func (r *ItemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// ItemFastSlowRateLimiter retries an item quickly a few times, then slowly:
// the first maxFastAttempts failures wait fastDelay, every later one
// slowDelay.
type ItemFastSlowRateLimiter[T comparable] struct {
	mu              sync.Mutex
	failures        map[T]int
	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
}

// NewItemFastSlowRateLimiter returns a fast/slow limiter. maxFastAttempts
// <= 0 makes every retry slow.
func NewItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) *ItemFastSlowRateLimiter[T] {
	return &ItemFastSlowRateLimiter[T]{
		failures:        make(map[T]int),
		fastDelay:       fastDelay,
		slowDelay:       slowDelay,
		maxFastAttempts: maxFastAttempts,
	}
}

// When records a failure and returns fastDelay for the first
// maxFastAttempts failures of item, slowDelay after that.
func (r *ItemFastSlowRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures[item]++
	if r.failures[item] <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

// NumRequeues returns the failures recorded for item.
func (r *ItemFastSlowRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// Forget clears item's failures: it gets fast retries again.
func (r *ItemFastSlowRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// MaxOfRateLimiter combines limiters by taking the worst of them: When asks
// every limiter (so each records the failure) and returns the longest
// delay, NumRequeues is the largest count, and Forget forgets in all.
type MaxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOfRateLimiter returns a limiter that is the maximum of limiters. Nil
// limiters are skipped; with none left it never delays.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) *MaxOfRateLimiter[T] {
	kept := make([]RateLimiter[T], 0, len(limiters))
	for _, l := range limiters {
		if l != nil {
			kept = append(kept, l)
		}
	}
	return &MaxOfRateLimiter[T]{limiters: kept}
}

// When returns the longest delay any limiter asks for; every limiter
// records the failure.
func (r *MaxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

// NumRequeues returns the largest failure count among the limiters.
func (r *MaxOfRateLimiter[T]) NumRequeues(item T) int {
	var most int
	for _, l := range r.limiters {
		most = max(most, l.NumRequeues(item))
	}
	return most
}

// Forget forgets item in every limiter.
func (r *MaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}
