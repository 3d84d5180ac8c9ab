package deltafifo

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// popOne pops one item without processing it and returns its key and Deltas.
func popOne(t *testing.T, q Queue) (Deltas, bool) {
	t.Helper()
	var initial bool
	d, err := q.Pop(func(_ Deltas, isInInitialList bool) error {
		initial = isInInitialList
		return nil
	})
	require.NoError(t, err)
	return d, initial
}

// popApply pops one item and applies it to known, as the informer does.
func popApply(t *testing.T, q Queue, known sortedKnown) Deltas {
	t.Helper()
	d, err := q.Pop(func(d Deltas, _ bool) error { return applyDeltas(known, d) })
	require.NoError(t, err)
	return d
}

// A key is queued once however many deltas pile up for it, keeps its place
// in the queue, and Pop hands out all of its deltas at once.
// Article: "Kubernetes-Informer" by smartkeyerror §2 (Delta FIFO Queue).
func TestDeltaFIFO_KeyQueuedOnceManyDeltas(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	t.Log("reflector (played by the test): foo added, bar added, foo updated twice")
	require.NoError(t, f.Add(cm("foo", "1")))
	require.NoError(t, f.Add(cm("bar", "1")))
	require.NoError(t, f.Update(cm("foo", "2")))
	require.NoError(t, f.Update(cm("foo", "3")))
	t.Log("informer (played by the test): popping twice; foo comes out once, with its three deltas")

	require.Equal(t, []string{"foo", "bar"}, f.ListKeys())
	require.Equal(t, 2, f.Len())

	d, _ := popOne(t, f)
	require.Equal(t, "{Added 1, Updated 2, Updated 3}", formatDeltas(d))
	d, _ = popOne(t, f)
	require.Equal(t, "{Added 1}", formatDeltas(d))
	require.Zero(t, f.Len())
}

// The "informer" notes (§2.4, event dedup) say that for a repeated key the
// queue keeps only the last event. It does not: the DeltaFIFO keeps every
// delta; only two deletions in a row collapse. What coalesces repeated keys
// is the controller's work queue, not this one.
// Article: "informer" notes §2.4.
func TestDeltaFIFO_KeepsEveryDeltaNotOnlyTheLast(t *testing.T) {
	known := newKnown(cm("foo", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known})
	t.Log("reflector (played by the test): foo updated 3 times, deleted twice (a duplicate DELETED), added again")
	require.NoError(t, f.Update(cm("foo", "2")))
	require.NoError(t, f.Update(cm("foo", "3")))
	require.NoError(t, f.Update(cm("foo", "4")))
	require.NoError(t, f.Delete(cm("foo", "5")))
	require.NoError(t, f.Delete(cm("foo", "5")))
	require.NoError(t, f.Add(cm("foo", "6")))

	d, _ := popOne(t, f)
	require.Equal(t, "{Updated 2, Updated 3, Updated 4, Deleted 5, Added 6}", formatDeltas(d),
		"if only the last event were kept, this would be {Added 6}")
}

// Two deletions in a row collapse into one; the older is kept unless it is a
// tombstone (a real DELETED event carries the final state, a tombstone only
// a guess). Nothing else is merged.
func TestDeltaFIFO_DedupConsecutiveDeletes(t *testing.T) {
	tomb := DeletedFinalStateUnknown{Key: "foo", Obj: cm("foo", "1")}
	tests := []struct {
		name string
		in   Deltas
		want string
	}{
		{"two deletes: keep the older", Deltas{{Deleted, cm("foo", "2")}, {Deleted, cm("foo", "3")}}, "{Deleted 2}"},
		{"tombstone then delete: keep the real one", Deltas{{Deleted, tomb}, {Deleted, cm("foo", "3")}}, "{Deleted 3}"},
		{"delete then tombstone: keep the real one", Deltas{{Deleted, cm("foo", "2")}, {Deleted, tomb}}, "{Deleted 2}"},
		{"not consecutive: kept", Deltas{{Deleted, cm("foo", "2")}, {Added, cm("foo", "3")}, {Deleted, cm("foo", "4")}}, "{Deleted 2, Added 3, Deleted 4}"},
		{"repeated updates: kept", Deltas{{Updated, cm("foo", "2")}, {Updated, cm("foo", "2")}}, "{Updated 2, Updated 2}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Deltas
			for _, d := range tt.in { // one append at a time, as the queue does
				got = dedupDeltas(append(got, d))
			}
			require.Equal(t, tt.want, formatDeltas(got))
		})
	}

	t.Run("through Delete and Replace", func(t *testing.T) {
		known := newKnown(cm("foo", "1"))
		tr, rec := traced(t)
		f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, Tracer: tr})
		t.Log("reflector (played by the test): foo deleted, the DELETED delivered twice, then a relist without foo")
		require.NoError(t, f.Delete(cm("foo", "2")))
		require.NoError(t, f.Delete(cm("foo", "2"))) // a duplicate DELETED
		require.NoError(t, f.Replace(nil, "3"))      // a relist that no longer has foo
		d, _, _ := f.GetByKey("foo")
		require.Equal(t, "{Deleted 2}", formatDeltas(d))
		require.Equal(t, []string{"delta queued", "deletion collapsed", "deletion collapsed"}, whats(rec.ForKey("foo")),
			"the duplicate DELETED and the relist's tombstone each collapse into the queued deletion")
	})
}

