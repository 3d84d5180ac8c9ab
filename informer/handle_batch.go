package informer

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// What the informer does with the items of client-go 1.36's RealFIFO modes
// (deltafifo/the_real_fifo_modes.go): a whole relist (ReplacedAll), and a
// batch of deltas (PopBatch). processDeltas (handle_deltas.go) handles the
// other two, SyncAll and Bookmark, which need no more than a few lines.

// processReplacedAll applies a relist to the cache in one write, then
// notifies, in client-go's order:
//
//  1. a delete, with a DeletedFinalStateUnknown carrying the cached object,
//     for every cached key the list lacks (sorted by key: client-go uses
//     the cache's order, which is random);
//  2. for every listed object, in list order, an update (old = the cached
//     object) if its key was cached, else an add.
//
// Both lists are worked out against the cache before it is replaced, then
// the cache takes the list and its resourceVersion (Replace), and only then
// is anyone told: so a handler told of the list's first object already
// finds the last one in the cache, and no handler ever sees half a relist.
// The deletions are found here, not in the queue: by the time this item is
// popped, everything queued before it is in the cache.
//
// What it holds beside the list is what the cache held before: the cached
// object of each listed one, and the set of listed keys to find the
// vanished ones by. A first list, into an empty cache, needs neither: it
// holds nothing but the list, and makes the notifications as it sends them.
// With nobody to notify (notify nil, untraced) it replaces the cache and
// works out nothing.
func processReplacedAll(clientState indexer.Store, info deltafifo.ReplacedAllInfo, isInInitialList bool, t *trace.Tracer, notify func(notification)) error {
	var olds []api.Object // olds[i]: the cached object info.Objects[i] replaces, if any
	var vanished []string
	var cached []string
	if notify != nil || t.On() {
		cached = clientState.ListKeys()
	}
	if len(cached) > 0 {
		olds = make([]api.Object, len(info.Objects))
		listed := make(map[string]struct{}, len(info.Objects))
		for i, obj := range info.Objects {
			key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				return fmt.Errorf("informer: ReplacedAll: %w", err)
			}
			listed[key] = struct{}{}
			if old, exists, err := clientState.GetByKey(key); err == nil && exists {
				olds[i] = old
			}
		}
		for _, key := range cached {
			if _, ok := listed[key]; !ok {
				vanished = append(vanished, key)
			}
		}
		slices.Sort(vanished)
	} // an object without a key: the cache's Replace refuses the list, before anyone is told
	deletes := make([]notification, 0, len(vanished))
	for _, key := range vanished {
		old, exists, err := clientState.GetByKey(key)
		if err != nil || !exists {
			old = nil // gone meanwhile: a tombstone without a final state
		}
		deletes = append(deletes, deleteNotification{oldObj: deltafifo.DeletedFinalStateUnknown{Key: key, Obj: old}})
	}
	listedNote := func(i int) notification {
		if olds != nil && olds[i] != nil {
			return updateNotification{oldObj: olds[i], newObj: info.Objects[i]}
		}
		return addNotification{newObj: info.Objects[i], isInInitialList: isInInitialList}
	}

	if err := clientState.Replace(info.Objects, info.ResourceVersion); err != nil {
		return fmt.Errorf("informer: applying ReplacedAll: %w", err)
	}
	if t.On() {
		state := cacheState(t, clientState) // the one write's: shared by the per-key events after it
		t.Event("cache replace", append([]slog.Attr{trace.Count(len(info.Objects)), trace.RV(info.ResourceVersion), slog.Int("gone", len(vanished)),
			trace.Reason(fmt.Sprintf("ReplacedAll: the cache swapped for the list in one write, %d gone; now the handlers", len(vanished)))}, state...)...)
		traceWrites(t, "replace", deletes, func(int) deltafifo.DeltaType { return deltafifo.ReplacedAll }, state)
		notes := make([]notification, len(info.Objects))
		for i := range notes {
			notes[i] = listedNote(i)
		}
		traceWrites(t, "replace", notes, func(int) deltafifo.DeltaType { return deltafifo.ReplacedAll }, state)
	}
	if notify == nil {
		return nil // nobody listens (HandleDeltas)
	}
	for _, n := range deletes {
		notify(n)
	}
	for i := range info.Objects {
		notify(listedNote(i))
	}
	return nil
}

// HandleBatch is the shared informer's ProcessBatch (client-go:
// InOrderInformersBatchProcess): it applies a batch popped by
// deltafifo.RealFIFO.PopBatch to the cache in one transaction, then hands
// the notifications to the processor, one per delta, in order, all at
// once (distributeAll: each listener takes them in one hand-off,
// listener_batch.go). Like HandleDeltas it holds blockDeltas.
func (s *sharedIndexInformer) HandleBatch(batch []deltafifo.Delta, isInInitialList bool) error {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	return processDeltasInBatch(s.indexer, deltafifo.DeletionHandlingMetaNamespaceKeyFunc, batch, isInInitialList, s.cacheTrace, s.processor.distributeAll)
}

