package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// Options configure NewReplicaSetController. Client and Factory are
// required; every other field has a default.
type Options struct {
	// Client is what the controller writes through: pod creates and
	// deletes, ReplicaSet status.
	Client *listwatch.Client
	// Factory hands out the ReplicaSet and Pod informers
	// (InformerFor(listwatch.ReplicaSets), InformerFor(listwatch.Pods)),
	// shared with whatever else uses the factory. Starting it is the
	// caller's job, as in client-go: build every controller, then
	// Factory.Start, then Run.
	Factory informer.SharedInformerFactory
	// Workers is how many keys are reconciled in parallel (never the same
	// key twice at once). Default 2.
	Workers int
	// MaxRetries is how many times a failing key is retried, with growing
	// delays, before it is dropped (article 004: 5). Default 5. A dropped
	// key is reconciled again on its next event.
	MaxRetries int
	// RateLimiter spaces the retries. Default
	// workqueue.DefaultControllerRateLimiter (5 ms doubling per failure,
	// and 10 retries a second overall).
	RateLimiter workqueue.RateLimiter[string]
	// Clock drives the work queue's delays and the expectations' timeout.
	// Default the real clock.
	Clock clock.Clock
	// Logger gets a line per dropped key and per start and stop. Default
	// slog.Default().
	Logger *slog.Logger
	// Tracer receives the controller's trace events (stage "controller")
	// and, through workqueue.QueueConfig.Tracer, its queue's. nil: off.
	Tracer *trace.Tracer
	// MetricsProvider gets the work queue's metrics (workqueue.QueueConfig
	// .MetricsProvider; the queue is named "replicaset"). nil: none.
	MetricsProvider workqueue.MetricsProvider
	// FailReconcile, if set, is asked before every reconcile; an error it
	// returns fails that reconcile (retried rate-limited, like any other
	// failure). The demo's "make reconcile fail" button; nil: never.
	FailReconcile func(key string) error
	// DisableReadYourWrites turns off read-your-writes (consistency.go):
	// a reconcile then reads its caches whether or not they have reached
	// the controller's own last writes, as before client-go 1.36. Default
	// off, i.e. read-your-writes on, as in kube-controller-manager 1.36
	// (StaleControllerConsistencyReplicaSet). It needs the informers'
	// LastStoreSyncResourceVersion, which only an informer running
	// client-go 1.36's AtomicFIFO reports; with the articles' informer the
	// check is skipped whatever this says.
	DisableReadYourWrites bool
	// ReadYourWritesTimeout bounds how long reconciles of a ReplicaSet
	// wait, requeued, for a cache behind the controller's own last write;
	// after it they act on the cache as it is. On Clock. Default
	// DefaultReadYourWritesTimeout (10 s).
	ReadYourWritesTimeout time.Duration
}

// Stats counts what the controller has done since it was made.
type Stats struct {
	Reconciles   int64 // reconciles run, successful or not
	PodsCreated  int64 // pod creates the server accepted
	PodsDeleted  int64 // pod deletes the server accepted
	StatusWrites int64 // status updates the server accepted
	Retries      int64 // keys put back with AddRateLimited after an error
	Dropped      int64 // keys given up after MaxRetries retries
	CacheWaits   int64 // reconciles put back because a cache was behind the controller's own write
}

// String is the stats on one line, as the demo prints them; cacheWaits
// only once read-your-writes has made a reconcile wait.
func (s Stats) String() string {
	line := fmt.Sprintf("reconciles=%d podsCreated=%d podsDeleted=%d statusWrites=%d retries=%d dropped=%d",
		s.Reconciles, s.PodsCreated, s.PodsDeleted, s.StatusWrites, s.Retries, s.Dropped)
	if s.CacheWaits > 0 {
		line += fmt.Sprintf(" cacheWaits=%d", s.CacheWaits)
	}
	return line
}

// ReplicaSetController keeps, for every ReplicaSet its informer holds, as
// many active pods as spec.replicas asks for, and reports what it found in
// the ReplicaSet's status. Make it with NewReplicaSetController and run it
// with Run.
type ReplicaSetController struct {
	pods        *listwatch.TypedClient[*api.Pod]
	rsClient    *listwatch.TypedClient[*api.ReplicaSet]
	rsInformer  informer.SharedIndexInformer
	podIndex    indexer.Indexer // the pod cache, with indexer.ControllerUIDIndex
	rsLister    informer.Lister[*api.ReplicaSet]
	rsReg       informer.ResourceEventHandlerRegistration
	podReg      informer.ResourceEventHandlerRegistration
	podInformer informer.SharedIndexInformer

	queue        workqueue.RateLimitingInterface[string]
	limiter      *delayRecorder
	expectations *expectations
	consistency  *consistencyStore // nil: read-your-writes off
	workers      int
	maxRetries   int
	logger       *slog.Logger
	tracer       *trace.Tracer // stage "controller"
	failHook     func(key string) error
	ran          atomic.Bool

	// noExpectations makes every reconcile act on what the cache shows,
	// whatever is still expected: a test knob that shows what expectations
	// prevent (TestReplicaSetController_WithoutExpectations_OvershootsUnderCacheLag).
	noExpectations bool

	reconciles, podsCreated, podsDeleted, statusWrites, retries, dropped, cacheWaits atomic.Int64
}

