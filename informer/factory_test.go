package informer

import (
	"context"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// Two consumers ask the factory for the pod informer: they get the same
// one, and the server sees one list and one watch for both. Article:
// "informer" notes §2.5 (one connection per resource); "Kubernetes 源码阅读
// - Informer", InformerFor.
func TestFactory_OneWatchPerResource(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(pod("a"))
	// The articles' informer: one list and one watch per resource, shared
	// ("informer" notes §2.5).
	factory := NewSharedInformerFactory(e.client, FactoryOptions{Pipeline: Articles})

	podsForDeployments := factory.InformerFor(listwatch.Pods) // two controllers,
	podsForReplicaSets := factory.InformerFor(listwatch.Pods) // one informer
	require.Same(t, podsForDeployments, podsForReplicaSets)
	deployments, replicaSets := &recorder{}, &recorder{}
	regD, err := podsForDeployments.AddEventHandler(deployments)
	require.NoError(t, err)
	regR, err := podsForReplicaSets.AddEventHandler(replicaSets)
	require.NoError(t, err)
	configMaps := factory.InformerFor(listwatch.ConfigMaps)

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	factory.Start(ctx) // starting twice starts nothing twice
	require.Equal(t, map[string]bool{"pods": true, "configmaps": true}, factory.WaitForCacheSync(ctx))
	require.True(t, WaitForCacheSync(ctx, regD.HasSynced, regR.HasSynced, configMaps.HasSynced))
	require.Equal(t, deployments.Events(), replicaSets.Events())
	require.Len(t, deployments.Events(), 1)

	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 && e.srv.OpenWatches("configmaps") == 1 },
		10*time.Second, time.Millisecond, "each informer watches once it has listed")
	require.Equal(t, 1, e.srv.RequestCount("list", "pods"), "one list for two consumers")
	require.Equal(t, 1, e.srv.RequestCount("watch", "pods"), "one watch for two consumers")
	require.Equal(t, 1, e.srv.RequestCount("watch", "configmaps"), "and one per other resource")
	trace.Checkf(t, "2 consumers of pods, 1 informer: %d list and %d watch of pods on the server (and %d of configmaps)",
		e.srv.RequestCount("list", "pods"), e.srv.RequestCount("watch", "pods"), e.srv.RequestCount("watch", "configmaps"))

	cancel()
	factory.Shutdown()
	require.True(t, podsForDeployments.IsStopped())
	require.True(t, configMaps.IsStopped())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 10*time.Second, time.Millisecond)
	factory.Start(context.Background()) // after Shutdown: does nothing
	require.Equal(t, 1, e.srv.RequestCount("list", "pods"))
}

