package workqueue

import (
	"math"
	"testing"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

// whens calls When n times for item and returns the delays, which the
// test's log shows.
func whens(t testing.TB, r RateLimiter[string], item string, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = r.When(item)
	}
	t.Logf("limiter: %d failures of %s: When = %v", n, item, out)
	return out
}

// Per-item exponential: base·2^failures, capped; items are independent.
func TestRateLimiter_ExponentialDoublesToCap(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[string](5*ms, time.Second)
	require.Equal(t,
		[]time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second},
		whens(t, r, "a", 10))
	require.Equal(t, 10, r.NumRequeues("a"))
	require.Equal(t, 5*ms, r.When("b"), "another item starts at the base delay")
	require.Equal(t, 1, r.NumRequeues("b"))
}

// Thousands of failures must not overflow into a negative or tiny delay.
func TestRateLimiter_ExponentialOverflowSafe(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[string](time.Nanosecond, time.Duration(math.MaxInt64))
	for i := range 2000 {
		d := r.When("a")
		require.Positive(t, d, "failure %d", i)
		if i > 70 {
			require.Equal(t, time.Duration(math.MaxInt64), d, "failure %d must be capped", i)
		}
		if i == 0 || i == 70 || i == 1999 {
			t.Logf("limiter: failure %d of a: When = %v", i+1, d)
		}
	}
}

// Odd arguments give sensible delays, never a panic.
func TestRateLimiter_ExponentialOddArguments(t *testing.T) {
	t.Log("limiter: base 0 waits 0; a base above the cap waits the cap; a negative cap waits 0")
	require.Equal(t, time.Duration(0), NewItemExponentialFailureRateLimiter[string](0, time.Second).When("a"))
	require.Equal(t, time.Second, NewItemExponentialFailureRateLimiter[string](time.Minute, time.Second).When("a"))
	require.Equal(t, time.Duration(0), NewItemExponentialFailureRateLimiter[string](time.Second, -time.Second).When("a"))
}

// Forget clears an item's history in every per-item limiter: NumRequeues is
// 0 and the next When is the first delay again.
func TestRateLimiter_ForgetResets(t *testing.T) {
	tests := []struct {
		name    string
		limiter RateLimiter[string]
		first   time.Duration
	}{
		{"exponential", NewItemExponentialFailureRateLimiter[string](5*ms, time.Minute), 5 * ms},
		{"fast/slow", NewItemFastSlowRateLimiter[string](5*ms, time.Minute, 1), 5 * ms},
		{"max-of", NewMaxOfRateLimiter(
			NewItemExponentialFailureRateLimiter[string](5*ms, time.Minute),
			RateLimiter[string](NewItemFastSlowRateLimiter[string](ms, time.Minute, 1))), 5 * ms},
		{"default controller", DefaultControllerRateLimiter[string](), 5 * ms},
		{"default item based", DefaultItemBasedRateLimiter[string](), ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.limiter
			require.Equal(t, tt.first, r.When("a"))
			require.Greater(t, r.When("a"), tt.first)
			r.When("a")
			require.Equal(t, 3, r.NumRequeues("a"))

			t.Logf("limiter %s: 3 failures of a, NumRequeues=%d; Forget(a)", tt.name, r.NumRequeues("a"))
			r.Forget("a")
			require.Equal(t, 0, r.NumRequeues("a"))
			first := r.When("a")
			t.Logf("limiter %s: after Forget, NumRequeues=0 and the next When = %v, the first delay again", tt.name, first)
			require.Equal(t, tt.first, first, "after Forget the backoff starts over")
		})
	}
}

