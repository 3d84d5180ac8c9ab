package deltafifo

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// client-go 1.36's RealFIFO modes.
//
// The RealFIFO of the InOrderInformers gate (1.33) fixed the order of watch
// events but kept two habits of the DeltaFIFO, and client-go 1.35 and 1.36
// changed both, each behind a feature gate that is on by default:
//
// Atomic events (AtomicFIFO). A relist used to become one Replaced delta
// per listed object plus a tombstone per vanished one, applied one by one:
// between the first and the last, the cache held half the old list and half
// the new, a state the server never had, and a handler called for the
// first listed object could not yet find the last one in the cache. With
// AtomicEvents, Replace queues one ReplacedAll delta carrying the list and
// its resourceVersion; the informer swaps its cache for the list in one
// store write, and only then tells the handlers: a delete for each cached
// object the list lacks, then an add or update for each listed one. The
// deletions are worked out when the delta is processed, against the cache,
// which by then holds everything queued before the relist. So the queue no
// longer needs the cache (KnownObjects must be nil), and Resync, which
// replayed the cache into the queue, becomes one SyncAll delta too.
//
// Unlocking while processing (UnlockWhileProcessingFIFO). Pop used to call
// the process function, and so every handler notification, under the
// queue's lock: a slow informer made the Reflector wait to queue the next
// watch event (that is what the lock bought: Replace and Resync read the
// cache, which must not change under them). An atomic queue never reads the
// cache, so it can release the lock while process runs, and the Reflector's
// writes go through. Not without bound: once 2×BatchSize deltas (2,000) are
// left queued, Pop keeps the lock again, so a producer far ahead of its
// consumer is slowed down rather than let to fill memory.
//
// Batches (InOrderInformersBatchProcess). PopBatch takes up to BatchSize
// (1,000) consecutive deltas, stopping before a key repeats, before a
// ReplacedAll, SyncAll or Bookmark, and at the end of the initial list; the
// informer applies them to its cache in one transaction
// (indexer.TransactionStore) and then notifies the handlers once per delta,
// in order. Unique keys are what make this safe: each delta's "old" object
// is read from the cache before the transaction.
//
// Bookmarks (KEP-5647, with AtomicFIFO). The Reflector hands the queue
// the resourceVersion of every watch BOOKMARK (Bookmark); the informer
// records it in its store when the Bookmark delta is processed, so the
// store knows which server version it has reached
// (indexer.Store.LastStoreSyncResourceVersion) even when nothing changed.

// ReplacedAllInfo is the Object of a ReplacedAll delta: a relist.
type ReplacedAllInfo struct {
	// ResourceVersion is the list's resourceVersion, given to Replace.
	ResourceVersion string
	// Objects are the listed objects, transformed, in list order.
	Objects []api.Object
}

// SyncAllInfo is the Object of a SyncAll delta: a resync of everything.
type SyncAllInfo struct{}

// BookmarkInfo is the Object of a Bookmark delta.
type BookmarkInfo struct {
	// ResourceVersion is the bookmark's resourceVersion.
	ResourceVersion string
}

// Bookmarker is a queue that takes the resourceVersion of watch
// bookmarks. A Reflector writing to a queue that implements it calls
// Bookmark(rv) for every BOOKMARK event, after it has applied the events
// before it (client-go's ReflectorBookmarkStore). RealFIFO implements it.
type Bookmarker interface {
	Bookmark(resourceVersion string) error
}

var _ Bookmarker = (*RealFIFO)(nil)

