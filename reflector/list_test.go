package reflector

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// Article 001 (王成), "从 Reflector 说起": lastSyncResourceVersion and
// isLastSyncResourceVersionUnavailable; client-go notes §1b. The whole story
// of which resourceVersion each list asks for, in one run:
//
//   - the first list asks for "0" (any version, paged);
//   - a watch that got events and then 410 Expired relists at the last
//     version it saw, unpaged: never back in time;
//   - that list's 410 makes the reflector list "" (most recent, paged) at
//     once;
//   - once a list has succeeded, the next relist asks for the last version
//     again, not "".
func TestReflector_RelistResourceVersion(t *testing.T) {
	expired := &listwatch.StatusError{ErrStatus: &api.Status{Code: 410, Reason: api.StatusReasonExpired, Message: "too old resource version"}}
	lists := []struct {
		rv  string // the list's resourceVersion, if it succeeds
		err error
	}{{rv: "10"}, {err: expired}, {rv: "30"}, {rv: "40"}}
	watches := [][]listwatch.Event{
		{{Type: api.Added, Object: pod("p", "20")}, {Type: api.Error, Err: expired}},
		{{Type: api.Error, Err: expired}},
		{}, // stays open
	}
	var mu sync.Mutex
	var listedAt, watchedFrom []string
	var limits []int64
	lw := &listwatch.ListWatch{
		ListFunc: func(_ context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
			mu.Lock()
			defer mu.Unlock()
			l := lists[len(listedAt)]
			listedAt, limits = append(listedAt, opts.ResourceVersion), append(limits, opts.Limit)
			if l.err != nil {
				return nil, l.err
			}
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: l.rv}}, nil
		},
		WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
			mu.Lock()
			defer mu.Unlock()
			events := watches[len(watchedFrom)]
			watchedFrom = append(watchedFrom, opts.ResourceVersion)
			return newFakeWatch(events...), nil
		},
	}
	clk := clock.NewFakeClock(epoch)
	runOn(t, lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: (&errorLog{}).add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})

	for range 2 { // two relists, each after a backoff
		require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
		clk.Step(time.Second)
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(watchedFrom) == 3 }, 10*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"0", "20", "", "30"}, listedAt, "which resourceVersion each list asked for")
	require.Equal(t, []int64{500, 0, 500, 0}, limits, "only lists at \"0\" or \"\" are paged")
	require.Equal(t, []string{"10", "30", "40"}, watchedFrom, "every watch starts where its list ended")
}

// A list that gets 410 (the version is gone) or 504 (the server has not
// reached it) is retried at once for the most recent state ("").
func TestReflector_RelistFromMostRecentAfterListFails(t *testing.T) {
	for _, code := range []int{http.StatusGone, http.StatusGatewayTimeout} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{})
			a := e.createPod("a")
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: code})
			e.run()
			e.store.waitFor(t, fmt.Sprintf("Replace [a@%s] @%s", a.ResourceVersion, e.srv.ResourceVersion()))
			lists := e.lw.Lists()
			require.Len(t, lists, 2)
			require.Equal(t, "0", lists[0].ResourceVersion)
			require.Equal(t, "", lists[1].ResourceVersion, "after 410/504 the reflector asks for the most recent state")
			require.Empty(t, e.errs.all(), "recovered within one ListAndWatch")
		})
	}
}

// Lists at "" are paged through one snapshot: a pod created between pages
// is not in the list (it arrives by the watch instead). The list at "0" is
// asked with a limit too, but the real server answers it whole from its
// watch cache (as the fake now does), so a 410 on the first list sends the
// reflector to "", which etcd pages.
func TestReflector_PagedList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: http.StatusGone})
	var want []string
	for i := range 7 {
		p := e.createPod(fmt.Sprintf("p%d", i))
		want = append(want, p.Name+"@"+p.ResourceVersion)
	}
	listRV := e.srv.ResourceVersion()
	late := make(chan *api.Pod, 1)
	e.lw.beforeList = func(n int) {
		if n == 2 { // between page 1 and page 2 (list 0 is the failed one at "0")
			obj, err := e.srv.Create(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: "default"},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}}})
			if err != nil {
				t.Error(err)
				return
			}
			late <- obj.(*api.Pod)
		}
	}
	e.opts.PageSize = 3
	e.run()
	e.store.waitFor(t, fmt.Sprintf("Replace [%s %s %s %s %s %s %s] @%s", want[0], want[1], want[2], want[3], want[4], want[5], want[6], listRV))
	lists := e.lw.Lists()
	require.Len(t, lists, 4, "the failed list at \"0\", then 7 items, 3 a page")
	require.Equal(t, "0", lists[0].ResourceVersion)
	require.Equal(t, int64(3), lists[1].Limit)
	require.Equal(t, "", lists[1].ResourceVersion)
	for _, l := range lists[2:] {
		require.NotEmpty(t, l.Continue)
		require.Empty(t, l.ResourceVersion, "continue pages leave the version to the token")
	}
	lp := <-late
	e.store.waitFor(t, "Add late@"+lp.ResourceVersion)
}