// Delete of a key neither queued nor in the cache queues nothing: it was
// already deleted (by a relist's tombstone) and nobody is left to tell.
func TestDeltaFIFO_DeleteOfUnknownKeyIsSkipped(t *testing.T) {
	tr, rec := traced(t)
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: newKnown(cm("cached", "1")), Tracer: tr})
	t.Log("reflector (played by the test): DELETED for stranger, a key neither queued nor cached")
	require.NoError(t, f.Delete(cm("stranger", "2")))
	require.Zero(t, f.Len())
	require.Empty(t, rec.ForKey("stranger"), "nothing queued, so nothing traced for stranger")
	t.Log("deltafifo: the delete of stranger was skipped (no trace event above); now deletes of a cached and a queued key")

	require.NoError(t, f.Delete(cm("cached", "2")))
	require.NoError(t, f.Add(cm("queued", "1")))
	require.NoError(t, f.Delete(cm("queued", "2")))
	require.Equal(t, "cached{Deleted 2} queued{Added 1, Deleted 2}", formatDeltaFIFO(f))

	noKnown := newDeltaFIFO(t, DeltaFIFOOptions{})
	require.NoError(t, noKnown.Delete(cm("foo", "1")))
	require.Zero(t, noKnown.Len(), "without known objects only the queue counts")
}

// A relist that lacks a cached key means it was deleted while the watch was
// down: Replace queues a tombstone with the cached object, the last state
// known. Article: "如何高效掌控K8s资源变化" by 王成 (syncWith → Replace) and
// "Kubernetes 源码阅读 - Informer" (KnownObjects: the indexer).
func TestDeltaFIFO_ReplaceEmitsTombstonesForVanishedKeys(t *testing.T) {
	known := newKnown(cm("foo", "1"), cm("bar", "1"), cm("ns/baz", "1"))
	tr, rec := traced(t)
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true, Tracer: tr})

	t.Logf("informer cache: %s", formatCache(known))
	t.Log("reflector (played by the test): the watch was down; the relist at rv=7 has only bar")
	require.NoError(t, f.Replace([]api.Object{cm("bar", "7")}, "7"))
	for _, key := range []string{"foo", "ns/baz"} {
		require.Equal(t, []string{"tombstone queued"}, whats(rec.ForKey(key)), "the trace shows a tombstone for %s", key)
	}

	require.Equal(t, "bar{Replaced 7} foo{Deleted tombstone(1)} ns/baz{Deleted tombstone(1)}", formatDeltaFIFO(f))
	d, _, _ := f.GetByKey("foo")
	tomb := d.Newest().Object.(DeletedFinalStateUnknown)
	require.Equal(t, "foo", tomb.Key)
	cached, _, _ := known.GetByKey("foo")
	require.Same(t, cached, tomb.Obj, "the tombstone carries the cached object")

	// Popping applies the deletions: the cache now equals the list.
	t.Log("informer (played by the test): popping everything into the cache")
	for f.Len() > 0 {
		popApply(t, f, known)
	}
	require.Equal(t, "bar=7", formatCache(known))
	t.Logf("informer cache: %s", formatCache(known))
}

