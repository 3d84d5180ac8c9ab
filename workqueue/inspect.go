package workqueue

import (
	"cmp"
	"container/heap"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Inspect: the queue's contents at each hop, for the lab.
//
// When its Tracer is Inspecting (a trace.Inspect consumer: the demo's lab),
// every event of the queue carries a copy of what it holds after that hop,
// a QueueState, as the State of box "workqueue" named by QueueConfig.Name.
// The copy is made under the queue's lock, with the event reported before
// the lock is let go, so the order of the events is the order of the
// states. A delaying queue's heap has a lock of its own; the state reads it
// under that lock too, always taking the queue's lock first. Two of its
// hops run differently when inspected, so that no state can show an item
// in neither place:
//
//   - AddAfter puts the item in the heap and reports "add after" under the
//     queue's lock (not inspected, it reports first and takes no lock);
//   - the waiting loop takes the ready items out of the heap one at a time,
//     each added before the next is taken, under the queue's lock: the
//     "add" of an item that was waiting shows it gone from Waiting and in
//     Queue at once.
//
// When the Tracer is not Inspecting, nothing here runs.

// maxListed caps every list of a State: a box shows the first entries and
// says how many more there are (Truncated).
const maxListed = 200

// QueueState is what a work queue holds, for the lab. Items are printed
// with fmt's %v.
type QueueState struct {
	// Queue is the order Get hands items out in.
	Queue []string `json:"queue"`
	// Dirty are the items that need processing: all of Queue, and those
	// added again while a worker has them. Sorted.
	Dirty []string `json:"dirty"`
	// Processing are the items workers have taken and not yet Done. Sorted.
	Processing []string `json:"processing"`
	// Waiting are the items a delaying queue holds until they are due,
	// soonest first.
	Waiting []WaitingItem `json:"waiting"`
	// Truncated counts the entries left out of the lists above, each
	// capped at 200.
	Truncated int `json:"truncated,omitempty"`
}

// WaitingItem is an item a delaying queue adds when Due comes, on the
// queue's clock.
type WaitingItem struct {
	Key string    `json:"key"`
	Due time.Time `json:"due"`
}

// stateLocked is the queue's contents as a State attribute. Called under
// q.mu, only when Inspecting.
func (q *Typed[T]) stateLocked() slog.Attr {
	st := QueueState{Queue: []string{}, Waiting: []WaitingItem{}}
	for i := q.queue.head; i < len(q.queue.items); i++ {
		if len(st.Queue) == maxListed {
			st.Truncated += len(q.queue.items) - i
			break
		}
		st.Queue = append(st.Queue, fmt.Sprint(q.queue.items[i]))
	}
	st.Dirty = printSorted(q.dirty, &st.Truncated)
	st.Processing = printSorted(q.processing, &st.Truncated)
	if q.waiting != nil {
		st.Waiting = q.waiting()
		if len(st.Waiting) > maxListed {
			st.Truncated += len(st.Waiting) - maxListed
			st.Waiting = st.Waiting[:maxListed:maxListed]
		}
	}
	return trace.StateOf("workqueue", q.name, st)
}

// printSorted prints a set's items, sorted and capped.
func printSorted[T comparable](set map[T]struct{}, truncated *int) []string {
	out := make([]string, 0, len(set))
	for item := range maps.Keys(set) {
		out = append(out, fmt.Sprint(item))
	}
	slices.Sort(out)
	if len(out) > maxListed {
		*truncated += len(out) - maxListed
		out = out[:maxListed:maxListed]
	}
	return out
}

// traceLocking reports an event that changes nothing in the queue (retry,
// forget) with the queue's contents when inspecting, under its lock.
func (q *Typed[T]) traceLocking(what string, attrs ...slog.Attr) {
	if !q.tracer.Inspecting() {
		q.tracer.Event(what, attrs...)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tracer.Event(what, append(attrs, q.stateLocked())...)
}

// waitingItems lists the heap, soonest first (equal times: first added
// first, as they fire). Called under the queue's lock.
func (q *delayingType[T]) waitingItems() []WaitingItem {
	q.mu.Lock()
	entries := slices.Clone(q.waiting)
	q.mu.Unlock()
	slices.SortFunc(entries, func(a, b *waitFor[T]) int {
		return cmp.Or(a.readyAt.Compare(b.readyAt), cmp.Compare(a.seq, b.seq))
	})
	out := make([]WaitingItem, len(entries))
	for i, e := range entries {
		out[i] = WaitingItem{Key: fmt.Sprint(e.item), Due: e.readyAt}
	}
	return out
}

// addAfterInspected is AddAfter's wait when inspecting: the item goes into
// the heap and "add after" is reported, under the queue's lock.
func (q *delayingType[T]) addAfterInspected(item T, duration time.Duration) {
	readyAt := q.clock.Now().Add(duration)
	q.Typed.mu.Lock()
	defer q.Typed.mu.Unlock()
	q.schedule(item, readyAt)
	q.tracer.Event("add after", slog.Any(trace.KeyKey, item), trace.Delay(duration), q.stateLocked())
}

// addReadyInspected is the waiting loop's step when inspecting: under the
// queue's lock, it takes each item due at now out of the heap and adds it
// to the queue before it takes the next. It returns when the next item is
// due, if one waits.
func (q *delayingType[T]) addReadyInspected(now time.Time) (next time.Time, hasNext bool) {
	q.Typed.mu.Lock()
	defer q.Typed.mu.Unlock()
	for {
		q.mu.Lock()
		if len(q.waiting) == 0 {
			q.mu.Unlock()
			return time.Time{}, false
		}
		e := q.waiting[0]
		if e.readyAt.After(now) {
			q.mu.Unlock()
			return e.readyAt, true
		}
		heap.Pop(&q.waiting)
		delete(q.entries, e.item)
		q.mu.Unlock()
		q.addLocked(e.item)
	}
}
