package informer

import (
	"context"
	"github.com/kinformer/kinformer/api"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// SharedInformerFactory hands out one shared informer per resource, so every
// controller in a process that watches pods shares one list, one watch and
// one cache ("informer" notes §2.5: one connection per resource;
// "Kubernetes 源码阅读 - Informer", sharedInformerFactory and InformerFor;
// "Kubernetes-Informer" by smartkeyerror §3 uses it).
//
// client-go's factory hands out typed accessors (factory.Core().V1().Pods())
// generated per resource; kinformer's has one method keyed by a
// listwatch.Resource, and generic listers (NewLister) instead of generated
// ones.
type SharedInformerFactory interface {
	// InformerFor returns the factory's informer for r, creating it on the
	// first call; every later call, from any caller, gets the same one.
	// Its cache has the indexer.NamespaceIndex.
	InformerFor(r listwatch.Resource) SharedIndexInformer
	// Start runs every informer created so far that is not running yet,
	// until ctx ends. Call it again after creating more informers.
	Start(ctx context.Context)
	// WaitForCacheSync waits for every started informer to sync and
	// reports each one's result, keyed by resource (GroupResource: "pods",
	// "replicasets.apps", or "pods (metadata)" for a metadata-only one: see
	// informerKey); false means ctx ended first. It waits on the
	// informers' HasSyncedChecker channels (WaitFor), not by polling:
	// it returns the moment the last one syncs.
	WaitForCacheSync(ctx context.Context) map[string]bool
	// Shutdown waits until every started informer has returned. Cancel
	// the context passed to Start first. Start does nothing afterwards.
	Shutdown()
}

// FactoryOptions configure NewSharedInformerFactory. The zero value is a
// factory whose informers watch every namespace, never resync, and run
// today's pipeline (client-go 1.36's: a streaming list, the RealFIFO with
// its 1.36 modes) with the real clock and slog.Default().
//
// client-go configures its factory with functional options
// (WithNamespace, WithTweakListOptions, WithCustomResyncConfig,
// WithTransform) and the default resync as a positional argument; kinformer
// has one options struct per constructor, as reflector.Options and
// SharedIndexInformerOptions are. Every field applies to every informer the
// factory makes: there is nothing set here that the factory overrides.
type FactoryOptions struct {
	// DefaultResync is the default handler resync period of the
	// informers (0: none), unless CustomResync has one for the resource.
	DefaultResync time.Duration
	// CustomResync overrides DefaultResync for some resources, keyed by
	// GroupResource ("pods", "replicasets.apps"). client-go keys it by an
	// example object; a listwatch.Resource cannot be a map key (it holds a
	// func).
	CustomResync map[string]time.Duration
	// Namespace limits every informer to one namespace ("", the default:
	// every namespace). Cluster-scoped resources are not affected.
	Namespace string
	// TweakListOptions, if set, adjusts every list and watch of the
	// informers, typically to add a label or field selector.
	TweakListOptions func(*listwatch.ListOptions)
	// Indexers are added to every informer's cache, next to the
	// indexer.NamespaceIndex the factory always adds (which a listed
	// indexer of that name replaces).
	Indexers indexer.Indexers
	// Transform is every informer's SharedIndexInformerOptions.Transform,
	// whatever its resource, so it must handle (or pass through) every
	// type, and never blank the resourceVersion.
	Transform deltafifo.TransformFunc
	// Pipeline is every informer's SharedIndexInformerOptions.Pipeline:
	// Today (the zero value, client-go 1.36's informer) or Articles. Queue,
	// UseWatchList and RealFIFO below only matter under Articles.
	Pipeline Pipeline
	// Queue, Clock, Logger and Tracer are those of every informer (see
	// SharedIndexInformerOptions). Tests put the informers on a fake clock
	// and quiet their logs with them. Each informer's trace events are
	// tagged with its resource.
	Queue  QueueKind
	Clock  clock.Clock
	Logger *slog.Logger
	Tracer *trace.Tracer
	// UseWatchList is every informer's SharedIndexInformerOptions.UseWatchList:
	// a streaming list instead of a paged LIST. client-go's factory has no
	// option for it: its WatchListClient feature gate (on by default since
	// 1.35) decides for every reflector in the process.
	UseWatchList bool
	// RealFIFO is every informer's SharedIndexInformerOptions.RealFIFO:
	// client-go 1.36's queue modes, with Pipeline Articles and Queue
	// RealFIFOQueue.
	RealFIFO RealFIFOFeatures
}

type sharedInformerFactory struct {
	client *listwatch.Client
	opts   FactoryOptions

	mu               sync.Mutex
	informers        map[string]SharedIndexInformer
	startedInformers map[string]bool
	shuttingDown     bool
	wg               sync.WaitGroup // the running informers
}

// NewSharedInformerFactory returns a factory whose informers list and watch
// through client, configured by opts. client-go's
// NewSharedInformerFactory(client, defaultResync) is
// NewSharedInformerFactory(client, FactoryOptions{DefaultResync: defaultResync}).
func NewSharedInformerFactory(client *listwatch.Client, opts FactoryOptions) SharedInformerFactory {
	opts.CustomResync = maps.Clone(opts.CustomResync)
	opts.Indexers = maps.Clone(opts.Indexers)
	return &sharedInformerFactory{
		client:           client,
		opts:             opts,
		informers:        map[string]SharedIndexInformer{},
		startedInformers: map[string]bool{},
	}
}

// InformerFor implements SharedInformerFactory: article 003's InformerFor,
// keyed by resource instead of by Go type.
func (f *sharedInformerFactory) InformerFor(r listwatch.Resource) SharedIndexInformer {
	key := informerKey(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, exists := f.informers[key]; exists {
		return inf
	}
	resync, custom := f.opts.CustomResync[r.GroupResource()]
	if !custom {
		resync = f.opts.DefaultResync
	}
	lw := listwatch.NewFilteredListWatchFromClient(f.client, r, f.opts.Namespace, f.opts.TweakListOptions)
	indexers := indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}
	maps.Copy(indexers, f.opts.Indexers)
	inf := NewSharedIndexInformerWithOptions(lw, r.New(), SharedIndexInformerOptions{
		ResyncPeriod: resync,
		Indexers:     indexers,
		Pipeline:     f.opts.Pipeline,
		Queue:        f.opts.Queue,
		Clock:        f.opts.Clock,
		Logger:       f.opts.Logger,
		Tracer:       f.opts.Tracer.With(trace.Resource(key)), // which informer an event is from
		Transform:    f.opts.Transform,
		UseWatchList: f.opts.UseWatchList,
		RealFIFO:     f.opts.RealFIFO,
	})
	f.informers[key] = inf
	return inf
}

// Start implements SharedInformerFactory.
func (f *sharedInformerFactory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	for key, inf := range f.informers {
		if f.startedInformers[key] {
			continue
		}
		f.wg.Go(func() { inf.Run(ctx) })
		f.startedInformers[key] = true
	}
}

// WaitForCacheSync implements SharedInformerFactory.
func (f *sharedInformerFactory) WaitForCacheSync(ctx context.Context) map[string]bool {
	started := map[string]SharedIndexInformer{}
	f.mu.Lock()
	for key, inf := range f.informers {
		if f.startedInformers[key] {
			started[key] = inf
		}
	}
	f.mu.Unlock()

	checkers := make(map[string]DoneChecker, len(started))
	for key, inf := range started {
		checkers[key] = inf.HasSyncedChecker()
	}
	WaitFor(ctx, nil, "", slices.Collect(maps.Values(checkers))...) // quiet, as client-go's factory
	synced := make(map[string]bool, len(checkers))
	for key, c := range checkers {
		synced[key] = IsDone(c)
	}
	return synced
}

// Shutdown implements SharedInformerFactory.
func (f *sharedInformerFactory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.wg.Wait()
}

// informerKey names the factory's informer for r: its GroupResource
// ("pods"), with " (unstructured)" or " (metadata)" appended for the
// dynamic and metadata-only forms, so one factory can hold a typed, a
// dynamic and a metadata-only cache of the same resource side by side
// (client-go needs three factories for that). Two different typed Go types
// for one resource share the key: the first one asked for wins.
func informerKey(r listwatch.Resource) string {
	switch {
	case r.MetadataOnly:
		return r.GroupResource() + " (metadata)"
	case r.New != nil:
		if _, ok := r.New().(*api.Unstructured); ok {
			return r.GroupResource() + " (unstructured)"
		}
	}
	return r.GroupResource()
}
