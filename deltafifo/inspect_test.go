package deltafifo

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/trace"
)

// The lab (a trace.Inspect consumer) sees the DeltaFIFO's contents with
// each event: its keys in pop order, each key's deltas oldest first, and
// the keys of the cache it checks a relist against. Each state is the queue
// after the hop the event reports, and a copy: a later change leaves it as
// it was.
func TestDeltaFIFO_InspectShowsQueueOrderAndDeltas(t *testing.T) {
	lab, tr := labtest.New(t)
	f := NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: newKnown(cm("default/gone", "3")), EmitDeltaTypeReplaced: true, Tracer: tr})

	t.Log("reflector (played by the test): a added, b added, a updated, b deleted")
	require.NoError(t, f.Add(cm("default/a", "4")))
	require.NoError(t, f.Add(cm("default/b", "5")))
	require.NoError(t, f.Update(cm("default/a", "6")))
	require.NoError(t, f.Delete(cm("default/b", "7")))

	queued := labtest.States[QueueState](lab, "delta queued")
	require.Len(t, queued, 4)
	require.Equal(t, QueueState{Kind: "DeltaFIFO",
		Items:        []QueuedItem{{Key: "default/a", Deltas: []QueuedDelta{{Type: Added, RV: "4"}}}},
		KnownObjects: []string{"default/gone"},
	}, queued[0], "after the first delta: one key, one delta")
	require.Equal(t, []QueuedItem{
		{Key: "default/a", Deltas: []QueuedDelta{{Type: Added, RV: "4"}, {Type: Updated, RV: "6"}}},
		{Key: "default/b", Deltas: []QueuedDelta{{Type: Added, RV: "5"}, {Type: Deleted, RV: "7"}}},
	}, queued[3].Items, "a is still first (queued first); b's deltas end in its Deleted")

	t.Log("reflector: a relist at rv 8 that has only a: b is queued and deleted already, gone only in the cache")
	require.NoError(t, f.Replace([]api.Object{cm("default/a", "8")}, "8"))
	tomb := labtest.Last[QueueState](lab, "tombstone queued")
	require.Equal(t, QueuedItem{Key: "default/gone", Deltas: []QueuedDelta{{Type: Deleted, RV: "3", Tombstone: true}}},
		tomb.Items[len(tomb.Items)-1], "the cached key the list lacks: a tombstone with its last known state")
	collapsed := labtest.Last[QueueState](lab, "deletion collapsed")
	require.Equal(t, []QueuedDelta{{Type: Added, RV: "5"}, {Type: Deleted, RV: "7"}}, collapsed.Items[1].Deltas,
		"b's tombstone collapsed into the Deleted it already had")

	t.Log("informer: pops a")
	_, err := f.Pop(func(Deltas, bool) error { return nil })
	require.NoError(t, err)
	popped := labtest.Last[QueueState](lab, "pop")
	require.Equal(t, []string{"default/b", "default/gone"}, keysOf(popped), "the state of a pop is the queue after it")

	require.Len(t, queued[0].Items, 1, "an earlier state is a copy: later changes left it as it was")
	require.Len(t, queued[0].Items[0].Deltas, 1)
}

