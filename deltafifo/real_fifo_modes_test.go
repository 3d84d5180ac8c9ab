package deltafifo

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// The tests of client-go 1.36's RealFIFO modes (the_real_fifo_modes.go).
// What the informer does with a ReplacedAll and a batch is tested where
// the informer is: TestRealFIFO_AtomicReplaceIsOneItem and
// TestRealFIFO_PopBatchAppliesOneTransaction in package informer.

// A mode is refused without the one it needs, with the reason.
func TestRealFIFO_OptionsRefuseModesWithoutTheirPrerequisites(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts RealFIFOOptions
		want string
	}{
		{"atomic with known objects", RealFIFOOptions{AtomicEvents: true, KnownObjects: newKnown()}, "AtomicEvents with KnownObjects"},
		{"unlock without atomic", RealFIFOOptions{UnlockWhileProcessing: true}, "UnlockWhileProcessing without AtomicEvents"},
		{"bookmarks without atomic", RealFIFOOptions{EmitDeltaTypeBookmark: true}, "EmitDeltaTypeBookmark without AtomicEvents"},
		{"negative batch", RealFIFOOptions{BatchSize: -1}, "BatchSize -1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			t.Logf("deltafifo: %v", err)
			require.ErrorContains(t, err, tt.want)
			require.PanicsWithError(t, err.Error(), func() { NewRealFIFO(tt.opts) })
		})
	}
	require.NoError(t, RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true}.Validate())
	require.NoError(t, RealFIFOOptions{KnownObjects: newKnown()}.Validate())
}

// client-go: AtomicFIFO (1.36). A relist is one ReplacedAll item carrying
// the transformed list and its resourceVersion; a resync is one SyncAll.
// The queue looks at no cache: a key the list lacks gets no tombstone here
// (the informer finds it when it applies the ReplacedAll).
func TestRealFIFO_AtomicQueuesReplacedAllAndSyncAll(t *testing.T) {
	transformed := 0
	f := newRealFIFO(t, RealFIFOOptions{AtomicEvents: true, Transform: func(o api.Object) (api.Object, error) {
		transformed++
		return o, nil
	}})
	t.Log("reflector (played by the test): the first list, at rv=9: a, b, c")
	require.NoError(t, f.Replace([]api.Object{cm("a", "7"), cm("b", "8"), cm("c", "9")}, "9"))
	t.Logf("deltafifo: queue: %s", formatRealFIFO(f))
	require.Equal(t, "ReplacedAll [a=7 b=8 c=9 @rv=9]", formatRealFIFO(f))
	require.Equal(t, 1, f.Len(), "the list is one item, whatever its length")
	require.Equal(t, 3, transformed, "every listed object transformed as it is queued")

	t.Log("reflector: foo added; then a relist at rv=12 without a; the resync timer fires")
	require.NoError(t, f.Add(cm("foo", "10")))
	require.NoError(t, f.Replace([]api.Object{cm("b", "8"), cm("c", "11")}, "12"))
	require.NoError(t, f.Resync())
	t.Logf("deltafifo: queue: %s", formatRealFIFO(f))
	require.Equal(t, "ReplacedAll [a=7 b=8 c=9 @rv=9] | foo Added 10 | ReplacedAll [b=8 c=11 @rv=12] | SyncAll (the cache)", formatRealFIFO(f),
		"no tombstone for a or foo: the queue reads no cache; one SyncAll, not a Sync per cached object")

	known := newKnown()
	require.False(t, f.HasSynced())
	popApply(t, f, known)
	require.True(t, f.HasSynced(), "the first ReplacedAll was the whole initial list")
	require.Equal(t, "a=7 b=8 c=9", formatCache(known))
	for f.Len() > 0 {
		popApply(t, f, known)
	}
	t.Logf("informer (played by the test): the cache after the second ReplacedAll: %s at rv %s", formatCache(known), known.LastStoreSyncResourceVersion())
	require.Equal(t, "b=8 c=11", formatCache(known))
	require.Equal(t, "12", known.LastStoreSyncResourceVersion())
}

