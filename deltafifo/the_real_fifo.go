package deltafifo

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// RealFIFOOptions configures a RealFIFO. It is DeltaFIFOOptions without
// EmitDeltaTypeReplaced (a RealFIFO always emits Replaced for a relist),
// plus the modes of client-go 1.36's RealFIFO, each named after the feature
// gate that turns it on upstream. All zero, the RealFIFO is the one of the
// InOrderInformers gate (1.33): relists and resyncs object by object, Pop
// under the lock. The modes are described in the_real_fifo_modes.go.
type RealFIFOOptions struct {
	// KeyFunction keys objects; MetaNamespaceKeyFunc if nil.
	KeyFunction indexer.KeyFunc
	// KnownObjects is the informer's cache, used by Replace to find
	// deletions and by Resync to replay objects. It must be nil with
	// AtomicEvents: then the informer does both itself, against its cache,
	// when it pops the ReplacedAll or SyncAll delta.
	KnownObjects KeyListerGetter
	// Transform, if set, rewrites each object arriving from the server
	// before it is queued.
	Transform TransformFunc
	// Tracer receives the queue's trace events (stage "deltafifo"). nil: off.
	Tracer *trace.Tracer

	// AtomicEvents (client-go: AtomicFIFO, beta and on by default in
	// 1.36) makes a relist one item and a resync one item: Replace queues
	// a single ReplacedAll delta carrying the whole transformed list and
	// its resourceVersion (a ReplacedAllInfo), Resync a single SyncAll.
	// Requires KnownObjects to be nil.
	AtomicEvents bool
	// UnlockWhileProcessing (client-go: UnlockWhileProcessingFIFO, beta
	// and on by default in 1.36) makes Pop and PopBatch release the
	// queue's lock while the process function runs, as long as fewer than
	// 2×BatchSize deltas are left queued, so the Reflector's writes do not
	// wait for the handlers. Requires AtomicEvents. Pop must then have a
	// single caller.
	UnlockWhileProcessing bool
	// EmitDeltaTypeBookmark (client-go 1.36, KEP-5647; the informer sets
	// it with AtomicFIFO) makes Bookmark queue a Bookmark delta carrying
	// the resourceVersion of a watch BOOKMARK, so the informer's store
	// learns it has reached that version. Requires AtomicEvents. Without
	// it Bookmark does nothing.
	EmitDeltaTypeBookmark bool
	// BatchSize is the most deltas PopBatch hands out at once (client-go:
	// InOrderInformersBatchProcess, beta and on by default in 1.35), and
	// half the queue length from which UnlockWhileProcessing keeps the
	// lock. 0 means 1,000, client-go's fixed size.
	BatchSize int
}

// defaultBatchSize is client-go's batch size, which it does not let you
// change: a batch holds at most 1,000 deltas, and an unlocking queue stops
// unlocking once 2,000 are queued.
const defaultBatchSize = 1000

// Validate returns the error NewRealFIFO panics with, or nil: a mode set
// without the one it needs. client-go panics on the same combinations
// ("coding error").
func (o RealFIFOOptions) Validate() error {
	var errs []error
	if o.AtomicEvents && o.KnownObjects != nil {
		errs = append(errs, errors.New("AtomicEvents with KnownObjects: an atomic RealFIFO finds deletions when its ReplacedAll delta is processed, against the informer's cache, not when Replace is called; leave KnownObjects nil"))
	}
	if o.UnlockWhileProcessing && !o.AtomicEvents {
		errs = append(errs, errors.New("UnlockWhileProcessing without AtomicEvents: Replace and Resync would read the cache (KnownObjects) while the informer writes it"))
	}
	if o.EmitDeltaTypeBookmark && !o.AtomicEvents {
		errs = append(errs, errors.New("EmitDeltaTypeBookmark without AtomicEvents: a relist applied object by object would move the store's resourceVersion out of order"))
	}
	if o.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("BatchSize %d is negative", o.BatchSize))
	}
	if len(errs) > 0 {
		return fmt.Errorf("deltafifo: RealFIFOOptions: %w", errors.Join(errs...))
	}
	return nil
}

