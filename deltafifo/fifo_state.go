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
	// first Replace queued and is not popped yet. Whoever changes either
	// calls checkSyncedLocked.
	populated              bool
	initialPopulationCount int

	// synced is closed, once, by checkSyncedLocked, at the moment HasSynced
	// turns true; syncedClosed records that it was. HasSyncedChecker hands
	// the channel out, so a waiter wakes on the close instead of polling
	// HasSynced (see "Waiting without polling" below).
	synced       chan struct{}
	syncedClosed bool

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

// initState readies the lock's condition and the synced channel; the
// constructors call it.
func (f *fifoState) initState() {
	f.cond.L = &f.lock
	f.synced = make(chan struct{})
}

// HasSynced is true once everything the first Replace queued has been
// popped (and processed), or if Add, Update or Delete were called before any
// Replace.
func (f *fifoState) HasSynced() bool {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.hasSyncedLocked()
}

// hasSyncedLocked is the answer of the last checkSyncedLocked: HasSynced and
// the synced channel are one fact, read two ways.
func (f *fifoState) hasSyncedLocked() bool { return f.syncedClosed }

// Waiting without polling.
//
// The articles' controllers wait for HasSynced by asking it every 100 ms
// (informer.WaitForCacheSync). client-go 1.36 gives each queue a channel
// instead, closed when HasSynced turns true, so a waiter wakes at that
// instant (informer.WaitFor). For the two to be one fact, every change of
// populated or initialPopulationCount is followed, under the lock, by
// checkSyncedLocked, which closes the channel the first time the condition
// holds; HasSynced reads what it decided. The count of the initial list's
// last item goes down only after process has returned (DeltaFIFO.Pop,
// RealFIFO.processLocked): a waiter woken by the close finds that item in
// the cache. client-go's DeltaFIFO closes the channel before processing the
// last item, which is unseen by HasSynced (the lock is held until process
// returns) but not by a waiter on the channel.

// checkSyncedLocked closes the synced channel if the queue has just synced.
func (f *fifoState) checkSyncedLocked() {
	if f.populated && f.initialPopulationCount == 0 && !f.syncedClosed {
		f.syncedClosed = true
		close(f.synced)
	}
}

// DoneChecker is something to wait for without polling: Done's channel is
// closed once it has happened, and Name says what it is, for logs. It has
// the method set of informer.DoneChecker, where WaitFor is; it is declared
// here as well because the queues hand one out and deltafifo cannot import
// informer (the two interface types are interchangeable).
type DoneChecker interface {
	Name() string
	Done() <-chan struct{}
}

// syncedChecker is what a queue's HasSyncedChecker returns.
type syncedChecker struct {
	name string
	done <-chan struct{}
}

func (c syncedChecker) Name() string          { return c.name }
func (c syncedChecker) Done() <-chan struct{} { return c.done }

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
