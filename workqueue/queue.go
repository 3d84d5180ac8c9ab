package workqueue

import (
	"log/slog"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
)

// Interface is the queue a controller drains. Items are usually keys
// ("namespace/name"); T must be comparable because the queue dedups items by
// equality.
type Interface[T comparable] interface {
	// Add queues item unless it is already queued. An item that is being
	// processed is queued again when the worker calls Done. After ShutDown,
	// Add does nothing.
	Add(item T)
	// Len is the number of items queued and waiting for Get (not those
	// being processed, nor those waiting in a delaying queue's heap).
	Len() int
	// Get blocks until an item is queued, marks it as processing and
	// returns it. After ShutDown it still returns queued items; when the
	// queue is empty and shut down it returns shutdown=true.
	Get() (item T, shutdown bool)
	// Done tells the queue the worker has finished with item. If item was
	// added again while it was processing, it is queued again now.
	Done(item T)
	// ShutDown stops Add and makes Get report shutdown once the queue is
	// empty. It does not wait.
	ShutDown()
	// ShutDownWithDrain is ShutDown that then waits until every item handed
	// out by Get is Done. It does not wait for items still queued.
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
	ShuttingDown() bool
}

// QueueConfig configures NewTypedWithConfig, NewTypedDelayingQueueWithConfig
// and NewTypedRateLimitingQueueWithConfig. Every field may be left zero.
type QueueConfig struct {
	// Name names the queue's metrics (with a MetricsProvider) and, in the
	// lab, its box (trace.State: a Tracer that is Inspecting).
	Name string
	// Clock is what the queue reads the time from and sleeps on. Nil means
	// the wall clock; tests pass a clock.FakeClock.
	Clock clock.Clock
	// MetricsProvider makes the queue's metrics. Nil (or NoopMetricsProvider)
	// records nothing.
	MetricsProvider MetricsProvider
	// Tracer receives the queue's trace events (stage "workqueue"): add,
	// deduplicated, get, done, retry after d, forget. nil: off.
	Tracer *trace.Tracer
}

// unfinishedWorkUpdatePeriod is how often the unfinished-work and
// longest-running-processor gauges are refreshed (client-go: 500 ms).
const unfinishedWorkUpdatePeriod = 500 * time.Millisecond

// Typed is the basic work queue: fair, stingy, safe for many producers and
// many workers. See the package doc for the three structures behind it.
type Typed[T comparable] struct {
	mu   sync.Mutex
	cond *sync.Cond // on mu; Get and ShutDownWithDrain wait on it

	// queue is the order items are handed out in. Invariant: every item in
	// queue is in dirty and not in processing.
	queue fifo[T]
	// dirty holds every item that needs processing: all of queue, plus items
	// re-added while they were in processing.
	dirty map[T]struct{}
	// processing holds the items handed out by Get and not yet Done.
	processing map[T]struct{}

	shuttingDown bool
	// drain is true while ShutDownWithDrain waits; ShutDown clears it to
	// cut the wait short.
	drain bool

	clock   clock.Clock
	metrics *queueMetrics[T] // nil when no provider is set
	tracer  *trace.Tracer    // stage "workqueue"; nil: off
	name    string           // QueueConfig.Name: the lab's name for the queue
	// waiting, set by a delaying queue whose Tracer is Inspecting, lists
	// the items waiting in its heap, for the queue's state (inspect.go).
	// Called under mu; it takes the delaying queue's lock, never the
	// other way round.
	waiting func() []WaitingItem

	stopOnce sync.Once
	stopCh   chan struct{} // closed on shutdown; stops the metrics loop
}

var _ Interface[string] = (*Typed[string])(nil)

// NewTyped returns a queue on the wall clock, without metrics.
func NewTyped[T comparable]() *Typed[T] {
	return NewTypedWithConfig[T](QueueConfig{})
}

// NewTypedWithConfig returns a queue configured by config. If config has a
// MetricsProvider, a goroutine refreshes the in-flight gauges every 500 ms
// until ShutDown: call ShutDown when you are done with the queue.
func NewTypedWithConfig[T comparable](config QueueConfig) *Typed[T] {
	clk := config.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	q := &Typed[T]{
		dirty:      make(map[T]struct{}),
		processing: make(map[T]struct{}),
		clock:      clk,
		metrics:    newQueueMetrics[T](config.MetricsProvider, config.Name, clk),
		tracer:     config.Tracer.Stage(trace.StageWorkQueue),
		name:       config.Name,
		stopCh:     make(chan struct{}),
	}
	q.cond = sync.NewCond(&q.mu)
	if q.metrics != nil {
		// The ticker is made here, not in the goroutine, so its first tick
		// is 500 ms after the queue was made whenever the goroutine starts.
		go q.updateUnfinishedWorkLoop(clk.NewTicker(unfinishedWorkUpdatePeriod))
	}
	return q
}