// Bookmarks are queued only by a queue built to emit them, in order with
// the events around them.
func TestRealFIFO_BookmarkQueuedOnlyWhenEmitted(t *testing.T) {
	plain := newRealFIFO(t, RealFIFOOptions{AtomicEvents: true})
	require.NoError(t, plain.Bookmark("5"))
	require.Zero(t, plain.Len(), "without EmitDeltaTypeBookmark, Bookmark does nothing")

	f := newRealFIFO(t, RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true})
	require.NoError(t, f.Add(cm("a", "4")))
	require.NoError(t, f.Bookmark("5"))
	require.Equal(t, "a Added 4 | Bookmark @rv=5", formatRealFIFO(f))
	known := newKnown()
	popApply(t, f, known)
	require.Equal(t, "4", known.LastStoreSyncResourceVersion())
	popApply(t, f, known)
	t.Logf("informer (played by the test): store at rv %s after the Bookmark delta", known.LastStoreSyncResourceVersion())
	require.Equal(t, "5", known.LastStoreSyncResourceVersion())
	f.Close()
	require.ErrorIs(t, f.Bookmark("6"), ErrFIFOClosed)
}

// client-go: UnlockWhileProcessingFIFO (1.36). While a handler runs, the
// Reflector's Add goes through, as long as fewer than 2×BatchSize (2,000)
// deltas are left queued; from 2,000 on, and always without the mode, Pop
// holds the lock and the Add waits for the handler.
//
// The handler checks the lock itself (TryLock, before it lets the test
// go on), so each case is decided without timing; the deadline below only
// turns a broken queue's deadlock into a failure.
func TestRealFIFO_UnlocksWhileProcessing(t *testing.T) {
	for _, tt := range []struct {
		name          string
		unlock        bool
		queuedBehind  int // deltas left in the queue while the handler runs
		wantUnlocking bool
	}{
		{"mode off: processing holds the lock", false, 0, false},
		{"mode on, 1,999 queued behind: unlocked", true, 1999, true},
		{"mode on, 2,000 queued behind: locked again", true, 2000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// No tracer: thousands of deltas. The story is told below.
			f := NewRealFIFO(RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: tt.unlock})
			for i := range 1 + tt.queuedBehind {
				require.NoError(t, f.Add(cm(fmt.Sprintf("obj-%d", i), "1")))
			}
			t.Logf("reflector (played by the test): %d deltas queued", f.Len())

			started, release := make(chan struct{}), make(chan struct{})
			var lockFree, handlerReturned atomic.Bool
			popped := make(chan error, 1)
			go func() {
				_, err := f.Pop(func(Deltas, bool) error {
					if f.lock.TryLock() {
						lockFree.Store(true)
						f.lock.Unlock()
					}
					close(started)
					<-release // a slow handler
					handlerReturned.Store(true)
					return nil
				})
				popped <- err
			}()
			<-started
			t.Logf("informer: the handler runs, %d deltas behind it; queue lock free: %v", tt.queuedBehind, lockFree.Load())
			require.Equal(t, tt.wantUnlocking, lockFree.Load())

			added := make(chan bool, 1) // whether the handler had returned when Add did
			go func() {
				if err := f.Add(cm("late", "2")); err != nil {
					panic(err)
				}
				added <- handlerReturned.Load()
			}()
			if tt.wantUnlocking {
				select {
				case afterHandler := <-added:
					require.False(t, afterHandler)
					t.Logf("reflector: Add returned while the handler still runs; %d deltas queued", f.Len())
				case <-time.After(time.Minute):
					t.Fatal("Add still waits for the handler: Pop kept the lock")
				}
				close(release)
			} else {
				t.Log("reflector: Add waits for the queue's lock; the handler returns")
				close(release)
				require.True(t, <-added, "Add returned only after the handler did")
			}
			require.NoError(t, <-popped)
			require.Equal(t, tt.queuedBehind+1, f.Len())
		})
	}
}