// An object that is only in the queue (added by the watch, not popped yet)
// and missing from a relist must be deleted too, or it would reach the cache
// and stay there forever (kubernetes#115620).
func TestDeltaFIFO_ReplaceMakesDeletionsForObjectsOnlyInQueue(t *testing.T) {
	known := newKnown()
	tr, rec := traced(t)
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true, Tracer: tr})
	t.Log("reflector (played by the test): the watch adds and updates foo; nothing is popped yet, so the cache is empty")
	require.NoError(t, f.Add(cm("foo", "1")))
	require.NoError(t, f.Update(cm("foo", "2")))

	t.Log("reflector (played by the test): a relist at rv=3 has only bar")
	require.NoError(t, f.Replace([]api.Object{cm("bar", "3")}, "3"))
	require.Contains(t, whats(rec.ForKey("foo")), "tombstone queued", "foo, only in the queue, gets a tombstone too")

	require.Equal(t, "foo{Added 1, Updated 2, Deleted tombstone(2)} bar{Replaced 3}", formatDeltaFIFO(f))
	for f.Len() > 0 {
		popApply(t, f, known)
	}
	require.Equal(t, "bar=3", formatCache(known))
}

// Two relists in a row that both lack a cached key: the second tombstone is
// made from the key's newest queued object, the first tombstone, unwrapped so
// that tombstones never nest and the last known state survives; the two
// deletions then collapse. The popped tombstone still carries the object the
// informer must delete from its cache.
func TestDeltaFIFO_RepeatedRelistKeepsTombstoneState(t *testing.T) {
	known := newKnown(cm("foo", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
	t.Log("reflector (played by the test): two relists in a row, neither has foo (cached at rv 1)")
	require.NoError(t, f.Replace(nil, "2"))
	require.NoError(t, f.Replace(nil, "3"))

	require.Equal(t, "foo{Deleted tombstone(1)}", formatDeltaFIFO(f))
	popApply(t, f, known)
	require.Equal(t, "(empty)", formatCache(known), "the tombstone's object was deleted from the cache")
}

// Replace emits Replaced deltas with EmitDeltaTypeReplaced (what informers
// set), Sync deltas without: then a relist looks like a resync to handlers
// (kubernetes#86015).
func TestDeltaFIFO_ReplaceEmitsReplacedOrSync(t *testing.T) {
	for _, tt := range []struct {
		emitReplaced bool
		want         string
	}{{false, "foo{Sync 1}"}, {true, "foo{Replaced 1}"}} {
		f := newDeltaFIFO(t, DeltaFIFOOptions{EmitDeltaTypeReplaced: tt.emitReplaced})
		t.Logf("reflector (played by the test): a list of foo, EmitDeltaTypeReplaced=%v", tt.emitReplaced)
		require.NoError(t, f.Replace([]api.Object{cm("foo", "1")}, "1"))
		require.Equal(t, tt.want, formatDeltaFIFO(f), "EmitDeltaTypeReplaced=%v", tt.emitReplaced)
	}
}

// A relist that lists an object whose newest queued delta is Deleted must
// still queue it: it was deleted and created again. client-go once dropped
// the Sync here and lost the object (kubernetes#83810, fixed by #83911).
func TestDeltaFIFO_ReplaceAfterDeleteStillSyncs(t *testing.T) {
	known := newKnown(cm("foo", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known})
	t.Log("reflector (played by the test): foo deleted; then a relist has foo again (recreated at rv 5)")
	require.NoError(t, f.Delete(cm("foo", "1")))

	require.NoError(t, f.Replace([]api.Object{cm("foo", "5")}, "5"))

	d, _, _ := f.GetByKey("foo")
	require.Equal(t, "{Deleted 1, Sync 5}", formatDeltas(d))
	popApply(t, f, known)
	require.Equal(t, "foo=5", formatCache(known), "the recreated object is in the cache")
}

// Resync replays cached objects as Sync deltas, but not for a key with
// deltas pending: the cached state is older than what is queued, and a
// Sync after a pending Deleted would bring the object back.
// Article: "Kubernetes 源码阅读 - Informer" (Resync: the cache is replayed
// into the queue).
func TestDeltaFIFO_ResyncSkipsKeysWithPendingDeltas(t *testing.T) {
	known := newKnown(cm("foo", "1"), cm("bar", "1"), cm("gone", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known})
	t.Logf("informer cache: %s", formatCache(known))
	t.Log("reflector (played by the test): foo updated, gone deleted; then the resync timer fires")
	require.NoError(t, f.Update(cm("foo", "2")))
	require.NoError(t, f.Delete(cm("gone", "2")))

	require.NoError(t, f.Resync())

	require.Equal(t, "foo{Updated 2} gone{Deleted 2} bar{Sync 1}", formatDeltaFIFO(f))

	require.NoError(t, newDeltaFIFO(t, DeltaFIFOOptions{}).Resync(), "without known objects Resync does nothing")
}

// HasSynced is true once every item of the first Replace, tombstones
// included, has been popped; those pops say isInInitialList.
// Article: "Kubernetes-Informer" by smartkeyerror §3 (WaitForCacheSync waits
// for HasSynced).
func TestDeltaFIFO_HasSyncedAfterInitialListPopped(t *testing.T) {
	known := newKnown(cm("stale", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
	require.False(t, f.HasSynced(), "nothing listed yet")

	t.Log("reflector (played by the test): the first list (a, b; stale is gone), then a watch event for c")
	require.NoError(t, f.Replace([]api.Object{cm("a", "5"), cm("b", "5")}, "5"))
	require.NoError(t, f.Add(cm("c", "6"))) // a watch event after the list
	require.False(t, f.HasSynced())

	for _, want := range []string{"{Replaced 5}", "{Replaced 5}", "{Deleted tombstone(1)}"} {
		d, initial := popOne(t, f)
		require.Equal(t, want, formatDeltas(d))
		require.True(t, initial, "an item of the first list")
	}
	require.True(t, f.HasSynced(), "the initial list (3 items with the tombstone) is out")
	t.Log("deltafifo: HasSynced is now true: the 3 items of the first list (tombstone included) have been popped")

	d, initial := popOne(t, f)
	require.Equal(t, "{Added 6}", formatDeltas(d))
	require.False(t, initial)

	require.NoError(t, f.Replace([]api.Object{cm("a", "9")}, "9"))
	require.True(t, f.HasSynced(), "only the first Replace counts")

	addFirst := newDeltaFIFO(t, DeltaFIFOOptions{})
	require.NoError(t, addFirst.Add(cm("x", "1")))
	require.True(t, addFirst.HasSynced(), "an Add before any Replace marks the queue synced (as in client-go)")
}

// Pop blocks while the queue is empty, returns as soon as something is
// added, and Close unblocks it with ErrFIFOClosed.
func TestDeltaFIFO_PopBlocksUntilAddOrClose(t *testing.T) {
	testPopBlocksUntilAddOrClose(t, func(t *testing.T) Queue { return newDeltaFIFO(t, DeltaFIFOOptions{}) })
}

func testPopBlocksUntilAddOrClose(t *testing.T, newQueue func(t *testing.T) Queue) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		type result struct {
			d   Deltas
			err error
		}
		pop := func() <-chan result {
			ch := make(chan result, 1)
			go func() {
				d, err := q.Pop(func(Deltas, bool) error { return nil })
				ch <- result{d, err}
			}()
			return ch
		}

		got := pop()
		synctest.Wait() // the popper is parked in Pop
		select {
		case r := <-got:
			t.Fatalf("Pop returned on an empty queue: %v", r)
		default:
		}
		t.Log("informer (played by the test): Pop on the empty queue is blocked")

		t.Log("reflector (played by the test): adding foo")
		require.NoError(t, q.Add(cm("foo", "1")))
		r := <-got
		require.NoError(t, r.err)
		require.Equal(t, "{Added 1}", formatDeltas(r.d))

		got = pop()
		synctest.Wait()
		t.Log("informer (played by the test): Pop is blocked again; closing the queue")
		q.Close()
		r = <-got
		require.ErrorIs(t, r.err, ErrFIFOClosed)
		t.Logf("deltafifo: the blocked Pop returned: %v", r.err)
	})
}

// After Close, Pop still hands out what was queued, then ErrFIFOClosed;
// writes fail.
func TestDeltaFIFO_PopDrainsQueueAfterClose(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: newKnown(cm("foo", "1"))})
	require.NoError(t, f.Add(cm("bar", "1")))
	t.Log("informer (played by the test): closing the queue with bar still queued; writes now fail")
	f.Close()
	require.True(t, f.IsClosed())

	require.ErrorIs(t, f.Add(cm("baz", "1")), ErrFIFOClosed)
	require.ErrorIs(t, f.Update(cm("baz", "1")), ErrFIFOClosed)
	require.ErrorIs(t, f.Delete(cm("foo", "1")), ErrFIFOClosed)
	require.ErrorIs(t, f.Replace(nil, "1"), ErrFIFOClosed)
	require.ErrorIs(t, f.Resync(), ErrFIFOClosed)

	d, _ := popOne(t, f)
	require.Equal(t, "{Added 1}", formatDeltas(d))
	_, err := f.Pop(func(Deltas, bool) error { return nil })
	require.ErrorIs(t, err, ErrFIFOClosed)
	t.Logf("deltafifo: bar popped after Close; the next Pop: %v", err)
}

