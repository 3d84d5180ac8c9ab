package reflector

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// The lab sees the reflector's phase and why it entered it, the version it
// has synced to, and, while it backs off, until when (on its clock) and
// for how long. Each state is the reflector once its hop is done: the
// version a "watch event" shows is the event's, which the reflector holds
// as soon as the store has the event.
func TestReflector_InspectShowsPhaseAndBackoffDeadline(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	lab, tr := labtest.New(t)
	e.opts.Tracer = tr
	e.opts.Backoff = Backoff{Initial: 2800 * time.Millisecond, Cap: 8 * time.Second, Factor: 2, ResetAfter: time.Hour}
	e.createPod("a")
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: http.StatusInternalServerError, Count: 1})
	r := e.run()

	t.Log("server: the first list fails with a 500: the reflector backs off 2.8s")
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	phases := labtest.States[ReflectorState](lab, "phase")
	require.Equal(t, ReflectorState{Phase: "listing", Reason: "start"}, phases[0])
	until := epoch.Add(2800 * time.Millisecond)
	require.Equal(t, ReflectorState{Phase: "backing off", Reason: "500 InternalError", BackoffUntil: &until, Backoff: "2.8s"}, phases[1])

	t.Log("clock: the backoff is over; the list succeeds, the watch opens, b is created")
	e.clock.Step(2800 * time.Millisecond)
	e.waitWatching(1)
	listed := labtest.Last[ReflectorState](lab, "listed")
	require.NotEmpty(t, listed.LastSyncResourceVersion)
	require.Equal(t, listed, labtest.Last[ReflectorState](lab, "replace"))
	require.Equal(t, ReflectorState{Phase: "watching", Reason: "listed", LastSyncResourceVersion: listed.LastSyncResourceVersion},
		labtest.Last[ReflectorState](lab, "phase"), "the backoff is over: no deadline any more")
	require.Equal(t, listed.LastSyncResourceVersion, labtest.Last[ReflectorState](lab, "watch").LastSyncResourceVersion)

	b := e.createPod("b")
	waitForSynced(t, r, b.ResourceVersion)
	require.Equal(t, ReflectorState{Phase: "watching", Reason: "listed", LastSyncResourceVersion: b.ResourceVersion},
		labtest.Last[ReflectorState](lab, "watch event"), "the version this hop moves it to")

	t.Log("clock: a minute on, the server sends a bookmark")
	e.clock.Step(time.Minute)
	require.Eventually(t, func() bool { return len(labtest.States[ReflectorState](lab, "bookmark")) > 0 }, 10*time.Second, time.Millisecond)
	require.Equal(t, b.ResourceVersion, labtest.Last[ReflectorState](lab, "bookmark").LastSyncResourceVersion)
}

// A streaming list's state: the version moves to the initial-events-end
// bookmark's as the initial events end.
func TestReflector_InspectShowsTheStreamingListsVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	lab, tr := labtest.New(t)
	e.opts.Tracer, e.opts.UseWatchList = tr, true
	a := e.createPod("a")
	r := e.run()
	waitForSynced(t, r, a.ResourceVersion)
	require.Equal(t, ReflectorState{Phase: "listing", Reason: "start", LastSyncResourceVersion: a.ResourceVersion},
		labtest.Last[ReflectorState](lab, "initial events end"))
}

// Inspecting off costs nothing: a watch event applied by a reflector
// traced to a consumer that does not inspect allocates what it did before
// the lab existed; untraced, nothing.
func TestReflector_InspectOffAddsNothing(t *testing.T) {
	on := trace.New(trace.Func(func(trace.Event) {}))
	inspect := trace.New(trace.Inspect(func(trace.Event) {}))
	ev := listwatch.Event{Type: "MODIFIED", Object: pod("a", "7")}
	allocs := func(tr *trace.Tracer) float64 {
		r := New(nil, &nopStore{}, Options{Tracer: tr})
		return testing.AllocsPerRun(100, func() {
			r.apply(ev)
			r.setLastSyncResourceVersion("7")
		})
	}
	off, notInspecting, inspecting := allocs(nil), allocs(on), allocs(inspect)
	t.Logf("a watch event applied: %v allocations untraced, %v traced, %v inspected", off, notInspecting, inspecting)
	require.Zero(t, off, "untraced: as before the lab")
	require.Equal(t, 2.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)
}

// nopStore takes everything and keeps nothing.
type nopStore struct{}

func (*nopStore) Add(api.Object) error               { return nil }
func (*nopStore) Update(api.Object) error            { return nil }
func (*nopStore) Delete(api.Object) error            { return nil }
func (*nopStore) Replace([]api.Object, string) error { return nil }
func (*nopStore) Resync() error                      { return nil }
