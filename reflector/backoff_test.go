package reflector

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// Failures back off: 1 s, 2 s, 4 s, capped (the test's Backoff; client-go's
// is 800 ms doubling to 30 s with jitter). Stepping the clock a millisecond
// short of the wait does not retry.
func TestReflector_BackoffOnErrors(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.createPod("a")
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: http.StatusInternalServerError, Count: 4})
	e.opts.Backoff = Backoff{Initial: time.Second, Cap: 4 * time.Second, Factor: 2, ResetAfter: time.Hour}
	e.run()
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		require.Eventually(t, func() bool { return len(e.lw.Lists()) == i+1 }, 10*time.Second, time.Millisecond)
		require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
		e.clock.Step(wait - time.Millisecond)
		require.Len(t, e.lw.Lists(), i+1, "no retry before the backoff is over")
		require.Equal(t, 1, e.clock.Waiters())
		story(t, "%v waited: the list is retried", wait)
		e.clock.Step(time.Millisecond)
	}
	e.store.waitFor(t, "Replace")
	errs := e.errs.all()
	require.Len(t, errs, 4, "the watch error handler saw every failure")
	for _, err := range errs {
		require.True(t, listwatch.IsInternalError(err), "%v", err)
	}
}

func TestBackoff_DoublesToCapAndResetsAfterQuiet(t *testing.T) {
	clk := clock.NewFakeClock(epoch)
	b := backoffState{Backoff: Backoff{Initial: 800 * time.Millisecond, Cap: 30 * time.Second, Factor: 2, ResetAfter: 2 * time.Minute}, clock: clk}
	var got []time.Duration
	for range 8 {
		got = append(got, b.next())
	}
	require.Equal(t, []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}, got)
	clk.Step(2*time.Minute + time.Second) // healthy for a while
	require.Equal(t, 800*time.Millisecond, b.next())

	j := backoffState{Backoff: DefaultBackoff, clock: clk}
	seen := map[time.Duration]bool{}
	for range 100 {
		d := j.next()
		j.current = 0
		require.GreaterOrEqual(t, d, 800*time.Millisecond)
		require.Less(t, d, 1600*time.Millisecond, "jitter 1.0 adds up to 100%")
		seen[d] = true
	}
	require.Greater(t, len(seen), 50, "jitter makes the waits differ")
}

// A Backoff that sets only some fields takes client-go's values for the
// others (except Jitter): no setting makes the reflector retry at once.
func TestBackoff_ZeroFieldsTakeClientGoValues(t *testing.T) {
	require.Equal(t, DefaultBackoff, Backoff{}.withDefaults())
	require.Equal(t, Backoff{Initial: 800 * time.Millisecond, Cap: time.Minute, Factor: 2, ResetAfter: 2 * time.Minute},
		Backoff{Cap: time.Minute}.withDefaults())
	require.Equal(t, Backoff{Initial: time.Minute, Cap: time.Minute, Factor: 1, ResetAfter: 2 * time.Minute},
		Backoff{Initial: time.Minute, Factor: 0.5}.withDefaults(), "the cap is at least the first wait; the factor at least 1")
}
