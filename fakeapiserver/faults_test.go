package fakeapiserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// FailRequests makes chosen requests fail, so a client's backoff and retry
// can be tested: a 429 carries Retry-After, as from a real server shedding
// load.
func TestFault_FailRequests(t *testing.T) {
	e := newEnv(t, Options{})
	e.srv.FailRequests(Fault{Verb: "list", Resource: "pods", Code: http.StatusTooManyRequests, RetryAfter: 2 * time.Second})
	e.srv.FailRequests(Fault{Verb: "get", Code: http.StatusInternalServerError, Count: 2, RetryAfter: 1500 * time.Millisecond})

	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/configmaps").code, "only matching requests fail")
	r := e.get("/api/v1/namespaces/default/pods")
	require.Equal(t, http.StatusTooManyRequests, r.code)
	require.Equal(t, "2", r.header.Get("Retry-After"))
	st := r.status(t)
	require.Equal(t, api.StatusReasonTooManyRequests, st.Reason)
	require.Equal(t, int32(2), st.Details.RetryAfterSeconds)
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/pods").code, "Count 1: only the next one")

	for range 2 {
		r := e.get("/api/v1/namespaces/default")
		require.Equal(t, http.StatusInternalServerError, r.code)
		require.Equal(t, api.StatusReasonInternalError, r.status(t).Reason)
		require.Equal(t, "2", r.header.Get("Retry-After"), "any code may carry Retry-After, rounded up to whole seconds")
	}
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default").code)
	require.Equal(t, 2, e.srv.RequestCount("list", "pods"))
}

// CompactHistory is etcd compaction (or an API server restart): watches and
// exact lists at any older version now answer 410.
func TestFault_CompactHistory(t *testing.T) {
	e := newEnv(t, Options{})
	from := e.srv.ResourceVersion()
	e.createPod("default", "a", nil)
	e.srv.CompactHistory()
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + from)
	require.Equal(t, api.Error, ws.next().Type)
	// The current version is still fine to watch from.
	ws2 := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	b := e.createPod("default", "b", nil)
	require.Equal(t, "ADDED b@"+b.ResourceVersion, ws2.next().summary(t))
}

// CloseWatches ends every open stream cleanly (a load balancer dropping
// idle connections): a client must resume from its last version.
func TestFault_CloseWatches(t *testing.T) {
	e := newEnv(t, Options{})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	ws2 := e.watch("/apis/apps/v1/replicasets?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 && e.srv.OpenWatches("replicasets") == 1 }, 5*time.Second, time.Millisecond)
	e.srv.CloseWatches()
	require.Empty(t, ws.ended())
	require.Empty(t, ws2.ended())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 5*time.Second, time.Millisecond)
}

// WriteGarbage corrupts open streams, to test a client's decoder.
func TestFault_WriteGarbage(t *testing.T) {
	e := newEnv(t, Options{})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	e.srv.WriteGarbage([]byte("{not json\n"))
	f := ws.next()
	require.Equal(t, api.EventType("GARBAGE"), f.Type)
	require.Equal(t, "{not json\n", f.raw)
}

// A drop fault must never leave a watch open past a hole. The promise every
// informer relies on is that a watch from version R delivers every matching
// change after R, in order, or ends. Here the open watch misses the delete
// of "doomed", then "after" is created; whichever way the drop ends, the
// watch must not go on to deliver "after" (its client's resourceVersion
// would move past the hole, a later resume would be accepted, and "doomed"
// would stay in its cache for good). It goes deaf at the hole and ends with
// one 410 Expired ERROR frame, so its client relists, and the store still
// has everything. (Before this rule the stream went on: ADDED after@7.)
// Article: "informer" notes §3 设计总结, the closing question (can list/watch
// lose events, and does it matter?).
func TestFault_DroppedEventNeverLeavesAHole(t *testing.T) {
	cases := []struct {
		name string
		drop func(e *env) // starts a drop that hides doomed's events
		end  func(e *env) // ends it, or not (nil)
		then func(e *env) // after "after" is created
	}{
		{"DropEvents(nil) ends the drop",
			func(e *env) { e.srv.DropEvents(func(ev Event) bool { return ev.Name == "doomed" }) },
			func(e *env) { e.srv.DropEvents(nil) }, nil},
		{"ResetFaults ends the drop",
			func(e *env) { e.srv.DropEvents(func(ev Event) bool { return ev.Name == "doomed" }) },
			func(e *env) { e.srv.ResetFaults() }, nil},
		{"a count-limited drop ends with its last event",
			func(e *env) { e.fault("/faults/drop?resource=pods&name=doomed&count=1") },
			nil, nil},
		{"CloseWatches while the drop is still on",
			func(e *env) { e.srv.DropEvents(func(ev Event) bool { return ev.Name == "doomed" }) },
			nil, func(e *env) { e.srv.CloseWatches() }},
		{"compact, then close, drop still on",
			func(e *env) { e.srv.DropEvents(func(ev Event) bool { return ev.Name == "doomed" }) },
			nil, func(e *env) { e.srv.CompactHistory(); e.srv.CloseWatches() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{Faults: true})
			doomed := e.createPod("default", "doomed", nil)
			ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + doomed.ResourceVersion)
			require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
			t.Logf("client: watching pods from rv %s", doomed.ResourceVersion)
			c.drop(e)
			_, err := e.srv.Delete("pods", "default", "doomed")
			require.NoError(t, err)
			t.Logf("server: deleted doomed at rv %s; its events are hidden from the open watch", e.srv.ResourceVersion())
			if c.end != nil {
				c.end(e)
			}
			after := e.createPod("default", "after", nil)
			t.Logf("server: created after at rv %s", after.ResourceVersion)
			if c.then != nil {
				c.then(e)
			}

			f := ws.next()
			require.Equal(t, api.Error, f.Type, "the watch missed doomed's delete, so it must not go on (%s)", f.raw)
			var st api.Status
			require.NoError(t, json.Unmarshal(f.Object, &st))
			require.Equal(t, int32(http.StatusGone), st.Code, "410 Expired: the client relists rather than resumes")
			require.Equal(t, api.StatusReasonExpired, st.Reason)
			t.Logf("client: ERROR %d %s: %s", st.Code, st.Reason, st.Message)
			require.Empty(t, ws.ended(), "nothing after the ERROR")

			names, _ := e.listNames("/api/v1/namespaces/default/pods")
			require.Equal(t, []string{"after"}, names, "the relist the client makes has the truth")
			t.Logf("client: relists: %v", names)
		})
	}
}

