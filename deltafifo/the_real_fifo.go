package deltafifo

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// RealFIFOOptions configures a RealFIFO. It is DeltaFIFOOptions without
// EmitDeltaTypeReplaced: a RealFIFO always emits Replaced for a relist.
type RealFIFOOptions struct {
	// KeyFunction keys objects; MetaNamespaceKeyFunc if nil.
	KeyFunction indexer.KeyFunc
	// KnownObjects is the informer's cache, used by Replace to find
	// deletions and by Resync to replay objects.
	KnownObjects KeyListerGetter
	// Transform, if set, rewrites each object arriving from the server
	// before it is queued.
	Transform TransformFunc
	// Tracer receives the queue's trace events (stage "deltafifo"). nil: off.
	Tracer *trace.Tracer
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
// (see docs/deltafifo.md). A relist, applied one object at a time, is the
// exception; client-go's atomic mode (one ReplacedAll delta) closes it, and
// kinformer does not build that mode.
type RealFIFO struct {
	fifoState // lock, cond (signalled when a delta is queued), closed, HasSynced bookkeeping

	items []Delta // every queued notification, oldest first

	keyer
	knownObjects KeyListerGetter
	transform    TransformFunc
}

var _ Queue = (*RealFIFO)(nil)

// NewRealFIFO returns an empty RealFIFO.
func NewRealFIFO(opts RealFIFOOptions) *RealFIFO {
	f := &RealFIFO{
		keyer:        newKeyer(opts.KeyFunction),
		knownObjects: opts.KnownObjects,
		transform:    opts.Transform,
	}
	f.cond.L = &f.lock
	f.tracer = opts.Tracer.Stage(trace.StageDeltaFIFO)
	return f
}

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
		key, _ := f.KeyOf(obj)
		traceQueued(f.tracer, d, key, len(f.items))
	}
	f.cond.Broadcast()
}

// Replace queues, in this order: a Deleted tombstone for every queued key
// the list lacks whose last queued delta is not already a deletion; a
// Deleted tombstone for every cached key the list lacks that is not queued;
// then a Replaced delta for every listed object.
func (f *RealFIFO) Replace(list []api.Object, resourceVersion string) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}
	objs, listed, err := admitList(list, f.admitLocked, f.qkeyOf)
	if err != nil {
		return err
	}
	if f.tracer.On() {
		f.tracer.Event("replace", trace.Count(len(objs)), trace.RV(resourceVersion), trace.Reason("a list replaced the contents"))
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

	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(f.items)
	}
	return nil
}

// Resync queues a Sync delta with the cached object for every cached key
// that has nothing queued, for the same reason as DeltaFIFO.Resync.
func (f *RealFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
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
		f.tracer.Event("resync", trace.Count(len(keys)), trace.Reason("replay the cache as Sync deltas"))
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
// as a Deltas of length 1, under the lock, like DeltaFIFO.Pop.
func (f *RealFIFO) Pop(process PopProcessFunc) (Deltas, error) {
	if process == nil {
		return nil, errors.New("deltafifo: Pop needs a process function")
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	for len(f.items) == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	isInInitialList := !f.hasSyncedLocked()
	d := Deltas{f.items[0]}
	f.items[0] = Delta{}
	f.items = f.items[1:]
	if len(f.items) == 0 && f.drainedBig() {
		f.items = nil // fifo_state.go: giving back the room
	}
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount--
	}
	if f.tracer.On() {
		key, _ := f.KeyOf(d[0].Object)
		tracePop(f.tracer, key, d, len(f.items))
	}
	return d, process(d, isInInitialList)
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
