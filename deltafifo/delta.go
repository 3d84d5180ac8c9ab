package deltafifo

import (
	"errors"
	"fmt"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
)

// DeltaType says what happened to an object.
type DeltaType string

const (
	// Added: the object appeared (a watch ADDED event).
	Added DeltaType = "Added"
	// Updated: the object changed (a watch MODIFIED event).
	Updated DeltaType = "Updated"
	// Deleted: the object is gone (a watch DELETED event, or a relist that
	// no longer contains it; then the Object is a DeletedFinalStateUnknown).
	Deleted DeltaType = "Deleted"
	// Replaced: the object was in a relist (Replace) and the queue was
	// built with EmitDeltaTypeReplaced. Without that option a relist
	// produces Sync deltas, indistinguishable from a resync
	// (kubernetes#86015 added Replaced for that reason).
	Replaced DeltaType = "Replaced"
	// Sync: a periodic resync replayed the cached object; nothing changed on
	// the server. Also what Replace emits without EmitDeltaTypeReplaced.
	Sync DeltaType = "Sync"

	// The deltas of client-go 1.36's RealFIFO modes (the_real_fifo_modes.go).
	// None has a key: each is about the whole resource.

	// ReplacedAll: a whole relist as one delta, queued by a RealFIFO with
	// AtomicEvents (client-go: AtomicFIFO). The Object is a
	// ReplacedAllInfo: the list and its resourceVersion.
	ReplacedAll DeltaType = "ReplacedAll"
	// SyncAll: a whole resync as one delta (AtomicEvents). The Object is a
	// SyncAllInfo; the informer replays its cache when it pops it.
	SyncAll DeltaType = "SyncAll"
	// Bookmark: the server said nothing changed up to a resourceVersion
	// (a watch BOOKMARK), queued by a RealFIFO with EmitDeltaTypeBookmark
	// (client-go 1.36, KEP-5647). The Object is a BookmarkInfo.
	Bookmark DeltaType = "Bookmark"
)

// Delta is one change: its type and the object after the change. Object is
// an api.Object, or, for a Deleted delta found by a relist, a
// DeletedFinalStateUnknown; for ReplacedAll, SyncAll and Bookmark, a
// ReplacedAllInfo, SyncAllInfo or BookmarkInfo.
type Delta struct {
	Type   DeltaType
	Object any
}

// Deltas is the list of changes queued for one key, oldest first.
type Deltas []Delta

// Oldest returns the oldest delta, or nil if there is none.
func (d Deltas) Oldest() *Delta {
	if len(d) > 0 {
		return &d[0]
	}
	return nil
}

// Newest returns the newest delta, or nil if there is none.
func (d Deltas) Newest() *Delta {
	if n := len(d); n > 0 {
		return &d[n-1]
	}
	return nil
}

// copyDeltas returns a copy of d whose backing array the queue will never
// append to; the objects are shared, not copied.
func copyDeltas(d Deltas) Deltas {
	return append(make(Deltas, 0, len(d)), d...)
}

// DeletedFinalStateUnknown is the tombstone of an object whose deletion the
// watch never reported: a relist (Replace) no longer contains it, so it was
// deleted at some point while the watch was down. Obj is the last state the
// queue or the cache knew, which may be stale, or nil if none was known.
//
// Event handlers receive it as the object of a delete notification, so a
// DeleteFunc must check for it before type-asserting to *api.Pod.
type DeletedFinalStateUnknown struct {
	Key string
	Obj api.Object
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc that also
// keys a DeletedFinalStateUnknown: by its Key, the key of the deleted object.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return indexer.MetaNamespaceKeyFunc(obj)
}

// dedupDeltas collapses the last two deltas if they are both deletions. It is
// the only merging the DeltaFIFO does: every Added, Updated, Replaced and Sync
// delta is kept. Two deletions in a row can happen when the watch reports a
// DELETED and a relist then also finds the object gone; one is enough.
func dedupDeltas(deltas Deltas) Deltas {
	n := len(deltas)
	if n < 2 {
		return deltas
	}
	older, newer := &deltas[n-2], &deltas[n-1]
	if kept := isDeletionDup(older, newer); kept != nil {
		deltas[n-2] = *kept
		return deltas[:n-1]
	}
	return deltas
}

// isDeletionDup returns the deletion to keep if both deltas are deletions,
// else nil. It keeps the older one unless that is a tombstone: a real
// DELETED event carries the object's final state, a tombstone only a guess.
func isDeletionDup(older, newer *Delta) *Delta {
	if older.Type != Deleted || newer.Type != Deleted {
		return nil
	}
	if _, ok := older.Object.(DeletedFinalStateUnknown); ok {
		return newer
	}
	return older
}

// keyOf keys obj for a queue: a Deltas by its newest object, a tombstone by
// its Key, anything else with keyFunc.
func keyOf(keyFunc indexer.KeyFunc, obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", errors.New("deltafifo: cannot compute the key of an empty Deltas")
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	key, err := keyFunc(obj)
	if err != nil {
		return "", fmt.Errorf("deltafifo: couldn't compute the key of %T: %w", obj, err)
	}
	return key, nil
}

// newestObject returns the object of the newest delta, unwrapping a
// tombstone so that tombstones never nest.
func newestObject(d Deltas) api.Object {
	switch o := d.Newest().Object.(type) {
	case DeletedFinalStateUnknown:
		return o.Obj
	case api.Object:
		return o
	}
	return nil
}
