package listwatch

import (
	"context"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// sameMap reports whether x and y are one map, not only equal ones.
func sameMap(x, y map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&x)) == *(*unsafe.Pointer)(unsafe.Pointer(&y))
}

// Objects listed or watched with ForReadOnlyCache share the maps and lists
// they repeat (the seeded pods' labels and containers are one map and one
// array); objects listed or watched with any other context are the
// caller's own, to change as it likes. A Get never shares.
func TestForReadOnlyCache_SharesOnlyWhenAsked(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	require.NoError(t, e.srv.SeedPods("default", 3))
	lw := NewFilteredListWatchFromClient(e.client, Pods, "default", nil)
	pods := func(objs []api.Object) []*api.Pod {
		out := make([]*api.Pod, len(objs))
		for i, o := range objs {
			out[i] = o.(*api.Pod)
		}
		return out
	}
	shares := func(ps []*api.Pod) bool {
		require.Len(t, ps, 3)
		return sameMap(ps[0].Labels, ps[2].Labels) && unsafe.SliceData(ps[0].Spec.Containers) == unsafe.SliceData(ps[2].Spec.Containers)
	}
	watched := func(ctx context.Context) []*api.Pod {
		send := true
		w, err := lw.Watch(ctx, ListOptions{SendInitialEvents: &send, ResourceVersionMatch: ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
		require.NoError(t, err)
		defer w.Stop()
		var objs []api.Object
		for ev := range w.ResultChan() {
			if ev.Type == api.Bookmark {
				break
			}
			require.Equal(t, api.Added, ev.Type, "%v", ev.Err)
			objs = append(objs, ev.Object)
		}
		return pods(objs)
	}

	for _, c := range []struct {
		name   string
		ctx    context.Context
		shares bool
	}{{"ForReadOnlyCache", ForReadOnlyCache(t.Context()), true}, {"a plain context", t.Context(), false}} {
		l, err := lw.List(c.ctx, ListOptions{})
		require.NoError(t, err)
		require.Equal(t, c.shares, shares(pods(l.Items)), "list with %s", c.name)
		require.Equal(t, c.shares, shares(watched(c.ctx)), "streaming list with %s", c.name)
	}
	a, err := For[*api.Pod](e.client, Pods).Get(ForReadOnlyCache(t.Context()), "default", "seed-0")
	require.NoError(t, err)
	b, err := For[*api.Pod](e.client, Pods).Get(ForReadOnlyCache(t.Context()), "default", "seed-1")
	require.NoError(t, err)
	require.False(t, sameMap(a.Labels, b.Labels), "a Get's object is its caller's")
	t.Log("lists and watches for a read-only cache share the pods' labels and containers; with a plain context, and for a Get, each pod has its own")
}
