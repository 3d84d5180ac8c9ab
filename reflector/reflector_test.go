package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/clock"
	"github.com/kinformer/kinformer/listwatch"
)

// Article: Kubernetes Controller 实现机制深度解析 (赵化冰), step 1 of the
// informer architecture: the Reflector lists, then watches from the list's
// resourceVersion. Article 001 (王成): the first list is synced into the
// store with Replace.
func TestReflector_ListThenWatchFromListVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	a, b := e.createPod("a"), e.createPod("b")
	listRV := e.srv.ResourceVersion()
	r := e.run()

	e.store.waitFor(t, fmt.Sprintf("Replace [a@%s b@%s] @%s", a.ResourceVersion, b.ResourceVersion, listRV))
	e.waitWatching(1)
	c := e.createPod("c")
	e.store.waitFor(t, "Add c@"+c.ResourceVersion)
	require.Equal(t, c.ResourceVersion, r.LastSyncResourceVersion(), "every event moves the last synced version")

	lists, watches := e.lw.Lists(), e.lw.Watches()
	require.Len(t, lists, 1)
	require.Equal(t, "0", lists[0].ResourceVersion, "the first list asks for any version: the server may answer from cache")
	require.Equal(t, int64(500), lists[0].Limit, "and pages it")
	require.Len(t, watches, 1)
	require.Equal(t, listRV, watches[0].ResourceVersion, "the watch starts where the list ended")
	require.True(t, watches[0].AllowWatchBookmarks)
	require.GreaterOrEqual(t, *watches[0].TimeoutSeconds, int64(300), "watch timeouts are randomized between 5 and 10 minutes")
	require.Less(t, *watches[0].TimeoutSeconds, int64(600))

	pod := c.DeepCopy()
	pod.Labels = map[string]string{"x": "y"}
	upd, err := e.srv.Update(pod)
	require.NoError(t, err)
	e.store.waitFor(t, "Update c@"+upd.GetResourceVersion())
	_, err = e.srv.Delete("pods", "default", "c")
	require.NoError(t, err)
	e.store.waitFor(t, "Delete c@"+e.srv.ResourceVersion())
}

// A watch that ends (server timeout, a dropped connection) is reopened from
// the last synced version: no relist, and the changes made while no watch
// was open arrive all the same, replayed by the server.
func TestReflector_ResumeWithoutRelistAfterDrop(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.createPod("a")
	e.run()
	e.store.waitFor(t, "Replace")
	e.waitWatching(1)
	c := e.createPod("c")
	e.store.waitFor(t, "Add c@"+c.ResourceVersion)

	gate := make(chan struct{})
	e.lw.setWatchGate(gate) // hold the next watch until we say
	e.srv.CloseWatches()
	require.Eventually(t, func() bool { return len(e.lw.Watches()) == 2 }, 10*time.Second, time.Millisecond)
	d := e.createPod("d") // while no watch is open
	close(gate)

	e.store.waitFor(t, "Add d@"+d.ResourceVersion)
	require.Len(t, e.lw.Lists(), 1, "no relist")
	require.Equal(t, c.ResourceVersion, e.lw.Watches()[1].ResourceVersion, "resumed from the last event seen")
}