// A RealFIFO's state is every delta in arrival order, one item each: three
// deltas of one key are three items; a relist in atomic mode is one
// ReplacedAll item without a key, carrying the list's version and size.
func TestRealFIFO_InspectShowsEveryDeltaInOrder(t *testing.T) {
	lab, tr := labtest.New(t)
	f := NewRealFIFO(RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true, Tracer: tr})

	t.Log("reflector (played by the test): a added, updated, deleted; a relist of b and c at rv 9; a bookmark at 10; a resync")
	require.NoError(t, f.Add(cm("default/a", "4")))
	require.NoError(t, f.Update(cm("default/a", "5")))
	require.NoError(t, f.Delete(cm("default/a", "6")))
	require.NoError(t, f.Replace([]api.Object{cm("default/b", "7"), cm("default/c", "8")}, "9"))
	require.NoError(t, f.Bookmark("10"))
	require.NoError(t, f.Resync())

	two := 2
	last := labtest.Last[QueueState](lab, "delta queued")
	require.Equal(t, QueueState{Kind: "RealFIFO", Items: []QueuedItem{
		{Key: "default/a", Deltas: []QueuedDelta{{Type: Added, RV: "4"}}},
		{Key: "default/a", Deltas: []QueuedDelta{{Type: Updated, RV: "5"}}},
		{Key: "default/a", Deltas: []QueuedDelta{{Type: Deleted, RV: "6"}}},
		{Key: "", Deltas: []QueuedDelta{{Type: ReplacedAll, RV: "9", N: &two}}},
		{Key: "", Deltas: []QueuedDelta{{Type: Bookmark, RV: "10"}}},
		{Key: "", Deltas: []QueuedDelta{{Type: SyncAll}}},
	}}, last)
	replace := labtest.Last[QueueState](lab, "replace")
	require.Len(t, replace.Items, 3, `"replace" announces the list: its state is the queue before the ReplacedAll`)

	t.Log("informer: pops one delta, then a batch")
	_, err := f.Pop(func(Deltas, bool) error { return nil })
	require.NoError(t, err)
	require.Equal(t, []string{"default/a", "default/a", "", "", ""}, keysOf(labtest.Last[QueueState](lab, "pop")))

	b := NewRealFIFO(RealFIFOOptions{Tracer: tr})
	for _, k := range []string{"default/x", "default/y", "default/z"} {
		require.NoError(t, b.Add(cm(k, "1")))
	}
	require.NoError(t, b.PopBatch(func([]Delta, bool) error { return nil }, func(Deltas, bool) error { return nil }))
	require.Empty(t, labtest.Last[QueueState](lab, "pop batch").Items, "the batch took all three")
}

// Inspecting off costs nothing: a queue traced to a consumer that does not
// inspect (the narration, a Recorder) builds no state, so it allocates no
// more than before the lab existed, and its events carry none. The numbers
// are the allocations of one Update and one Pop: the one-delta Deltas, and
// what the events cost; the DeltaFIFO also allocates its key's entry, where
// a RealFIFO that empties reuses its slice's room (takeLocked).
func TestQueues_InspectOffAddsNothing(t *testing.T) {
	rec := trace.NewRecorder()
	on := trace.New(trace.Func(func(trace.Event) {}))
	inspect := trace.New(trace.Inspect(func(trace.Event) {}))
	obj := cm("default/a", "1")
	allocs := func(q Queue) float64 {
		return testing.AllocsPerRun(100, func() {
			_ = q.Update(obj)
			_, _ = q.Pop(func(Deltas, bool) error { return nil })
		})
	}
	untraced := map[string]float64{"DeltaFIFO": 2, "RealFIFO": 1}
	for _, kind := range []string{"DeltaFIFO", "RealFIFO"} {
		newQueue := func(tr *trace.Tracer) Queue {
			if kind == "DeltaFIFO" {
				return NewDeltaFIFO(DeltaFIFOOptions{Tracer: tr})
			}
			return NewRealFIFO(RealFIFOOptions{Tracer: tr})
		}
		off, notInspecting, inspecting := allocs(newQueue(nil)), allocs(newQueue(on)), allocs(newQueue(inspect))
		t.Logf("%s: Update+Pop allocates %v untraced, %v traced, %v inspected", kind, off, notInspecting, inspecting)
		require.Equal(t, untraced[kind], off, "%s untraced: as before the lab", kind)
		require.Equal(t, untraced[kind]+4, notInspecting, "%s traced, not inspected: as before the lab", kind)
		require.Greater(t, inspecting, notInspecting, "%s: only an inspected queue builds its state", kind)

		q := newQueue(rec.Tracer())
		_ = q.Update(obj)
		_, _ = q.Pop(func(Deltas, bool) error { return nil })
	}
	for _, e := range rec.Events() {
		require.Nil(t, e.State, "a Recorder does not inspect: %s", e)
	}
}

// keysOf lists the keys of a state's items, in order.
func keysOf(st QueueState) []string {
	keys := make([]string, len(st.Items))
	for i, it := range st.Items {
		keys[i] = it.Key
	}
	return keys
}
