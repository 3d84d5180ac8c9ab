package deltafifo

import (
	"errors"
	"fmt"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// DeltaFIFOOptions configures a DeltaFIFO. Every field may be left zero.
type DeltaFIFOOptions struct {
	// KeyFunction keys objects; MetaNamespaceKeyFunc if nil. Tombstones
	// and Deltas are keyed by KeyOf before it is consulted.
	KeyFunction indexer.KeyFunc
	// KnownObjects is the informer's cache. With it, Delete of a key the
	// cache has is queued, Replace emits tombstones for cached keys the
	// list no longer has, and Resync has something to replay. Without it,
	// only what is in the queue is known.
	KnownObjects KeyListerGetter
	// EmitDeltaTypeReplaced makes Replace emit Replaced deltas instead of
	// Sync, so a relist can be told from a resync. Informers set it.
	EmitDeltaTypeReplaced bool
	// Transform, if set, rewrites each object arriving from the server
	// before it is queued.
	Transform TransformFunc
	// Tracer receives the queue's trace events (stage "deltafifo"). nil: off.
	Tracer *trace.Tracer
}

// DeltaFIFO is the queue between the Reflector and the informer, as the
// articles describe it: a FIFO of keys, each key holding every delta that
// arrived for it since it was last popped. See the package doc for the story.
//
// Invariants, all under lock:
//   - a key is in queue exactly when it is in items, and at most once;
//   - items[key] is never empty;
//   - keys are qkeys (key.go): the key string split in two, so that
//     queueing an object keys it with its own namespace and name strings
//     instead of allocating "namespace/name".
//   - initialPopulationCount counts the pops still needed before the items
//     of the first Replace are all out (HasSynced).
type DeltaFIFO struct {
	fifoState // lock, cond (signalled when a key is queued), closed, HasSynced bookkeeping

	items map[qkey]Deltas
	queue []qkey // keys in the order they were first queued

	keyer
	knownObjects          KeyListerGetter
	emitDeltaTypeReplaced bool
	transform             TransformFunc
}

var _ Queue = (*DeltaFIFO)(nil)

// NewDeltaFIFO returns an empty DeltaFIFO.
func NewDeltaFIFO(opts DeltaFIFOOptions) *DeltaFIFO {
	f := &DeltaFIFO{
		items:                 map[qkey]Deltas{},
		keyer:                 newKeyer(opts.KeyFunction),
		knownObjects:          opts.KnownObjects,
		emitDeltaTypeReplaced: opts.EmitDeltaTypeReplaced,
		transform:             opts.Transform,
	}
	f.initState()
	f.tracer = opts.Tracer.Stage(trace.StageDeltaFIFO)
	return f
}

// HasSyncedChecker implements Queue: its channel is closed when HasSynced
// turns true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker { return syncedChecker{"DeltaFIFO", f.synced} }

// KeyOf returns the key of obj: of its newest object if obj is a Deltas, the
// Key of a DeletedFinalStateUnknown, otherwise what the key function says.
func (f *DeltaFIFO) KeyOf(obj any) (string, error) { return f.keyOf(obj) }

// Add queues an Added delta for obj.
func (f *DeltaFIFO) Add(obj api.Object) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	obj, err := f.admitLocked(obj)
	if err != nil {
		return err
	}
	f.populated = true
	f.checkSyncedLocked()
	return f.queueActionLocked(Added, obj)
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO) Update(obj api.Object) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	obj, err := f.admitLocked(obj)
	if err != nil {
		return err
	}
	f.populated = true
	f.checkSyncedLocked()
	return f.queueActionLocked(Updated, obj)
}

// Delete queues a Deleted delta for obj, unless its key is neither queued nor
// known to the cache: then the object was already deleted (by a relist's
// tombstone, typically) and there is nobody left to tell.
func (f *DeltaFIFO) Delete(obj api.Object) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	obj, err := f.admitLocked(obj)
	if err != nil {
		return err
	}
	id, err := f.qkeyOf(obj)
	if err != nil {
		return err
	}
	f.populated = true
	f.checkSyncedLocked()
	if !f.queuedOrKnownLocked(id) {
		return nil
	}
	f.queueLocked(Deleted, obj, id)
	return nil
}

// queuedOrKnownLocked reports whether id has queued deltas or is in the
// known objects. A failed lookup counts as known: better a Delete too many.
func (f *DeltaFIFO) queuedOrKnownLocked(id qkey) bool {
	if _, queued := f.items[id]; queued {
		return true
	}
	if f.knownObjects == nil {
		return false
	}
	_, exists, err := f.knownObjects.GetByKey(id.String())
	return exists || err != nil
}