// RealFIFO is the queue client-go moved to (the informers' default since
// 1.33, the InOrderInformers feature gate; GA and locked on since 1.36):
// every notification is kept, in the order it arrived, as its own
// Delta. Nothing is merged per key, no deletion is collapsed, and Pop hands
// out one Delta at a time (a Deltas of length 1).
//
// Where a DeltaFIFO answers "what happened to each key, key by key", a
// RealFIFO answers "what happened, in order". Applying watch events in
// order keeps the informer's cache equal to the server's state at the
// resourceVersion of the last event applied, which per-key merging does not
// (see docs/deltafifo.md). A relist applied one object at a time is the
// exception; AtomicEvents (client-go 1.36's AtomicFIFO: one ReplacedAll
// delta per relist) closes it. RealFIFOOptions lists the modes of 1.36
// (atomic events, unlocking while processing, bookmarks) and PopBatch is
// the batch pop; the_real_fifo_modes.go tells their story.
type RealFIFO struct {
	fifoState // lock, cond (signalled when a delta is queued), closed, HasSynced bookkeeping

	items []Delta // every queued notification, oldest first

	keyer
	knownObjects KeyListerGetter
	transform    TransformFunc

	// The 1.36 modes (RealFIFOOptions).
	atomic, unlockWhileProcessing, emitBookmark bool
	batchSize                                   int
	// batchKeys is PopBatch's set of the keys in the batch being built,
	// kept between calls (cleared, under the lock) so that a busy
	// informer does not allocate a map for every batch.
	batchKeys map[qkey]struct{}
}

var (
	_ Queue          = (*RealFIFO)(nil)
	_ QueueWithBatch = (*RealFIFO)(nil)
)

// NewRealFIFO returns an empty RealFIFO. It panics with Validate's error
// if opts combines modes that do not go together.
func NewRealFIFO(opts RealFIFOOptions) *RealFIFO {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	f := &RealFIFO{
		keyer:                 newKeyer(opts.KeyFunction),
		knownObjects:          opts.KnownObjects,
		transform:             opts.Transform,
		atomic:                opts.AtomicEvents,
		unlockWhileProcessing: opts.UnlockWhileProcessing,
		emitBookmark:          opts.EmitDeltaTypeBookmark,
		batchSize:             cmp.Or(opts.BatchSize, defaultBatchSize),
	}
	f.initState()
	f.tracer = opts.Tracer.Stage(trace.StageDeltaFIFO)
	return f
}

// HasSyncedChecker implements Queue: its channel is closed when HasSynced
// turns true, in every mode.
func (f *RealFIFO) HasSyncedChecker() DoneChecker { return syncedChecker{"RealFIFO", f.synced} }

// KeyOf returns the key of obj, as DeltaFIFO.KeyOf does.
func (f *RealFIFO) KeyOf(obj any) (string, error) { return f.keyOf(obj) }

// Add queues an Added delta.
func (f *RealFIFO) Add(obj api.Object) error { return f.addFromServer(Added, obj) }

// Update queues an Updated delta.
func (f *RealFIFO) Update(obj api.Object) error { return f.addFromServer(Updated, obj) }

// Delete queues a Deleted delta. Unlike DeltaFIFO.Delete it does not check
// whether the key is known: every notification is kept.
func (f *RealFIFO) Delete(obj api.Object) error { return f.addFromServer(Deleted, obj) }

// addFromServer queues a watch event's object, transformed.
func (f *RealFIFO) addFromServer(t DeltaType, obj api.Object) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	obj, err := f.admitLocked(obj)
	if err != nil {
		return err
	}
	// Keyed only to refuse what cannot be keyed; qkeyOf does that without
	// allocating the key string.
	if _, err := f.qkeyOf(obj); err != nil {
		return err
	}
	f.populated = true
	f.checkSyncedLocked()
	f.addLocked(t, obj)
	return nil
}

