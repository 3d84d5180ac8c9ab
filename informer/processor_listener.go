package informer

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// ResourceEventHandlerRegistration is what AddEventHandler returns: a handle
// to pass to RemoveEventHandler, and the state of that one handler.
type ResourceEventHandlerRegistration interface {
	// HasSynced is true once the informer has synced (its cache holds the
	// initial list) AND this handler has finished handling every add of
	// the initial list (or, for a handler added late, of the replay). The
	// informer's own HasSynced only promises the first half: handlers may
	// still be working through their backlog (kubernetes#113763).
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a channel, closed the moment
	// HasSynced turns true, for WaitFor (client-go 1.36).
	HasSyncedChecker() DoneChecker
	// Pending is the number of notifications given to this handler that it
	// has not finished yet (queued plus the one in progress). A number
	// that keeps growing means the handler is slower than the events
	// (client-go#1326 asks for exactly this count).
	Pending() int
}

// processorListener connects one handler to the informer. "informer" notes,
// §2.7: each handler has its own unbounded queue, so handlers that run at
// different speeds do not hold each other up.
//
// Two goroutines and two unbuffered channels:
//
//	add() ──addCh──▶ pop() [unbounded ring buffer] ──nextCh──▶ run() ──▶ handler
//
// add is called by the informer (under its delta lock) and only has to
// hand the notification to pop, which is always ready to receive: pop
// either offers the oldest buffered notification to run or takes a new one
// into its buffer, whichever channel is ready first. So the informer never
// waits for a handler; a slow handler only makes its own buffer grow. run
// calls the handler one notification at a time, in order.
//
// stop stops the listener: it sets stopped, then closes addCh; pop closes
// nextCh and returns (dropping what is still buffered), run finishes the
// notification in progress and returns. The flag is what makes "nothing
// after RemoveEventHandler" hold: pop may already be offering the next
// notification when it learns that addCh is closed, and its select may
// hand it to run anyway; run drops whatever it receives once stopped is set.
type processorListener struct {
	handler ResourceEventHandler
	name    string        // the handler's name in logs and the trace
	logger  *slog.Logger  //
	tracer  *trace.Tracer // stage "informer", with the handler's name; nil: off

	addCh   chan notification
	nextCh  chan notification
	buffer  ringGrowing // owned by pop()
	stopped atomic.Bool // set by stop, before addCh is closed
	// mirror is a copy of what is pending, kept only when the Tracer is
	// Inspecting (inspect.go); nil otherwise.
	mirror *listenerMirror

	// pending counts notifications added and not yet handled;
	// initialPending those among them that are initial-list adds.
	pending        atomic.Int64
	initialPending atomic.Int64
	// The registration's HasSynced (synced.go): upstream is the
	// informer's HasSyncedChecker; synced is closed once the informer has
	// synced (upstreamSynced), AddEventHandler has returned (registered)
	// and initialPending is 0.
	upstream                   DoneChecker
	upstreamSynced, registered atomic.Bool
	synced                     chan struct{}
	closeSynced                sync.Once

	// resyncPeriod is the period the informer can give this handler (see
	// determineResyncPeriod; 0: none), fixed at registration. nextResync is
	// when it is next due; after construction only the processor's
	// shouldResync reads and moves it, under the processor's lock (client-go
	// has a resyncLock here because it can also change resyncPeriod later;
	// see AddEventHandlerWithResyncPeriod for why kinformer never does).
	resyncPeriod time.Duration
	nextResync   time.Time
}

// initialBufferSize is the initial capacity of a listener's buffer, as in
// client-go. It doubles when full and never shrinks.
const initialBufferSize = 1024

func newProcessListener(handler ResourceEventHandler, resyncPeriod time.Duration,
	now time.Time, upstream DoneChecker, logger *slog.Logger) *processorListener {
	p := &processorListener{
		handler:      handler,
		name:         fmt.Sprintf("%T", handler),
		logger:       logger,
		addCh:        make(chan notification),
		nextCh:       make(chan notification),
		buffer:       newRingGrowing(initialBufferSize),
		upstream:     upstream,
		synced:       make(chan struct{}),
		resyncPeriod: resyncPeriod,
	}
	p.determineNextResync(now)
	return p
}

// add hands a notification to the listener. It blocks only until pop takes
// it, which pop does at once, however busy the handler is.
func (p *processorListener) add(n notification) {
	if a, ok := n.(addNotification); ok && a.isInInitialList {
		p.initialPending.Add(1)
	}
	pending := p.pending.Add(1)
	if p.tracer.On() {
		key, rv := notificationKeyRV(n)
		if p.mirror != nil {
			p.mirror.added(p.tracer, PendingNotification{Type: kindOf(n), Key: key, RV: rv},
				trace.Handler(p.name), trace.Type(kindOf(n)), trace.Key(key), trace.RV(rv), slog.Int64("pending", pending))
		} else {
			p.tracer.Event("notify", trace.Handler(p.name), trace.Type(kindOf(n)), trace.Key(key), trace.RV(rv), slog.Int64("pending", pending))
		}
	}
	p.addCh <- n
}

