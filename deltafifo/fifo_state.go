package deltafifo

import (
	"sync"

	"github.com/kinformer/kinformer/trace"
)

// fifoState is what the DeltaFIFO and the RealFIFO share besides their
// contents: the lock and condition Pop waits on, whether the queue is
// closed, and the bookkeeping behind HasSynced. (client-go writes these out
// twice, once per type; the two queues differ only in what they keep.)
type fifoState struct {
	lock sync.RWMutex
	cond sync.Cond // signalled when something is queued or the queue closes; L is &lock

	closed bool

	// populated is set by the first Replace, or by an Add, Update or
	// Delete before any Replace. initialPopulationCount counts what the
	// first Replace queued and is not popped yet.
	populated              bool
	initialPopulationCount int

	// longest is the most entries queued at once since the queue was last
	// empty (grew, drainedBig).
	longest int

	tracer *trace.Tracer // stage "deltafifo"; nil: off (trace.go)
}

// Giving back the room a big list needed.
//
// Go never shrinks a map, and a slice popped from the front keeps its
// whole backing array alive. The initial list of a big cluster queues
// every object at once (50,000 pods: about 5 MB of map and key slice), and
// without care an empty queue would hold on to that room for as long as the
// informer runs, next to a cache that needs it. So a queue that held more
// than shrinkAfterDrainAbove entries drops its storage when it empties,
// and starts again small. A queue that stays short (the steady state of a
// watch: one event in, one out) keeps its storage, so Add allocates
// nothing for it. (BenchmarkListSync50k's B/cached-pod counts what stays.)
const shrinkAfterDrainAbove = 1024

// grew records that the queue now holds n entries.
func (f *fifoState) grew(n int) { f.longest = max(f.longest, n) }

// drainedBig is called when the queue has just emptied: it reports whether
// the queue held more than shrinkAfterDrainAbove entries since it was last
// empty, and starts counting again.
func (f *fifoState) drainedBig() bool {
	big := f.longest > shrinkAfterDrainAbove
	f.longest = 0
	return big
}

// HasSynced is true once everything the first Replace queued has been
// popped (and processed), or if Add, Update or Delete were called before any
// Replace.
func (f *fifoState) HasSynced() bool {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.hasSyncedLocked()
}

func (f *fifoState) hasSyncedLocked() bool {
	return f.populated && f.initialPopulationCount == 0
}

// Close makes every blocked and future Pop return once the queue is empty
// (what is queued can still be popped), and every later write fail with
// ErrFIFOClosed.
func (f *fifoState) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *fifoState) IsClosed() bool {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.closed
}