func (f *RealFIFO) admitLocked(obj api.Object) (api.Object, error) {
	return admit(f.closed, f.transform, obj)
}

func (f *RealFIFO) addLocked(t DeltaType, obj any) {
	d := Delta{Type: t, Object: obj}
	f.items = append(f.items, d)
	f.grew(len(f.items))
	if f.tracer.On() {
		key, _ := f.KeyOf(obj) // "" for a ReplacedAll, SyncAll or Bookmark: they have no key
		traceQueued(f.tracer, d, key, len(f.items), f.inspectLocked()...)
	}
	f.cond.Broadcast()
}

// Replace queues, in this order: a Deleted tombstone for every queued key
// the list lacks whose last queued delta is not already a deletion; a
// Deleted tombstone for every cached key the list lacks that is not queued;
// then a Replaced delta for every listed object. With AtomicEvents it
// queues one ReplacedAll delta instead (the_real_fifo_modes.go).
func (f *RealFIFO) Replace(list []api.Object, resourceVersion string) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}
	keyOf := f.qkeyOf
	if f.atomic {
		keyOf = nil // as client-go's: the informer's cache keys the list, and refuses it whole if one has no key
	}
	objs, listed, err := admitList(list, f.admitLocked, keyOf, !f.atomic)
	if err != nil {
		return err
	}
	if f.tracer.On() {
		event(f.tracer, "replace", f.inspectLocked(), trace.Count(len(objs)), trace.RV(resourceVersion), trace.Reason("a list replaced the contents"))
	}
	if f.atomic {
		f.addLocked(ReplacedAll, ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: objs})
		f.markPopulatedLocked()
		return nil
	}

	// The last queued delta of each key, keys in order of first appearance.
	var queuedKeys []qkey
	last := map[qkey]Delta{}
	for _, d := range f.items {
		key, err := f.qkeyOf(d.Object)
		if err != nil {
			return err
		}
		if _, seen := last[key]; !seen {
			queuedKeys = append(queuedKeys, key)
		}
		last[key] = d
	}
	for _, key := range queuedKeys {
		if _, ok := listed[key]; ok || last[key].Type == Deleted {
			continue
		}
		f.addLocked(Deleted, DeletedFinalStateUnknown{Key: key.String(), Obj: newestObject(Deltas{last[key]})})
	}

	if f.knownObjects != nil {
		for _, key := range f.knownObjects.ListKeys() {
			id := parseKey(key)
			if _, ok := listed[id]; ok {
				continue
			}
			if _, queued := last[id]; queued {
				continue
			}
			obj, exists, err := f.knownObjects.GetByKey(key)
			if err != nil || !exists {
				obj = nil
			}
			f.addLocked(Deleted, DeletedFinalStateUnknown{Key: key, Obj: obj})
		}
	}

	f.items = slices.Grow(f.items, len(objs)) // room for the list at once, not by growing as it comes
	for _, obj := range objs {
		f.addLocked(Replaced, obj)
	}

	f.markPopulatedLocked()
	return nil
}

// markPopulatedLocked ends Replace: the first one makes everything now
// queued the initial list HasSynced waits for.
func (f *RealFIFO) markPopulatedLocked() {
	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(f.items)
		f.checkSyncedLocked() // an empty first list: synced at once
	}
}

// Resync queues a Sync delta with the cached object for every cached key
// that has nothing queued, for the same reason as DeltaFIFO.Resync. With
// AtomicEvents it queues one SyncAll delta instead: the informer replays
// its cache when it pops it, after everything queued before.
func (f *RealFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}
	if f.atomic {
		if f.tracer.On() {
			event(f.tracer, "resync", f.inspectLocked(), trace.Count(1), trace.Reason("one SyncAll: the informer replays its cache"))
		}
		f.addLocked(SyncAll, SyncAllInfo{})
		return nil
	}
	if f.knownObjects == nil {
		return nil
	}
	queued := make(map[qkey]struct{}, len(f.items))
	for _, d := range f.items {
		key, err := f.qkeyOf(d.Object)
		if err != nil {
			return err
		}
		queued[key] = struct{}{}
	}
	var errs []error
	keys := f.knownObjects.ListKeys()
	if f.tracer.On() {
		event(f.tracer, "resync", f.inspectLocked(), trace.Count(len(keys)), trace.Reason("replay the cache as Sync deltas"))
	}
	for _, key := range keys {
		if _, ok := queued[parseKey(key)]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		if err != nil {
			errs = append(errs, fmt.Errorf("deltafifo: resync %q: %w", key, err))
			continue
		}
		if !exists || api.IsNil(obj) {
			continue
		}
		f.addLocked(Sync, obj)
	}
	return errors.Join(errs...)
}

