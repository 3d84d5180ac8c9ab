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

	tracer *trace.Tracer // stage "deltafifo"; nil: off (trace.go)
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
