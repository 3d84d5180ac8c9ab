package deltafifo

import (
	"errors"
	"fmt"

	"github.com/kinformer/kinformer/api"
)

// Queue is what the Reflector writes to and the informer pops from. DeltaFIFO
// and RealFIFO both implement it, so an informer can run on either.
//
// The writing half (Add, Update, Delete, Replace, Resync) is the Reflector's:
// watch events become Add/Update/Delete, a list becomes Replace, the resync
// timer calls Resync. The reading half is the informer's: Pop in a loop,
// HasSynced (and its channel, HasSyncedChecker) for WaitForCacheSync and
// WaitFor, Close when its context ends.
type Queue interface {
	Add(obj api.Object) error
	Update(obj api.Object) error
	Delete(obj api.Object) error
	Replace(list []api.Object, resourceVersion string) error
	Resync() error
	// Pop blocks until an item is queued or the queue is closed, removes
	// the oldest item and calls process with it, under the queue's lock
	// (so nothing else reaches the queue until process returns; process
	// must not call the queue itself, or it deadlocks; a RealFIFO with
	// UnlockWhileProcessing is the exception, releasing the lock while
	// process runs), then returns the item and process's error. Once the queue is closed and
	// empty it returns ErrFIFOClosed. It takes no context: Close is what
	// unblocks it.
	Pop(process PopProcessFunc) (Deltas, error)
	// HasSynced is true once the items of the first Replace have all been
	// popped, or once Add, Update or Delete came before any Replace.
	HasSynced() bool
	// HasSyncedChecker's Done channel is closed at the moment HasSynced
	// turns true (client-go 1.36), for informer.WaitFor to wait on.
	HasSyncedChecker() DoneChecker
	// Close wakes every blocked Pop; later writes fail with ErrFIFOClosed.
	Close()
}

// KeyListerGetter is what a queue needs of the informer's cache (its "known
// objects"): the keys it holds and the object under a key. An
// indexer.Indexer satisfies it.
type KeyListerGetter interface {
	ListKeys() []string
	GetByKey(key string) (api.Object, bool, error)
}

// TransformFunc rewrites an object before it is queued, typically to drop
// fields nothing reads (managedFields, big annotations) so the cache holds
// less. It runs once for each object arriving from the server, under the
// queue's lock; it is not run on tombstones or on the cached objects a
// Resync replays, which were transformed when they arrived. Returning an
// error makes the write fail. It must not return nil.
type TransformFunc func(api.Object) (api.Object, error)

// PopProcessFunc handles what Pop removed from the queue. isInInitialList is
// true for the items of the first Replace (the initial list), popped before
// the queue has synced.
type PopProcessFunc func(deltas Deltas, isInInitialList bool) error

// ErrFIFOClosed is returned by Pop once the queue is closed and empty, and by
// writes to a closed queue.
var ErrFIFOClosed = errors.New("deltafifo: queue is closed")

// errNilObject is returned by writes given a nil object.
var errNilObject = errors.New("deltafifo: nil object")

// admit checks that obj may be queued (the queue is open and obj is not nil)
// and runs the transform on it. Both queues admit every object arriving
// from the server through it.
func admit(closed bool, t TransformFunc, obj api.Object) (api.Object, error) {
	if closed {
		return nil, ErrFIFOClosed
	}
	if api.IsNil(obj) {
		return nil, errNilObject
	}
	return transform(t, obj)
}

// admitList admits and keys every object of a Replace's list before any is
// queued, so a bad item fails the whole Replace instead of leaving half of it
// queued. It returns the admitted objects, in list order, and, if withKeys,
// the set of their keys (a set as big as the list: an atomic RealFIFO,
// which has no use for it, does not make it). With keyOf nil it does not
// key them: an atomic RealFIFO queues the list as one item, which cannot
// be half queued, and the informer's cache keys it and refuses it whole if
// one object has no key (client-go's does the same).
func admitList(list []api.Object, admitOne func(api.Object) (api.Object, error), keyOf func(any) (qkey, error), withKeys bool) ([]api.Object, map[qkey]struct{}, error) {
	objs := make([]api.Object, len(list))
	var keys map[qkey]struct{}
	if withKeys {
		keys = make(map[qkey]struct{}, len(list))
	}
	for i, item := range list {
		obj, err := admitOne(item)
		if err != nil {
			return nil, nil, fmt.Errorf("deltafifo: replace: item %d: %w", i, err)
		}
		objs[i] = obj
		if keyOf == nil {
			continue
		}
		key, err := keyOf(obj)
		if err != nil {
			return nil, nil, fmt.Errorf("deltafifo: replace: item %d: %w", i, err)
		}
		if withKeys {
			keys[key] = struct{}{}
		}
	}
	return objs, keys, nil
}

// transform runs t on obj, if t is set.
func transform(t TransformFunc, obj api.Object) (api.Object, error) {
	if t == nil {
		return obj, nil
	}
	out, err := t(obj)
	if err != nil {
		return nil, fmt.Errorf("deltafifo: transform %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	if api.IsNil(out) {
		return nil, fmt.Errorf("deltafifo: transform %s/%s returned nil", obj.GetNamespace(), obj.GetName())
	}
	return out, nil
}