// Bookmark queues a Bookmark delta carrying resourceVersion, if the queue
// was built with EmitDeltaTypeBookmark; otherwise it does nothing. The
// informer records the version in its store when it pops the delta, after
// everything queued before it.
func (f *RealFIFO) Bookmark(resourceVersion string) error {
	if !f.emitBookmark {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.closed {
		return ErrFIFOClosed
	}
	f.addLocked(Bookmark, BookmarkInfo{ResourceVersion: resourceVersion})
	return nil
}

// ProcessBatchFunc handles a batch popped by PopBatch: deltas of distinct
// keys, oldest first. isInInitialList is as for PopProcessFunc; a batch
// never spans the end of the initial list.
type ProcessBatchFunc func(batch []Delta, isInInitialList bool) error

// QueueWithBatch is a Queue that can also pop many deltas at once.
// RealFIFO is one; the informer's processLoop uses PopBatch when its queue
// is one and it was asked to (client-go: InOrderInformersBatchProcess).
type QueueWithBatch interface {
	Queue
	// PopBatch waits as Pop does, then removes up to BatchSize of the
	// oldest deltas (see RealFIFO.PopBatch for where a batch stops) and
	// calls processBatch with them, or processSingle with a Deltas of
	// length 1 if only one could be taken. It returns their error.
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error
}

// PopBatch implements QueueWithBatch. A batch is the longest run of the
// oldest deltas that
//
//   - holds at most BatchSize deltas;
//   - has no key twice: the informer reads each delta's old object from
//     the cache before applying the batch, which a second delta for the
//     same key would make wrong;
//   - holds only Added, Updated, Deleted, Replaced and Sync deltas: a
//     ReplacedAll, SyncAll or Bookmark is popped alone, by processSingle;
//   - does not reach past the initial list, so isInInitialList is true
//     of every delta or of none.
//
// Like Pop, it runs the process function under the lock unless
// UnlockWhileProcessing lets it go.
func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	if processBatch == nil || processSingle == nil {
		return errors.New("deltafifo: PopBatch needs a batch and a single process function")
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	if err := f.waitLocked(); err != nil {
		return err
	}
	isInInitialList := !f.hasSyncedLocked()
	n := f.batchLenLocked()
	batch := append([]Delta(nil), f.items[:n]...)
	f.takeLocked(n)
	if f.tracer.On() {
		tracePopBatch(f.tracer, f.keyer, batch, len(f.items), f.unlocksLocked(), f.inspectLocked()...)
	}
	if n == 1 {
		return f.processLocked(1, func() error { return processSingle(Deltas{batch[0]}, isInInitialList) })
	}
	return f.processLocked(n, func() error { return processBatch(batch, isInInitialList) })
}

// batchable are the delta types a batch may hold: those about one key.
func batchable(t DeltaType) bool {
	switch t {
	case Added, Updated, Deleted, Replaced, Sync:
		return true
	}
	return false
}

// batchLenLocked is how many of the oldest deltas the next batch takes
// (PopBatch's rules); at least 1.
func (f *RealFIFO) batchLenLocked() int {
	limit := min(len(f.items), f.batchSize)
	if f.initialPopulationCount > 0 {
		limit = min(limit, f.initialPopulationCount)
	}
	if limit <= 1 {
		return 1 // the steady state of a watch: one delta at a time
	}
	if f.batchKeys == nil {
		f.batchKeys = make(map[qkey]struct{}, limit)
	}
	seen := f.batchKeys
	defer clear(seen)
	for i, d := range f.items[:limit] {
		if !batchable(d.Type) {
			return max(i, 1)
		}
		key, err := f.qkeyOf(d.Object)
		if err != nil {
			return max(i, 1) // cannot happen: writes refuse what has no key
		}
		if _, repeated := seen[key]; repeated {
			return i
		}
		seen[key] = struct{}{}
	}
	return max(limit, 1)
}

// tracePopBatch reports a batch handed to the informer: its size, its
// first and last keys, and how many deltas are still queued.
func tracePopBatch(t *trace.Tracer, k keyer, batch []Delta, left int, unlocked bool, state ...slog.Attr) {
	if len(batch) == 1 {
		key, _ := k.keyOf(batch[0].Object)
		tracePop(t, key, Deltas{batch[0]}, left, unlocked, state...)
		return
	}
	first, _ := k.keyOf(batch[0].Object)
	last, _ := k.keyOf(batch[len(batch)-1].Object)
	types := map[DeltaType]int{}
	var order []string
	for _, d := range batch {
		if types[d.Type] == 0 {
			order = append(order, string(d.Type))
		}
		types[d.Type]++
	}
	attrs := []slog.Attr{trace.Count(len(batch)), slog.String("keys", first+".."+last),
		slog.String("types", strings.Join(order, ",")), slog.Int("left", left)}
	if unlocked {
		attrs = append(attrs, slog.Bool("unlocked", true))
	}
	event(t, "pop batch", state, attrs...)
}
