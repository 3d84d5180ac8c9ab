package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
)

// Config is what a Controller runs: a queue, a ListerWatcher for its
// Reflector to fill the queue from, and a Process function for the
// processLoop to drain the queue into. It mirrors client-go's cache.Config.
type Config struct {
	// Queue is where the Reflector puts what it lists and watches: a
	// DeltaFIFO or a RealFIFO whose KnownObjects is the cache Process fills.
	Queue deltafifo.Queue
	// ListerWatcher lists and watches the resource.
	ListerWatcher listwatch.ListerWatcher
	// ExpectedType is an example object (e.g. &api.Pod{}); watch events of
	// another type are skipped (ObjectType in client-go).
	ExpectedType api.Object
	// FullResyncPeriod, if positive, makes the Reflector call
	// Queue.Resync this often (when ShouldResync, if set, agrees).
	FullResyncPeriod time.Duration
	ShouldResync     func() bool
	// Process handles each item popped from the queue. Its errors are
	// logged; the item is not retried (client-go removed ErrRequeue).
	Process deltafifo.PopProcessFunc
	// ProcessBatch, if set and Queue is a deltafifo.QueueWithBatch (a
	// RealFIFO), makes processLoop pop batches (PopBatch): ProcessBatch
	// handles a batch of deltas of distinct keys, Process an item that
	// pops alone. client-go: InOrderInformersBatchProcess.
	ProcessBatch deltafifo.ProcessBatchFunc
	// WatchErrorHandler sees every list or watch failure; nil logs them.
	WatchErrorHandler func(r *reflector.Reflector, err error)
	// WatchListPageSize is the Reflector's page size (reflector.Options.PageSize,
	// client-go's Config.WatchListPageSize): 0 pages lists at "" or "0" 500
	// at a time; set, every list is paged, a relist at a version too.
	WatchListPageSize int64
	// UseWatchList makes the Reflector open a streaming list (one watch
	// with sendInitialEvents) instead of a paged list: client-go's
	// WatchListClient, on by default since 1.35 (reflector.Options.UseWatchList).
	UseWatchList bool
	// Clock drives the Reflector's resync, backoff and timeouts; nil is
	// the real clock.
	Clock clock.Clock
	// Logger for process errors and the Reflector; nil is slog.Default().
	Logger *slog.Logger
	// Tracer is handed to the Reflector. nil: off.
	Tracer *trace.Tracer
	// ReadOnlyObjects says nothing writes to the objects the Reflector
	// receives, from the queue to the cache, to the handlers and listers
	// (no transform does): its lists and watches are made with
	// listwatch.ForReadOnlyCache, so the objects may share the maps and
	// lists they repeat (a ReplicaSet's pods, one labels map).
	ReadOnlyObjects bool
}

// Controller is the low-level loop an informer runs: a Reflector filling a
// queue, and processLoop draining it. "Kubernetes 源码阅读 - Informer" walks
// through controller.Run: close the queue when stopped, build the Reflector,
// start it, run processLoop.
type Controller interface {
	// Run runs the Reflector and the processLoop until ctx ends, then
	// closes the queue and waits for the Reflector and the processLoop to
	// return. What is still queued then is not processed. Call it once.
	Run(ctx context.Context)
	// HasSynced is the queue's HasSynced: true once everything from the
	// first list has been popped and processed.
	HasSynced() bool
	// HasSyncedChecker is the queue's: HasSynced as a channel, for WaitFor.
	HasSyncedChecker() DoneChecker
	// LastSyncResourceVersion is the resourceVersion the Reflector last
	// caught up to ("" before Run).
	LastSyncResourceVersion() string
}

type controller struct {
	config Config

	mu        sync.RWMutex
	reflector *reflector.Reflector
}

// New returns a Controller for cfg. Queue, ListerWatcher and Process are
// required.
func New(cfg Config) Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &controller{config: cfg}
}

