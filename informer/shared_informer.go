package informer

import (
	"context"
	"errors"
	"fmt"
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

// SharedIndexInformer keeps an indexed cache of one resource in step with
// the API server and notifies any number of handlers of every change, over
// one list and one watch ("informer" notes, §2.5-2.7: one connection per
// resource shared by every consumer, observer-pattern registration, an
// unbounded queue per handler).
//
// Its guarantees, as client-go states them for its SharedInformer:
//
//   - Eventually consistent: once changes stop, the cache holds exactly the
//     server's objects, and every handler has been told of each one. The
//     states a handler sees for an object are a subsequence of the states
//     the object went through, in order (some may be skipped, never
//     reordered).
//   - A handler is notified after the cache has been updated.
//   - Each handler gets its notifications one at a time, in order.
//   - A resync notification is an OnUpdate whose old and new objects have
//     the same resourceVersion.
type SharedIndexInformer interface {
	// AddEventHandler registers a handler with the informer's default
	// resync period. Added after Run, the handler first gets an OnAdd
	// (isInInitialList true) for every cached object. Errors once the
	// informer has stopped.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithResyncPeriod is AddEventHandler with the handler's
	// own resync period (0: no resync).
	//
	// The informer has one resync timer, ticking every resync check
	// period; at each tick the handlers whose own period has passed get a
	// resync. So, as in client-go:
	//
	//   - a period under a second is raised to a second;
	//   - before Run, a period smaller than the check period lowers the
	//     check period (the smallest handler period wins);
	//   - after Run the check period is fixed, and a smaller period is
	//     raised to it;
	//   - an informer built without a resync period (check period 0) has
	//     no timer, and its handlers get no resync whatever they ask for.
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithOptions is AddEventHandler with options: a name
	// for logs and the trace, the handler's own resync period, and a
	// logger for its log lines.
	AddEventHandlerWithOptions(handler ResourceEventHandler, opts HandlerOptions) (ResourceEventHandlerRegistration, error)
	// RemoveEventHandler unregisters a handler. Notifications it has not
	// handled yet are dropped; one in progress finishes. A handler may
	// remove itself from inside one of its calls. Removing twice is not an
	// error. (client-go's removal is asynchronous: queued notifications may
	// still run after it returns.)
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error
	// GetStore and GetIndexer return the cache. Do not modify what they
	// hold.
	GetStore() indexer.Store
	GetIndexer() indexer.Indexer
	// AddIndexers adds indices to the cache, indexing what it holds.
	AddIndexers(indexers indexer.Indexers) error
	// Run runs the informer until ctx ends, then waits for its goroutines
	// (including handler calls in progress) to return. A second Run
	// returns at once.
	Run(ctx context.Context)
	// HasSynced is true once the cache holds the initial list. It says
	// nothing about handlers: see ResourceEventHandlerRegistration.HasSynced.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a channel, closed the moment
	// HasSynced turns true (just after the queue's), for WaitFor
	// (client-go 1.36; synced.go).
	HasSyncedChecker() DoneChecker
	// LastSyncResourceVersion is the resourceVersion the cache last caught
	// up to ("" before the first list).
	LastSyncResourceVersion() string
	// LastStoreSyncResourceVersion is the resourceVersion of the last
	// write the cache itself took (indexer.Store's: a relist's, an
	// event's, a bookmark's), so it never runs ahead of what handlers can
	// read. "" unless the informer runs with RealFIFOFeatures.AtomicFIFO:
	// a relist applied object by object leaves the store's version
	// meaningless, and client-go answers "" without its AtomicFIFO gate.
	LastStoreSyncResourceVersion() string
	// SetWatchErrorHandler sets the hook that sees every list or watch
	// failure, replacing SharedIndexInformerOptions.WatchErrorHandler.
	// Only before Run.
	SetWatchErrorHandler(handler func(r *reflector.Reflector, err error)) error
	// IsStopped is true once Run has returned.
	IsStopped() bool
}

// QueueKind picks the queue between the Reflector and the informer.
type QueueKind int

const (
	// DeltaFIFOQueue is the DeltaFIFO the articles describe: per key, every
	// delta since it was last popped, handed out together. The Articles
	// pipeline's queue (the zero QueueKind; under Today the queue is a
	// RealFIFO whatever Queue says).
	DeltaFIFOQueue QueueKind = iota
	// RealFIFOQueue is the queue of client-go's in-order informers (the
	// InOrderInformers feature gate, their default since 1.33, GA and
	// locked on since 1.36): every notification in arrival order, one at a
	// time.
	RealFIFOQueue
)

// SharedIndexInformerOptions configure NewSharedIndexInformerWithOptions.
type SharedIndexInformerOptions struct {
	// ResyncPeriod is the default resync period of handlers (0: none),
	// client-go's defaultEventHandlerResyncPeriod. ResyncPeriod always
	// names a handler's resync; the store's (how often the Reflector calls
	// Resync) is FullResyncPeriod, which the informer derives from its
	// handlers' periods (determineResyncPeriod).
	ResyncPeriod time.Duration
	// Indexers are the cache's indices.
	Indexers indexer.Indexers
	// Pipeline selects the informer: Today (the zero value, client-go
	// 1.36's) or Articles (the articles'). Queue, RealFIFO and UseWatchList
	// only matter under Articles: under Today they are all on already.
	Pipeline Pipeline
	// Queue picks, under Articles, DeltaFIFOQueue (the articles') or
	// RealFIFOQueue (client-go 1.33's InOrderInformers).
	Queue QueueKind
	// Clock drives resync and the Reflector's timers; nil is the real clock.
	Clock clock.Clock
	// Logger receives handler panics, dropped items and the Reflector's
	// messages; nil is slog.Default().
	Logger *slog.Logger
	// Tracer receives the trace events of the informer (stage "informer")
	// and of the Reflector and queue it builds, each event tagged with the
	// resource. nil: off.
	Tracer *trace.Tracer
	// Transform, if set, is applied to every object arriving from the
	// server before it is queued and cached, typically to drop fields
	// nothing reads (client-go's SetTransform; kinformer takes it here,
	// the only way to give an informer a transform, so it is fixed before
	// Run by construction). The informer hands it to its queue
	// (deltafifo.DeltaFIFOOptions.Transform).
	//
	// A transform must keep the resourceVersion: an OnUpdate whose old and
	// new objects have the same resourceVersion is taken for a resync and
	// only reaches handlers due for one, so blanking it makes every real
	// update vanish for the other handlers (falcosecurity/k8s-metacollector#188).
	// It must also keep name and namespace (the key), and it must not
	// modify the object it is given in place if that object may be shared.
	// Without a transform, cached objects share the maps and lists they
	// repeat (Config.ReadOnlyObjects); with one, each has its own.
	Transform deltafifo.TransformFunc
	// WatchErrorHandler, if set, sees every failure of the Reflector's
	// list or watch (reflector.Options.WatchErrorHandler, which the
	// informer hands it to); nil logs them. SetWatchErrorHandler, client-go's
	// way, sets the same hook later, before Run.
	WatchErrorHandler func(r *reflector.Reflector, err error)
	// UseWatchList fills the cache with a streaming list instead of a
	// paged LIST: one watch with sendInitialEvents=true, whose initial
	// events end with a bookmark, and which then goes on as the informer's
	// watch (reflector.Options.UseWatchList, with its fallback to a paged
	// list when the server cannot stream). client-go's informers have done
	// this by default since 1.35 (the WatchListClient feature gate), and
	// so does Today; under Articles it is off unless set, the
	// list-then-watch the articles describe.
	UseWatchList bool
	// RealFIFO turns on client-go 1.36's queue modes (atomic relists,
	// unlocking while processing, batches) under Articles when Queue is
	// RealFIFOQueue. Zero: the RealFIFO of the InOrderInformers gate
	// (1.33). Under Today they are all on (ClientGo136).
	RealFIFO RealFIFOFeatures
}

// HandlerOptions configure AddEventHandlerWithOptions (client-go has the
// same method and options, Logger and ResyncPeriod; Name is kinformer's).
type HandlerOptions struct {
	// Name names the handler in logs and trace events. Default
	// "handler-N", N counting the informer's registrations from 1.
	Name string
	// ResyncPeriod, if set, is the handler's own resync period (0: none);
	// otherwise the informer's default.
	ResyncPeriod *time.Duration
	// Logger, if set, receives this handler's log lines instead of the
	// informer's Logger: the adjustments of its resync period when it is
	// added, and its panics. client-go's HandlerOptions.Logger, whose
	// default is klog.Background(); kinformer's is the informer's Logger.
	Logger *slog.Logger
}

// minimumResyncPeriod is the smallest resync period a handler can get.
const minimumResyncPeriod = 1 * time.Second

type sharedIndexInformer struct {
	indexer       indexer.Indexer
	processor     *sharedProcessor
	listerWatcher listwatch.ListerWatcher
	objectType    api.Object
	pipeline      Pipeline // as asked for; queueKind, realFIFO and useWatchList are what it came to
	queueKind     QueueKind
	realFIFO      RealFIFOFeatures // zero unless queueKind is RealFIFOQueue; ClientGo136 under Today
	clock         clock.Clock
	logger        *slog.Logger
	// tracer is the Tracer of the options, tagged with the resource; the
	// informer's own events use cacheTrace (stage "informer").
	tracer     *trace.Tracer
	cacheTrace *trace.Tracer

	// blockDeltas is held while deltas are applied and while a late
	// handler is added, so the replay a late handler gets is the cache at
	// one instant, followed by exactly the changes after it.
	blockDeltas sync.Mutex

	startedLock sync.Mutex
	started     bool
	stopped     bool
	controller  Controller
	synced      chan struct{} // closed once the cache holds the initial list (synced.go)
	// resyncCheckPeriod is how often the Reflector asks shouldResync: the
	// smallest handler period, fixed once started.
	resyncCheckPeriod               time.Duration
	defaultEventHandlerResyncPeriod time.Duration
	transform                       deltafifo.TransformFunc
	handlersAdded                   int // for default handler names
	watchErrorHandler               func(r *reflector.Reflector, err error)
	useWatchList                    bool
	// wrapQueue, if set, wraps the queue newQueue builds. A test seam: the
	// scenario scripts (scenario_test.go) step and pause the queue through
	// it. nil outside tests.
	wrapQueue func(deltafifo.Queue) deltafifo.Queue
}

// NewSharedIndexInformer returns an informer for the objects lw lists and
// watches, which are of exampleObject's type, with the given default handler
// resync period and cache indices. Article: "Kubernetes 源码阅读 - Informer",
// NewSharedIndexInformer.
func NewSharedIndexInformer(lw listwatch.ListerWatcher, exampleObject api.Object, defaultEventHandlerResyncPeriod time.Duration, indexers indexer.Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions is NewSharedIndexInformer with options.
func NewSharedIndexInformerWithOptions(lw listwatch.ListerWatcher, exampleObject api.Object, opts SharedIndexInformerOptions) SharedIndexInformer {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	logger := opts.Logger.With("informer", fmt.Sprintf("%T", exampleObject))
	choice := opts.choose()
	if choice.queue != RealFIFOQueue && choice.realFIFO != (RealFIFOFeatures{}) {
		logger.Warn("informer: RealFIFO features ignored: the queue is not a RealFIFO", "features", opts.RealFIFO)
		choice.realFIFO = RealFIFOFeatures{}
	}
	return &sharedIndexInformer{
		indexer:                         indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, opts.Indexers),
		processor:                       newSharedProcessor(opts.Clock),
		synced:                          make(chan struct{}),
		listerWatcher:                   lw,
		objectType:                      exampleObject,
		pipeline:                        opts.Pipeline,
		queueKind:                       choice.queue,
		realFIFO:                        choice.realFIFO,
		clock:                           opts.Clock,
		logger:                          logger,
		tracer:                          opts.Tracer,
		cacheTrace:                      opts.Tracer.Stage(trace.StageInformer),
		resyncCheckPeriod:               opts.ResyncPeriod,
		defaultEventHandlerResyncPeriod: opts.ResyncPeriod,
		transform:                       opts.Transform,
		watchErrorHandler:               opts.WatchErrorHandler,
		useWatchList:                    choice.useWatchList,
	}
}

// Run implements SharedIndexInformer: the walk-through of "Kubernetes 源码阅读
// - Informer", sharedIndexInformer.Run. Build the queue (newQueue: under
// Articles a DeltaFIFO with the cache as its KnownObjects, so a relist can
// find deletions and a resync can replay the cache, and with Replaced
// deltas; under Today an atomic RealFIFO, which needs no KnownObjects); build the controller with
// HandleDeltas as its Process and the processor's shouldResync as its
// ShouldResync; start the listeners; run the controller until ctx ends;
// then stop the listeners.
func (s *sharedIndexInformer) Run(ctx context.Context) {
	c, ok := s.startOnce()
	if !ok {
		s.logger.Warn("informer: Run called on an informer that already ran; ignored")
		return
	}
	defer s.stopProcessing()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { s.watchSynced(ctx, c) })
	c.Run(ctx)
}