// Pop waits for a delta (or for the FIFO to be closed and empty: then it
// returns ErrFIFOClosed), removes the oldest one, and calls process with it
// as a Deltas of length 1, under the lock, like DeltaFIFO.Pop; with
// UnlockWhileProcessing, with the lock released while few deltas are
// queued (the_real_fifo_modes.go).
func (f *RealFIFO) Pop(process PopProcessFunc) (Deltas, error) {
	if process == nil {
		return nil, errors.New("deltafifo: Pop needs a process function")
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	if err := f.waitLocked(); err != nil {
		return nil, err
	}
	isInInitialList := !f.hasSyncedLocked()
	d := Deltas{f.items[0]}
	f.takeLocked(1)
	if f.tracer.On() {
		key, _ := f.KeyOf(d[0].Object)
		tracePop(f.tracer, key, d, len(f.items), f.unlocksLocked(), f.inspectLocked()...)
	}
	return d, f.processLocked(1, func() error { return process(d, isInInitialList) })
}

// waitLocked waits until a delta is queued, or returns ErrFIFOClosed once
// the queue is closed and empty.
func (f *RealFIFO) waitLocked() error {
	for len(f.items) == 0 {
		if f.closed {
			return ErrFIFOClosed
		}
		f.cond.Wait()
	}
	return nil
}

// takeLocked removes the n oldest deltas, which the caller has copied.
//
// A queue it empties starts again at the front of its backing array, so
// the next deltas reuse that room rather than growing a new array (a
// slice popped from the front only ever moves towards the array's end):
// the steady state of a watch, a few deltas in and out, then allocates
// nothing. A queue that held a big list gives its room back instead.
func (f *RealFIFO) takeLocked(n int) {
	clear(f.items[:n]) // the backing array would keep the objects alive
	if n < len(f.items) {
		f.items = f.items[n:]
		return
	}
	if f.drainedBig() {
		f.items = nil // fifo_state.go: giving back the room
		return
	}
	f.items = f.items[:0]
}

// processLocked runs process for n deltas just taken, then counts them
// out of the initial list. It is entered and left with the lock held; with
// UnlockWhileProcessing it releases the lock around process while fewer
// than 2×BatchSize deltas are left queued.
//
// The initial-list count goes down only after process returns, so that
// HasSynced, which can run while an unlocking queue processes, never says
// true before the last item of the first list is in the cache.
func (f *RealFIFO) processLocked(n int, process func() error) error {
	defer f.countPoppedLocked(n) // runs after the deferred Lock below
	if f.unlocksLocked() {
		f.lock.Unlock()
		defer f.lock.Lock()
	}
	return process()
}

// unlocksLocked says whether processLocked, called now, releases the lock.
func (f *RealFIFO) unlocksLocked() bool {
	return f.unlockWhileProcessing && len(f.items) < 2*f.batchSize
}

// countPoppedLocked counts n processed deltas out of the initial list.
func (f *RealFIFO) countPoppedLocked(n int) {
	f.initialPopulationCount = max(f.initialPopulationCount-n, 0)
	f.checkSyncedLocked()
}

// Len returns the number of queued deltas.
func (f *RealFIFO) Len() int {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return len(f.items)
}

// Queued returns a copy of every queued delta, oldest first.
func (f *RealFIFO) Queued() Deltas {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return copyDeltas(f.items)
}
