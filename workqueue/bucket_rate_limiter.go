package workqueue

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
)

// BucketRateLimiter is a token bucket shared by all items: it lets burst
// retries through at once, then qps per second, whichever item they are
// for. It keeps no per-item history: Forget does nothing and NumRequeues is
// always 0.
//
// When has reservation semantics, like golang.org/x/time/rate's
// Limiter.Reserve (which client-go's BucketRateLimiter wraps): each call
// takes a token now, even if the bucket is empty, and returns how long until
// that token would have been earned. The bucket goes into debt, so under
// overload the delays compound: with qps 10 and burst 100, the first 100
// calls in an instant return 0 and the next ones 100 ms, 200 ms, 300 ms and
// so on, each waiting behind every reservation made before it, for
// whatever item. The caller is expected to wait that long (AddRateLimited
// does); it is not told to try again later. A burst of failures therefore
// delays every later retry, even of an item that failed only once
// (kubernetes-sigs/controller-runtime#1594 mistook this for exponential
// backoff).
type BucketRateLimiter[T comparable] struct {
	mu    sync.Mutex
	clock clock.Clock
	qps   float64
	burst float64
	// tokens is the bucket's level at last; negative when the bucket is in
	// debt to reservations.
	tokens float64
	last   time.Time
}

// NewBucketRateLimiter returns a token bucket that allows qps retries per
// second with bursts of burst, on the wall clock. The bucket starts full.
// qps must be positive and finite, and burst at least 1; otherwise no retry
// could ever pass, and it returns an error.
func NewBucketRateLimiter[T comparable](qps float64, burst int) (*BucketRateLimiter[T], error) {
	return NewBucketRateLimiterWithClock[T](qps, burst, nil)
}

// NewBucketRateLimiterWithClock is NewBucketRateLimiter with the clock the
// bucket refills on (nil means the wall clock); tests pass a fake clock.
func NewBucketRateLimiterWithClock[T comparable](qps float64, burst int, clk clock.Clock) (*BucketRateLimiter[T], error) {
	if !(qps > 0) || math.IsInf(qps, 1) {
		return nil, fmt.Errorf("workqueue: bucket rate limiter: qps must be a positive finite number, got %v", qps)
	}
	if burst < 1 {
		return nil, fmt.Errorf("workqueue: bucket rate limiter: burst must be at least 1, got %d", burst)
	}
	return newBucketRateLimiter[T](qps, burst, clk), nil
}

// newBucketRateLimiter skips validation, for callers with known-good values.
func newBucketRateLimiter[T comparable](qps float64, burst int, clk clock.Clock) *BucketRateLimiter[T] {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &BucketRateLimiter[T]{
		clock:  clk,
		qps:    qps,
		burst:  float64(burst),
		tokens: float64(burst),
		last:   clk.Now(),
	}
}

// When reserves one token and returns how long until it is earned: 0 while
// the bucket has tokens, otherwise (tokens owed)/qps. The item is ignored.
func (r *BucketRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refill(r.clock.Now())
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(-r.tokens / r.qps * float64(time.Second))
}

// refill adds the tokens earned since last, up to burst.
func (r *BucketRateLimiter[T]) refill(now time.Time) {
	if elapsed := now.Sub(r.last); elapsed > 0 {
		r.tokens = min(r.burst, r.tokens+elapsed.Seconds()*r.qps)
	}
	r.last = now
}

// NumRequeues is always 0: the bucket keeps no per-item history.
func (r *BucketRateLimiter[T]) NumRequeues(item T) int { return 0 }

// Forget does nothing: the bucket keeps no per-item history.
func (r *BucketRateLimiter[T]) Forget(item T) {}
