package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
)

// readYourWrites is the setup of the read-your-writes tests: lagging's
// (watch frames held on the server's clock, a resync on every step of the
// informers' clock, a ReplicaSet web of 5 whose pods the controller has
// created), with the informers client-go 1.36 runs, whose caches report how
// far they have got, and read-your-writes on or off. It returns once the
// first reconcile has written its pods and its status: their frames are
// all held.
func readYourWrites(t *testing.T, on bool, opts func(*Options)) *env {
	e := lagging(t, true, envConfig{informers: clientGo136, options: func(o *Options) {
		o.DisableReadYourWrites = !on
		o.ReadYourWritesTimeout = time.Hour // the test, not the bound, ends the wait
		if opts != nil {
			opts(o)
		}
	}})
	require.Eventually(t, func() bool { return e.ctrl.Stats().StatusWrites == 1 }, deadline, 10*time.Millisecond, "the status written")
	t.Logf("test: the first reconcile wrote 5 pods and the status (rv %s); the caches are at pods %s, replicasets %s",
		e.story.find("status written", "default/web")[0].RV(),
		e.ctrl.podInformer.LastStoreSyncResourceVersion(), e.ctrl.rsInformer.LastStoreSyncResourceVersion())
	return e
}

// After its own writes the controller does not read a cache older than
// them: with read-your-writes (the default, as in kube-controller-manager
// 1.36) every reconcile queued while the watch frames are held waits,
// requeued, and the first that reads after the first write finds all 5
// pods; no status is computed from a pod list without them, nor written
// over a ReplicaSet older than the controller's own status write. With the
// wait off, the expectations still keep the pod count right, but a
// reconcile reads the stale caches ("have 0 of 5" after creating 5), and
// writes the status again over its stale copy of the ReplicaSet: the
// server refuses it (409 Conflict) and the controller reads the
// ReplicaSet back from the server to write it once more.
func TestReplicaSet_ReadYourWritesWaitsForTheCache(t *testing.T) {
	t.Run("on", func(t *testing.T) {
		e := readYourWrites(t, true, nil)
		e.resyncUntil(func() bool { return len(e.story.find("cache behind own write", "default/web")) >= 2 },
			"resyncs queue web while the frames are held; its reconciles wait")
		require.Len(t, e.story.find("reconciled", "default/web"), 1, "no reconcile read the caches after the first")
		t.Logf("test: %d reconciles waited for the caches; letting the frames out", e.ctrl.Stats().CacheWaits)

		e.eventually(func() bool { // the server's state, then the trace of the reconcile that wrote it
			return e.converged("web", 5) && len(e.story.find("reconciled", "default/web")) >= 2
		}, "5 pods, and a status that says so")
		reconciled := e.story.find("reconciled", "default/web")
		for _, ev := range reconciled[1:] {
			assert.Equal(t, "have 5 of 5", ev.Get("found"), "every reconcile after the writes read them")
		}
		assert.Empty(t, e.story.find("status write failed", "default/web"), "no status written over a stale ReplicaSet")
		assert.Equal(t, []string{"0", "5"}, statusReplicas(e), "the status: before the creates, then all of them")
		assert.NotEmpty(t, e.story.find("cache caught up", "default/web"))
		st := e.ctrl.Stats()
		assert.Equal(t, int64(5), st.PodsCreated)
		assert.Zero(t, st.Dropped)
		t.Logf("test: %d reconciles read the caches (the others waited), %d of them after the writes, all finding 5 of 5; %s", len(reconciled), len(reconciled)-1, st)
	})

	t.Run("off", func(t *testing.T) {
		e := readYourWrites(t, false, nil)
		e.resyncUntil(func() bool { return len(e.story.find("reconciled", "default/web")) >= 2 },
			"a resync's reconcile reads the stale caches")
		stale := e.story.find("reconciled", "default/web")[1]
		t.Logf("test: the second reconcile read the ReplicaSet at rv %s and found %q, after writing 5 pods and the status",
			stale.RV(), stale.Get("found"))
		assert.Equal(t, "have 0 of 5", stale.Get("found"), "a pod list without the 5 pods it created")
		failed := e.story.find("status write failed", "default/web")
		require.NotEmpty(t, failed, "it wrote the status over its stale ReplicaSet")
		assert.Contains(t, failed[0].Get(trace.KeyReason), "the object has been modified", "its status write over its stale ReplicaSet is refused")

		e.eventually(func() bool { return e.converged("web", 5) }, "5 pods all the same: the expectations held")
		st := e.ctrl.Stats()
		assert.Equal(t, int64(5), st.PodsCreated)
		assert.Zero(t, st.CacheWaits)
		t.Logf("test: %d status writes over a stale ReplicaSet refused with 409 Conflict; status replicas written %v; %s",
			len(e.story.find("status write failed", "default/web")), statusReplicas(e), st)
	})
}

// The wait is bounded: a cache that never catches up (the frames stay
// held) must not make the controller drop the ReplicaSet, as the queue
// does after MaxRetries failures. The reconciles are requeued past
// MaxRetries (2 here), and once ReadYourWritesTimeout (a minute of the
// controller's fake clock) has passed, the reconcile goes on with the
// stale cache, logged; the expectations still keep it from creating the
// pods again. When the frames come, it converges.
func TestReplicaSet_ReadYourWritesWaitIsBounded(t *testing.T) {
	ctrlClock := clock.NewFakeClock(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC))
	e := readYourWrites(t, true, func(o *Options) {
		o.Clock, o.MaxRetries, o.ReadYourWritesTimeout = ctrlClock, 2, time.Minute
	})
	e.clock.Step(2 * time.Second) // one resync: a reconcile that waits, requeued rate-limited on ctrlClock
	require.Eventually(t, func() bool {
		if len(e.story.find("cache wait timed out", "default/web")) > 0 {
			return true
		}
		ctrlClock.Step(2 * time.Second) // the requeues' delays pass: 5 ms, 10 ms, ... doubling
		return false
	}, deadline, 10*time.Millisecond, "the wait times out")
	timedOut := e.story.find("cache wait timed out", "default/web")[0]
	st := e.ctrl.Stats()
	t.Logf("test: %d reconciles waited, over %s of the controller's clock; none dropped", st.CacheWaits, timedOut.Get(trace.KeyDelay))
	assert.Greater(t, st.CacheWaits, int64(2), "requeued past MaxRetries")
	assert.Zero(t, st.Dropped)

	require.Eventually(t, func() bool { return len(e.story.find("reconciled", "default/web")) >= 2 }, deadline, 10*time.Millisecond)
	after := e.story.find("reconciled", "default/web")[1]
	assert.Equal(t, "have 0 of 5", after.Get("found"), "it read the stale cache")
	assert.Equal(t, "nothing: waiting to observe 5 adds, 0 deletes", after.Get("did"), "the expectations still held")
	assert.Len(t, e.pods("web"), 5)

	e.eventually(func() bool { return e.converged("web", 5) }, "the frames come: 5 pods")
	assert.Equal(t, int64(5), e.ctrl.Stats().PodsCreated)
}

// statusReplicas is the replicas of every status the controller wrote,
// in order, a write repeated after a conflict once.
func statusReplicas(e *env) []string {
	var out []string
	for _, ev := range e.story.find("status written", "default/web") {
		if r := ev.Get("replicas"); len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	return out
}
