package workqueue

import (
	"container/heap"
	"log/slog"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"

	"github.com/kinformer/kinformer/trace"
)

// DelayingInterface is a queue that can also add an item later.
type DelayingInterface[T comparable] interface {
	Interface[T]
	// AddAfter adds item once duration has passed on the queue's clock. A
	// duration <= 0 adds it now. If item is already waiting, the earlier of
	// the two ready times is kept. After ShutDown it does nothing.
	AddAfter(item T, duration time.Duration)
}

// NewTypedDelayingQueue returns a delaying queue on the wall clock, without
// metrics. Call ShutDown to stop its waiting goroutine.
func NewTypedDelayingQueue[T comparable]() DelayingInterface[T] {
	return NewTypedDelayingQueueWithConfig[T](QueueConfig{})
}

// NewTypedDelayingQueueWithConfig returns a delaying queue configured by config;
// its waiting loop sleeps on config.Clock. Call ShutDown to stop the loop.
func NewTypedDelayingQueueWithConfig[T comparable](config QueueConfig) DelayingInterface[T] {
	return newDelayingQueue[T](config)
}

// delayingType is a Typed queue plus a heap of items waiting for their
// ready time and the one goroutine (waitingLoop) that moves them into the
// queue when they are due.
type delayingType[T comparable] struct {
	*Typed[T]

	mu sync.Mutex // guards the fields below; never held while calling Typed
	// waiting is a min-heap of entries by (readyAt, seq).
	waiting waitForPriorityQueue[T]
	// entries finds the waiting entry of an item, so a second AddAfter
	// updates it instead of adding a duplicate.
	entries map[T]*waitFor[T]
	seq     uint64 // insertion counter: equal ready times fire in FIFO order
	stopped bool

	// wake tells the loop that the earliest ready time changed. It has room
	// for one signal: a signal already pending says everything needed.
	wake     chan struct{}
	stopOnce sync.Once
	stopCh   chan struct{}
}

func newDelayingQueue[T comparable](config QueueConfig) *delayingType[T] {
	q := &delayingType[T]{
		Typed:   NewTypedWithConfig[T](config),
		entries: make(map[T]*waitFor[T]),
		wake:    make(chan struct{}, 1),
		stopCh:  make(chan struct{}),
	}
	if q.tracer.Inspecting() {
		q.Typed.waiting = q.waitingItems // the lab sees the heap (inspect.go)
	}
	go q.waitingLoop()
	return q
}

// AddAfter adds item to the queue once duration has passed. Every call
// counts as a retry in the metrics (client-go counts the same way).
func (q *delayingType[T]) AddAfter(item T, duration time.Duration) {
	if q.ShuttingDown() {
		return
	}
	q.metrics.retry()
	if duration <= 0 {
		q.Add(item)
		return
	}
	if q.tracer.Inspecting() {
		q.addAfterInspected(item, duration) // the same, reported after the heap took it (inspect.go)
		return
	}
	if q.tracer.On() {
		q.tracer.Event("add after", slog.Any(trace.KeyKey, item), trace.Delay(duration))
	}
	q.schedule(item, q.clock.Now().Add(duration))
}

// schedule puts item in the heap, to be added at readyAt (or earlier, if
// it waits there already for an earlier time).
func (q *delayingType[T]) schedule(item T, readyAt time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	if e, ok := q.entries[item]; ok {
		// Already waiting: keep the earlier ready time.
		if readyAt.Before(e.readyAt) {
			e.readyAt = readyAt
			heap.Fix(&q.waiting, e.index)
			if e.index == 0 {
				q.signalWake()
			}
		}
		return
	}
	q.seq++
	e := &waitFor[T]{item: item, readyAt: readyAt, seq: q.seq}
	heap.Push(&q.waiting, e)
	q.entries[item] = e
	if e.index == 0 {
		q.signalWake() // new earliest item: the loop must re-arm its timer
	}
}

func (q *delayingType[T]) signalWake() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// ShutDown stops the waiting loop, drops the items still waiting, and shuts
// the queue down (see Typed.ShutDown).
func (q *delayingType[T]) ShutDown() {
	q.stopWaiting()
	q.Typed.ShutDown()
}

