package reflector

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
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

	story(t, "the server ends the watch; the reflector's next watch is held back")
	gate := make(chan struct{})
	e.lw.setWatchGate(gate) // hold the next watch until we say
	e.srv.CloseWatches()
	require.Eventually(t, func() bool { return len(e.lw.Watches()) == 2 }, 10*time.Second, time.Millisecond)
	story(t, "d is created while no watch is open; then the held watch goes on")
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
	errs := &errorLog{}
	runOn(t, lw, &recordingStore{}, Options{ExpectedType: &api.Pod{}, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add})

	require.Eventually(t, func() bool { return watches.Load() == 2 }, 10*time.Second, time.Millisecond)
	require.Equal(t, "2", secondRV.Load())
	require.Equal(t, int32(1), lists.Load(), "no relist")
	require.ErrorIs(t, errs.all()[0], io.ErrUnexpectedEOF, "the error handler still sees it")
}

// A server or proxy that accepts watches and cuts them at once, before any
// event, must not make the reflector reconnect in a tight loop: a cut watch
// with no events in under a second is a "very short watch", so the
// reflector backs off (and relists) as client-go does.
func TestReflector_CutWatchWithNoEventsBacksOff(t *testing.T) {
	var watches atomic.Int32
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) {
			watches.Add(1)
			return newFakeWatch(listwatch.Event{Type: api.Error, Err: fmt.Errorf("watch connection cut after 0 events: %w", io.ErrUnexpectedEOF)}), nil
		},
	}
	clk := clock.NewFakeClock(epoch)
	errs := &errorLog{}
	runOn(t, lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: errs.add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})

	require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1), "the reflector never backed off; watches opened: %d", watches.Load())
	require.Equal(t, int32(1), watches.Load(), "one watch, then a backoff")
	got := errs.all()
	require.Len(t, got, 2)
	require.ErrorIs(t, got[0], io.ErrUnexpectedEOF)
	require.ErrorContains(t, got[1], "very short watch")
}

// Connection refused when opening a watch (the API server restarting):
// back off and watch again from the same version, without relisting.
func TestReflector_ConnectionRefusedRetriesWatchWithoutRelist(t *testing.T) {
	refused := fmt.Errorf("watch pods: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	var mu sync.Mutex
	var lists int
	var watchedFrom []string
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			mu.Lock()
			defer mu.Unlock()
			lists++
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "7"}}, nil
		},
		WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
			mu.Lock()
			defer mu.Unlock()
			watchedFrom = append(watchedFrom, opts.ResourceVersion)
			if len(watchedFrom) == 1 {
				return nil, refused
			}
			return newFakeWatch(), nil // stays open
		},
	}
	clk := clock.NewFakeClock(epoch)
	errs := &errorLog{}
	runOn(t, lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: errs.add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})

	require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
	require.True(t, listwatch.IsConnectionRefused(errs.all()[0]), "%v", errs.all())
	clk.Step(time.Second)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(watchedFrom) == 2 }, 10*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"7", "7"}, watchedFrom)
	require.Equal(t, 1, lists, "no relist")
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
		{"ERROR frame", func(e *env) {
			story(e.t, "the server compacts its history: a watch from c's version gets a 410 ERROR event")
			e.srv.CompactHistory()
		}},
		{"HTTP 410", func(e *env) {
			story(e.t, "the server will answer the next watch request with HTTP 410")
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

			story(t, "the server ends the watch; the reflector's next watch is held back")
			gate := make(chan struct{})
			e.lw.setWatchGate(gate)
			e.srv.CloseWatches()
			require.Eventually(t, func() bool { return len(e.lw.Watches()) == 2 }, 10*time.Second, time.Millisecond)
			story(t, "d is created while no watch is open")
			d := e.createPod("d")
			tc.break410(e)
			story(t, "the held watch goes on, from c's version")
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
			story(t, "the backoff (1 s) is over")
			e.clock.Step(time.Second)

			e.store.waitFor(t, fmt.Sprintf("Replace [a@%s c@%s d@%s] @%s", a.ResourceVersion, c.ResourceVersion, d.ResourceVersion, d.ResourceVersion))
			lists := e.lw.Lists()
			require.Len(t, lists, 2)
			require.Equal(t, c.ResourceVersion, lists[1].ResourceVersion, "the relist asks for the last synced version, not older")
			require.Zero(t, lists[1].Limit, "a list at a given version is not paged")
			waitForSynced(t, r, d.ResourceVersion)
		})
	}
}

// A 429 on a watch, when opening it or as an ERROR event in the stream,
// backs off (at least as long as Retry-After says) and watches again,
// without relisting.
func TestReflector_TooManyRequestsBacksOffWithoutRelist(t *testing.T) {
	t.Run("when opening the watch", func(t *testing.T) {
		e := newEnv(t, fakeapiserver.Options{})
		e.createPod("a")
		e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusTooManyRequests, RetryAfter: 10 * time.Second})
		e.run()
		e.store.waitFor(t, "Replace")
		require.Eventually(t, func() bool { return len(e.errs.all()) == 1 }, 10*time.Second, time.Millisecond)
		require.True(t, listwatch.IsTooManyRequests(e.errs.all()[0]))
		require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
		e.clock.Step(10*time.Second - time.Millisecond)
		require.Equal(t, 1, e.clock.Waiters(), "Retry-After (10 s) beats the 1 s backoff: still waiting")
		require.Len(t, e.lw.Watches(), 1)
		e.clock.Step(time.Millisecond)
		e.waitWatching(1)
		require.Len(t, e.lw.Watches(), 2)
		require.Len(t, e.lw.Lists(), 1, "no relist")
	})
	t.Run("as an ERROR event", func(t *testing.T) {
		tooMany := &listwatch.StatusError{ErrStatus: &api.Status{Code: 429, Reason: api.StatusReasonTooManyRequests,
			Details: &api.StatusDetails{RetryAfterSeconds: 5}}}
		var lists, watches atomic.Int32
		lw := &listwatch.ListWatch{
			ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
				lists.Add(1)
				return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
			},
			WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) {
				if watches.Add(1) == 1 {
					return newFakeWatch(listwatch.Event{Type: api.Error, Err: tooMany}), nil
				}
				return newFakeWatch(), nil
			},
		}
		clk := clock.NewFakeClock(epoch)
		runOn(t, lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: (&errorLog{}).add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})
		require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
		clk.Step(5*time.Second - time.Millisecond)
		require.Equal(t, 1, clk.Waiters(), "still waiting out Retry-After")
		clk.Step(time.Millisecond)
		require.Eventually(t, func() bool { return watches.Load() == 2 }, 10*time.Second, time.Millisecond)
		require.Equal(t, int32(1), lists.Load(), "no relist")
	})
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
	runOn(t, lw, &recordingStore{}, Options{Clock: clk, WatchErrorHandler: errs.add, Backoff: Backoff{Initial: time.Second, Cap: time.Second}})

	require.NoError(t, clk.BlockUntilWaiters(ctxTimeout(t), 1))
	require.Len(t, errs.all(), 1)
	require.ErrorContains(t, errs.all()[0], "very short watch")
	clk.Step(time.Second)
	require.Eventually(t, func() bool { return lists.Load() == 2 }, 10*time.Second, time.Millisecond, "relisted after the backoff")
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