// Add queues item unless it is already dirty (queued, or re-added while
// processing). An item in processing is only marked dirty; Done queues it.
func (q *Typed[T]) Add(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(item)
}

func (q *Typed[T]) addLocked(item T) {
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		q.trace("add (deduplicated)", item, "already waiting to be processed: one reconcile will cover both")
		return // already waiting to be processed: this is the dedup
	}
	q.metrics.add(item)
	q.dirty[item] = struct{}{}
	if _, ok := q.processing[item]; ok {
		q.trace("add (while processing)", item, "a worker has it: queued again when it is Done")
		return // a worker has it: Done will queue it again
	}
	q.queue.push(item)
	q.trace("add", item, "")
	q.cond.Signal()
}

// trace reports what happened to item, with the queue's depth after it
// (and, when inspecting, its contents: inspect.go). Called under q.mu.
func (q *Typed[T]) trace(what string, item T, why string) {
	if !q.tracer.On() {
		return
	}
	attrs := []slog.Attr{slog.Any(trace.KeyKey, item), slog.Int("depth", q.queue.len()), slog.Int("processing", len(q.processing))}
	if why != "" {
		attrs = append(attrs, trace.Reason(why))
	}
	if q.tracer.Inspecting() {
		attrs = append(attrs, q.stateLocked())
	}
	q.tracer.Event(what, attrs...)
}

// Len returns the number of items queued for Get.
func (q *Typed[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queue.len()
}

// Get blocks until an item is queued or the queue is shut down. It moves the
// item from dirty to processing, so an Add of the same item from now on
// waits for Done. After shutdown it keeps returning queued items and returns
// shutdown=true only once the queue is empty.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.queue.len() == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if q.queue.len() == 0 {
		return item, true // shut down and nothing left
	}
	item = q.queue.pop()
	q.metrics.get(item)
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	q.trace("get", item, "")
	return item, false
}

// Done marks item as no longer processing. If it was added again meanwhile
// it goes back in the queue. Done of an item that is not processing does
// nothing.
func (q *Typed[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.processing[item]; !ok {
		return
	}
	q.metrics.done(item)
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.queue.push(item)
		q.trace("done (queued again)", item, "it was added while processing")
		q.cond.Signal()
	} else {
		q.trace("done", item, "")
	}
	if len(q.processing) == 0 && q.drain {
		q.cond.Broadcast() // wake ShutDownWithDrain
	}
}

// ShutDown stops the queue taking items: Add does nothing from now on. Get
// still hands out what is queued and reports shutdown once the queue is
// empty; Gets blocked on an empty queue return shutdown=true now. A
// ShutDownWithDrain that is waiting returns. ShutDown does not wait and may
// be called more than once.
func (q *Typed[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.drain = false
	q.shutDownLocked()
}

// ShutDownWithDrain does what ShutDown does and then blocks until the
// processing set is empty: every item handed out by Get has been Done. It
// does not wait for items still queued (kubernetes/kubernetes#141079): with
// no worker calling Get they stay queued and it returns once processing is
// empty; with workers calling Get it may return between one item's Done and
// the next Get. ShutDown from another goroutine makes it return at once. It
// never returns if a worker never calls Done.
func (q *Typed[T]) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.drain = true
	q.shutDownLocked()
	for len(q.processing) != 0 && q.drain {
		q.cond.Wait()
	}
}

func (q *Typed[T]) shutDownLocked() {
	q.shuttingDown = true
	q.cond.Broadcast() // wake every Get blocked on an empty queue
	q.stopOnce.Do(func() { close(q.stopCh) })
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *Typed[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// updateUnfinishedWorkLoop refreshes the in-flight gauges every 500 ms of
// the queue's clock until shutdown.
func (q *Typed[T]) updateUnfinishedWorkLoop(t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-q.stopCh:
			return
		case <-t.C():
			q.mu.Lock()
			q.metrics.updateUnfinishedWork()
			q.mu.Unlock()
		}
	}
}

// fifo is the queue order: a slice with a moving head, so pop is O(1) and a
// queue that empties reuses its backing array instead of allocating.
type fifo[T any] struct {
	items []T
	head  int
}

func (f *fifo[T]) len() int { return len(f.items) - f.head }

func (f *fifo[T]) push(x T) { f.items = append(f.items, x) }

// pop removes and returns the oldest item; the caller checks len first.
func (f *fifo[T]) pop() T {
	var zero T
	x := f.items[f.head]
	f.items[f.head] = zero // let the item be collected
	f.head++
	switch {
	case f.head == len(f.items):
		f.items, f.head = f.items[:0], 0
	case f.head >= 1024 && f.head*2 >= len(f.items):
		// More than half the slice is dead space at the front: slide the
		// live items down so append can reuse it.
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	return x
}
