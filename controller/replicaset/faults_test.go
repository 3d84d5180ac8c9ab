package replicaset

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/trace"
)

// retryDelays returns the "after" and "n" of the key's retry events.
func retryDelays(t *testing.T, events []trace.Event) ([]time.Duration, []string) {
	t.Helper()
	var delays []time.Duration
	var counts []string
	for _, ev := range events {
		d, err := time.ParseDuration(ev.Get(trace.KeyDelay))
		require.NoError(t, err)
		delays = append(delays, d)
		counts = append(counts, ev.Get(trace.KeyCount))
	}
	return delays, counts
}

// Creates the server refuses fail the reconcile; the key is retried with
// AddRateLimited, each retry waiting longer (5 ms, 10 ms, 20 ms with the
// default limiter), until the creates go through.
func TestReplicaSetController_RetriesFailedCreatesWithGrowingDelays(t *testing.T) {
	e := start(t, envConfig{})
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "create", Resource: "pods", Code: http.StatusInternalServerError, Count: 3})
	e.createRS("web", 2)
	e.eventually(func() bool { return e.converged("web", 2) && e.ctrl.Stats().PodsCreated >= 2 }, "2 pods despite the failed creates")

	delays, counts := retryDelays(t, e.story.find("retry", "default/web"))
	require.GreaterOrEqual(t, len(delays), 3, "one retry per failed create")
	assert.Equal(t, []string{"1", "2", "3"}, counts[:3])
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, delays[:3])
	assert.Equal(t, int64(2), e.ctrl.Stats().PodsCreated)
	assert.Zero(t, e.ctrl.Stats().Dropped)
}

// Article 004's rule: a key that keeps failing is retried 5 times (6
// reconciles in all), then forgotten and dropped with a log line; nothing
// retries it after that.
func TestReplicaSetController_RetriesFiveTimesThenDrops(t *testing.T) {
	e := start(t, envConfig{})
	// Every create and every status write fails, so the reconcile fails and
	// nothing the controller does produces an event that queues it again.
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "create", Resource: "pods", Code: http.StatusInternalServerError, Count: 1000})
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "update", Resource: "replicasets", Code: http.StatusInternalServerError, Count: 1000})
	e.createRS("web", 1)
	e.eventually(func() bool { return e.ctrl.Stats().Dropped == 1 }, "the key is dropped")

	assert.Len(t, e.story.find("reconcile", "default/web"), 6, "1 try + 5 retries")
	delays, counts := retryDelays(t, e.story.find("retry", "default/web"))
	assert.Equal(t, []string{"1", "2", "3", "4", "5"}, counts)
	assert.IsIncreasing(t, delays)
	dropped := e.story.find("dropped", "default/web")
	require.Len(t, dropped, 1)
	assert.Contains(t, dropped[0].Get(trace.KeyReason), "injected fault")
	st := e.ctrl.Stats()
	assert.Equal(t, Stats{Reconciles: 6, Retries: 5, Dropped: 1}, st)
	assert.Never(t, func() bool { return e.ctrl.Stats().Reconciles > 6 }, 200*time.Millisecond, 10*time.Millisecond,
		"a dropped key is not retried")
}

// Watches that end (a load balancer, a server restart) are resumed; when
// the history they would resume from is compacted away the informers
// relist. Either way the controller sees the changes made meanwhile and
// converges.
func TestReplicaSetController_RecoversFromDroppedWatchesAndCompaction(t *testing.T) {
	e := start(t, envConfig{})
	e.createRS("web", 3)
	e.eventually(func() bool { return e.converged("web", 3) }, "3 pods")

	e.srv.CloseWatches()
	e.scale("web", 4)
	e.eventually(func() bool { return e.converged("web", 4) }, "4 pods after the watches were dropped")

	e.srv.CompactHistory()
	e.srv.CloseWatches()
	victim := e.pods("web")[0]
	_, err := e.srv.Delete("pods", api.NamespaceDefault, victim.Name)
	require.NoError(t, err)
	e.scale("web", 2)
	e.eventually(func() bool { return e.converged("web", 2) }, "2 pods after a relist")
	assert.NotContains(t, names(e.pods("web")), victim.Name)
}
