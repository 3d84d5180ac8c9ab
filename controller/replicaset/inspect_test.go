package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/trace"
)

// The lab sees what the controller keeps besides its caches: per
// ReplicaSet, the creates and deletes of its own it has not yet seen come
// back (and which pods it deleted), whether that still holds a reconcile
// back, and which keys workers are reconciling now.
func TestController_InspectShowsExpectations(t *testing.T) {
	lab, tr := labtest.New(t)
	e := start(t, envConfig{options: func(o *Options) { o.Tracer = tr }})

	t.Log("user: creates web with 2 replicas")
	e.createRS("web", 2)
	e.eventually(func() bool { return e.converged("web", 2) }, "web never got its 2 pods")

	reconcile := labtest.States[ControllerState](lab, "reconcile")
	require.Equal(t, []string{"default/web"}, reconcile[0].Reconciling, "a worker has web")
	var expectCreations ControllerState
	for _, ev := range lab.Events() {
		if ev.What == "expectations" && ev.Get(trace.KeyReason) == "expect creations" {
			expectCreations = ev.State.Value.(ControllerState)
			break
		}
	}
	web := expectCreations.Expectations["default/web"]
	require.Equal(t, 2, web.Adds)
	require.False(t, web.Satisfied, "2 creates not yet seen: a reconcile would wait")
	require.False(t, web.Since.IsZero())
	for _, st := range labtest.States[ControllerState](lab, "reconciled") {
		require.NotContains(t, st.Reconciling, "default/web", "reconciled: no worker has it any more")
	}
	require.NotEmpty(t, labtest.States[ControllerState](lab, "pod created"))
	require.Eventually(t, func() bool {
		last := labtest.Last[ControllerState](lab, "expectations").Expectations["default/web"]
		return last.Adds == 0 && last.Satisfied
	}, deadline, 10*time.Millisecond, "both creates observed through the informer")

	t.Log("user: scales web to 1")
	e.scale("web", 1)
	e.eventually(func() bool { return e.converged("web", 1) }, "web never went down to 1 pod")
	deleted := labtest.Last[ControllerState](lab, "pod deleted")
	require.Contains(t, deleted.Expectations, "default/web")
	require.Eventually(t, func() bool {
		last := labtest.Last[ControllerState](lab, "expectations").Expectations["default/web"]
		return last.Dels == 0 && last.Satisfied && len(last.Deleting) == 0
	}, deadline, 10*time.Millisecond, "the delete observed")
	for _, ev := range lab.Events() {
		if ev.What == "expectations" && ev.Get(trace.KeyReason) == "expect deletions" {
			st := ev.State.Value.(ControllerState).Expectations["default/web"]
			require.Equal(t, 1, st.Dels)
			require.Len(t, st.Deleting, 1, "the pod it deletes, by key")
		}
	}
}

// Inspecting off costs nothing: the expectations traced to a consumer that
// does not inspect allocate what they did before the lab existed, and keep
// no set of keys being reconciled.
func TestController_InspectOffAddsNothing(t *testing.T) {
	on := trace.New(trace.Func(func(trace.Event) {})).Stage(trace.StageController)
	inspect := trace.New(trace.Inspect(func(trace.Event) {})).Stage(trace.StageController)
	allocs := func(tr *trace.Tracer) float64 {
		e := newExpectations(clock.RealClock{}, tr)
		require.Equal(t, tr.Inspecting(), e.reconciling != nil, "the set only when inspecting")
		e.expectCreations("default/web", 1<<30)
		return testing.AllocsPerRun(100, func() {
			e.creationObserved("default/web", "observed add")
			_ = e.satisfied("default/web")
		})
	}
	off, notInspecting, inspecting := allocs(nil), allocs(on), allocs(inspect)
	t.Logf("an add observed: %v allocations untraced, %v traced, %v inspected", off, notInspecting, inspecting)
	require.Zero(t, off, "untraced: as before the lab")
	require.Equal(t, 1.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)
}