// A process error is returned by Pop and the item is gone: there is no
// requeue (ErrRequeue was removed from client-go in 1.33, see
// docs/deltafifo.md).
func TestDeltaFIFO_ProcessErrorIsNotRequeued(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	require.NoError(t, f.Add(cm("foo", "1")))
	errBoom := errors.New("boom")

	d, err := f.Pop(func(Deltas, bool) error { return errBoom })
	t.Logf("informer (played by the test): process failed: %v", err)

	require.ErrorIs(t, err, errBoom)
	require.Equal(t, "{Added 1}", formatDeltas(d), "Pop returns the item it failed to process")
	require.Zero(t, f.Len(), "and does not put it back")
	t.Logf("deltafifo: foo is not requeued: %d items queued", f.Len())
}

// process runs while Pop holds the queue's lock, so nothing can write to the
// queue (or read it) until the informer has applied the deltas to its cache.
func TestDeltaFIFO_PopProcessesUnderTheLock(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	require.NoError(t, f.Add(cm("foo", "1")))
	var lockedDuringProcess bool
	_, err := f.Pop(func(Deltas, bool) error {
		lockedDuringProcess = !f.lock.TryRLock()
		if !lockedDuringProcess {
			f.lock.RUnlock() // so a broken Pop fails this test instead of hanging it
		}
		return nil
	})
	require.NoError(t, err)
	t.Logf("informer (played by the test): inside process, the queue's lock was held: %v", lockedDuringProcess)
	require.True(t, lockedDuringProcess, "the queue is locked while process runs")
	require.True(t, f.lock.TryRLock(), "and unlocked after")
	f.lock.RUnlock()
}

