package informer

import (
	"fmt"
	"log/slog"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// This file is one step of the informer, read top to bottom: what happens
// to an item the processLoop (controller.go) pops from the queue. Article
// 004's steps 4 to 6: pop from the DeltaFIFO, put into the Indexer, call
// the ResourceEventHandler.
//
//	processLoop ── Pop ──▶ HandleDeltas ──▶ processDeltas ──▶ cache (Indexer)
//	                                              │
//	                                              └─ notification ──▶ processor.distribute
//	                                                                   └─▶ each listener ──▶ handler.OnAdd/OnUpdate/OnDelete
//
// A plain informer (NewInformer) has no processor: its notifications go
// straight to its one handler, on the processLoop's goroutine.

// notification is what the informer tells a handler about one change: an
// add, an update (a resync when old and new have the same resourceVersion)
// or a delete. deliverTo calls the handler's method for it.
type notification interface {
	deliverTo(h ResourceEventHandler)
}

type (
	addNotification struct {
		newObj          any
		isInInitialList bool
	}
	updateNotification struct {
		oldObj, newObj any
	}
	deleteNotification struct {
		oldObj any
	}
)

func (n addNotification) deliverTo(h ResourceEventHandler)    { h.OnAdd(n.newObj, n.isInInitialList) }
func (n updateNotification) deliverTo(h ResourceEventHandler) { h.OnUpdate(n.oldObj, n.newObj) }
func (n deleteNotification) deliverTo(h ResourceEventHandler) { h.OnDelete(n.oldObj) }

// isResync reports whether n is a resync: an update in which nothing
// changed on the server (old and new have the same resourceVersion). A
// resync goes only to the handlers due for one.
func isResync(n notification) bool {
	u, ok := n.(updateNotification)
	if !ok {
		return false
	}
	oldMeta, oldOK := u.oldObj.(api.Object)
	newMeta, newOK := u.newObj.(api.Object)
	return oldOK && newOK && oldMeta.GetResourceVersion() == newMeta.GetResourceVersion()
}

// HandleDeltas is the shared informer's Process: it applies one item popped
// from the queue to the cache and hands each resulting notification to the
// processor, which gives it to every handler's listener. It runs under
// blockDeltas (so a handler added late gets the cache at one instant, then
// exactly the changes after it) and under the queue's lock, unless the
// queue is a RealFIFO that unlocks while processing
// (RealFIFOFeatures.UnlockWhileProcessingFIFO).
//
// Untraced, the item's notifications (a relist's can be thousands) are
// handed to the listeners together once the cache has them all
// (distributeAll, listener_batch.go); traced, each goes out right after
// its own cache write, so the trace reads write, notify, write, notify.
// An informer nobody listens to (one kept for its cache and listers)
// writes its cache and makes no notifications: a listener added later is
// given the cache as it then is (AddEventHandler), and blockDeltas keeps
// it from being added while an item is applied.
func (s *sharedIndexInformer) HandleDeltas(deltas deltafifo.Deltas, isInInitialList bool) error {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	if s.cacheTrace.On() {
		return processDeltas(s.indexer, deltas, isInInitialList, s.cacheTrace, s.processor.distribute)
	}
	if !s.processor.hasListeners() {
		return processDeltas(s.indexer, deltas, isInInitialList, nil, nil)
	}
	notes := make([]notification, 0, notificationsOf(deltas))
	err := processDeltas(s.indexer, deltas, isInInitialList, nil, func(n notification) { notes = append(notes, n) })
	s.processor.distributeAll(notes)
	return err
}

// notificationsOf is about how many notifications deltas make: one a
// delta, a relist's one an object (its deletions aside).
func notificationsOf(deltas deltafifo.Deltas) int {
	n := 0
	for _, d := range deltas {
		if info, ok := d.Object.(deltafifo.ReplacedAllInfo); ok {
			n += len(info.Objects)
			continue
		}
		n++
	}
	return n
}

// processDeltas applies one key's Deltas to the cache, oldest first, and
// notifies what each did (a nil notify: nobody listens, no notification is
// made):
//
//   - Added, Updated, Replaced, Sync: if the key is cached, Update it and
//     notify an update (old = the cached object); otherwise Add it and
//     notify an add. (A Replaced delta from a relist can be either; an
//     Added can even be an update if a delete was missed and the object
//     recreated.)
//   - Deleted: remove the key and notify a delete with the delta's object,
//     which is a deltafifo.DeletedFinalStateUnknown when a relist found the
//     object gone. A tombstone is deleted by its key, whatever (possibly
//     stale, possibly nil) object it carries.
//
// and the deltas of client-go 1.36's RealFIFO modes (handle_batch.go):
//
//   - ReplacedAll: replace the cache with the list in one write, then
//     notify (processReplacedAll);
//   - SyncAll: notify a resync of every cached object;
//   - Bookmark: record its resourceVersion in the store; nobody is told.
//
// The cache is updated before anyone is notified, so a handler that reads
// the cache never sees an older state than the one it was told.
func processDeltas(clientState indexer.Store, deltas deltafifo.Deltas, isInInitialList bool, t *trace.Tracer, notify func(notification)) error {
	quiet := notify == nil
	if quiet {
		notify = func(notification) {}
	}
	for _, d := range deltas {
		switch d.Type {
		case deltafifo.Sync, deltafifo.Replaced, deltafifo.Added, deltafifo.Updated:
			obj, ok := d.Object.(api.Object)
			if !ok {
				return fmt.Errorf("informer: %s delta holds a %T, not an api.Object", d.Type, d.Object)
			}
			old, exists, err := clientState.Get(obj)
			if err != nil {
				return fmt.Errorf("informer: looking up %s delta: %w", d.Type, err)
			}
			if exists {
				if err := clientState.Update(obj); err != nil {
					return fmt.Errorf("informer: applying %s delta: %w", d.Type, err)
				}
				traceCache(t, "cache update", d, obj, cacheState(t, clientState)...)
				notify(updateNotification{oldObj: old, newObj: obj})
				continue
			}
			if err := clientState.Add(obj); err != nil {
				return fmt.Errorf("informer: applying %s delta: %w", d.Type, err)
			}
			traceCache(t, "cache add", d, obj, cacheState(t, clientState)...)
			notify(addNotification{newObj: obj, isInInitialList: isInInitialList})
		case deltafifo.Deleted:
			if err := deleteFromCache(clientState, d.Object); err != nil {
				return err
			}
			traceCache(t, "cache delete", d, d.Object, cacheState(t, clientState)...)
			notify(deleteNotification{oldObj: d.Object})
		case deltafifo.ReplacedAll:
			info, ok := d.Object.(deltafifo.ReplacedAllInfo)
			if !ok {
				return fmt.Errorf("informer: ReplacedAll delta holds a %T, not a deltafifo.ReplacedAllInfo", d.Object)
			}
			relisted := notify
			if quiet {
				relisted = nil // a relist's notifications are not even made
			}
			if err := processReplacedAll(clientState, info, isInInitialList, t, relisted); err != nil {
				return err
			}
		case deltafifo.SyncAll:
			objs := clientState.List()
			if t.On() {
				t.Event("cache resync", append([]slog.Attr{trace.Count(len(objs)), trace.Reason("SyncAll: every cached object replayed to the handlers")},
					cacheState(t, clientState)...)...)
			}
			for _, obj := range objs {
				notify(updateNotification{oldObj: obj, newObj: obj})
			}
		case deltafifo.Bookmark:
			info, ok := d.Object.(deltafifo.BookmarkInfo)
			if !ok {
				return fmt.Errorf("informer: Bookmark delta holds a %T, not a deltafifo.BookmarkInfo", d.Object)
			}
			clientState.Bookmark(info.ResourceVersion)
			if t.On() {
				t.Event("store bookmark", append([]slog.Attr{trace.RV(info.ResourceVersion), trace.Reason("the server has nothing new up to here; no handler is called")},
					cacheState(t, clientState)...)...)
			}
		default:
			return fmt.Errorf("informer: unknown delta type %q", d.Type)
		}
	}
	return nil
}

// deleteFromCache removes the object of a Deleted delta: an api.Object, or
// a tombstone, which is removed by its key.
func deleteFromCache(clientState indexer.Store, obj any) error {
	switch o := obj.(type) {
	case deltafifo.DeletedFinalStateUnknown:
		cached, exists, err := clientState.GetByKey(o.Key)
		if err != nil {
			return fmt.Errorf("informer: looking up tombstone %q: %w", o.Key, err)
		}
		if !exists {
			return nil
		}
		if err := clientState.Delete(cached); err != nil {
			return fmt.Errorf("informer: applying tombstone %q: %w", o.Key, err)
		}
		return nil
	case api.Object:
		if err := clientState.Delete(o); err != nil {
			return fmt.Errorf("informer: applying Deleted delta: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("informer: Deleted delta holds a %T, neither an api.Object nor a tombstone", obj)
	}
}

// traceCache reports a cache write: which delta made it, to which key, at
// which resourceVersion (and state, the cache after it, when inspecting).
func traceCache(t *trace.Tracer, what string, d deltafifo.Delta, obj any, state ...slog.Attr) {
	if !t.On() {
		return
	}
	if _, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		what += " (tombstone: final state unknown)"
	}
	key, rv := keyAndRV(obj)
	t.Event(what, append([]slog.Attr{trace.Key(key), trace.RV(rv), slog.String("delta", string(d.Type))}, state...)...)
}

// kindOf names a notification for the trace: add, update, resync or delete.
func kindOf(n notification) string {
	switch n.(type) {
	case addNotification:
		return "add"
	case updateNotification:
		if isResync(n) {
			return "resync"
		}
		return "update"
	default:
		return "delete"
	}
}

// handlerMethod is the handler method a notification calls, as the trace
// names it: "OnAdd", "OnUpdate", "OnUpdate (resync)", "OnDelete" or
// "OnDelete (final state unknown)".
func handlerMethod(n notification) string {
	switch n := n.(type) {
	case addNotification:
		return "OnAdd"
	case updateNotification:
		if isResync(n) {
			return "OnUpdate (resync)"
		}
		return "OnUpdate"
	case deleteNotification:
		if _, ok := n.oldObj.(deltafifo.DeletedFinalStateUnknown); ok {
			return "OnDelete (final state unknown)"
		}
		return "OnDelete"
	}
	return fmt.Sprintf("%T", n)
}

// notificationKeyRV returns the key and resourceVersion of a notification's (newest)
// object.
func notificationKeyRV(n notification) (key, rv string) {
	switch n := n.(type) {
	case addNotification:
		return keyAndRV(n.newObj)
	case updateNotification:
		return keyAndRV(n.newObj)
	case deleteNotification:
		return keyAndRV(n.oldObj)
	}
	return "", ""
}

// keyAndRV returns the key and resourceVersion of an object or tombstone.
func keyAndRV(obj any) (key, rv string) {
	key, _ = deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if o, ok := obj.(api.Object); ok && !api.IsNil(o) {
		rv = o.GetResourceVersion()
	}
	return key, rv
}
