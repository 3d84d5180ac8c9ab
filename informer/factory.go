package informer

import (
	"context"
	"sync"
	"time"

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
	// "replicasets.apps"); false means ctx ended first.
	WaitForCacheSync(ctx context.Context) map[string]bool
	// Shutdown waits until every started informer has returned. Cancel
	// the context passed to Start first. Start does nothing afterwards.
	Shutdown()
}

// FactoryOption configures a SharedInformerFactory.
type FactoryOption func(*sharedInformerFactory)

// WithNamespace limits every informer of the factory to one namespace
// (cluster-scoped resources are not affected).
func WithNamespace(namespace string) FactoryOption {
	return func(f *sharedInformerFactory) { f.namespace = namespace }
}

// WithTweakListOptions lets every list and watch of the factory's informers
// be adjusted, typically to add a label or field selector.
func WithTweakListOptions(tweak func(*listwatch.ListOptions)) FactoryOption {
	return func(f *sharedInformerFactory) { f.tweakListOptions = tweak }
}

// WithCustomResyncConfig sets the default handler resync period of the
// informers of some resources, keyed by GroupResource ("pods",
// "replicasets.apps"). client-go keys it by an example object; a
// listwatch.Resource cannot be a map key (it holds a func).
func WithCustomResyncConfig(resyncConfig map[string]time.Duration) FactoryOption {
	return func(f *sharedInformerFactory) {
		for resource, period := range resyncConfig {
			f.customResync[resource] = period
		}
	}
}

// WithTransform sets the transform of every informer of the factory, of
// whatever resource, so it must handle (or pass through) every type (see
// SharedIndexInformer.SetTransform, and never blank the resourceVersion).
func WithTransform(transform deltafifo.TransformFunc) FactoryOption {
	return func(f *sharedInformerFactory) { f.transform = transform }
}

// WithInformerOptions sets the queue, clock and logger of every informer
// the factory makes (ResyncPeriod and Indexers in opts are ignored: the
// factory sets those per resource). Tests use it to put the informers on a
// fake clock and quiet their logs; WithInformerOptions(
// SharedIndexInformerOptions{Queue: RealFIFOQueue}) runs them on the RealFIFO.
func WithInformerOptions(opts SharedIndexInformerOptions) FactoryOption {
	return func(f *sharedInformerFactory) { f.informerOptions = opts }
}

type sharedInformerFactory struct {
	client           *listwatch.Client
	defaultResync    time.Duration
	namespace        string
	tweakListOptions func(*listwatch.ListOptions)
	customResync     map[string]time.Duration
	transform        deltafifo.TransformFunc
	informerOptions  SharedIndexInformerOptions

	mu               sync.Mutex
	informers        map[string]SharedIndexInformer
	startedInformers map[string]bool
	shuttingDown     bool
	wg               sync.WaitGroup // the running informers
}

// NewSharedInformerFactory returns a factory whose informers list and watch
// through client, in every namespace, with defaultResync as their handlers'
// default resync period (0: none).
func NewSharedInformerFactory(client *listwatch.Client, defaultResync time.Duration) SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync)
}

// NewSharedInformerFactoryWithOptions is NewSharedInformerFactory with
// options.
func NewSharedInformerFactoryWithOptions(client *listwatch.Client, defaultResync time.Duration, options ...FactoryOption) SharedInformerFactory {
	f := &sharedInformerFactory{
		client:           client,
		defaultResync:    defaultResync,
		customResync:     map[string]time.Duration{},
		informers:        map[string]SharedIndexInformer{},
		startedInformers: map[string]bool{},
	}
	for _, opt := range options {
		opt(f)
	}
	return f
}

// InformerFor implements SharedInformerFactory: article 003's InformerFor,
// keyed by resource instead of by Go type.
func (f *sharedInformerFactory) InformerFor(r listwatch.Resource) SharedIndexInformer {
	key := r.GroupResource()
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, exists := f.informers[key]; exists {
		return inf
	}
	resync, custom := f.customResync[key]
	if !custom {
		resync = f.defaultResync
	}
	lw := listwatch.NewFilteredListWatchFromClient(f.client, r, f.namespace, f.tweakListOptions)
	opts := f.informerOptions
	opts.ResyncPeriod = resync
	opts.Indexers = indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}
	opts.Tracer = opts.Tracer.With(trace.Resource(key)) // which informer an event is from
	inf := NewSharedIndexInformerWithOptions(lw, r.New(), opts)
	if f.transform != nil {
		_ = inf.SetTransform(f.transform) // cannot fail: the informer has not started
	}
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

	synced := make(map[string]bool, len(started))
	for key, inf := range started {
		synced[key] = WaitForCacheSync(ctx, inf.HasSynced)
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
