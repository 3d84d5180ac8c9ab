package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/internal/clock"
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
	// WatchErrorHandler sees every list or watch failure; nil logs them.
	WatchErrorHandler func(r *reflector.Reflector, err error)
	// Clock drives the Reflector's resync, backoff and timeouts; nil is
	// the real clock.
	Clock clock.Clock
	// Logger for process errors and the Reflector; nil is slog.Default().
	Logger *slog.Logger
	// Tracer is handed to the Reflector. nil: off.
	Tracer *trace.Tracer
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
		ResyncPeriod:      c.config.FullResyncPeriod,
		ShouldResync:      c.config.ShouldResync,
		Clock:             c.config.Clock,
		WatchErrorHandler: c.config.WatchErrorHandler,
		Logger:            c.config.Logger,
		Tracer:            c.config.Tracer,
	})
	c.mu.Lock()
	c.reflector = r
	c.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	c.processLoop(ctx)
	wg.Wait()
}

// processLoop pops the queue into Process until ctx ends (checked before
// every Pop, as client-go does, so a backlog is not worked through after the
// informer was told to stop) or the queue is closed. An error from Process
// is logged and the item dropped: client-go used to requeue it (ErrRequeue),
// which made the informer go back in time, and removed that in 1.33.
func (c *controller) processLoop(ctx context.Context) {
	for ctx.Err() == nil {
		_, err := c.config.Queue.Pop(c.config.Process)
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

// LastSyncResourceVersion implements Controller.
func (c *controller) LastSyncResourceVersion() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reflector == nil {
		return ""
	}
	return c.reflector.LastSyncResourceVersion()
}

// processDeltas applies one key's Deltas to the cache, oldest first, and
// tells handler what each did: steps 4 to 6 of article 004 (pop from the
// FIFO, put into the Indexer, call the ResourceEventHandler).
//
//   - Added, Updated, Replaced, Sync: if the key is cached, Update it and
//     call OnUpdate(cached, new); otherwise Add it and call OnAdd. (A
//     Replaced delta from a relist can be either; an Added can even be an
//     update if a delete was missed and the object recreated.)
//   - Deleted: remove the key and call OnDelete with the delta's object,
//     which is a deltafifo.DeletedFinalStateUnknown when a relist found the
//     object gone. A tombstone is deleted by its key, whatever (possibly
//     stale, possibly nil) object it carries.
//
// The cache is updated before the handler hears of it, so a handler that
// reads the cache never sees an older state than the one it was told.
func processDeltas(handler ResourceEventHandler, clientState indexer.Store, deltas deltafifo.Deltas, isInInitialList bool) error {
	for _, d := range deltas {
		switch d.Type {
		case deltafifo.Sync, deltafifo.Replaced, deltafifo.Added, deltafifo.Updated:
			obj, ok := d.Object.(api.Object)
			if !ok {
				return fmt.Errorf("informer: %s delta holds a %T, not an api.Object", d.Type, d.Object)
			}
			old, exists, err := clientState.Get(obj)
			if err != nil {
				return fmt.Errorf("informer: looking up %s delta: %w", d.Type, err)
			}
			if exists {
				if err := clientState.Update(obj); err != nil {
					return fmt.Errorf("informer: applying %s delta: %w", d.Type, err)
				}
				handler.OnUpdate(old, obj)
				continue
			}
			if err := clientState.Add(obj); err != nil {
				return fmt.Errorf("informer: applying %s delta: %w", d.Type, err)
			}
			handler.OnAdd(obj, isInInitialList)
		case deltafifo.Deleted:
			if err := deleteFromCache(clientState, d.Object); err != nil {
				return err
			}
			handler.OnDelete(d.Object)
		default:
			return fmt.Errorf("informer: unknown delta type %q", d.Type)
		}
	}
	return nil
}

// deleteFromCache removes the object of a Deleted delta: an api.Object, or
// a tombstone, which is removed by its key.
func deleteFromCache(clientState indexer.Store, obj any) error {
	switch o := obj.(type) {
	case deltafifo.DeletedFinalStateUnknown:
		cached, exists, err := clientState.GetByKey(o.Key)
		if err != nil {
			return fmt.Errorf("informer: looking up tombstone %q: %w", o.Key, err)
		}
		if !exists {
			return nil
		}
		if err := clientState.Delete(cached); err != nil {
			return fmt.Errorf("informer: applying tombstone %q: %w", o.Key, err)
		}
		return nil
	case api.Object:
		if err := clientState.Delete(o); err != nil {
			return fmt.Errorf("informer: applying Deleted delta: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("informer: Deleted delta holds a %T, neither an api.Object nor a tombstone", obj)
	}
}

// NewInformer returns a Store and a Controller that keeps it in step with lw
// and calls h for every change: an informer for one consumer, without the
// sharing of NewSharedIndexInformer. h is called directly from the
// processLoop (under the queue's lock), so a slow h slows the informer.
// Run the Controller, wait for its HasSynced, then read the Store.
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
	fifo := deltafifo.NewDeltaFIFO(deltafifo.Options{KnownObjects: clientState, EmitDeltaTypeReplaced: true})
	return New(Config{
		Queue:            fifo,
		ListerWatcher:    lw,
		ExpectedType:     objType,
		FullResyncPeriod: resyncPeriod,
		Process: func(deltas deltafifo.Deltas, isInInitialList bool) error {
			return processDeltas(h, clientState, deltas, isInInitialList)
		},
		Clock: clk,
	})
}
