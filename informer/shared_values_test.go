package informer

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// An informer with no transform lists and watches for a read-only cache
// (listwatch.ForReadOnlyCache): the pods it caches share the labels map
// and the containers their JSON repeats, one per ReplicaSet instead of one
// per pod. With a transform, which may change what it is given, each
// cached pod has its own. Either way the cache holds the same values.
func TestInformer_CachedObjectsShareWhatTheyRepeatUnlessTransformed(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		for _, transformed := range []bool{false, true} {
			e := newServerEnv(t, fakeapiserver.Options{})
			require.NoError(t, e.srv.SeedPods("default", 3))
			opts := testOptions(t, SharedIndexInformerOptions{Queue: kind, Clock: e.clock, Tracer: e.tracer})
			if transformed {
				opts.Transform = func(obj api.Object) (api.Object, error) { return obj, nil }
			}
			inf := NewSharedIndexInformerWithOptions(e.listWatch(listwatch.Pods, nil), &api.Pod{}, opts)
			runInformer(t, inf)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			require.True(t, WaitForCacheSync(ctx, inf.HasSynced))

			get := func(name string) *api.Pod {
				obj, ok, err := inf.GetStore().GetByKey("default/" + name)
				require.NoError(t, err)
				require.True(t, ok, name)
				return obj.(*api.Pod)
			}
			a, b := get("seed-0"), get("seed-2")
			require.Equal(t, map[string]string{"app": "seed"}, b.Labels)
			sameLabels := *(*unsafe.Pointer)(unsafe.Pointer(&a.Labels)) == *(*unsafe.Pointer)(unsafe.Pointer(&b.Labels))
			sameContainers := unsafe.SliceData(a.Spec.Containers) == unsafe.SliceData(b.Spec.Containers)
			require.Equal(t, !transformed, sameLabels, "labels, transformed=%v", transformed)
			require.Equal(t, !transformed, sameContainers, "containers, transformed=%v", transformed)
		}
	})
}

// The price of sharing, shown: the cache's objects are read-only (package
// indexer, "Don't mutate what the cache gives you"), and a handler that
// writes into one pod's labels anyway writes into the one map the pods of
// its ReplicaSet share. The cache mutation detector, which keeps a deep
// copy of what each add gave the handler, finds all three pods changed,
// not only the one written to. The fix is the usual one: DeepCopy, then
// change the copy (which shares nothing with the cache).
func TestInformer_WritingASharedLabelsMapChangesEverySibling(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	require.NoError(t, e.srv.SeedPods("default", 3))
	inf := NewSharedIndexInformerWithOptions(e.listWatch(listwatch.Pods, nil), &api.Pod{},
		testOptions(t, SharedIndexInformerOptions{Clock: e.clock, Tracer: e.tracer}))
	det := indexer.NewCacheMutationDetector("pods")
	reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{
		AddFunc: func(obj any, _ bool) { det.AddObject(obj.(api.Object)) },
	})
	require.NoError(t, err)
	runInformer(t, inf)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.True(t, WaitForCacheSync(ctx, inf.HasSynced, reg.HasSynced))

	obj, ok, err := inf.GetStore().GetByKey("default/seed-0")
	require.NoError(t, err)
	require.True(t, ok)
	copied := obj.(*api.Pod).DeepCopy()
	copied.Labels["app"] = "mine" // the right way: a copy shares nothing
	require.NoError(t, det.CompareObjects(), "a write to a deep copy reaches no cached object")

	obj.(*api.Pod).Labels["app"] = "oops" // the bug: writing into the cache's own object
	mutated := det.CompareObjects()
	require.Error(t, mutated)
	for _, name := range []string{"default/seed-0", "default/seed-1", "default/seed-2"} {
		require.ErrorContains(t, mutated, `"`+name+`"`)
	}
	trace.Checkf(t, "one write to seed-0's labels; the detector finds every pod sharing them changed: %v", mutated)
}