// NewReplicaSetController gets the ReplicaSet and Pod informers from
// opts.Factory, adds the index of pods by controller UID to the pod
// informer, and registers the handlers that put ReplicaSet keys on the work
// queue. Call Run once, after starting the factory: Run owns the queue and
// stops it.
func NewReplicaSetController(opts Options) (*ReplicaSetController, error) {
	if opts.Client == nil || opts.Factory == nil {
		return nil, errors.New("replicaset: Options.Client and Options.Factory are required")
	}
	opts = withDefaults(opts)
	c := &ReplicaSetController{
		pods:        listwatch.For[*api.Pod](opts.Client, listwatch.Pods),
		rsClient:    listwatch.For[*api.ReplicaSet](opts.Client, listwatch.ReplicaSets),
		rsInformer:  opts.Factory.InformerFor(listwatch.ReplicaSets),
		podInformer: opts.Factory.InformerFor(listwatch.Pods),
		limiter:     &delayRecorder{RateLimiter: opts.RateLimiter, last: map[string]time.Duration{}},
		workers:     opts.Workers,
		maxRetries:  opts.MaxRetries,
		logger:      opts.Logger.With("controller", "replicaset"),
		tracer:      opts.Tracer.Stage(trace.StageController),
		failHook:    opts.FailReconcile,
	}
	c.expectations = newExpectations(opts.Clock, c.tracer)
	if !opts.DisableReadYourWrites {
		c.consistency = newConsistencyStore(opts.Clock, opts.ReadYourWritesTimeout, map[string]versionReader{
			listwatch.Pods.GroupResource():        c.podInformer,
			listwatch.ReplicaSets.GroupResource(): c.rsInformer,
		})
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig[string](c.limiter,
		workqueue.QueueConfig{Name: "replicaset", Clock: opts.Clock, Tracer: opts.Tracer, MetricsProvider: opts.MetricsProvider})
	c.rsLister = informer.NewLister[*api.ReplicaSet](c.rsInformer.GetIndexer())
	c.podIndex = c.podInformer.GetIndexer()
	if err := c.addOwnerIndex(); err != nil {
		c.queue.ShutDown()
		return nil, err
	}
	if err := c.registerHandlers(); err != nil {
		c.removeHandlers()
		c.queue.ShutDown()
		return nil, err
	}
	return c, nil
}

func withDefaults(opts Options) Options {
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 5
	}
	if opts.RateLimiter == nil {
		opts.RateLimiter = workqueue.DefaultControllerRateLimiter[string]()
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ReadYourWritesTimeout <= 0 {
		opts.ReadYourWritesTimeout = DefaultReadYourWritesTimeout
	}
	return opts
}

// addOwnerIndex adds indexer.ControllerUIDIndex to the pod cache, unless
// another controller on the same factory already did.
func (c *ReplicaSetController) addOwnerIndex() error {
	if _, ok := c.podIndex.GetIndexers()[indexer.ControllerUIDIndex]; ok {
		return nil
	}
	err := c.podInformer.AddIndexers(indexer.Indexers{indexer.ControllerUIDIndex: indexer.ControllerUIDIndexFunc})
	if err != nil {
		return fmt.Errorf("replicaset: adding the pod index by controller UID: %w", err)
	}
	return nil
}

// shutdownGracePeriod bounds how long the reconciles in progress and still
// queued may take to finish once Run's context ends; after it their
// requests are cancelled.
const shutdownGracePeriod = 10 * time.Second

// Run waits for both caches to sync (and for the handlers to have seen
// every listed object), starts the workers, and reconciles until ctx ends.
// Then it drains: no new keys are taken, the queue is shut down with
// ShutDownWithDrain, the workers finish the reconciles in progress and
// those still queued (their requests are not cancelled by ctx, only after
// shutdownGracePeriod), and Run returns nil once every worker has
// returned. It removes its handlers from the informers on the way out.
//
// Run fails if ctx ends before the caches sync, or if called twice.
func (c *ReplicaSetController) Run(ctx context.Context) error {
	if c.ran.Swap(true) {
		return errors.New("replicaset: Run called twice")
	}
	defer c.removeHandlers()
	c.logger.Info("waiting for caches to sync")
	if !informer.WaitForCacheSync(ctx, c.rsReg.HasSynced, c.podReg.HasSynced) {
		c.queue.ShutDown()
		return fmt.Errorf("replicaset: caches did not sync: %w", ctx.Err())
	}
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() { c.runWorker(workCtx) })
	}
	c.logger.Info("caches synced; workers started", "workers", c.workers)

	<-ctx.Done()
	c.logger.Info("stopping: draining the work queue")
	grace := time.AfterFunc(shutdownGracePeriod, cancelWork)
	defer grace.Stop()
	c.queue.ShutDownWithDrain() // the reconciles in progress finish
	wg.Wait()                   // and the workers take what is still queued, then return
	c.logger.Info("stopped", "stats", c.Stats().String())
	return nil
}

