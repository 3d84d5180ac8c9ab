package reflector

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// scriptedWatches answers some watch requests itself, by their number
// (from 0), and passes the others to the fake server: a server that does
// what the fake one has no fault for (refusing sendInitialEvents, ending a
// stream half-way through its initial events).
type scriptedWatches struct {
	listwatch.ListerWatcher
	mu     sync.Mutex
	n      int
	script map[int]func() (listwatch.Watch, error)
}

func (s *scriptedWatches) Watch(ctx context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
	s.mu.Lock()
	answer := s.script[s.n]
	s.n++
	s.mu.Unlock()
	if answer != nil {
		return answer()
	}
	return s.ListerWatcher.Watch(ctx, opts)
}

// endedWatch is a watch that delivers events, then ends.
func endedWatch(events ...listwatch.Event) listwatch.Watch {
	w := newFakeWatch(events...)
	close(w.ch)
	return w
}

// Every rule for a failed streaming list, as client-go 1.35+ runs it
// (WatchListClient, on by default since 1.35: watchList's retry loop and
// ListAndWatch's fallbackToList), end to end against the fake server: one
// case per rule of next, the server (or a scripted answer in front of it)
// failing the streaming list one way, the reflector on a fake clock. Each
// case checks what follows: the streaming lists made (by the
// resourceVersion each asked for), the paged lists made, the backoff
// waited, and that the store ends up with the server's state, Replaced
// once per successful list. TestReflector_NextPhase has the same rules
// without a server.
func TestReflector_StreamingListFallsBackAsClientGoDoes(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	notSupported := &listwatch.StatusError{ErrStatus: &api.Status{Code: http.StatusUnprocessableEntity, Reason: api.StatusReasonInvalid,
		Message: `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`,
		Details: &api.StatusDetails{Causes: []api.StatusCause{{Type: "FieldValueForbidden", Field: "sendInitialEvents"}}}}}
	faultAfterSync := func(code int) func(t *testing.T, e *env, s *scriptedWatches) *api.Pod {
		return func(t *testing.T, e *env, s *scriptedWatches) *api.Pod {
			story(t, "the lap must end for the next streaming list to ask for a version: the rewatch will get 500, the streaming list after it %d", code)
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusInternalServerError})
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: code})
			b := e.createPod("b")
			e.store.waitFor(t, "Add "+nameRV(b))
			story(t, "the server closes its watches: the reflector rewatches from %s", b.ResourceVersion)
			e.srv.CloseWatches()
			require.Eventually(t, func() bool { return len(e.lw.Watches()) == 2 }, 10*time.Second, time.Millisecond, "the rewatch")
			return b
		}
	}

	tests := []struct {
		rule     string
		clientGo string // what client-go does, which the case pins
		// arrange sets up the failure, before the reflector starts (or,
		// with afterSync, once its first streaming list has synced), and
		// returns the pod it created, if any.
		arrange   func(t *testing.T, e *env, s *scriptedWatches) *api.Pod
		afterSync bool
		wait      time.Duration // the backoff before the retry (0: none)
		streaming []string      // "@rv" asked for by each streaming list ("@b": b's version)
		lists     int           // paged lists
	}{
		{
			rule:     "429 Too Many Requests: back off (at least Retry-After), stream again",
			clientGo: "watchList: isWatchErrorRetriable (429) → delayHandler backoff, retry the streaming list",
			arrange: func(t *testing.T, e *env, _ *scriptedWatches) *api.Pod {
				story(t, "the server sheds load: the first watch gets 429, Retry-After 5s")
				e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusTooManyRequests, RetryAfter: 5 * time.Second})
				return nil
			},
			wait: 5 * time.Second, streaming: []string{"@", "@"},
		},
		{
			rule:     "connection refused: back off, stream again",
			clientGo: "watchList: isWatchErrorRetriable (connection refused) → backoff, retry",
			arrange: func(t *testing.T, _ *env, s *scriptedWatches) *api.Pod {
				story(t, "the API server is restarting: the first watch's connection is refused")
				s.script[0] = func() (listwatch.Watch, error) { return nil, fmt.Errorf("watch pods: %w", refused) }
				return nil
			},
			wait: time.Second, streaming: []string{"@", "@"},
		},
		{
			rule:     "503 with Retry-After: back off (at least Retry-After), stream again",
			clientGo: "the REST client retries a 5xx with Retry-After (checkWait) before the reflector sees it; kinformer's reflector does it",
			arrange: func(t *testing.T, e *env, _ *scriptedWatches) *api.Pod {
				story(t, "the server is overloaded: the first watch gets 503, Retry-After 3s")
				e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusServiceUnavailable, RetryAfter: 3 * time.Second})
				return nil
			},
			wait: 3 * time.Second, streaming: []string{"@", "@"},
		},
		{
			rule:     "500: fall back to a paged list at once",
			clientGo: "watchList returns the error (not retriable) → ListAndWatch: fallbackToList",
			arrange: func(t *testing.T, e *env, _ *scriptedWatches) *api.Pod {
				story(t, "the first watch gets 500, without Retry-After")
				e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: http.StatusInternalServerError})
				return nil
			},
			streaming: []string{"@"}, lists: 1,
		},
		{
			rule:     "the server does not support streaming lists (422 Invalid): fall back to a paged list",
			clientGo: "an API server with its WatchList gate off answers 422, sendInitialEvents: Forbidden → fallbackToList",
			arrange: func(t *testing.T, _ *env, s *scriptedWatches) *api.Pod {
				story(t, "the server refuses sendInitialEvents: 422 Invalid")
				s.script[0] = func() (listwatch.Watch, error) { return nil, notSupported }
				return nil
			},
			streaming: []string{"@"}, lists: 1,
		},
		{
			rule:     "410 Expired at a version: stream again at once, from \"\"",
			clientGo: "watchList: isExpiredError → setIsLastSyncResourceVersionUnavailable, retry at rewatchResourceVersion \"\"",
			arrange:  faultAfterSync(http.StatusGone), afterSync: true,
			wait: time.Second, streaming: []string{"@", "@b", "@"},
		},
		{
			rule:     "504 too large resourceVersion at a version: stream again at once, from \"\"",
			clientGo: "watchList: isTooLargeResourceVersionError → the same",
			arrange:  faultAfterSync(http.StatusGatewayTimeout), afterSync: true,
			wait: time.Second, streaming: []string{"@", "@b", "@"},
		},
		{
			rule:     "the stream ends before the initial-events-end bookmark: stream again at once",
			clientGo: "watchList: handleListWatch returns without error or bookmark → its loop opens a new streaming list",
			arrange: func(t *testing.T, _ *env, s *scriptedWatches) *api.Pod {
				story(t, "the first stream sends one initial event, then ends without the bookmark")
				s.script[0] = func() (listwatch.Watch, error) {
					return endedWatch(listwatch.Event{Type: api.Added, Object: pod("half", "1")}), nil
				}
				return nil
			},
			streaming: []string{"@", "@"},
		},
		{
			rule:     "the connection is cut before the bookmark: stream again at once",
			clientGo: "StreamWatcher closes quietly on a cut connection: the same as an end",
			arrange: func(t *testing.T, _ *env, s *scriptedWatches) *api.Pod {
				story(t, "the first stream sends one initial event, then its connection is cut")
				s.script[0] = func() (listwatch.Watch, error) {
					return endedWatch(listwatch.Event{Type: api.Added, Object: pod("half", "1")},
						listwatch.Event{Type: api.Error, Err: io.ErrUnexpectedEOF}), nil
				}
				return nil
			},
			streaming: []string{"@", "@"},
		},
		{
			rule:     "the stream ends at once, with no events: a very short watch, fall back to a paged list",
			clientGo: "handleAnyWatch: VeryShortWatchError (not retriable) → fallbackToList",
			arrange: func(t *testing.T, _ *env, s *scriptedWatches) *api.Pod {
				story(t, "the first stream ends at once, empty")
				s.script[0] = func() (listwatch.Watch, error) { return endedWatch(), nil }
				return nil
			},
			streaming: []string{"@"}, lists: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			t.Logf("client-go: %s", tc.clientGo)
			e := newEnv(t, fakeapiserver.Options{})
			created := []*api.Pod{e.createPod("a")}
			script := &scriptedWatches{ListerWatcher: e.lw.inner, script: map[int]func() (listwatch.Watch, error){}}
			e.lw.inner = script
			e.opts.UseWatchList = true
			if !tc.afterSync {
				tc.arrange(t, e, script)
			}
			e.run()
			if tc.afterSync {
				e.store.waitFor(t, fmt.Sprintf("Replace [%s] @%s", nameRV(created[0]), e.srv.ResourceVersion()))
				created = append(created, tc.arrange(t, e, script))
			}

			if tc.wait > 0 {
				require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1), "backing off")
				watches := len(e.lw.Watches())
				e.clock.Step(tc.wait - time.Millisecond)
				require.Equal(t, 1, e.clock.Waiters(), "still backing off %v later", tc.wait-time.Millisecond)
				require.Len(t, e.lw.Watches(), watches, "no new request while backing off")
				story(t, "%v have passed", tc.wait)
				e.clock.Step(time.Millisecond)
			}

			names := make([]string, len(created))
			for i, p := range created {
				names[i] = nameRV(p)
			}
			final := fmt.Sprintf("Replace [%s] @%s", strings.Join(names, " "), e.srv.ResourceVersion())
			e.store.waitFor(t, final)
			e.waitWatching(1)

			var streaming []string
			for _, w := range e.lw.Watches() {
				if w.SendInitialEvents != nil && *w.SendInitialEvents {
					streaming = append(streaming, "@"+w.ResourceVersion)
				}
			}
			want := make([]string, len(tc.streaming))
			for i, rv := range tc.streaming {
				want[i] = rv
				if rv == "@b" {
					want[i] = "@" + created[1].ResourceVersion
				}
			}
			require.Equal(t, want, streaming, "the streaming lists, by the resourceVersion each asked for")
			require.Len(t, e.lw.Lists(), tc.lists, "paged lists")
			replaces := 0
			for _, c := range e.store.Calls() {
				if strings.HasPrefix(c, "Replace") {
					replaces++
				}
			}
			require.Equal(t, len(created), replaces, "one Replace per list that completed (here one per pod created): a failed or half-read one never reaches the store")
			require.NotContains(t, strings.Join(e.store.Calls(), "\n"), "half@", "initial events of an unfinished stream are dropped")
		})
	}
}
