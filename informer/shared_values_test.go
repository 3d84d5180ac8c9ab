package informer

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
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