// Run implements Controller. client-go's controller.Run takes a stop
// channel and starts processLoop with wait.Until (restart every second if it
// returns); here processLoop only returns once ctx has ended or the queue is
// closed, so a plain call is enough.
func (c *controller) Run(ctx context.Context) {
	stopClosing := context.AfterFunc(ctx, c.config.Queue.Close)
	defer stopClosing()

	r := reflector.New(c.config.ListerWatcher, c.config.Queue, reflector.Options{
		ExpectedType:      c.config.ExpectedType,
		FullResyncPeriod:  c.config.FullResyncPeriod,
		ShouldResync:      c.config.ShouldResync,
		Clock:             c.config.Clock,
		WatchErrorHandler: c.config.WatchErrorHandler,
		UseWatchList:      c.config.UseWatchList,
		PageSize:          c.config.WatchListPageSize,
		Logger:            c.config.Logger,
		Tracer:            c.config.Tracer,
	})
	c.mu.Lock()
	c.reflector = r
	c.mu.Unlock()

	rctx := ctx
	if c.config.ReadOnlyObjects {
		rctx = listwatch.ForReadOnlyCache(ctx)
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(rctx) })
	c.processLoop(ctx)
	wg.Wait()
}

// processLoop pops the queue into Process until ctx ends (checked before
// every Pop, as client-go does, so a backlog is not worked through after the
// informer was told to stop) or the queue is closed. An error from Process
// is logged and the item dropped: client-go used to requeue it (ErrRequeue),
// which made the informer go back in time, and removed that in 1.33.
//
// With a ProcessBatch and a queue that pops batches, each round is a
// PopBatch instead of a Pop.
func (c *controller) processLoop(ctx context.Context) {
	batchQueue, batches := c.config.Queue.(deltafifo.QueueWithBatch)
	batches = batches && c.config.ProcessBatch != nil
	for ctx.Err() == nil {
		var err error
		if batches {
			err = batchQueue.PopBatch(c.config.ProcessBatch, c.config.Process)
		} else {
			_, err = c.config.Queue.Pop(c.config.Process)
		}
		if errors.Is(err, deltafifo.ErrFIFOClosed) {
			return
		}
		if err != nil {
			c.config.Logger.Error("informer: processing a popped item failed; it is dropped", "err", err)
		}
	}
}

// HasSynced implements Controller.
func (c *controller) HasSynced() bool { return c.config.Queue.HasSynced() }

// HasSyncedChecker implements Controller.
func (c *controller) HasSyncedChecker() DoneChecker { return c.config.Queue.HasSyncedChecker() }

// LastSyncResourceVersion implements Controller.
func (c *controller) LastSyncResourceVersion() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reflector == nil {
		return ""
	}
	return c.reflector.LastSyncResourceVersion()
}

// NewInformer returns a Store and a Controller that keeps it in step with lw
// and calls h for every change: an informer for one consumer, without the
// sharing of NewSharedIndexInformer. h is called directly from the
// processLoop (under the queue's lock), so a slow h slows the informer.
// Run the Controller, wait for its HasSynced, then read the Store.
//
// It is always the articles' informer (Articles: list then watch, a
// DeltaFIFO whose KnownObjects is the Store), whatever the default
// Pipeline of the shared informers; client-go's NewInformer builds
// today's queue. Article 004's workqueue controller and its warm-cache
// tombstone (Example_workqueueController) rely on it.
func NewInformer(lw listwatch.ListerWatcher, objType api.Object, resyncPeriod time.Duration, h ResourceEventHandler) (indexer.Store, Controller) {
	clientState := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
	return clientState, newInformer(lw, objType, resyncPeriod, h, clientState, nil)
}

// NewIndexerInformer is NewInformer with an Indexer (with the given
// indices) as the cache: the form article 004's workqueue controller uses.
func NewIndexerInformer(lw listwatch.ListerWatcher, objType api.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers indexer.Indexers) (indexer.Indexer, Controller) {
	clientState := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexers)
	return clientState, newInformer(lw, objType, resyncPeriod, h, clientState, nil)
}

// newInformer builds NewInformer's controller; clk is nil (the real clock)
// except in tests.
func newInformer(lw listwatch.ListerWatcher, objType api.Object, resyncPeriod time.Duration, h ResourceEventHandler, clientState indexer.Store, clk clock.Clock) Controller {
	fifo := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{KnownObjects: clientState, EmitDeltaTypeReplaced: true})
	return New(Config{
		Queue:            fifo,
		ListerWatcher:    lw,
		ExpectedType:     objType,
		FullResyncPeriod: resyncPeriod,
		Process: func(deltas deltafifo.Deltas, isInInitialList bool) error {
			return processDeltas(clientState, deltas, isInInitialList, nil, func(n notification) { n.deliverTo(h) })
		},
		Clock: clk,
	})
}