// A cut connection (io.ErrUnexpectedEOF from the decoder) is treated like a
// clean end: watch again from the last version.
func TestReflector_DroppedConnectionResumes(t *testing.T) {
	var watches atomic.Int32
	var lists atomic.Int32
	var secondRV atomic.Value
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			lists.Add(1)
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
			if watches.Add(1) == 1 {
				return newFakeWatch(
					listwatch.Event{Type: api.Added, Object: pod("p", "2")},
					listwatch.Event{Type: api.Error, Err: fmt.Errorf("decoding frame: %w", io.ErrUnexpectedEOF)},
				), nil
			}
			secondRV.Store(opts.ResourceVersion)
			return newFakeWatch(), nil // stays open
		},
	}
	store, errs := &recordingStore{}, &errorLog{}
	r := New(lw, store, Options{ExpectedType: &api.Pod{}, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	require.Eventually(t, func() bool { return watches.Load() == 2 }, 10*time.Second, time.Millisecond)
	require.Equal(t, "2", secondRV.Load())
	require.Equal(t, int32(1), lists.Load(), "no relist")
	require.ErrorIs(t, errs.all()[0], io.ErrUnexpectedEOF, "the error handler still sees it")
}

// Article 001 (王成) on isLastSyncResourceVersionUnavailable; client-go
// notes §1b. A watch from a version the server has compacted away gets a
// 410 Expired ERROR event: the reflector relists, at its last synced version
// (a list "not older than" it, so the store never goes back in time).
func TestReflector_RelistOn410(t *testing.T) {
	for _, tc := range []struct {
		name     string
		break410 func(e *env)
	}{
		{"ERROR frame", func(e *env) { e.srv.CompactHistory() }},
		{"HTTP 410", func(e *env) {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusGone})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{})
			a := e.createPod("a")
			r := e.run()
			e.store.waitFor(t, "Replace")
			e.waitWatching(1)
			c := e.createPod("c")
			e.store.waitFor(t, "Add c@"+c.ResourceVersion)

			gate := make(chan struct{})
			e.lw.setWatchGate(gate)
			e.srv.CloseWatches()
			require.Eventually(t, func() bool { return len(e.lw.Watches()) == 2 }, 10*time.Second, time.Millisecond)
			d := e.createPod("d")
			tc.break410(e)
			e.lw.setWatchGate(nil)
			close(gate)

			require.Eventually(t, func() bool {
				for _, err := range e.errs.all() {
					if listwatch.IsResourceExpired(err) {
						return true
					}
				}
				return false
			}, 10*time.Second, time.Millisecond, "the error handler sees the 410: %v", e.errs.all())
			require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1)) // the backoff
			e.clock.Step(time.Second)

			e.store.waitFor(t, fmt.Sprintf("Replace [a@%s c@%s d@%s] @%s", a.ResourceVersion, c.ResourceVersion, d.ResourceVersion, d.ResourceVersion))
			lists := e.lw.Lists()
			require.Len(t, lists, 2)
			require.Equal(t, c.ResourceVersion, lists[1].ResourceVersion, "the relist asks for the last synced version, not older")
			require.Zero(t, lists[1].Limit, "a list at a given version is not paged")
			require.Equal(t, d.ResourceVersion, r.LastSyncResourceVersion())
		})
	}
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

// A BOOKMARK changes nothing in the store but moves the last synced version
// on, so the next watch resumes from a recent version even if none of the
// watched objects changed (and is less likely to hit 410).
func TestReflector_BookmarkAdvancesVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: time.Minute})
	e.createPod("a")
	r := e.run()
	e.store.waitFor(t, "Replace")
	e.waitWatching(1)
	listRV := r.LastSyncResourceVersion()

	// Other resources move the server's version on.
	_, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default"}})
	require.NoError(t, err)
	calls := len(e.store.Calls())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // the server's timeout timer and bookmark ticker
	e.clock.Step(time.Minute)

	require.Eventually(t, func() bool { return r.LastSyncResourceVersion() == e.srv.ResourceVersion() }, 10*time.Second, time.Millisecond)
	require.NotEqual(t, listRV, r.LastSyncResourceVersion())
	require.Len(t, e.store.Calls(), calls, "a bookmark does not touch the store")
}