// The factory's options reach every informer it makes: the namespace, the
// list-option tweak (here a label selector), per-resource resync and the
// transform.
func TestFactory_Options(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(pod("web", "app=web"))
	e.create(pod("db", "app=db"))
	elsewhere := pod("web-elsewhere", "app=web")
	elsewhere.Namespace = "kube-system"
	e.create(elsewhere)

	factory := NewSharedInformerFactory(e.client, FactoryOptions{
		DefaultResync:    time.Hour,
		Namespace:        "default",
		TweakListOptions: func(o *listwatch.ListOptions) { o.LabelSelector = "app=web" },
		CustomResync:     map[string]time.Duration{"pods": time.Minute},
		Transform: func(obj api.Object) (api.Object, error) {
			p := obj.(*api.Pod).DeepCopy()
			p.Spec = api.PodSpec{} // the cache keeps metadata only
			return p, nil
		},
		Indexers: indexer.Indexers{"byApp": func(obj api.Object) ([]string, error) { return []string{obj.GetLabels()["app"]}, nil }},
		Pipeline: Articles, // the articles' informer with client-go 1.33's RealFIFO
		Queue:    RealFIFOQueue,
		Logger:   expectedLogs(t),
		Tracer:   trace.ForTest(t),
	})
	pods := factory.InformerFor(listwatch.Pods)
	configMaps := factory.InformerFor(listwatch.ConfigMaps)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); factory.Shutdown() }()
	factory.Start(ctx)
	require.Equal(t, map[string]bool{"pods": true, "configmaps": true}, factory.WaitForCacheSync(ctx))

	lister := NewLister[*api.Pod](pods.GetIndexer())
	all, err := lister.List(api.Everything())
	require.NoError(t, err)
	require.Equal(t, []string{"default/web"}, names(all), "namespace and selector applied")
	require.Empty(t, all[0].Spec.Containers, "transformed")
	_, err = lister.ByNamespace("default").Get("db")
	require.True(t, listwatch.IsNotFound(err))

	resyncOf := func(inf SharedIndexInformer) time.Duration {
		s := inf.(*sharedIndexInformer)
		s.startedLock.Lock()
		defer s.startedLock.Unlock()
		return s.defaultEventHandlerResyncPeriod
	}
	require.Equal(t, time.Minute, resyncOf(pods), "custom resync for pods")
	require.Equal(t, time.Hour, resyncOf(configMaps), "the default for the rest")
	require.Equal(t, Articles, pods.(*sharedIndexInformer).pipeline, "informer options reach every informer")
	require.Equal(t, RealFIFOQueue, pods.(*sharedIndexInformer).queueKind)
	require.False(t, pods.(*sharedIndexInformer).useWatchList, "the articles' list then watch")
	require.Contains(t, pods.GetIndexer().GetIndexers(), indexer.NamespaceIndex, "the factory's own index")
	byApp, err := pods.GetIndexer().ByIndex("byApp", "web")
	require.NoError(t, err)
	require.Len(t, byApp, 1, "and the options' indexers")
}

// WaitForCacheSync reports false for an informer that has not synced when
// the context ends, and only waits for started informers. Every list fails,
// so the informer cannot sync however long the test takes, and the wait's
// context is cancelled rather than timed: no real-time deadline decides the
// result. (TestWaitForCacheSync shows the waiting itself, on fake time.)
func TestFactory_WaitForCacheSyncGivesUp(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	// Every request fails: the streaming list of today's informer (a
	// watch) as well as a paged list it would fall back to.
	e.srv.FailRequests(fakeapiserver.Fault{Resource: "pods", Code: 500, Count: 1000})
	factory := NewSharedInformerFactory(e.client, FactoryOptions{Logger: expectedLogs(t), Tracer: trace.ForTest(t)})
	factory.InformerFor(listwatch.Pods)
	require.Empty(t, factory.WaitForCacheSync(t.Context()), "nothing started, nothing to wait for")

	runCtx, cancelRun := context.WithCancel(context.Background())
	defer func() { cancelRun(); factory.Shutdown() }()
	factory.Start(runCtx)
	require.Eventually(t, func() bool { return e.srv.RequestCount("list", "pods")+e.srv.RequestCount("watch", "pods") > 0 },
		10*time.Second, time.Millisecond, "the informer has tried to list")
	waitCtx, cancelWait := context.WithCancel(context.Background())
	cancelWait() // the caller's deadline has passed
	require.Equal(t, map[string]bool{"pods": false}, factory.WaitForCacheSync(waitCtx))
}

// One factory holds a typed, an unstructured and a metadata-only informer
// of the same resource side by side, each its own cache.
func TestFactory_OneInformerPerFormOfAResource(t *testing.T) {
	typed := listwatch.Pods
	dynamic := listwatch.DynamicResource("", "v1", "pods", "Pod", true)
	metadata := listwatch.MetadataOnly(listwatch.Pods)
	f := NewSharedInformerFactory(nil, FactoryOptions{})
	a, b, c := f.InformerFor(typed), f.InformerFor(dynamic), f.InformerFor(metadata)
	require.NotSame(t, a, b)
	require.NotSame(t, a, c)
	require.NotSame(t, b, c)
	require.Same(t, b, f.InformerFor(listwatch.DynamicResource("", "v1", "pods", "Pod", true)), "asked again: the same one")
	require.Equal(t, "pods", informerKey(typed))
	require.Equal(t, "pods (unstructured)", informerKey(dynamic))
	require.Equal(t, "pods (metadata)", informerKey(metadata))
}