// The transform runs once on every object arriving from the server (Add,
// Update, Delete, Replace) before it is queued, and never on the cached
// objects a Resync replays or on tombstones.
func TestDeltaFIFO_TransformRunsBeforeQueueing(t *testing.T) {
	calls := 0
	strip := func(obj api.Object) (api.Object, error) {
		calls++
		c := obj.DeepCopyObject()
		c.GetObjectMeta().Annotations = nil // drop what nothing reads
		return c, nil
	}
	annotated := func(key, rv string) *api.ConfigMap {
		c := cm(key, rv)
		c.Annotations = map[string]string{"big": "blob"}
		return c
	}
	known := newKnown(cm("cached", "1"), cm("vanished", "1"))
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: known, Transform: strip})

	require.NoError(t, f.Add(annotated("a", "1")))
	require.NoError(t, f.Update(annotated("a", "2")))
	require.NoError(t, f.Delete(annotated("cached", "2")))
	require.Equal(t, 3, calls)
	for _, obj := range f.List() {
		require.Nil(t, obj.(api.Object).GetAnnotations(), "queued objects are transformed")
	}

	require.NoError(t, f.Replace([]api.Object{annotated("a", "3"), annotated("cached", "3")}, "3"))
	require.Equal(t, 5, calls, "each listed object once; the tombstone for vanished not at all")

	for f.Len() > 0 {
		popApply(t, f, known)
	}
	require.NoError(t, f.Resync())
	require.Equal(t, 5, calls, "Resync replays cached objects, already transformed")
	require.Equal(t, "a{Sync 3} cached{Sync 3}", formatDeltaFIFO(f))

	failing := newDeltaFIFO(t, DeltaFIFOOptions{Transform: func(api.Object) (api.Object, error) { return nil, errors.New("bad") }})
	require.ErrorContains(t, failing.Add(cm("x", "1")), "transform /x: bad")
	returnsNil := newDeltaFIFO(t, DeltaFIFOOptions{Transform: func(api.Object) (api.Object, error) { return nil, nil }})
	require.ErrorContains(t, returnsNil.Add(cm("x", "1")), "returned nil")
	require.Zero(t, failing.Len()+returnsNil.Len())
}