// Lists at "" or "0" are paged through one snapshot: a pod created between
// pages is not in the list (it arrives by the watch instead).
func TestReflector_PagedList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	var want []string
	for i := range 7 {
		p := e.createPod(fmt.Sprintf("p%d", i))
		want = append(want, p.Name+"@"+p.ResourceVersion)
	}
	listRV := e.srv.ResourceVersion()
	late := make(chan *api.Pod, 1)
	e.lw.beforeList = func(n int) {
		if n == 1 { // between page 1 and page 2
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
	require.Len(t, lists, 3, "7 items, 3 a page")
	require.Equal(t, int64(3), lists[0].Limit)
	require.Equal(t, "0", lists[0].ResourceVersion)
	for _, l := range lists[1:] {
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
	e.lw.beforeList = func(n int) {
		if n == 1 {
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
	require.Len(t, lists, 3)
	require.Equal(t, listwatch.ListOptions{ResourceVersion: "0"}, lists[2], "one unpaged list at the original version")
	calls := e.store.Calls()
	require.Contains(t, calls[0], "q4@", "the full list has everything")
}

// Failures back off: 1 s, 2 s, 4 s, capped (the test's Backoff; client-go's
// is 800 ms doubling to 30 s with jitter). Stepping the clock a millisecond
// short of the wait does not retry.
func TestReflector_BackoffOnErrors(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.createPod("a")
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: http.StatusInternalServerError, Count: 4})
	e.opts.Backoff = Backoff{Initial: time.Second, Cap: 4 * time.Second, Factor: 2, ResetAfter: time.Hour}
	e.run()
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		require.Eventually(t, func() bool { return len(e.lw.Lists()) == i+1 }, 10*time.Second, time.Millisecond)
		require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
		e.clock.Step(wait - time.Millisecond)
		require.Len(t, e.lw.Lists(), i+1, "no retry before the backoff is over")
		require.Equal(t, 1, e.clock.Waiters())
		e.clock.Step(time.Millisecond)
	}
	e.store.waitFor(t, "Replace")
	errs := e.errs.all()
	require.Len(t, errs, 4, "the watch error handler saw every failure")
	for _, err := range errs {
		require.True(t, listwatch.IsInternalError(err), "%v", err)
	}
}

// A 429 on a watch backs off (at least as long as Retry-After says) and
// watches again, without relisting.
func TestReflector_TooManyRequestsBacksOffWithoutRelist(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.createPod("a")
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusTooManyRequests, RetryAfter: 10 * time.Second})
	e.run()
	e.store.waitFor(t, "Replace")
	require.Eventually(t, func() bool { return len(e.errs.all()) == 1 }, 10*time.Second, time.Millisecond)
	require.True(t, listwatch.IsTooManyRequests(e.errs.all()[0]))
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.clock.Step(10*time.Second - time.Millisecond)
	require.Len(t, e.lw.Watches(), 1, "Retry-After (10 s) beats the 1 s backoff")
	e.clock.Step(time.Millisecond)
	e.waitWatching(1)
	require.Len(t, e.lw.Watches(), 2)
	require.Len(t, e.lw.Lists(), 1, "no relist")
}

// A watch that ends at once with no events is an error (client-go's "very
// short watch"): back off and relist rather than spin.
func TestReflector_VeryShortWatchIsAnError(t *testing.T) {
	var lists atomic.Int32
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			lists.Add(1)
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) {
			w := newFakeWatch()
			close(w.ch) // ends at once, nothing sent
			return w, nil
		},
	}
	clk := clock.NewFakeClock(epoch)
	errs := &errorLog{}
	r := New(lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: errs.add, Backoff: Backoff{Initial: time.Second, Cap: time.Second, Factor: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
	require.Len(t, errs.all(), 1)
	require.ErrorContains(t, errs.all()[0], "very short watch")
	clk.Step(time.Second)
	require.Eventually(t, func() bool { return lists.Load() == 2 }, 10*time.Second, time.Millisecond, "relisted after the backoff")
}

// Resync calls Store.Resync on its period, when ShouldResync agrees.
// Article 003 (Kubernetes 源码阅读 - Informer), "Resync 机制是什么".
func TestReflector_ResyncTimer(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: -1})
	e.createPod("a")
	asked := make(chan bool, 10)
	var allow atomic.Bool
	allow.Store(true)
	e.opts.ResyncPeriod = 30 * time.Second
	e.opts.ShouldResync = func() bool { v := allow.Load(); asked <- v; return v }
	e.run()
	e.store.waitFor(t, "Replace")
	e.waitWatching(1)

	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // resync timer + the server's watch timeout
	e.clock.Step(30 * time.Second)
	require.True(t, <-asked)
	e.store.waitFor(t, "Resync")

	allow.Store(false)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // re-armed
	e.clock.Step(30 * time.Second)
	require.False(t, <-asked)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // re-armed again, without resyncing
	resyncs := 0
	for _, c := range e.store.Calls() {
		if c == "Resync" {
			resyncs++
		}
	}
	require.Equal(t, 1, resyncs)

	// A failing Resync ends the watch; the reflector relists.
	e.store.mu.Lock()
	e.store.fail = errors.New("boom")
	e.store.mu.Unlock()
	allow.Store(true)
	e.clock.Step(30 * time.Second)
	require.True(t, <-asked)
	require.Eventually(t, func() bool { return len(e.errs.all()) == 1 }, 10*time.Second, time.Millisecond)
	require.ErrorContains(t, e.errs.all()[0], "resync: boom")
}

