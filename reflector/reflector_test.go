package reflector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
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
	waitForSynced(t, r, c.ResourceVersion) // every event moves the last synced version

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

// Article 001 (王成) quotes client-go's watchHandler: an event whose object is
// not the expected type is skipped and reported (and so is one with no
// object at all, which only a ListerWatcher of one's own could send).
func TestReflector_SkipsUnexpectedType(t *testing.T) {
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", ResourceVersion: "2"}}},
		listwatch.Event{Type: api.Modified},
		listwatch.Event{Type: api.Added, Object: pod("p", "3")},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store, errs := &recordingStore{}, &errorLog{}
	r := runOn(t, lw, store, Options{ExpectedType: &api.Pod{}, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add})

	store.waitFor(t, "Add p@3")
	require.Equal(t, []string{"Replace [] @1", "Add p@3"}, store.Calls())
	require.Len(t, errs.all(), 2)
	require.EqualError(t, errs.all()[0], "reflector(*api.Pod): expected type *api.Pod, but watch event object had type *api.ConfigMap")
	require.EqualError(t, errs.all()[1], "reflector(*api.Pod): a watch event without an object")
	require.Error(t, New(lw, store, Options{}).checkType(nil), "with no expected type too")
	waitForSynced(t, r, "3")
}

// Resync calls Store.Resync on its period, when ShouldResync agrees.
// Article 003 (Kubernetes 源码阅读 - Informer), "Resync 机制是什么".
func TestReflector_ResyncTimer(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: -1})
	e.createPod("a")
	asked := make(chan bool, 10)
	var allow atomic.Bool
	allow.Store(true)
	e.opts.FullResyncPeriod = 30 * time.Second
	e.opts.ShouldResync = func() bool { v := allow.Load(); asked <- v; return v }
	e.run()
	e.store.waitFor(t, "Replace")
	e.waitWatching(1)

	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // resync timer + the server's watch timeout
	e.clock.Step(30 * time.Second)
	require.True(t, receive(t, asked))
	e.store.waitFor(t, "Resync")

	allow.Store(false)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // re-armed
	e.clock.Step(30 * time.Second)
	require.False(t, receive(t, asked))
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
	require.True(t, receive(t, asked))
	require.Eventually(t, func() bool { return len(e.errs.all()) == 1 }, 10*time.Second, time.Millisecond)
	require.ErrorContains(t, e.errs.all()[0], "resync: boom")
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

// Watch timeouts are drawn at random between MinWatchTimeout and twice
// that (client-go: 5 to 10 minutes), so the watches of many clients that
// started together do not all end, and reconnect, together.
func TestReflector_WatchTimeoutRandomized(t *testing.T) {
	lw := &listwatch.ListWatch{}
	r := New(lw, &recordingStore{}, Options{})
	seen := map[int64]bool{}
	for range 200 {
		secs := *r.watchTimeout()
		require.GreaterOrEqual(t, secs, int64(300))
		require.Less(t, secs, int64(600))
		seen[secs] = true
	}
	require.Greater(t, len(seen), 50, "the timeouts differ")

	r = New(lw, &recordingStore{}, Options{MinWatchTimeout: 100 * time.Millisecond})
	require.Equal(t, int64(1), *r.watchTimeout(), "never 0, which a server reads as no timeout")
}

// Run returns only once every goroutine it started has: here the resync
// goroutine, caught inside ShouldResync when the context ends.
func TestReflector_RunWaitsForItsResyncGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &listwatch.ListWatch{
			ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
				return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
			},
			WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return newFakeWatch(), nil },
		}
		clk := clock.NewFakeClock(epoch)
		inside, release := make(chan struct{}), make(chan struct{})
		r := New(lw, &recordingStore{}, storyOptions(t, Options{Clock: clk, FullResyncPeriod: time.Second,
			ShouldResync: func() bool { close(inside); <-release; return false }}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx)
		}()
		require.NoError(t, clk.BlockUntilWaiters(ctx, 1)) // the resync timer
		clk.Step(time.Second)
		<-inside
		cancel()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Run returned while its resync goroutine was still in ShouldResync")
		default:
		}
		close(release)
		<-done
	})
}
