package storage

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/trace"
)

// pendingOf is a WatchesState for the tests: each open watch's queued
// events, by watch number, as "TYPE data@rev".
func pendingOf(watches []OpenWatch[*val]) slog.Attr {
	out := map[uint64][]string{}
	for _, w := range watches {
		out[w.ID] = []string{}
		for _, ev := range w.Pending {
			out[w.ID] = append(out[w.ID], string(ev.Type)+" "+ev.Value.String())
		}
	}
	return trace.StateOf("server", "watches", out)
}

// When inspected, each watch keeps a copy of what is queued for it: its
// initial events, then each change the fan-out queues, until its reader
// says it sent one; the commit is reported after the fan-out, so its state
// has the change queued. A watch its reader stopped is gone.
func TestStorage_InspectKeepsWhatEachWatchHasQueued(t *testing.T) {
	var states []map[uint64][]string
	tr := trace.New(trace.Inspect(func(e trace.Event) {
		if e.State != nil {
			states = append(states, e.State.Value.(map[uint64][]string))
		}
	}))
	s := newTestStore(t, Options[*val]{Tracer: tr, WatchesState: pendingOf})
	put(t, s, "/pods/a", "one")
	w, initial, err := s.Watch("/pods/", WatchOptions[*val]{SendInitialEvents: true})
	require.NoError(t, err)
	require.Len(t, initial, 1)
	put(t, s, "/pods/b", "two")
	require.Equal(t, map[uint64][]string{1: {"ADDED one@1", "ADDED two@2"}}, states[len(states)-1], "the commit of b: queued behind a's initial event")

	var last map[uint64][]string
	report := func(state slog.Attr) { last = state.Value.Any().(trace.State).Value.(map[uint64][]string) }
	sent := func() {
		state, ok := w.Sent()
		require.True(t, ok)
		report(state)
	}
	sent() // the initial event
	require.Equal(t, map[uint64][]string{1: {"ADDED two@2"}}, last)
	<-w.ResultChan()
	sent()
	require.Equal(t, map[uint64][]string{1: {}}, last)
	w.StopAndReport(report)
	require.Empty(t, last)
}

// Inspecting off costs nothing: a write that one watch receives allocates
// what it did before the lab existed, traced or not, and no watch keeps a
// copy of its queue. (Over 100 writes: a few allocations are amortized,
// such as the history's growth, and the count is their mean, rounded
// down.)
func TestStorage_InspectOffAddsNothing(t *testing.T) {
	on := trace.New(trace.Func(func(trace.Event) {}))
	inspect := trace.New(trace.Inspect(func(trace.Event) {}))
	allocs := func(tr *trace.Tracer) float64 {
		s := New(Options[*val]{Versioner: stamp, Tracer: tr, WatchesState: pendingOf})
		put(t, s, "/pods/default/a", "x")
		w, _, err := s.Watch("/pods/", WatchOptions[*val]{})
		require.NoError(t, err)
		defer w.Stop()
		n := testing.AllocsPerRun(100, func() {
			put(t, s, "/pods/default/a", "y")
			<-w.ResultChan()
		})
		require.Equal(t, tr.Inspecting(), w.pending != nil, "a copy only when inspecting")
		return n
	}
	off, notInspecting, inspecting := allocs(nil), allocs(on), allocs(inspect)
	t.Logf("a write one watch receives: %v allocations untraced, %v traced, %v inspected", off, notInspecting, inspecting)
	require.Equal(t, 5.0, off, "untraced: as before the lab")
	require.Equal(t, 9.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)
}
