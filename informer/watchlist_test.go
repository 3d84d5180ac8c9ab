package informer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// An informer built with UseWatchList (client-go's WatchListClient, on by
// default there since 1.35) fills its cache with a streaming list: the
// server sees one watch (with sendInitialEvents) and no list at all, the
// handler still gets the existing objects as initial-list adds, and the same
// watch goes on delivering changes. The factory's option does the same for
// every informer it makes. Without it (TestInformer_InitialListArrivesAsAdds)
// the server sees a list, then a watch.
func TestInformer_UseWatchListStreamsInsteadOfListing(t *testing.T) {
	check := func(t *testing.T, e *serverEnv, inf SharedIndexInformer, a, b api.Object) {
		t.Helper()
		rec := &recorder{}
		reg, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		runInformer(t, inf)
		require.True(t, WaitForCacheSync(t.Context(), reg.HasSynced))
		require.Equal(t, []string{"add " + describe(a) + " initial", "add " + describe(b) + " initial"}, rec.Events())

		c := e.create(pod("c"))
		e.eventually(func() bool { return rec.Len() == 3 })
		require.Equal(t, "add "+describe(c), rec.Events()[2], "the streaming list's watch goes on")
		e.eventually(func() bool { return inf.LastSyncResourceVersion() == c.GetResourceVersion() })
		require.Equal(t, 0, e.srv.RequestCount("list", "pods"), "no list")
		require.Equal(t, 1, e.srv.RequestCount("watch", "pods"), "one watch: the list and the watch in one request")
	}

	t.Run("SharedIndexInformerOptions", func(t *testing.T) {
		queueKinds(t, func(t *testing.T, kind QueueKind) {
			e := newServerEnv(t, fakeapiserver.Options{})
			a, b := e.create(pod("a")), e.create(pod("b"))
			lw := listwatch.NewFilteredListWatchFromClient(e.client, listwatch.Pods, "default", nil)
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{
				Queue: kind, Clock: e.clock, Tracer: e.tracer, UseWatchList: true,
			}))
			check(t, e, inf, a, b)
		})
	})

	t.Run("FactoryOptions", func(t *testing.T) {
		e := newServerEnv(t, fakeapiserver.Options{})
		a, b := e.create(pod("a")), e.create(pod("b"))
		factory := NewSharedInformerFactory(e.client, FactoryOptions{Namespace: "default", Clock: e.clock, Logger: testLogger(t, ""), Tracer: e.tracer, UseWatchList: true})
		check(t, e, factory.InformerFor(listwatch.Pods), a, b)
	})
}