// client-go: InOrderInformersBatchProcess (1.35). PopBatch takes the
// longest run of the oldest deltas that fits in BatchSize, repeats no key,
// holds no ReplacedAll, SyncAll or Bookmark (each of those pops alone),
// and stays inside the initial list or outside it.
func TestRealFIFO_PopBatchStopsAtRepeatedKeySizeAndSpecialDeltas(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true, BatchSize: 3})
	for _, write := range []func() error{
		func() error { return f.Add(cm("a", "1")) },
		func() error { return f.Add(cm("b", "1")) },
		func() error { return f.Add(cm("c", "1")) },
		func() error { return f.Add(cm("d", "1")) },
		func() error { return f.Update(cm("a", "2")) },
		func() error { return f.Update(cm("d", "2")) },
		func() error { return f.Bookmark("5") },
		func() error { return f.Add(cm("e", "1")) },
	} {
		require.NoError(t, write())
	}
	t.Logf("reflector (played by the test): queue: %s", formatRealFIFO(f))
	for _, want := range []string{
		"batch: a Added 1 | b Added 1 | c Added 1", // BatchSize 3
		"batch: d Added 1 | a Updated 2",           // d comes again next
		"single: d Updated 2",                      // a Bookmark follows
		"single: Bookmark @rv=5",                   // alone
		"single: e Added 1",                        // the last one
	} {
		require.Equal(t, want, popBatch(t, f))
	}

	t.Log("a RealFIFO without the 1.36 modes batches too; a batch ends with the initial list")
	f = newRealFIFO(t, RealFIFOOptions{})
	require.NoError(t, f.Replace([]api.Object{cm("x", "3"), cm("y", "3")}, "3"))
	require.NoError(t, f.Add(cm("z", "4")))
	require.NoError(t, f.Add(cm("w", "4")))
	require.Equal(t, "batch: x Replaced 3 | y Replaced 3 initial", popBatch(t, f))
	require.True(t, f.HasSynced())
	require.Equal(t, "batch: z Added 4 | w Added 4", popBatch(t, f))

	require.Error(t, f.PopBatch(nil, func(Deltas, bool) error { return nil }))
	f.Close()
	require.ErrorIs(t, f.PopBatch(func([]Delta, bool) error { return nil }, func(Deltas, bool) error { return nil }), ErrFIFOClosed)
}

// popBatch pops a batch and prints what was handed out and how.
func popBatch(t *testing.T, f *RealFIFO) string {
	t.Helper()
	var got string
	suffix := func(initial bool) string {
		if initial {
			return " initial"
		}
		return ""
	}
	err := f.PopBatch(func(batch []Delta, initial bool) error {
		got = "batch: " + formatBatch(f.keyer, batch) + suffix(initial)
		return nil
	}, func(d Deltas, initial bool) error {
		got = "single: " + formatBatch(f.keyer, d) + suffix(initial)
		return nil
	})
	require.NoError(t, err)
	t.Logf("informer: PopBatch -> %s", got)
	return got
}

// A process error comes back from PopBatch; the deltas are gone, as with Pop.
func TestRealFIFO_PopBatchReturnsTheProcessError(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{})
	require.NoError(t, f.Add(cm("a", "1")))
	require.NoError(t, f.Add(cm("b", "1")))
	errBoom := errors.New("boom")
	require.ErrorIs(t, f.PopBatch(func([]Delta, bool) error { return errBoom }, func(Deltas, bool) error { return nil }), errBoom)
	require.Zero(t, f.Len())
}

// An atomic RealFIFO queues a list as one item without keying its objects,
// as client-go's does: the item cannot be half queued, and the informer's
// cache keys the list when it applies it, refusing it whole if one object
// has no key (TestProcessReplacedAll_AnUnkeyableObjectChangesNothing, in
// package informer). A queue that is not atomic queues a delta an object,
// so it keys them all first and refuses the list before queueing any.
func TestRealFIFO_AtomicReplaceDoesNotKeyTheList(t *testing.T) {
	nameless := &api.ConfigMap{}
	atomicQ := newRealFIFO(t, RealFIFOOptions{AtomicEvents: true})
	require.NoError(t, atomicQ.Replace([]api.Object{cm("a", "1"), nameless}, "2"))
	t.Logf("deltafifo: atomic: a list with a nameless object is queued: %s", formatRealFIFO(atomicQ))
	require.Equal(t, 1, atomicQ.Len())

	plain := newRealFIFO(t, RealFIFOOptions{})
	err := plain.Replace([]api.Object{cm("a", "1"), nameless}, "2")
	t.Logf("deltafifo: not atomic: %v", err)
	require.ErrorContains(t, err, "item 1")
	require.Zero(t, plain.Len(), "nothing of the list queued")
}
