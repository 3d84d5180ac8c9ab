package replicaset

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
)

func TestExpectations_CreationsAreSatisfiedOnceAllObserved(t *testing.T) {
	exp := newExpectations(clock.NewFakeClock(time.Unix(0, 0)), nil)
	assert.True(t, exp.satisfied("default/web"), "nothing expected yet")

	exp.expectCreations("default/web", 2)
	assert.False(t, exp.satisfied("default/web"))
	exp.creationObserved("default/web", "observed add")
	assert.False(t, exp.satisfied("default/web"), "one of two adds observed")
	exp.creationObserved("default/web", "observed add")
	assert.True(t, exp.satisfied("default/web"))

	exp.creationObserved("default/other", "observed add")
	assert.True(t, exp.satisfied("default/other"), "observing for a key with no expectations records nothing")
}

func TestExpectations_DeletionsCountEachExpectedPodOnce(t *testing.T) {
	exp := newExpectations(clock.NewFakeClock(time.Unix(0, 0)), nil)
	exp.expectDeletions("default/web", []string{"default/web-a", "default/web-b"})
	assert.False(t, exp.satisfied("default/web"))

	exp.deletionObserved("default/web", "default/web-x", "not one we deleted")
	exp.deletionObserved("default/web", "default/web-a", "marked with a deletionTimestamp")
	exp.deletionObserved("default/web", "default/web-a", "then removed: the same pod again")
	adds, dels, ok := exp.get("default/web")
	require.True(t, ok)
	assert.Equal(t, []int{0, 1}, []int{adds, dels})
	assert.False(t, exp.satisfied("default/web"))

	exp.deletionObserved("default/web", "default/web-b", "delete failed")
	assert.True(t, exp.satisfied("default/web"))
}

func TestExpectations_ExpireAfterTimeout(t *testing.T) {
	clk := clock.NewFakeClock(time.Unix(0, 0))
	exp := newExpectations(clk, nil)
	exp.expectCreations("default/web", 3)
	clk.Step(ExpectationsTimeout)
	assert.False(t, exp.satisfied("default/web"), "not yet expired")
	clk.Step(time.Second)
	assert.True(t, exp.satisfied("default/web"), "expired: the adds may never be seen")
}

func TestExpectations_ForgetAndReset(t *testing.T) {
	exp := newExpectations(clock.NewFakeClock(time.Unix(0, 0)), nil)
	exp.expectCreations("default/web", 1)
	exp.forget("default/web")
	assert.True(t, exp.satisfied("default/web"), "the ReplicaSet is gone")
	_, _, ok := exp.get("default/web")
	assert.False(t, ok)

	exp.expectCreations("default/web", 5)
	exp.expectDeletions("default/web", []string{"default/web-a"})
	adds, dels, _ := exp.get("default/web")
	assert.Equal(t, []int{0, 1}, []int{adds, dels}, "a new expectation replaces the old one")
}

// lagging starts a controller whose cache lags as long as the test says:
// the server runs on its own fake clock and holds every watch frame until
// that clock moves a second (SetWatchDelay). The informers list and watch
// as usual, and their clock's resync (every second) queues the ReplicaSet
// again, so the test can run reconciles while the pods the controller just
// created are not yet in its cache, however busy the machine is.
//
// Read-your-writes is off: these tests show what expectations alone do,
// whichever informers the factory runs (read_your_writes_test.go shows
// what it adds). cfg, if given, adds to the setup.
func lagging(t *testing.T, withExpectations bool, cfg ...envConfig) *env {
	var c envConfig
	if len(cfg) > 0 {
		c = cfg[0]
	}
	srvClock := clock.NewFakeClock(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC))
	c.resync, c.server = time.Second, fakeapiserver.Options{Clock: srvClock}
	c.before = func(c *ReplicaSetController) { c.noExpectations = !withExpectations }
	if c.options == nil {
		c.options = func(o *Options) { o.DisableReadYourWrites = true }
	}
	e := start(t, c)
	e.srv.SetWatchDelay(time.Second)
	// The ReplicaSet's ADDED frame is let out, and nothing after it: the
	// controller creates its pods, and their ADDED frames wait.
	e.createRS("web", 5)
	require.Eventually(t, func() bool {
		if len(e.story.find("enqueue", "default/web")) > 0 {
			return true
		}
		srvClock.Step(time.Second)
		return false
	}, deadline, 10*time.Millisecond, "the ReplicaSet reaches the controller")
	require.Eventually(t, func() bool { return e.ctrl.Stats().PodsCreated == 5 }, deadline, 10*time.Millisecond, "5 pods created")
	t.Log("test: the controller created 5 pods; their watch frames are held, so its cache has none of them")
	e.srvClock = srvClock
	return e
}

// resyncUntil steps only the informers' clock (a resync queues the
// ReplicaSet again; the held frames stay held) until cond holds.
func (e *env) resyncUntil(cond func() bool, msg string) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		if cond() {
			return true
		}
		e.clock.Step(2 * time.Second)
		return false
	}, deadline, 10*time.Millisecond, msg)
}

// The cache lags behind the controller's own writes. With expectations the
// controller waits until it has seen the pods it created (or deleted)
// before it counts again, so while it converges the server never holds more
// pods than spec.replicas on the way up, nor fewer on the way down, and it
// creates and deletes exactly the difference.
func TestReplicaSetController_Expectations_NoOvershootUnderCacheLag(t *testing.T) {
	e := lagging(t, true)
	e.resyncUntil(func() bool { return waited(e) > 0 }, "a reconcile while the cache lags waits")
	require.Len(t, e.pods("web"), 5, "it created nothing more")
	t.Logf("test: %d reconcile(s) waited for the expected pods", waited(e))

	var most atomic.Int64
	e.eventually(func() bool {
		n := len(e.pods("web"))
		if int64(n) > most.Load() {
			most.Store(int64(n))
		}
		return e.converged("web", 5) && e.ctrl.Stats().PodsCreated >= 5
	}, "5 pods")
	assert.Equal(t, int64(5), most.Load(), "never more than 5 pods on the server")
	assert.Equal(t, int64(5), e.ctrl.Stats().PodsCreated)

	e.scale("web", 2)
	least := atomic.Int64{}
	least.Store(5)
	e.eventually(func() bool {
		n := len(e.pods("web"))
		if int64(n) < least.Load() {
			least.Store(int64(n))
		}
		return e.converged("web", 2) && e.ctrl.Stats().PodsDeleted >= 3
	}, "2 pods")
	assert.Equal(t, int64(2), least.Load(), "never fewer than 2 pods on the server")
	assert.Equal(t, int64(3), e.ctrl.Stats().PodsDeleted)
}

// The same lag without expectations: a reconcile that runs before the
// cache has caught up counts the pods it sees (none) and creates again.
// This is what the expectations prevent.
func TestReplicaSetController_WithoutExpectations_OvershootsUnderCacheLag(t *testing.T) {
	e := lagging(t, false)
	e.resyncUntil(func() bool { return e.ctrl.Stats().PodsCreated > 5 }, "a second reconcile creates again")
	assert.Greater(t, len(e.pods("web")), 5, "more than 5 pods: an overshoot")
	t.Logf("test: %d pods on the server for 5 replicas", len(e.pods("web")))
}

// waited counts the reconciles that left pods alone because expectations
// were not yet satisfied.
func waited(e *env) int {
	n := 0
	for _, ev := range e.story.find("reconciled", "default/web") {
		if strings.HasPrefix(ev.Get("did"), "nothing: waiting") {
			n++
		}
	}
	return n
}