// Token bucket: burst calls pass at once, then one per 1/qps; each call
// reserves a token, so delays of an overloaded bucket compound, across
// items (client-go notes §3 row 15, controller-runtime#1594).
func TestRateLimiter_BucketQPSAndBurst(t *testing.T) {
	clk := clock.NewFakeClock(epoch)
	r, err := NewBucketRateLimiterWithClock[string](10, 3, clk)
	require.NoError(t, err)

	items := []string{"a", "b", "c", "d", "e", "f"}
	var got []time.Duration
	for _, item := range items {
		got = append(got, r.When(item))
	}
	t.Logf("limiter: bucket 10 qps, burst 3: When for %v = %v", items, got)
	require.Equal(t, []time.Duration{0, 0, 0, 100 * ms, 200 * ms, 300 * ms}, got,
		"burst of 3 free, then each reservation waits behind the ones before it")

	clk.Step(200 * ms) // earns 2 tokens: the bucket is still 1 in debt
	require.Equal(t, 200*ms, r.When("g"), "debt of 1 plus this token, at 10 qps")

	clk.Step(10 * time.Second) // refills, but never above burst
	require.Equal(t, []time.Duration{0, 0, 0, 100 * ms}, whens(t, r, "h", 4))

	require.Equal(t, 0, r.NumRequeues("a"), "the bucket keeps no per-item history")
	r.Forget("a")
	require.Equal(t, 200*ms, r.When("a"), "Forget does not refund a token")
}

// The bucket refuses a configuration that could never let a retry through.
func TestRateLimiter_BucketRejectsBadConfig(t *testing.T) {
	for _, tt := range []struct {
		qps   float64
		burst int
		want  string
	}{
		{0, 10, "qps must be a positive finite number, got 0"},
		{-1, 10, "got -1"},
		{math.NaN(), 10, "got NaN"},
		{math.Inf(1), 10, "got +Inf"},
		{10, 0, "burst must be at least 1, got 0"},
	} {
		_, err := NewBucketRateLimiter[string](tt.qps, tt.burst)
		t.Logf("limiter: NewBucketRateLimiter(qps=%v, burst=%d): %v", tt.qps, tt.burst, err)
		require.ErrorContains(t, err, tt.want)
	}
}

// Fast/slow: the first maxFastAttempts failures wait fastDelay, later ones
// slowDelay; items are independent.
func TestRateLimiter_FastSlow(t *testing.T) {
	r := NewItemFastSlowRateLimiter[string](5*ms, 10*time.Second, 3)
	require.Equal(t, []time.Duration{5 * ms, 5 * ms, 5 * ms, 10 * time.Second, 10 * time.Second}, whens(t, r, "a", 5))
	require.Equal(t, 5, r.NumRequeues("a"))
	require.Equal(t, 5*ms, r.When("b"))

	allSlow := NewItemFastSlowRateLimiter[string](5*ms, time.Second, 0)
	require.Equal(t, time.Second, allSlow.When("a"), "maxFastAttempts 0 makes every retry slow")
}

// Max-of: When is the longest delay of all limiters, every limiter records
// the failure, NumRequeues is the largest count, Forget forgets in all.
func TestRateLimiter_MaxOf(t *testing.T) {
	exp := NewItemExponentialFailureRateLimiter[string](5*ms, time.Hour)
	fastSlow := NewItemFastSlowRateLimiter[string](3*ms, time.Second, 3)
	r := NewMaxOfRateLimiter[string](exp, fastSlow, nil)

	require.Equal(t, []time.Duration{5 * ms, 10 * ms, 20 * ms, time.Second, time.Second}, whens(t, r, "a", 5))
	require.Equal(t, 5, exp.NumRequeues("a"), "every limiter must see every failure")
	require.Equal(t, 5, fastSlow.NumRequeues("a"))
	require.Equal(t, 5, r.NumRequeues("a"))

	exp.Forget("a") // exp 0, fastSlow 5
	require.Equal(t, 5, r.NumRequeues("a"), "NumRequeues is the largest count")
	whens(t, exp, "a", 7) // exp 7, fastSlow 5
	require.Equal(t, 7, r.NumRequeues("a"), "NumRequeues is the largest count, whichever limiter has it")
	r.Forget("a")
	require.Equal(t, 0, exp.NumRequeues("a"))
	require.Equal(t, 0, fastSlow.NumRequeues("a"))

	require.Equal(t, time.Duration(0), NewMaxOfRateLimiter[string]().When("a"), "no limiters: no delay")
}

// The default controller limiter is max(exp 5ms..1000s, bucket 10 qps/100):
// for one failing item the exponential part decides.
func TestRateLimiter_DefaultControllerRateLimiter(t *testing.T) {
	r := DefaultControllerRateLimiter[string]()
	got := whens(t, r, "a", 20)
	for i, d := range got {
		want := min(5*ms<<i, 1000*time.Second)
		require.Equal(t, want, d, "failure %d", i)
	}
	require.Equal(t, 1000*time.Second, got[len(got)-1])
}