// pop moves notifications from addCh into the buffer and from the buffer to
// nextCh. nextCh is nil (so its select case never fires) while there is
// nothing to offer.
func (p *processorListener) pop() {
	defer close(p.nextCh) // tells run to stop
	var nextCh chan<- notification
	var notification notification // the one offered to run; nil if none
	for {
		select {
		case nextCh <- notification:
			var ok bool
			notification, ok = p.buffer.readOne()
			if !ok {
				nextCh = nil // nothing left to offer
			}
		case n, ok := <-p.addCh:
			if !ok {
				return
			}
			if notification == nil {
				notification = n
				nextCh = p.nextCh
			} else {
				p.buffer.writeOne(n)
			}
		}
	}
}

// run calls the handler for each notification, in order, until pop closes
// nextCh. Once the listener is stopped it drops what it still receives.
func (p *processorListener) run() {
	for notification := range p.nextCh {
		if batch, ok := notification.(notifications); ok { // several at once (listener_batch.go)
			for _, n := range batch {
				if p.stopped.Load() {
					break
				}
				p.handle(n)
			}
			continue
		}
		if p.stopped.Load() {
			continue
		}
		p.handle(notification)
	}
}

// stop makes the listener drop every notification not yet handed to its
// handler and its goroutines return. The processor calls it once, under its
// lock, and only for a started listener, and never calls add afterwards.
func (p *processorListener) stop() {
	p.stopped.Store(true)
	close(p.addCh)
}

// handle calls the handler for one notification. A panicking handler is
// recovered and logged and the notification counts as handled, so the
// listener (and the informer, and the handler's HasSynced) keep going.
// client-go's listener re-panics by default (utilruntime.HandleCrash with
// ReallyCrash true), so a panicking handler ends the process; only with
// ReallyCrash off does it log, skip the notification and sleep a second
// before the next one. kinformer recovers and does not sleep (one panic per
// notification is already bounded by the number of notifications).
func (p *processorListener) handle(n notification) {
	a, ok := n.(addNotification)
	initial := ok && a.isInInitialList
	defer func() {
		if r := recover(); r != nil {
			p.logger.Error("informer: event handler panicked; notification skipped",
				"handler", p.name, "notification", fmt.Sprintf("%T", n),
				"panic", r, "stack", string(debug.Stack()))
		}
		// Both counts first, the registration's channel last, so a
		// waiter it wakes sees Pending without this notification.
		if initial {
			p.initialPending.Add(-1)
		}
		p.pending.Add(-1)
		if initial {
			p.checkSynced()
		}
	}()
	if p.tracer.On() {
		key, rv := notificationKeyRV(n)
		if p.mirror != nil {
			p.mirror.taken(p.tracer, handlerMethod(n), trace.Handler(p.name), trace.Key(key), trace.RV(rv), slog.Int64("pending", p.pending.Load()-1))
		} else {
			p.tracer.Event(handlerMethod(n), trace.Handler(p.name), trace.Key(key), trace.RV(rv), slog.Int64("pending", p.pending.Load()-1))
		}
	}
	n.deliverTo(p.handler)
}

// Pending implements ResourceEventHandlerRegistration.
func (p *processorListener) Pending() int { return int(p.pending.Load()) }

// shouldResync reports whether the listener is due for a resync at now.
func (p *processorListener) shouldResync(now time.Time) bool {
	if p.resyncPeriod == 0 {
		return false
	}
	return !now.Before(p.nextResync)
}

// determineNextResync schedules the next resync one period after now.
func (p *processorListener) determineNextResync(now time.Time) {
	p.nextResync = now.Add(p.resyncPeriod)
}

// ringGrowing is the listener's unbounded FIFO buffer: a ring that doubles
// when full (client-go's buffer.RingGrowing). Not safe for concurrent use:
// only pop() touches it.
type ringGrowing struct {
	data []notification
	head int // index of the oldest element
	n    int // number of elements
}

func newRingGrowing(initialSize int) ringGrowing {
	return ringGrowing{data: make([]notification, initialSize)}
}

// readOne removes and returns the oldest element, or false if empty.
func (r *ringGrowing) readOne() (notification, bool) {
	if r.n == 0 {
		return nil, false
	}
	v := r.data[r.head]
	r.data[r.head] = nil // let it be collected
	r.head = (r.head + 1) % len(r.data)
	r.n--
	return v, true
}

// writeOne appends v, doubling the ring first if it is full.
func (r *ringGrowing) writeOne(v notification) {
	if r.n == len(r.data) {
		grown := make([]notification, 2*max(len(r.data), 1))
		// Copy in order: head..end, then 0..head.
		copied := copy(grown, r.data[r.head:])
		copy(grown[copied:], r.data[:r.head])
		r.data, r.head = grown, 0
	}
	r.data[(r.head+r.n)%len(r.data)] = v
	r.n++
}