// startOnce builds the controller and starts the processor, unless the
// informer has been started before.
func (s *sharedIndexInformer) startOnce() (Controller, bool) {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started || s.stopped {
		return nil, false
	}
	s.controller = New(Config{
		Queue:             s.newQueue(),
		ListerWatcher:     s.listerWatcher,
		ExpectedType:      s.objectType,
		FullResyncPeriod:  s.resyncCheckPeriod,
		ShouldResync:      s.processor.shouldResync,
		Process:           s.HandleDeltas,
		ProcessBatch:      s.processBatch(),
		WatchErrorHandler: s.watchErrorHandler,
		UseWatchList:      s.useWatchList,
		Clock:             s.clock,
		Logger:            s.logger,
		Tracer:            s.tracer,
		ReadOnlyObjects:   s.transform == nil, // a transform may write to what it is given
	})
	s.processor.start()
	s.started = true
	return s.controller, true
}

// newQueue builds the queue the controller's Reflector fills.
func (s *sharedIndexInformer) newQueue() deltafifo.Queue {
	var q deltafifo.Queue
	if s.queueKind == RealFIFOQueue {
		opts := s.realFIFO.realFIFOOptions()
		if !opts.AtomicEvents {
			opts.KnownObjects = s.indexer // an atomic queue reads no cache
		}
		opts.Transform, opts.Tracer = s.transform, s.tracer
		q = deltafifo.NewRealFIFO(opts)
	} else {
		q = deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{KnownObjects: s.indexer, EmitDeltaTypeReplaced: true, Transform: s.transform, Tracer: s.tracer})
	}
	if s.wrapQueue != nil {
		q = s.wrapQueue(q)
	}
	return q
}