// ShutDownWithDrain stops the waiting loop, drops the items still waiting,
// and shuts the queue down waiting for processing items to be Done (see
// Typed.ShutDownWithDrain).
func (q *delayingType[T]) ShutDownWithDrain() {
	q.stopWaiting()
	q.Typed.ShutDownWithDrain()
}

func (q *delayingType[T]) stopWaiting() {
	q.stopOnce.Do(func() {
		q.mu.Lock()
		q.stopped = true
		q.waiting = nil
		clear(q.entries)
		q.mu.Unlock()
		close(q.stopCh)
	})
}

// waitingLoop is the one goroutine of a delaying queue. Each round it moves
// every due item into the queue, arms a timer for the next ready time, and
// sleeps until the timer fires, an earlier item arrives, or ShutDown.
//
// A timer is relative to the clock's time when it is armed, which can be
// later than the time popReady judged by: a fake clock may jump in between
// (and a real one moves on a little). So the timer is armed for next minus
// a fresh Now, and if the clock has reached next by the time the timer is
// armed, the loop goes round again instead of sleeping past it. Without
// this, a test that steps a fake clock at that moment would leave items
// waiting for a step that never comes.
func (q *delayingType[T]) waitingLoop() {
	var timer clock.Timer // armed only while something is waiting
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var ready []T
	for {
		var next time.Time
		var hasNext bool
		if q.tracer.Inspecting() {
			next, hasNext = q.addReadyInspected(q.clock.Now()) // the same, one item at a time (inspect.go)
		} else {
			ready, next, hasNext = q.popReady(q.clock.Now(), ready[:0])
			for _, item := range ready {
				q.Add(item)
			}
			clear(ready)
		}

		var timerC <-chan time.Time
		switch {
		case hasNext && timer == nil:
			timer = q.clock.NewTimer(next.Sub(q.clock.Now()))
			timerC = timer.C()
		case hasNext:
			timer.Reset(next.Sub(q.clock.Now()))
			timerC = timer.C()
		case timer != nil:
			timer.Stop() // nothing waits: do not keep a timer armed
		}
		if hasNext && !next.After(q.clock.Now()) {
			continue // the clock reached next while the timer was armed
		}

		select {
		case <-q.stopCh:
			return
		case <-timerC:
		case <-q.wake:
		}
	}
}

// popReady removes every entry due at now from the heap, appending their
// items to ready in ready-time order, and reports the next ready time.
func (q *delayingType[T]) popReady(now time.Time, ready []T) ([]T, time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.waiting) > 0 {
		e := q.waiting[0]
		if e.readyAt.After(now) {
			return ready, e.readyAt, true
		}
		heap.Pop(&q.waiting)
		delete(q.entries, e.item)
		ready = append(ready, e.item)
	}
	return ready, time.Time{}, false
}

// waitFor is an item waiting in the heap until readyAt.
type waitFor[T any] struct {
	item    T
	readyAt time.Time
	seq     uint64
	index   int // position in the heap, kept by Swap/Push/Pop
}

// waitForPriorityQueue implements heap.Interface: earliest readyAt first,
// ties broken by insertion order.
type waitForPriorityQueue[T any] []*waitFor[T]

func (pq waitForPriorityQueue[T]) Len() int { return len(pq) }

func (pq waitForPriorityQueue[T]) Less(i, j int) bool {
	if !pq[i].readyAt.Equal(pq[j].readyAt) {
		return pq[i].readyAt.Before(pq[j].readyAt)
	}
	return pq[i].seq < pq[j].seq
}

func (pq waitForPriorityQueue[T]) Swap(i, j int) {
	pq[i], pq[j] = pq[j], pq[i]
	pq[i].index = i
	pq[j].index = j
}

// Push and Pop are for container/heap only; use heap.Push and heap.Pop.
func (pq *waitForPriorityQueue[T]) Push(x any) {
	e := x.(*waitFor[T])
	e.index = len(*pq)
	*pq = append(*pq, e)
}

func (pq *waitForPriorityQueue[T]) Pop() any {
	old := *pq
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*pq = old[:n-1]
	return e
}
