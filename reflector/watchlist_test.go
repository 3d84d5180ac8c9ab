package reflector

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

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
	waitForSynced(t, r, c.ResourceVersion)

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

// The initial events of a streaming list are collected as client-go's
// temporary store collects them (by key, a later event replacing an earlier
// one, a DELETED removing it) until the bookmark annotated
// k8s.io/initial-events-end; an ordinary bookmark before it changes
// nothing. The same watch then goes on.
func TestReflector_StreamingListCollectsInitialEventsUntilEndBookmark(t *testing.T) {
	end := &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "11",
		Annotations: map[string]string{api.InitialEventsAnnotationKey: "true"}}}
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: pod("a", "2")},
		listwatch.Event{Type: api.Bookmark, Object: &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "3"}}},
		listwatch.Event{Type: api.Added, Object: pod("b", "4")},
		listwatch.Event{Type: api.Modified, Object: pod("a", "5")},
		listwatch.Event{Type: api.Added, Object: pod("c", "6")},
		listwatch.Event{Type: api.Deleted, Object: pod("c", "7")},
		listwatch.Event{Type: api.Added, Object: pod("c", "8")},
		listwatch.Event{Type: api.Added, Object: pod("e", "9")},
		listwatch.Event{Type: api.Deleted, Object: pod("e", "10")},
		listwatch.Event{Type: api.Bookmark, Object: end},
		listwatch.Event{Type: api.Added, Object: pod("d", "12")},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return nil, errors.New("no list expected")
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store := &recordingStore{}
	r := runOn(t, lw, store, Options{UseWatchList: true, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: (&errorLog{}).add})
	store.waitFor(t, "Add d@12")
	require.Equal(t, []string{"Replace [a@5 b@4 c@8] @11", "Add d@12"}, store.Calls())
	waitForSynced(t, r, "12")
}

// A streaming list that the server refuses because it is shedding load (429)
// or restarting (connection refused, a 5xx with Retry-After) is retried as a
// streaming list after the backoff (at least Retry-After), as client-go's
// watchList retries it: falling back to the paged LIST would send the server
// exactly the expensive request its load shedding is trying to avoid.
func TestReflector_StreamingListRetriedWhenServerSheds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakeapiserver.Fault
		wait  time.Duration
	}{
		{"429 Too Many Requests", fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusTooManyRequests, RetryAfter: 5 * time.Second}, 5 * time.Second},
		{"503 with Retry-After", fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusServiceUnavailable, RetryAfter: 3 * time.Second}, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{})
			a := e.createPod("a")
			story(t, "the server will refuse the first watch with %d", tc.fault.Code)
			e.srv.FailRequests(tc.fault)
			e.opts.UseWatchList = true
			e.run()

			require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1), "backing off")
			e.clock.Step(tc.wait - time.Millisecond)
			require.Equal(t, 1, e.clock.Waiters(), "Retry-After (%v) beats the 1 s backoff: still waiting", tc.wait)
			require.Len(t, e.lw.Watches(), 1)
			story(t, "Retry-After is over")
			e.clock.Step(time.Millisecond)

			e.store.waitFor(t, fmt.Sprintf("Replace [a@%s] @%s", a.ResourceVersion, e.srv.ResourceVersion()))
			require.Empty(t, e.lw.Lists(), "never fell back to a paged LIST")
			watches := e.lw.Watches()
			require.Len(t, watches, 2)
			for _, w := range watches {
				require.True(t, *w.SendInitialEvents, "both attempts are streaming lists")
			}
			require.Empty(t, e.errs.all(), "handled inside the listing, as client-go's watchList does")
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		refused := fmt.Errorf("watch pods: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
		end := &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "3",
			Annotations: map[string]string{api.InitialEventsAnnotationKey: "true"}}}
		var watches atomic.Int32
		lw := &listwatch.ListWatch{
			ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
				return nil, errors.New("no list expected")
			},
			WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
				if !*opts.SendInitialEvents {
					return nil, errors.New("a streaming list expected")
				}
				if watches.Add(1) == 1 {
					story(t, "the API server is restarting: connection refused")
					return nil, refused
				}
				story(t, "the API server is back: initial events, then the end bookmark")
				return newFakeWatch(listwatch.Event{Type: api.Added, Object: pod("a", "2")}, listwatch.Event{Type: api.Bookmark, Object: end}), nil
			},
		}
		clk := clock.NewFakeClock(epoch)
		store := &recordingStore{}
		runOn(t, lw, store, Options{UseWatchList: true, Clock: clk, WatchErrorHandler: (&errorLog{}).add,
			Backoff: Backoff{Initial: time.Second, Cap: time.Second}})
		require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
		require.Equal(t, int32(1), watches.Load())
		clk.Step(time.Second)
		store.waitFor(t, "Replace [a@2] @3")
		require.Equal(t, int32(2), watches.Load())
	})
}
