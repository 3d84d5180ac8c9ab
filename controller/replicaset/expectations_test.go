package replicaset

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
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

// lagging starts a controller whose informers see every change 50 ms per
// watch frame late, and that is queued again every time the test steps the
// informers' clock (a resync): reconciles keep coming while the pods it
// just created or deleted are not in its cache yet.
func lagging(t *testing.T, withExpectations bool) *env {
	e := start(t, envConfig{resync: time.Second, before: func(c *ReplicaSetController) {
		c.noExpectations = !withExpectations
	}})
	e.srv.SetWatchDelay(50 * time.Millisecond)
	return e
}

// The cache lags behind the controller's own writes. With expectations the
// controller waits until it has seen the pods it created (or deleted)
// before it counts again, so while it converges the server never holds more
// pods than spec.replicas on the way up, nor fewer on the way down, and it
// creates and deletes exactly the difference.
func TestReplicaSetController_Expectations_NoOvershootUnderCacheLag(t *testing.T) {
	e := lagging(t, true)
	e.createRS("web", 5)
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
	assert.Positive(t, waited(e), "some reconciles ran while the cache lagged, and waited")

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

// The same lag without expectations: reconciles that run before the cache
// has caught up count the old pods and create again. This is what the
// expectations prevent.
func TestReplicaSetController_WithoutExpectations_OvershootsUnderCacheLag(t *testing.T) {
	e := lagging(t, false)
	e.createRS("web", 5)
	e.eventually(func() bool { return len(e.pods("web")) > 5 && e.ctrl.Stats().PodsCreated > 5 },
		"more than 5 pods: an overshoot")
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