// Article 001 (王成) quotes client-go's watchHandler: an event whose object is
// not the expected type is skipped and reported.
func TestReflector_SkipsUnexpectedType(t *testing.T) {
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", ResourceVersion: "2"}}},
		listwatch.Event{Type: api.Added, Object: pod("p", "3")},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store, errs := &recordingStore{}, &errorLog{}
	r := New(lw, store, Options{ExpectedType: &api.Pod{}, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	store.waitFor(t, "Add p@3")
	require.Equal(t, []string{"Replace [] @1", "Add p@3"}, store.Calls())
	require.Len(t, errs.all(), 1)
	require.EqualError(t, errs.all()[0], "reflector(*api.Pod): expected type *api.Pod, but watch event object had type *api.ConfigMap")
	require.Equal(t, "3", r.LastSyncResourceVersion())
}

// Cancelling the context stops the reflector promptly, whether it is
// watching or backing off, and closes its watch.
func TestReflector_StopsOnCancel(t *testing.T) {
	t.Run("while watching", func(t *testing.T) {
		e := newEnv(t, fakeapiserver.Options{})
		e.run()
		e.waitWatching(1)
		e.stop()
		e.waitWatching(0)
	})
	t.Run("while backing off", func(t *testing.T) {
		e := newEnv(t, fakeapiserver.Options{})
		e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Code: http.StatusInternalServerError, Count: 100})
		e.run()
		require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
		e.stop()
	})
}

// The streaming list (client-go's default since 1.35): one watch with
// sendInitialEvents=true both fills the store (Replace at the bookmark's
// version) and goes on delivering changes; no list request at all.
func TestReflector_StreamingList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	a, b := e.createPod("a"), e.createPod("b")
	listRV := e.srv.ResourceVersion()
	e.opts.UseWatchList = true
	r := e.run()
	e.store.waitFor(t, fmt.Sprintf("Replace [a@%s b@%s] @%s", a.ResourceVersion, b.ResourceVersion, listRV))
	c := e.createPod("c")
	e.store.waitFor(t, "Add c@"+c.ResourceVersion)
	require.Empty(t, e.lw.Lists())
	watches := e.lw.Watches()
	require.Len(t, watches, 1, "the same watch carries on after the initial events")
	require.True(t, *watches[0].SendInitialEvents)
	require.Equal(t, "NotOlderThan", watches[0].ResourceVersionMatch)
	require.Equal(t, "", watches[0].ResourceVersion)
	require.Equal(t, c.ResourceVersion, r.LastSyncResourceVersion())

	t.Run("falls back to a list when the server refuses", func(t *testing.T) {
		e := newEnv(t, fakeapiserver.Options{})
		a := e.createPod("a")
		e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusInternalServerError})
		e.opts.UseWatchList = true
		e.run()
		e.store.waitFor(t, fmt.Sprintf("Replace [a@%s]", a.ResourceVersion))
		require.Len(t, e.lw.Lists(), 1)
	})
}

func TestBackoff_DoublesToCapAndResetsAfterQuiet(t *testing.T) {
	clk := clock.NewFakeClock(epoch)
	b := backoffState{Backoff: Backoff{Initial: 800 * time.Millisecond, Cap: 30 * time.Second, Factor: 2, ResetAfter: 2 * time.Minute}, clock: clk}
	var got []time.Duration
	for range 8 {
		got = append(got, b.next())
	}
	require.Equal(t, []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}, got)
	clk.Step(2*time.Minute + time.Second) // healthy for a while
	require.Equal(t, 800*time.Millisecond, b.next())

	j := backoffState{Backoff: DefaultBackoff, clock: clk}
	for range 100 {
		d := j.next()
		j.current = 0
		require.GreaterOrEqual(t, d, 800*time.Millisecond)
		require.Less(t, d, 1600*time.Millisecond, "jitter 1.0 adds up to 100%")
	}
}