// admitLocked checks that obj may be queued and runs the transform on it.
func (f *DeltaFIFO) admitLocked(obj api.Object) (api.Object, error) {
	return admit(f.closed, f.transform, obj)
}

// queueActionLocked appends a delta to its key's Deltas, queueing the key if
// it was not queued, and collapses a repeated deletion (dedupDeltas).
func (f *DeltaFIFO) queueActionLocked(actionType DeltaType, obj any) error {
	id, err := f.qkeyOf(obj)
	if err != nil {
		return err
	}
	f.queueLocked(actionType, obj, id)
	return nil
}

// queueLocked is queueActionLocked for an object already keyed. Its only
// allocation is the Deltas of a key not queued yet (a one-element slice);
// the key itself shares the object's strings (qkey).
func (f *DeltaFIFO) queueLocked(actionType DeltaType, obj any, id qkey) {
	oldDeltas, queued := f.items[id]
	d := Delta{Type: actionType, Object: obj}
	f.items[id] = dedupDeltas(append(oldDeltas, d))
	if !queued {
		f.queue = append(f.queue, id)
		f.grew(len(f.queue))
	}
	if f.tracer.On() {
		if len(f.items[id]) == len(oldDeltas) {
			event(f.tracer, "deletion collapsed", f.inspectLocked(), trace.Key(id.String()), trace.Reason("a Deleted right after a Deleted is one deletion"))
		} else {
			traceQueued(f.tracer, d, id.String(), len(f.items[id]), f.inspectLocked()...)
		}
	}
	f.cond.Broadcast()
}

// Replace is what the Reflector calls with the result of a list (via
// syncWith): the list is the whole truth as of resourceVersion. It queues
//
//  1. a Replaced delta (Sync without EmitDeltaTypeReplaced) for every listed
//     object, even one whose newest queued delta is Deleted: the object was
//     deleted and has come back (kubernetes#83810);
//  2. a Deleted delta with a DeletedFinalStateUnknown for every queued key
//     the list lacks, holding the newest queued object: the deletion
//     happened while the watch was down. Keys only in the queue, not yet in
//     the cache, need this too, or they would never be deleted
//     (kubernetes#115620);
//  3. the same for every key the known objects have, the list lacks, and
//     the queue does not hold, holding the cached object.
//
// The first Replace marks the queue populated: HasSynced turns true once
// everything it queued has been popped. resourceVersion is not used.
func (f *DeltaFIFO) Replace(list []api.Object, resourceVersion string) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}

	objs, keys, err := admitList(list, f.admitLocked, f.qkeyOf, true)
	if err != nil {
		return err
	}
	if f.tracer.On() {
		event(f.tracer, "replace", f.inspectLocked(), trace.Count(len(objs)), trace.RV(resourceVersion), trace.Reason("a list replaced the contents"))
	}

	action := Sync
	if f.emitDeltaTypeReplaced {
		action = Replaced
	}
	if len(f.items) == 0 {
		// The list's keys are about to be queued: make room for them once,
		// rather than by growing the map and the key slice as they come
		// (the initial list of a big cluster; fifo_state.go gives it back).
		f.items = make(map[qkey]Deltas, len(objs))
		f.queue = make([]qkey, 0, len(objs))
	}
	for _, obj := range objs {
		if err := f.queueActionLocked(action, obj); err != nil {
			return err
		}
	}

	for _, k := range f.queue { // queued keys the list lacks
		if _, listed := keys[k]; listed {
			continue
		}
		f.queueLocked(Deleted, DeletedFinalStateUnknown{Key: k.String(), Obj: newestObject(f.items[k])}, k)
	}

	if f.knownObjects != nil { // cached keys the list lacks and the queue does not hold
		for _, k := range f.knownObjects.ListKeys() {
			id := parseKey(k)
			if _, listed := keys[id]; listed {
				continue
			}
			if _, queued := f.items[id]; queued {
				continue
			}
			obj, exists, err := f.knownObjects.GetByKey(k)
			if err != nil || !exists {
				obj = nil // the cache lost it in between: a tombstone without a final state
			}
			if err := f.queueActionLocked(Deleted, DeletedFinalStateUnknown{Key: k, Obj: obj}); err != nil {
				return err
			}
		}
	}

	if !f.populated {
		// No Add, Update or Delete came first (they set populated). Every
		// key now queued is listed or has just got a tombstone (a Resync
		// before the first list may have queued some of them), so the queue
		// length is client-go's count: listed keys plus tombstones.
		f.populated = true
		f.initialPopulationCount = len(f.queue)
		f.checkSyncedLocked() // an empty first list: synced at once
	}
	return nil
}

