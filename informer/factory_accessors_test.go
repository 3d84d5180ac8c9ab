package informer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// What client-go's informer-gen writes for every group, version and
// resource, by hand for one: factory.Core().V1().Pods() is a chain of
// small types that ends in the factory's one generic method, with the
// resource in place of the Go type and newFunc ("Kubernetes 源码阅读 -
// Informer", 从 factory 获取具体资源的 informer). kinformer generates none
// of it: a listwatch.Resource names what a newFunc would build (the path,
// and the Go type through Resource.New), and InformerFor builds the
// ListWatch and the informer itself.
type generatedFactory struct{ SharedInformerFactory }

type coreGroup struct{ f SharedInformerFactory }

type coreV1 struct{ f SharedInformerFactory }

type podInformer struct{ f SharedInformerFactory }

func (g generatedFactory) Core() coreGroup { return coreGroup{g.SharedInformerFactory} }
func (g coreGroup) V1() coreV1             { return coreV1(g) }
func (v coreV1) Pods() podInformer         { return podInformer(v) }

// Informer is informer-gen's podInformer.Informer: f.factory.InformerFor(&corev1.Pod{}, f.defaultInformer).
func (p podInformer) Informer() SharedIndexInformer { return p.f.InformerFor(listwatch.Pods) }

// Lister is informer-gen's podInformer.Lister, over the shared cache.
func (p podInformer) Lister() Lister[*api.Pod] { return NewLister[*api.Pod](p.Informer().GetIndexer()) }

// The generated accessors are sugar: Core().V1().Pods().Informer() is the
// factory's one informer for pods, the same one InformerFor hands out, so
// the pod list and watch are made once.
func TestFactory_GeneratedAccessorsAreInformerFor(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(pod("a"))
	factory := generatedFactory{NewSharedInformerFactory(e.client, FactoryOptions{Logger: testLogger(t, ""), Tracer: e.tracer})}

	inf := factory.Core().V1().Pods().Informer()
	require.Same(t, factory.InformerFor(listwatch.Pods), inf, "one informer per resource, however it is asked for")
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	require.True(t, WaitForCacheSync(ctx, inf.HasSynced))
	got, err := factory.Core().V1().Pods().Lister().ByNamespace("default").Get("a")
	require.NoError(t, err)
	require.Equal(t, 1, e.srv.RequestCount("list", "pods")+e.srv.RequestCount("watch", "pods"), "one list (or streaming list) for both")
	trace.Checkf(t, "Core().V1().Pods().Informer() is factory.InformerFor(listwatch.Pods); its Lister read %s/%s from the cache", got.Namespace, got.Name)
}

// client-go's NewSharedIndexInformer gives every informer its own cache
// mutation detector (on only with KUBE_CACHE_MUTATION_DETECTOR=true; it
// then panics when it finds a change): "Kubernetes 源码阅读 - Informer",
// NewSharedIndexInformer. kinformer keeps the detector a test tool
// (indexer.CacheMutationDetector); one per informer is a handler that
// records what each informer caches. A handler that changes a cached pod
// is caught by the pods' detector, and the configmaps' one sees nothing.
func TestInformer_MutationDetectorPerInformer(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(pod("a", "app=web"))
	e.create(configMap("settings", "1"))
	factory := NewSharedInformerFactory(e.client, FactoryOptions{Logger: testLogger(t, ""), Tracer: e.tracer})
	detectors := map[string]*indexer.CacheMutationDetector{}
	var regs []func() bool
	for _, r := range []listwatch.Resource{listwatch.Pods, listwatch.ConfigMaps} {
		det := indexer.NewCacheMutationDetector(r.Resource)
		detectors[r.Resource] = det
		reg, err := factory.InformerFor(r).AddEventHandler(ResourceEventHandlerFuncs{
			AddFunc:    func(obj any, _ bool) { det.AddObject(obj.(api.Object)) },
			UpdateFunc: func(_, obj any) { det.AddObject(obj.(api.Object)) },
		})
		require.NoError(t, err)
		regs = append(regs, reg.HasSynced)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	require.True(t, WaitForCacheSync(ctx, regs...))

	cached, err := NewLister[*api.Pod](factory.InformerFor(listwatch.Pods).GetIndexer()).ByNamespace("default").Get("a")
	require.NoError(t, err)
	cached.Labels["app"] = "oops" // the bug: changing the cache's own object

	podsErr := detectors["pods"].CompareObjects()
	require.ErrorContains(t, podsErr, "pods")
	require.NoError(t, detectors["configmaps"].CompareObjects())
	trace.Checkf(t, "the pods informer's detector: %v; the configmaps informer's: nil", podsErr)
}