// An outage is one fault, timed on the server's clock: for d every event is
// hidden (a watch goes deaf at the first it misses), then in one step the
// history is compacted, every watch ends (a deaf one with 410 Expired, a
// whole one cleanly) and the drop ends. Before, the soak sent drop, reset,
// compact and close-watches as four requests, and a write between two of
// them reached a deaf-to-be watch past its hole.
func TestFault_OutageIsOneFault(t *testing.T) {
	e := newEnv(t, Options{Faults: true})
	a := e.createPod("default", "a", nil)
	pods := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + a.ResourceVersion)
	cms := e.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + a.ResourceVersion)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 && e.srv.OpenWatches("configmaps") == 1 }, 5*time.Second, time.Millisecond)

	res := e.fault("/faults/outage?d=2s")
	t.Logf("fault: %s", res.Did)
	b := e.createPod("default", "b", nil)
	require.Equal(t, 1, e.srv.DeafWatches("pods"), "the pods watch missed b's ADDED")
	require.Equal(t, 0, e.srv.DeafWatches("configmaps"), "the configmaps watch missed nothing")
	t.Logf("server: b created at rv %s, hidden; the pods watch is deaf", b.ResourceVersion)

	e.clock.Step(2 * time.Second) // the outage is over
	f := pods.next()
	require.Equal(t, api.Error, f.Type, f.raw)
	require.Contains(t, f.raw, `"code":410`)
	require.Empty(t, pods.ended())
	require.Empty(t, cms.ended(), "a whole watch ends cleanly: its client resumes, and gets 410 from the compaction")
	t.Logf("client: the pods watch ended with %s", f.raw)

	old := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + a.ResourceVersion)
	require.Equal(t, api.Error, old.next().Type, "the history was compacted")
	fresh := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	c := e.createPod("default", "c", nil)
	require.Equal(t, "ADDED c@"+c.ResourceVersion, fresh.next().summary(t), "the drop is over")
}

// Close ends every watch and refuses further API requests.
func TestServer_CloseEndsWatches(t *testing.T) {
	e := newEnv(t, Options{})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	e.srv.Close()
	require.Empty(t, ws.ended())
	require.Equal(t, http.StatusServiceUnavailable, e.get("/api/v1/namespaces/default/pods").code)
	require.Equal(t, http.StatusServiceUnavailable, e.get("/readyz").code)
}

// A watch request that got past Close's check just before Close ran (a
// race between Close and a new watch) still ends at once: otherwise Serve,
// or httptest.Server.Close, would wait for it until its timeout.
func TestServer_WatchRacingCloseEnds(t *testing.T) {
	e := newEnv(t, Options{})
	e.srv.Close()
	rq := &request{verb: "watch", res: lookupResource("", "v1", "pods"), ns: "default"}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods?watch=true", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.srv.serveWatch(httptest.NewRecorder(), req, rq)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a watch that started as the server closed is still open")
	}
}

// Close ends a watch even while it waits out an injected delay.
func TestServer_CloseEndsADelayedWatch(t *testing.T) {
	e := newEnv(t, Options{})
	e.srv.SetWatchDelay(time.Hour)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1)) // the watch's timeout
	e.createPod("default", "a", nil)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // and the delay of the frame for a
	e.srv.Close()
	ws.ended()
}

// Serve shuts down cleanly even with watches open: it ends them first,
// since an http.Server's Shutdown waits for open requests.
func TestServer_ServeStopsWithOpenWatches(t *testing.T) {
	srv := New(Options{Tracer: trace.ForTest(t)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/api/v1/namespaces/default/pods?watch=true")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Eventually(t, func() bool { return srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	t.Log("server: cancelling Serve's context with a watch open")
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
		t.Log("server: Serve returned")
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err, "the watch ended cleanly")
}