// stopProcessing marks the informer stopped (no handler can be added any
// more) and stops the listeners.
func (s *sharedIndexInformer) stopProcessing() {
	s.startedLock.Lock()
	s.stopped = true
	s.startedLock.Unlock()
	s.processor.stop()
}

// AddEventHandler implements SharedIndexInformer.
func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod implements SharedIndexInformer.
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions implements SharedIndexInformer (the period
// rules are in AddEventHandlerWithResyncPeriod's doc).
//
// client-go also re-derives every listener's period when the check period
// is lowered (resyncCheckPeriodChanged). That never changes one: a listener
// added before Run asked for at least the check period of its time (or
// lowered it to its own), the check period only goes down, and a check
// period of 0 is never lowered. So kinformer leaves it out.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, opts HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("informer: AddEventHandler: nil handler")
	}
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("informer: handler %T was not added: the informer has stopped", handler)
	}
	resyncPeriod := s.defaultEventHandlerResyncPeriod
	if opts.ResyncPeriod != nil {
		resyncPeriod = *opts.ResyncPeriod
	}
	logger := s.logger
	if opts.Logger != nil {
		logger = opts.Logger
	}
	s.handlersAdded++
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("handler-%d", s.handlersAdded)
	}

	if resyncPeriod > 0 {
		if resyncPeriod < minimumResyncPeriod {
			logger.Warn("informer: resync period too small; using the minimum", "requested", resyncPeriod, "minimum", minimumResyncPeriod)
			resyncPeriod = minimumResyncPeriod
		}
		if resyncPeriod < s.resyncCheckPeriod {
			if s.started {
				logger.Warn("informer: resync period smaller than the running informer's check period; using the check period",
					"requested", resyncPeriod, "checkPeriod", s.resyncCheckPeriod)
				resyncPeriod = s.resyncCheckPeriod
			} else {
				s.resyncCheckPeriod = resyncPeriod
			}
		}
	}
	effective := determineResyncPeriod(resyncPeriod, s.resyncCheckPeriod)
	if effective != resyncPeriod {
		logger.Warn("informer: handler resync period adjusted", "requested", resyncPeriod, "effective", effective)
	}
	l := newProcessListener(handler, effective, s.clock.Now(), s.HasSyncedChecker(), logger)
	l.name = name
	l.setTracer(s.cacheTrace)

	if !s.started {
		s.processor.addListener(l)
		l.markRegistered()
		return l, nil
	}
	// A late handler: replay the cache to it as initial-list adds, with
	// deltas held back so nothing slips between the replay and the live
	// notifications that follow it.
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	s.processor.addListener(l)
	for _, item := range s.indexer.List() {
		l.add(addNotification{newObj: item, isInInitialList: true})
	}
	l.markRegistered()
	return l, nil
}