// Resync queues a Sync delta with the cached object for every key the known
// objects hold, except keys that already have deltas queued: a Sync carrying
// the cached (older) state behind a pending Update or Deleted would replay
// stale state, or resurrect a deleted object. It does nothing without known
// objects. Article: "Kubernetes 源码阅读 - Informer", on Resync: the cache is
// replayed into the queue so handlers see every object again.
func (f *DeltaFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}
	if f.knownObjects == nil {
		return nil
	}
	var errs []error
	keys := f.knownObjects.ListKeys()
	if f.tracer.On() {
		event(f.tracer, "resync", f.inspectLocked(), trace.Count(len(keys)), trace.Reason("replay the cache as Sync deltas"))
	}
	for _, k := range keys {
		if err := f.syncKeyLocked(k); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (f *DeltaFIFO) syncKeyLocked(key string) error {
	obj, exists, err := f.knownObjects.GetByKey(key)
	if err != nil {
		return fmt.Errorf("deltafifo: resync %q: %w", key, err)
	}
	if !exists || api.IsNil(obj) {
		return nil // gone from the cache since ListKeys: nothing to replay
	}
	// The cached object was transformed when it arrived: not again.
	id, err := f.qkeyOf(obj)
	if err != nil {
		return err
	}
	if len(f.items[id]) > 0 {
		return nil
	}
	f.queueLocked(Sync, obj, id)
	return nil
}

// Pop waits until a key is queued (or the FIFO is closed and empty: then it
// returns ErrFIFOClosed), removes the oldest key with all its Deltas, and
// calls process with them while still holding the lock, so Replace, Resync
// and Delete see the informer's cache as process leaves it. It returns the
// Deltas and process's error.
//
// An item whose process fails is not requeued: older client-go could return
// ErrRequeue to put it back, which made the informer go back in time (see
// docs/deltafifo.md); it was removed in 1.33.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (Deltas, error) {
	if process == nil {
		return nil, errors.New("deltafifo: Pop needs a process function")
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	for len(f.queue) == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	isInInitialList := !f.hasSyncedLocked()
	id := f.queue[0]
	f.queue[0] = qkey{} // let the strings be collected
	f.queue = f.queue[1:]
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount--
		// Deferred after the Unlock was, so it runs before it: once process has
		// put the item in the cache (fifo_state.go, waiting without polling).
		defer f.checkSyncedLocked()
	}
	deltas := f.items[id]
	delete(f.items, id)
	if len(f.queue) == 0 && f.drainedBig() {
		f.queue, f.items = nil, map[qkey]Deltas{} // fifo_state.go: giving back the room
	}
	if f.tracer.On() {
		tracePop(f.tracer, id.String(), deltas, len(f.queue), false, f.inspectLocked()...)
	}
	return deltas, process(deltas, isInInitialList)
}

// Len returns the number of queued keys.
func (f *DeltaFIFO) Len() int {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return len(f.queue)
}

// ListKeys returns the queued keys in queue order.
func (f *DeltaFIFO) ListKeys() []string {
	f.lock.RLock()
	defer f.lock.RUnlock()
	keys := make([]string, len(f.queue))
	for i, k := range f.queue {
		keys[i] = k.String()
	}
	return keys
}

// List returns the newest object of every queued key, in queue order: an
// api.Object or a DeletedFinalStateUnknown.
func (f *DeltaFIFO) List() []any {
	f.lock.RLock()
	defer f.lock.RUnlock()
	list := make([]any, 0, len(f.queue))
	for _, k := range f.queue {
		list = append(list, f.items[k].Newest().Object)
	}
	return list
}

// Get returns a copy of the Deltas queued under obj's key.
func (f *DeltaFIFO) Get(obj any) (Deltas, bool, error) {
	id, err := f.qkeyOf(obj)
	if err != nil {
		return nil, false, err
	}
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.getLocked(id)
}

// GetByKey returns a copy of the Deltas queued under key.
func (f *DeltaFIFO) GetByKey(key string) (Deltas, bool, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.getLocked(parseKey(key))
}

func (f *DeltaFIFO) getLocked(id qkey) (Deltas, bool, error) {
	d, exists := f.items[id]
	if !exists {
		return nil, false, nil
	}
	return copyDeltas(d), true, nil
}
