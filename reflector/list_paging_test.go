package reflector

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// Article 001 ("如何高效掌控K8s资源变化? K8s Informer实现机制浅析" by 王成,
// "从 Reflector 说起": WatchListPageSize, paginatedResult). With PageSize
// set (client-go's WatchListPageSize), every list is paged: the relist
// after a failed watch, at the last synced version, asks for pages too,
// and the server serves them from that exact version.
func TestReflector_PageSizeSetPagesARelistAtAVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	for i := range 3 {
		e.createPod(fmt.Sprintf("p%d", i))
	}
	listRV := e.srv.ResourceVersion()
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusInternalServerError})
	e.opts.PageSize = 2
	e.run()
	e.store.waitFor(t, "Replace")
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1)) // the backoff after the 500
	e.clock.Step(2 * time.Second)
	require.Eventually(t, func() bool { return len(e.store.Calls()) == 2 }, 10*time.Second, time.Millisecond, "the relist's Replace")

	lists := e.lw.Lists()
	require.Len(t, lists, 3, "the first list at \"0\" (the watch cache answers it whole), then the relist in 2 pages")
	require.Equal(t, listwatch.ListOptions{ResourceVersion: "0", Limit: 2}, lists[0])
	require.Equal(t, listwatch.ListOptions{ResourceVersion: listRV, Limit: 2}, lists[1], "a relist at a version, paged")
	require.NotEmpty(t, lists[2].Continue)
	trace.Checkf(t, "PageSize 2: the relist at resourceVersion %s asked for limit=%d and took %d pages", listRV, lists[1].Limit, len(lists)-1)
}

// Without PageSize, a list at a version is not paged, so that the server
// may answer it from its watch cache; but once the first list (at "0")
// came back in pages, the server has no watch cache to spare for the
// resource, and later lists are paged too (client-go's paginatedResult).
func TestReflector_FirstListInPagesKeepsRelistsPaged(t *testing.T) {
	var asked []listwatch.ListOptions
	pagedAtZero := true
	lw := &listwatch.ListWatch{
		ListFunc: func(_ context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
			asked = append(asked, opts)
			l := &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "10"}, Items: []api.Object{pod("a", "9")}}
			if pagedAtZero && opts.ResourceVersion == "0" {
				l.Continue = "page-2" // a server without a watch cache pages even at "0"
			}
			return l, nil
		},
	}
	for _, tc := range []struct {
		name        string
		pagedAtZero bool
		relistLimit int64
	}{
		{"first list in pages", true, 500},
		{"first list whole", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked, pagedAtZero = nil, tc.pagedAtZero
			r := New(lw, &recordingStore{}, Options{Clock: clock.NewFakeClock(epoch)})
			_, _, _, err := r.pagedList(context.Background(), "0")
			require.NoError(t, err)
			_, _, _, err = r.pagedList(context.Background(), "10")
			require.NoError(t, err)
			relist := asked[len(asked)-1]
			require.Equal(t, "10", relist.ResourceVersion)
			require.Equal(t, tc.relistLimit, relist.Limit)
			trace.Checkf(t, "the list at \"0\" took %d request(s); the relist at \"10\" asked for limit=%d", len(asked)-1, relist.Limit)
		})
	}
}

// Article 001 ("从 Reflector 说起", watchHandler): besides the Go type,
// client-go's Reflector checks each watch event's apiVersion and kind
// against the expected GVK, which is what tells objects apart when every
// one is an *api.Unstructured (a custom resource). Events of another kind
// are skipped and reported.
func TestReflector_SkipsUnexpectedGVK(t *testing.T) {
	widget := func(kind, name, rv string) *api.Unstructured {
		u := &api.Unstructured{}
		require.NoError(t, u.UnmarshalJSON([]byte(`{"apiVersion":"demo.kinformer.io/v1","kind":"`+kind+`",
			"metadata":{"name":"`+name+`","namespace":"default","resourceVersion":"`+rv+`"}}`)))
		return u
	}
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: widget("Gadget", "g", "2")},
		listwatch.Event{Type: api.Added, Object: widget("Widget", "w", "3")},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store, errs := &recordingStore{}, &errorLog{}
	example := widget("Widget", "", "") // the expected GVK comes from the example object
	r := runOn(t, lw, store, Options{ExpectedType: example, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add, Tracer: trace.ForTest(t)})

	store.waitFor(t, "Add w@3")
	require.Equal(t, []string{"Replace [] @1", "Add w@3"}, store.Calls())
	require.Len(t, errs.all(), 1)
	require.EqualError(t, errs.all()[0],
		"reflector(*api.Unstructured): expected demo.kinformer.io/v1 Widget, but watch event object was demo.kinformer.io/v1 Gadget")
	waitForSynced(t, r, "3")
	trace.Checkf(t, "the Gadget was skipped, the Widget applied: %v", store.Calls())
}