// determineResyncPeriod is the period a listener gets for the period it
// asked for (desired) under an informer checking every check: none if
// either is 0, at least check otherwise.
func determineResyncPeriod(desired, check time.Duration) time.Duration {
	if desired == 0 || check == 0 {
		return 0
	}
	return max(desired, check)
}

// RemoveEventHandler implements SharedIndexInformer.
func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	return s.processor.removeListener(handle)
}

// GetStore implements SharedIndexInformer.
func (s *sharedIndexInformer) GetStore() indexer.Store { return s.indexer }

// GetIndexer implements SharedIndexInformer.
func (s *sharedIndexInformer) GetIndexer() indexer.Indexer { return s.indexer }

// AddIndexers implements SharedIndexInformer.
func (s *sharedIndexInformer) AddIndexers(indexers indexer.Indexers) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return errors.New("informer: indexers were not added: the informer has stopped")
	}
	return s.indexer.AddIndexers(indexers)
}

// HasSynced implements SharedIndexInformer.
func (s *sharedIndexInformer) HasSynced() bool { return IsDone(s.HasSyncedChecker()) }

// LastSyncResourceVersion implements SharedIndexInformer.
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.startedLock.Lock()
	c := s.controller
	s.startedLock.Unlock()
	if c == nil {
		return ""
	}
	return c.LastSyncResourceVersion()
}

// SetWatchErrorHandler implements SharedIndexInformer.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler func(r *reflector.Reflector, err error)) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return errors.New("informer: SetWatchErrorHandler: the informer has already started")
	}
	s.watchErrorHandler = handler
	return nil
}

// IsStopped implements SharedIndexInformer.
func (s *sharedIndexInformer) IsStopped() bool {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	return s.stopped
}