// removeHandlers unregisters the handlers that were registered: the
// informers may run on for other controllers of the factory.
func (c *ReplicaSetController) removeHandlers() {
	if c.rsReg != nil {
		_ = c.rsInformer.RemoveEventHandler(c.rsReg) // cannot fail for a registration it returned
	}
	if c.podReg != nil {
		_ = c.podInformer.RemoveEventHandler(c.podReg)
	}
}

// runWorker is article 004's runWorker: process items until the queue is
// shut down and empty.
func (c *ReplicaSetController) runWorker(ctx context.Context) {
	for c.processNextItem(ctx) {
	}
}

// processNextItem is article 004's processNextItem: take a key, reconcile
// it, handle the error, and mark the key done so another worker may take
// it again.
func (c *ReplicaSetController) processNextItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	err := c.reconcile(ctx, key)
	c.handleErr(err, key)
	return true
}

// handleErr is article 004's handleErr: forget the key's failures on
// success; retry it rate-limited while it has failed fewer than MaxRetries
// times; then forget it and drop it with a log line. A ConsistencyError
// (a cache behind the controller's own write) is retried rate-limited as
// upstream does, but never dropped: the wait is bounded by
// ReadYourWritesTimeout instead, and its retries are forgotten when it
// ends (reconcile), so they do not count against a real failure after it.
func (c *ReplicaSetController) handleErr(err error, key string) {
	if err == nil {
		c.queue.Forget(key)
		return
	}
	var behind *ConsistencyError
	if errors.As(err, &behind) || c.queue.NumRequeues(key) < c.maxRetries {
		c.queue.AddRateLimited(key)
		c.retries.Add(1)
		if c.tracer.On() {
			c.tracer.Event("retry", trace.Key(key), trace.Delay(c.limiter.lastDelay(key)),
				trace.Count(c.queue.NumRequeues(key)), trace.Err(err))
		}
		return
	}
	c.queue.Forget(key)
	c.dropped.Add(1)
	c.logger.Warn("dropping ReplicaSet out of the queue", "key", key, "retries", c.maxRetries, "err", err)
	if c.tracer.On() {
		c.tracer.Event("dropped", trace.Key(key), trace.Reason(err.Error()))
	}
}

// Stats returns what the controller has done so far.
func (c *ReplicaSetController) Stats() Stats {
	return Stats{
		Reconciles:   c.reconciles.Load(),
		PodsCreated:  c.podsCreated.Load(),
		PodsDeleted:  c.podsDeleted.Load(),
		StatusWrites: c.statusWrites.Load(),
		Retries:      c.retries.Load(),
		Dropped:      c.dropped.Load(),
		CacheWaits:   c.cacheWaits.Load(),
	}
}

// delayRecorder is the queue's rate limiter, remembering the last delay it
// gave each key so the "retry" trace event can say how long the retry
// waits. handleErr reads it right after AddRateLimited; no other worker
// can fail the same key in between, since a key is processed by one worker
// at a time.
type delayRecorder struct {
	workqueue.RateLimiter[string]
	mu   sync.Mutex
	last map[string]time.Duration
}

func (r *delayRecorder) When(key string) time.Duration {
	d := r.RateLimiter.When(key)
	r.mu.Lock()
	r.last[key] = d
	r.mu.Unlock()
	return d
}

func (r *delayRecorder) Forget(key string) {
	r.RateLimiter.Forget(key)
	r.mu.Lock()
	delete(r.last, key)
	r.mu.Unlock()
}

func (r *delayRecorder) lastDelay(key string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[key]
}
