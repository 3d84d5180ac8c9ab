package deltafifo

import (
	"log/slog"
	"slices"

	"github.com/kinformer/kinformer/trace"
)

// Inspect: the queue's contents at each hop, for the lab.
//
// When its Tracer is Inspecting (a trace.Inspect consumer: the demo's lab),
// a queue adds to every event it reports a copy of what it holds after that
// hop: a QueueState, as the State of box "fifo" (unnamed: the lab names it
// by the event's resource). The copy is built under the queue's lock, in
// the same critical section as the change, and the event is reported before
// the lock is let go, so the order of the events is the order of the
// states. When the Tracer is not Inspecting, nothing here runs.
//
// "replace" and "resync" announce what follows: their state is the queue
// as the list (or the cache) starts to be queued, and each delta queued
// after them reports its own.

// maxListed caps every list of a State: a box shows the first entries and
// says how many more there are (Truncated).
const maxListed = 200

// QueueState is what a DeltaFIFO or a RealFIFO holds, for the lab.
type QueueState struct {
	// Kind is "DeltaFIFO" or "RealFIFO".
	Kind string `json:"kind"`
	// Items are the queued items in pop order: a DeltaFIFO's keys, each
	// with its deltas oldest first; a RealFIFO's deltas, one per item.
	Items []QueuedItem `json:"items"`
	// KnownObjects are the keys the DeltaFIFO's KnownObjects store (the
	// informer's cache) holds, sorted: what Replace checks the list
	// against, and what Resync replays. Only a DeltaFIFO with KnownObjects.
	KnownObjects []string `json:"knownObjects,omitempty"`
	// Truncated counts the entries left out of the lists above (items,
	// deltas of one item, known keys), each capped at 200.
	Truncated int `json:"truncated,omitempty"`
}

// QueuedItem is one queued item: a key and its deltas. A RealFIFO item is
// one delta; a ReplacedAll, SyncAll or Bookmark has no key ("").
type QueuedItem struct {
	Key    string        `json:"key"`
	Deltas []QueuedDelta `json:"deltas"`
}

// QueuedDelta is one delta: its type and the resourceVersion of its object
// (of a tombstone's last known state; of a ReplacedAll's list or a
// Bookmark: the version it carries).
type QueuedDelta struct {
	Type DeltaType `json:"type"`
	RV   string    `json:"rv"`
	// Tombstone marks a Deleted delta whose object is a
	// DeletedFinalStateUnknown: a deletion a relist found.
	Tombstone bool `json:"tombstone,omitempty"`
	// N is how many objects a ReplacedAll carries (nil for any other).
	N *int `json:"n,omitempty"`
}

// stateLocked is the DeltaFIFO's contents as a State attribute. Called
// under f.lock, only when Inspecting.
func (f *DeltaFIFO) stateLocked() slog.Attr {
	st := QueueState{Kind: "DeltaFIFO", Items: make([]QueuedItem, 0, min(len(f.queue), maxListed))}
	for i, id := range f.queue {
		if i == maxListed {
			st.Truncated += len(f.queue) - i
			break
		}
		st.Items = append(st.Items, QueuedItem{Key: id.String(), Deltas: queuedDeltas(f.items[id], &st.Truncated)})
	}
	if f.knownObjects != nil {
		keys := slices.Sorted(slices.Values(f.knownObjects.ListKeys())) // a copy: the store's slice stays as it is
		if len(keys) > maxListed {
			st.Truncated += len(keys) - maxListed
			keys = keys[:maxListed:maxListed]
		}
		st.KnownObjects = keys
	}
	return trace.StateOf("fifo", "", st)
}

// stateLocked is the RealFIFO's contents as a State attribute. Called
// under f.lock, only when Inspecting.
func (f *RealFIFO) stateLocked() slog.Attr {
	st := QueueState{Kind: "RealFIFO", Items: make([]QueuedItem, 0, min(len(f.items), maxListed))}
	for i, d := range f.items {
		if i == maxListed {
			st.Truncated += len(f.items) - i
			break
		}
		key, _ := f.keyOf(d.Object) // "" for a ReplacedAll, SyncAll or Bookmark
		st.Items = append(st.Items, QueuedItem{Key: key, Deltas: []QueuedDelta{queuedDelta(d)}})
	}
	return trace.StateOf("fifo", "", st)
}

// queuedDeltas copies one key's deltas, capped, counting what it leaves
// out into truncated.
func queuedDeltas(ds Deltas, truncated *int) []QueuedDelta {
	n := min(len(ds), maxListed)
	*truncated += len(ds) - n
	out := make([]QueuedDelta, n)
	for i, d := range ds[:n] {
		out[i] = queuedDelta(d)
	}
	return out
}

func queuedDelta(d Delta) QueuedDelta {
	q := QueuedDelta{Type: d.Type, RV: objectRV(d.Object)}
	switch o := d.Object.(type) {
	case DeletedFinalStateUnknown:
		q.Tombstone = true
	case ReplacedAllInfo:
		n := len(o.Objects)
		q.N = &n
	}
	return q
}

// inspectLocked is the DeltaFIFO's state for an event: nil unless its
// Tracer is Inspecting. Called under f.lock.
func (f *DeltaFIFO) inspectLocked() []slog.Attr {
	if !f.tracer.Inspecting() {
		return nil
	}
	return []slog.Attr{f.stateLocked()}
}

// inspectLocked is the RealFIFO's state for an event: nil unless its
// Tracer is Inspecting. Called under f.lock.
func (f *RealFIFO) inspectLocked() []slog.Attr {
	if !f.tracer.Inspecting() {
		return nil
	}
	return []slog.Attr{f.stateLocked()}
}