// ListKeys and List are in queue order; Get and GetByKey return copies.
func TestDeltaFIFO_ListAndGetOverQueuedItems(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: newKnown(cm("old", "1"))})
	require.NoError(t, f.Add(cm("b", "1")))
	require.NoError(t, f.Add(cm("a", "1")))
	require.NoError(t, f.Update(cm("b", "2")))
	require.NoError(t, f.Replace([]api.Object{cm("a", "3"), cm("b", "3")}, "3"))

	require.Equal(t, []string{"b", "a", "old"}, f.ListKeys())
	var listed []string
	for _, obj := range f.List() {
		listed = append(listed, formatObject(obj))
	}
	require.Equal(t, []string{"3", "3", "tombstone(1)"}, listed, "the newest object of each key")

	d, exists, err := f.Get(cm("b", ""))
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, "{Added 1, Updated 2, Sync 3}", formatDeltas(d))
	d[0].Type = Deleted // scribbling on the copy
	d, _, _ = f.GetByKey("b")
	require.Equal(t, "{Added 1, Updated 2, Sync 3}", formatDeltas(d), "the queue is unchanged")

	_, exists, err = f.GetByKey("nope")
	require.NoError(t, err)
	require.False(t, exists)
}

func TestDeltaFIFO_KeyOf(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr string
	}{
		{"object", cm("ns/foo", "1"), "ns/foo", ""},
		{"tombstone", DeletedFinalStateUnknown{Key: "ns/foo"}, "ns/foo", ""},
		{"deltas: by the newest", Deltas{{Added, cm("ns/old", "1")}, {Deleted, DeletedFinalStateUnknown{Key: "ns/foo"}}}, "ns/foo", ""},
		{"empty deltas", Deltas{}, "", "empty Deltas"},
		{"not an object", 3, "", "couldn't compute the key of int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.KeyOf(tt.obj)
			t.Logf("deltafifo: KeyOf(%s) = %q, err: %v", tt.name, got, err)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// A tombstone is keyed by the key of the object it stands for, so a
// DeleteFunc can find it in the cache and in the work queue.
func TestDeletionHandlingMetaNamespaceKeyFunc(t *testing.T) {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(DeletedFinalStateUnknown{Key: "default/web-0"})
	require.NoError(t, err)
	require.Equal(t, "default/web-0", key)
	t.Logf("deltafifo: a tombstone for default/web-0 has the key %q", key)
	key, err = DeletionHandlingMetaNamespaceKeyFunc(cm("default/web-1", "1"))
	require.NoError(t, err)
	require.Equal(t, "default/web-1", key)
	t.Logf("deltafifo: the object default/web-1 has the key %q", key)
	_, err = DeletionHandlingMetaNamespaceKeyFunc(nil)
	require.Error(t, err)
	t.Logf("deltafifo: nil has no key: %v", err)
}

// Bad input is refused with a clear error, never a panic, and queues nothing.
func TestDeltaFIFO_RejectsBadInput(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	refused := func(what string, err error) error {
		t.Logf("deltafifo: %s refused: %v", what, err)
		return err
	}
	require.ErrorIs(t, refused("Add(nil)", f.Add(nil)), errNilObject)
	require.ErrorIs(t, refused("Update(typed nil)", f.Update((*api.ConfigMap)(nil))), errNilObject)
	require.ErrorIs(t, refused("Delete(nil)", f.Delete(nil)), errNilObject)
	require.ErrorContains(t, refused("Add(unnamed)", f.Add(&api.ConfigMap{})), "without a name")
	require.ErrorContains(t, refused("Replace(ok, nil)", f.Replace([]api.Object{cm("ok", "1"), nil}, "1")), "replace: item 1: deltafifo: nil object")
	require.Zero(t, f.Len(), "a bad list queues nothing, not even its good items")
	_, err := f.Pop(nil)
	require.ErrorContains(t, refused("Pop(nil)", err), "needs a process function")
}