// processDeltasInBatch applies a batch as processDeltas would apply its
// deltas one by one, but in one store write: the old object of each delta
// is read first (the batch's keys are distinct, so nothing in the batch
// changes another delta's old object), then the store takes every write in
// one indexer.TransactionStore.Transaction, then the deltas' notifications
// go out, in order, in one call of notify. A write the store refuses is
// not notified; the others are, and the error says how many failed. A
// store without transactions gets the deltas one by one, each notified
// after its own write.
//
// keyFunc must be the store's own (as in client-go, which passes it too):
// each object is keyed once, and the key serves both to read its old
// object and as the write's Transaction.Key, so the store does not key it
// again.
func processDeltasInBatch(clientState indexer.Store, keyFunc indexer.KeyFunc, batch []deltafifo.Delta, isInInitialList bool, t *trace.Tracer, notify func([]notification)) error {
	txStore, ok := clientState.(indexer.TransactionStore)
	if !ok {
		var errs []error
		one := func(n notification) { notify([]notification{n}) }
		for _, d := range batch {
			errs = append(errs, processDeltas(clientState, deltafifo.Deltas{d}, isInInitialList, t, one))
		}
		return errors.Join(errs...)
	}
	txns := make([]indexer.Transaction, 0, len(batch))
	notes := make([]notification, 0, len(batch))
	for _, d := range batch {
		txn, n, err := batchWrite(clientState, keyFunc, d, isInInitialList)
		if err != nil {
			return err
		}
		txns = append(txns, txn)
		notes = append(notes, n)
	}
	err := txStore.Transaction(txns...)
	applied := notes
	if err != nil {
		var txErr *indexer.TransactionError
		if !errors.As(err, &txErr) {
			return fmt.Errorf("informer: applying a batch: %w", err)
		}
		applied = make([]notification, 0, len(txErr.SucceededIndices))
		for _, i := range txErr.SucceededIndices {
			applied = append(applied, notes[i])
		}
	}
	if t.On() {
		first, _ := notificationKeyRV(notes[0])
		last, _ := notificationKeyRV(notes[len(notes)-1])
		state := cacheState(t, clientState) // the one write's: shared by the per-key events after it
		t.Event("cache transaction", append([]slog.Attr{trace.Count(len(applied)), trace.Key(first + ".." + last),
			trace.Reason("a batch of distinct keys applied in one store write; now one notification per delta")}, state...)...)
		deltaOf := func(i int) deltafifo.DeltaType { return batch[i].Type }
		if err != nil {
			var txErr *indexer.TransactionError
			errors.As(err, &txErr)
			deltaOf = func(i int) deltafifo.DeltaType { return batch[txErr.SucceededIndices[i]].Type }
		}
		traceWrites(t, "transaction", applied, deltaOf, state)
	}
	notify(applied)
	if err != nil {
		return fmt.Errorf("informer: applying a batch: %w", err)
	}
	return nil
}

// batchWrite is the store write and the notification of one delta of a
// batch, as processDeltas would make them.
func batchWrite(clientState indexer.Store, keyFunc indexer.KeyFunc, d deltafifo.Delta, isInInitialList bool) (indexer.Transaction, notification, error) {
	switch d.Type {
	case deltafifo.Sync, deltafifo.Replaced, deltafifo.Added, deltafifo.Updated:
		obj, ok := d.Object.(api.Object)
		if !ok {
			return indexer.Transaction{}, nil, fmt.Errorf("informer: %s delta holds a %T, not an api.Object", d.Type, d.Object)
		}
		key, err := keyFunc(obj)
		if err != nil {
			return indexer.Transaction{}, nil, fmt.Errorf("informer: keying %s delta: %w", d.Type, err)
		}
		old, exists, err := clientState.GetByKey(key)
		if err != nil {
			return indexer.Transaction{}, nil, fmt.Errorf("informer: looking up %s delta: %w", d.Type, err)
		}
		if exists {
			return indexer.Transaction{Type: indexer.TransactionUpdate, Object: obj, Key: key}, updateNotification{oldObj: old, newObj: obj}, nil
		}
		return indexer.Transaction{Type: indexer.TransactionAdd, Object: obj, Key: key}, addNotification{newObj: obj, isInInitialList: isInInitialList}, nil
	case deltafifo.Deleted:
		switch o := d.Object.(type) {
		case deltafifo.DeletedFinalStateUnknown:
			return indexer.Transaction{Type: indexer.TransactionDelete, Key: o.Key}, deleteNotification{oldObj: o}, nil
		case api.Object:
			return indexer.Transaction{Type: indexer.TransactionDelete, Object: o}, deleteNotification{oldObj: o}, nil
		}
		return indexer.Transaction{}, nil, fmt.Errorf("informer: Deleted delta holds a %T, neither an api.Object nor a tombstone", d.Object)
	}
	return indexer.Transaction{}, nil, fmt.Errorf("informer: a %s delta cannot be part of a batch", d.Type)
}

// traceWrites reports, after one store write (a ReplacedAll's Replace or a
// batch's Transaction), what it did to each key, as traceCache reports a
// write of its own: "cache add", "cache update" or "cache delete", with the
// key, its resourceVersion, the delta, and in= the write it was part of.
// They are what lets a key be followed through the cache in the trace;
// they are not writes of their own (the one write was reported just
// before). deltaOf gives the delta type of notes[i]; state, when
// inspecting, is the cache after that one write.
func traceWrites(t *trace.Tracer, in string, notes []notification, deltaOf func(i int) deltafifo.DeltaType, state []slog.Attr) {
	for i, n := range notes {
		what := "cache update" // also for an object the list has unchanged
		switch n := n.(type) {
		case addNotification:
			what = "cache add"
		case deleteNotification:
			what = "cache delete"
			if _, tomb := n.oldObj.(deltafifo.DeletedFinalStateUnknown); tomb {
				what += " (tombstone: final state unknown)"
			}
		}
		key, rv := notificationKeyRV(n)
		t.Event(what, append([]slog.Attr{trace.Key(key), trace.RV(rv), slog.String("delta", string(deltaOf(i))), slog.String("in", in)}, state...)...)
	}
}