// If the snapshot falls out of the server's history between pages, the
// continue token expires (410): the reflector falls back to one unpaged list.
func TestReflector_ExpiredContinueFallsBackToFullList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{History: 3})
	for i := range 5 {
		e.createPod(fmt.Sprintf("p%d", i))
	}
	// The list at "0" is not paged (the watch cache answers it whole): fail
	// it so the reflector lists at "", which is.
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: http.StatusGone})
	e.lw.beforeList = func(n int) {
		if n == 2 {
			for i := range 5 {
				if _, err := e.srv.Create(&api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("q%d", i), Namespace: "default"},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}}}); err != nil {
					t.Error(err)
				}
			}
		}
	}
	e.opts.PageSize = 2
	e.run()
	e.store.waitFor(t, "Replace [p0@")
	lists := e.lw.Lists()
	require.Len(t, lists, 4)
	require.NotEmpty(t, lists[2].Continue, "the expired continue")
	require.Equal(t, listwatch.ListOptions{ResourceVersion: ""}, lists[3], "one unpaged list at the original version")
	calls := e.store.Calls()
	require.Contains(t, calls[0], "q4@", "the full list has everything")
}

// A relist at the last synced version that a lagging server answers with
// "too large resource version" is retried at once for the most recent state
// (""), in every format servers have sent it, instead of asking for the
// same too-new version again after every backoff.
func TestReflector_TooLargeResourceVersionRelistsAtMostRecent(t *testing.T) {
	tooLarge := func(msg string, causes ...api.StatusCause) error {
		st := &api.Status{Code: 504, Reason: api.StatusReasonTimeout, Message: msg, Details: &api.StatusDetails{RetryAfterSeconds: 1}}
		st.Details.Causes = causes
		return &listwatch.StatusError{ErrStatus: st}
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"1.18.6 and later: cause ResourceVersionTooLarge", tooLarge("Timeout: Too large resource version: 10, current: 9",
			api.StatusCause{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"})},
		{"1.17.0-1.18.5: the text in a cause's message", tooLarge("Timeout: too large resource version: 10, current: 9",
			api.StatusCause{Message: "Too large resource version"})},
		{"before 1.17: the text in the message", tooLarge("Timeout: Too large resource version: 10, current: 9")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expired := &listwatch.StatusError{ErrStatus: &api.Status{Code: 410, Reason: api.StatusReasonExpired, Message: "too old resource version"}}
			var mu sync.Mutex
			var listedAt []string
			lw := &listwatch.ListWatch{
				ListFunc: func(_ context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
					mu.Lock()
					defer mu.Unlock()
					listedAt = append(listedAt, opts.ResourceVersion)
					switch len(listedAt) {
					case 1:
						return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "10"}}, nil
					case 2:
						story(t, "the relist reaches an API server that is behind (at 9): too large resource version")
						return nil, tc.err
					}
					return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "12"}}, nil
				},
				WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
					if opts.ResourceVersion == "10" {
						story(t, "the watch from 10 gets 410 Expired: relist")
						return newFakeWatch(listwatch.Event{Type: api.Error, Err: expired}), nil
					}
					return newFakeWatch(), nil // stays open
				},
			}
			clk := clock.NewFakeClock(epoch)
			store := &recordingStore{}
			errs := &errorLog{}
			runOn(t, lw, store, Options{Clock: clk, WatchErrorHandler: errs.add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})
			require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1)) // the backoff after the watch's 410
			clk.Step(time.Second)
			store.waitFor(t, "Replace [] @12")
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, []string{"0", "10", ""}, listedAt, "after the 504 the reflector asks for the most recent state, at once")
			require.Len(t, errs.all(), 1, "only the watch's 410 was reported; the 504 was mended inside the listing")
		})
	}
}
