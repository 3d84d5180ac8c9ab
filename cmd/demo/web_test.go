package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// ev builds a trace event at t0+at.
func ev(at time.Duration, stage, what string, kv ...string) trace.Event {
	e := trace.Event{Time: t0.Add(at), Stage: stage, What: what}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Attrs = append(e.Attrs, slog.String(kv[i], kv[i+1]))
	}
	return e
}

// One pod's change through every box, a dropped watch, a compaction with
// its relist, and a failing reconcile: the snapshot counts each from the
// trace events alone.
func TestAggregator_CountsEveryBoxFromTheTrace(t *testing.T) {
	a := newAggregator(t0, nil)
	a.informer = articlesInformer // a DeltaFIFO's trace
	const pods = "pods"
	for _, e := range []trace.Event{
		ev(0, "reflector", "phase", "resource", pods, "phase", "listing", "reason", "start"),
		ev(0, "reflector", "listed", "resource", pods, "rv", "10", "n", "1"),
		ev(0, "reflector", "phase", "resource", pods, "phase", "watching", "from", "listing", "reason", "listed"),
		ev(0, "reflector", "watch", "resource", pods, "rv", "10"),
		ev(100*time.Millisecond, "listwatch", "frame decoded", "type", "ADDED", "key", "default/web-1", "rv", "11"),
		ev(100*time.Millisecond, "reflector", "watch event", "resource", pods, "type", "ADDED", "key", "default/web-1", "rv", "11"),
		ev(100*time.Millisecond, "deltafifo", "delta queued", "resource", pods, "type", "Added", "key", "default/web-1", "rv", "11", "n", "1"),
		ev(100*time.Millisecond, "deltafifo", "delta queued", "resource", pods, "type", "Added", "key", "default/web-2", "rv", "12", "n", "1"),
	} {
		a.event(e)
	}
	s := a.snapshot(t0.Add(time.Second))
	require.Equal(t, 2, s.FIFOs[0].Depth, "two keys queued")
	require.Equal(t, "11", s.Reflectors[0].LastRV)
	require.Equal(t, "watching", s.Reflectors[0].Phase)
	require.InDelta(t, 0.5, s.Rates["ADDED"], 1e-9, "one ADDED in the last two seconds")

	for _, e := range []trace.Event{
		ev(200*time.Millisecond, "deltafifo", "pop", "resource", pods, "key", "default/web-1", "deltas", "Added", "rv", "11", "n", "1"),
		ev(200*time.Millisecond, "informer", "cache add", "resource", pods, "key", "default/web-1", "rv", "11", "delta", "Added"),
		ev(200*time.Millisecond, "informer", "notify", "resource", pods, "handler", "replicaset-controller", "type", "add", "key", "default/web-1", "pending", "3"),
		ev(200*time.Millisecond, "informer", "OnAdd", "resource", pods, "handler", "replicaset-controller", "key", "default/web-1", "pending", "2"),
		ev(200*time.Millisecond, "controller", "enqueue", "key", "default/web", "from", "default/web-1"),
		ev(200*time.Millisecond, "workqueue", "add", "key", "default/web", "depth", "1", "processing", "0"),
		ev(300*time.Millisecond, "workqueue", "get", "key", "default/web", "depth", "0", "processing", "1"),
		ev(300*time.Millisecond, "controller", "reconcile", "key", "default/web"),
		ev(300*time.Millisecond, "controller", "reconciled", "key", "default/web", "found", "have 1 of 3", "did", "created 2 of 2"),
		ev(300*time.Millisecond, "controller", "status written", "key", "default/web", "replicas", "1", "ready", "0"),
		ev(300*time.Millisecond, "workqueue", "retry", "key", "default/web", "after", "5ms", "n", "1", "depth", "0", "processing", "1"),
		ev(300*time.Millisecond, "controller", "retry", "key", "default/web", "after", "5ms", "n", "1"),
		// A dropped watch: a second watch. A compaction: 410, a relist.
		ev(2*time.Second, "reflector", "watch", "resource", pods, "rv", "11"),
		ev(3*time.Second, "reflector", "phase", "resource", pods, "phase", "backing off", "from", "watching", "reason", "410 Expired", "after", "1s"),
		ev(4*time.Second, "reflector", "phase", "resource", pods, "phase", "listing", "from", "backing off", "reason", "backoff over"),
		ev(4*time.Second, "deltafifo", "tombstone queued", "resource", pods, "key", "default/web-9", "rv", "9"),
		ev(4*time.Second, "informer", "cache delete (tombstone: final state unknown)", "resource", pods, "key", "default/web-1", "rv", "11"),
		ev(4*time.Second, "server", faultRequested, "path", "/faults/compact"),
	} {
		a.event(e)
	}
	s = a.snapshot(t0.Add(4 * time.Second))
	r := s.Reflectors[0]
	require.Equal(t, 1, r.Relists)
	require.Equal(t, 1, r.WatchRestarts)
	require.Equal(t, "listing", r.Phase)
	require.Equal(t, 0, s.Caches[0].Size, "the cache delete took the pod out")
	require.Equal(t, 1, s.FIFOs[0].Tombstones)
	require.Equal(t, handlerView{Resource: pods, Handler: "replicaset-controller", Pending: 2, Delivered: 1}, s.Handlers[0])
	require.Equal(t, 1, s.Queue.Retries)
	require.Equal(t, []keyDelay{{Key: "default/web", Delay: "5 ms", Retry: "1"}}, s.Queue.Delays)
	require.Equal(t, 1, s.Queue.InFlight)
	require.Equal(t, controllerView{Reconciles: 1, Failures: 1, LastFound: "have 1 of 3", LastDid: "created 2 of 2",
		LastFoundZH: "现有 1 个 pod，期望 3 个", LastDidZH: "创建了 2 个 pod（共要创建 2 个）", // for the page in Chinese
		Desired: 3, Current: 1, Ready: 0}, s.Controller)
	require.Equal(t, 1, s.Faults)
	a.setChaosFaults(func() int64 { return 4 })
	require.Equal(t, 5, a.snapshot(t0.Add(4*time.Second)).Faults, "the chaos loop's faults count too, as in the summary's faults injected")
	require.Zero(t, s.Rates["ADDED"], "the ADDED left the rate window")
	require.Equal(t, 1, s.Totals["ADDED"])

	// The log: a key's path, found by its key or as the enqueue's from=.
	path := a.forKey("default/web-1")
	var whats []string
	for _, e := range path {
		whats = append(whats, e.What)
	}
	require.Equal(t, []string{"frame decoded", "watch event", "delta queued", "pop", "cache add", "notify", "OnAdd", "enqueue",
		"cache delete (tombstone: final state unknown)"}, whats)
	evs, skipped := a.eventsSince(s.Seq-3, 2)
	require.Len(t, evs, 2)
	require.Equal(t, 1, skipped)
	require.Equal(t, s.Seq, evs[1].Seq)
}

// Today's informer (--informer today): a relist is one item in the
// RealFIFO however many objects it carries, a batch counts its deltas, and
// a ReplacedAll or a batch is one cache write whose keys follow; the cache
// box shows the store's last synced version.
func TestAggregator_TodaysQueueCountsARelistAsOneItem(t *testing.T) {
	a := newAggregator(t0, nil)
	const pods = "pods"
	for _, e := range []trace.Event{
		ev(0, "reflector", "phase", "resource", pods, "phase", "listing", "reason", "start"),
		ev(0, "reflector", "streaming list", "resource", pods, "rv", ""),
		ev(0, "reflector", "initial events end", "resource", pods, "rv", "10", "n", "3"),
		ev(0, "deltafifo", "replace", "resource", pods, "n", "3", "rv", "10"),
		ev(0, "deltafifo", "delta queued", "resource", pods, "type", "ReplacedAll", "key", "", "rv", "10", "n", "1"),
		ev(0, "deltafifo", "pop", "resource", pods, "key", "", "deltas", "ReplacedAll", "rv", "10", "n", "0", "unlocked", "true"),
		ev(0, "informer", "cache replace", "resource", pods, "n", "3", "rv", "10", "gone", "0"),
		ev(0, "informer", "cache add", "resource", pods, "key", "default/a", "rv", "4", "delta", "ReplacedAll", "in", "replace"),
		ev(0, "informer", "cache add", "resource", pods, "key", "default/b", "rv", "5", "delta", "ReplacedAll", "in", "replace"),
		ev(0, "informer", "cache add", "resource", pods, "key", "default/c", "rv", "6", "delta", "ReplacedAll", "in", "replace"),
	} {
		a.event(e)
	}
	s := a.snapshot(t0)
	require.Equal(t, "today", s.Informer)
	require.Equal(t, "RealFIFO", s.QueueName)
	require.Equal(t, reflectorView{Resource: pods, Phase: "listing", Reason: "start", Why: "start", WhyZH: "启动", LastRV: "10", Lists: 1, Watches: 1}, s.Reflectors[0],
		"the streaming list is the first watch")
	require.Equal(t, fifoView{Resource: pods, Queued: 1, Popped: 1, Replaces: 1, ReplacedAll: 1}, s.FIFOs[0], "a relist of 3 is one item")
	require.Equal(t, cacheView{Resource: pods, Size: 3, Writes: 1, SyncRV: "10"}, s.Caches[0], "one write, three keys")

	for _, e := range []trace.Event{
		ev(0, "deltafifo", "delta queued", "resource", pods, "type", "Added", "key", "default/d", "rv", "11", "n", "1"),
		ev(0, "deltafifo", "delta queued", "resource", pods, "type", "Deleted", "key", "default/a", "rv", "12", "n", "2"),
		ev(0, "deltafifo", "delta queued", "resource", pods, "type", "Updated", "key", "default/b", "rv", "13", "n", "3"),
	} {
		a.event(e)
	}
	require.Equal(t, 3, a.snapshot(t0).FIFOs[0].Depth, "the RealFIFO's depth is its deltas")
	for _, e := range []trace.Event{
		ev(0, "deltafifo", "pop batch", "resource", pods, "n", "3", "keys", "default/d..default/b", "left", "0", "unlocked", "true"),
		ev(0, "informer", "cache transaction", "resource", pods, "n", "3", "key", "default/d..default/b"),
		ev(0, "informer", "cache add", "resource", pods, "key", "default/d", "rv", "11", "delta", "Added", "in", "transaction"),
		ev(0, "informer", "cache delete", "resource", pods, "key", "default/a", "rv", "12", "delta", "Deleted", "in", "transaction"),
		ev(0, "informer", "cache update", "resource", pods, "key", "default/b", "rv", "13", "delta", "Updated", "in", "transaction"),
		ev(0, "deltafifo", "delta queued", "resource", pods, "type", "Bookmark", "key", "", "rv", "20", "n", "1"),
		ev(0, "deltafifo", "pop", "resource", pods, "key", "", "deltas", "Bookmark", "rv", "20", "n", "0", "unlocked", "true"),
		ev(0, "informer", "store bookmark", "resource", pods, "rv", "20"),
	} {
		a.event(e)
	}
	s = a.snapshot(t0)
	require.Equal(t, fifoView{Resource: pods, Queued: 5, Popped: 5, Replaces: 1, ReplacedAll: 1, Batches: 1}, s.FIFOs[0])
	require.Equal(t, cacheView{Resource: pods, Size: 3, Writes: 2, SyncRV: "20"}, s.Caches[0])
	var keys []string
	for _, p := range s.Pods {
		keys = append(keys, p.Key+"@"+p.RV)
	}
	require.Equal(t, []string{"default/b@13", "default/c@6", "default/d@11"}, keys)
}

// The log is a ring: the oldest events go, the order stays.
func TestAggregator_LogIsABoundedRing(t *testing.T) {
	a := newAggregator(t0, nil)
	for i := range logSize + 10 {
		a.event(ev(time.Duration(i), "server", "commit", "key", "k"))
	}
	evs, skipped := a.eventsSince(0, logSize)
	require.Len(t, evs, logSize)
	require.Zero(t, skipped)
	require.Equal(t, uint64(11), evs[0].Seq)
	require.Equal(t, uint64(logSize+10), evs[len(evs)-1].Seq)
	require.Len(t, a.forKey("k"), logSize)
}

// The work queue's box also shows the queue's own metrics hook.
func TestAggregator_ReadsTheWorkQueueMetrics(t *testing.T) {
	m := workqueue.NewInMemoryMetrics()
	q := workqueue.NewTypedWithConfig[string](workqueue.QueueConfig{Name: "replicaset", MetricsProvider: m})
	defer q.ShutDown()
	q.Add("default/web")
	a := newAggregator(t0, m)
	require.Contains(t, a.snapshot(t0).Queue.Metrics, "replicaset: depth=1 adds=1")
}

// newTestUI is the page's server over an aggregator fed by hand.
func newTestUI(t *testing.T) (*webUI, *httptest.Server) {
	t.Helper()
	page := &pageControls{}
	u := &webUI{agg: newAggregator(t0, nil), hub: newHub(), now: func() time.Time { return t0.Add(time.Second) },
		ctx: context.Background(), actions: map[string]pageAction{
			"fail-reconcile": func(context.Context) (said, error) { page.failNext.Add(3); return said{"ok", "好"}, nil },
		}}
	u.agg.controlsNow = page.state
	srv := httptest.NewServer(u.handler())
	t.Cleanup(srv.Close)
	return u, srv
}

// sseReader reads one SSE message at a time.
type sseReader struct{ r *bufio.Reader }

func (s sseReader) next(t *testing.T) (string, snapshot) {
	t.Helper()
	var event, data string
	for {
		line, err := s.r.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "":
			var snap snapshot
			if event == "snapshot" {
				require.NoError(t, json.Unmarshal([]byte(data), &snap))
			}
			return event, snap
		}
	}
}

func openStream(t *testing.T, ctx context.Context, client *http.Client, url string) (*http.Response, sseReader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/stream", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return resp, sseReader{bufio.NewReader(resp.Body)}
}

// The stream sends a snapshot at once, then one per publish with the
// events since the last; the demo stopping ends it.
func TestSSE_SnapshotsCarryNewEventsAndEndWithTheDemo(t *testing.T) {
	u, srv := newTestUI(t)
	u.agg.event(ev(0, "reflector", "phase", "resource", "pods", "phase", "listing", "reason", "start"))
	resp, sse := openStream(t, context.Background(), srv.Client(), srv.URL)
	defer resp.Body.Close()
	event, s := sse.next(t)
	require.Equal(t, "snapshot", event)
	require.Len(t, s.Events, 1)
	require.Equal(t, "listing", s.Reflectors[0].Phase)

	u.agg.event(ev(0, "reflector", "phase", "resource", "pods", "phase", "watching", "reason", "listed"))
	u.agg.event(ev(0, "reflector", "watch", "resource", "pods", "rv", "5"))
	u.hub.publish()
	_, s = sse.next(t)
	require.Equal(t, "watching", s.Reflectors[0].Phase)
	require.Equal(t, "5", s.Reflectors[0].LastRV)
	require.Len(t, s.Events, 2, "only the events since the last snapshot")
	require.Equal(t, uint64(3), s.Events[1].Seq)

	u.hub.publish() // nothing new: a snapshot without events
	_, s = sse.next(t)
	require.Empty(t, s.Events)

	u.agg.event(ev(0, "reflector", "phase", "resource", "pods", "phase", "stopped", "from", "watching", "reason", "context ended"))
	u.hub.close()
	event, s = sse.next(t)
	require.Equal(t, "snapshot", event, "the last numbers, as the summary counts them")
	require.Equal(t, "stopped", s.Reflectors[0].Phase)
	event, _ = sse.next(t)
	require.Equal(t, "end", event)
	_, err := sse.r.ReadString('\n')
	require.ErrorIs(t, err, io.EOF, "the stream ends when the demo stops")
	require.Eventually(t, func() bool { return u.hub.subscribers() == 0 }, 5*time.Second, time.Millisecond)
}

// Closed tabs leak nothing: the subscribers and the goroutines go back to
// what they were.
func TestSSE_ClosedClientsLeaveNoGoroutine(t *testing.T) {
	u, srv := newTestUI(t)
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	before := runtime.NumGoroutine()
	var cancels []context.CancelFunc
	for range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		resp, sse := openStream(t, ctx, client, srv.URL)
		defer resp.Body.Close()
		event, _ := sse.next(t)
		require.Equal(t, "snapshot", event)
	}
	require.Equal(t, 10, u.hub.subscribers())
	require.Greater(t, runtime.NumGoroutine(), before)
	for _, cancel := range cancels {
		cancel() // the tab closes
	}
	tr.CloseIdleConnections()
	require.Eventually(t, func() bool { return u.hub.subscribers() == 0 }, 5*time.Second, time.Millisecond)
	// Polled here, not in require.Eventually, whose condition runs on a
	// goroutine of its own.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for runtime.NumGoroutine() > before {
		select {
		case <-tick.C:
		case <-deadline:
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d before the clients, %d now:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
	}
}

// The page and its assets carry a strict CSP, and have nothing inline and
// nothing from elsewhere for it to forbid.
func TestWeb_StrictContentSecurityPolicy(t *testing.T) {
	_, srv := newTestUI(t)
	for _, p := range []string{"/", "/app.js", "/style.css", "/api/snapshot"} {
		resp, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, p)
		csp := resp.Header.Get("Content-Security-Policy")
		require.True(t, strings.HasPrefix(csp, "default-src 'self'"), "%s: %q", p, csp)
		require.NotContains(t, csp, "unsafe-inline")
		require.NotRegexp(t, `https?://`, string(body), "%s fetches nothing from elsewhere", p)
		if p == "/" {
			html := string(body)
			for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(html, -1) {
				require.Contains(t, tag, `src="`, "no inline script")
			}
			require.NotContains(t, html, "<style")
			require.NotRegexp(t, `\sstyle=`, html, "no inline style")
			require.NotRegexp(t, `\son[a-z]+=`, html, "no inline handlers")
		}
	}
}

// The buttons need the page's header (no other site's form can press them)
// and say what they did.
func TestWeb_FaultButtons(t *testing.T) {
	u, srv := newTestUI(t)
	resp, err := http.Post(srv.URL+"/api/fault/fail-reconcile", "", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/fault/fail-reconcile", nil)
	req.Header.Set("X-Kinformer", "1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 3, u.agg.snapshot(t0).Controls.FailReconcile)

	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/api/fault/nope", nil)
	req.Header.Set("X-Kinformer", "1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// "make reconcile fail" fails exactly the next n reconciles.
func TestPageControls_FailReconcileCountsDown(t *testing.T) {
	var c pageControls
	require.NoError(t, c.failReconcile("default/web"))
	c.failNext.Add(2)
	require.Error(t, c.failReconcile("default/web"))
	require.Error(t, c.failReconcile("default/web"))
	require.NoError(t, c.failReconcile("default/web"))
}

// The page is loopback only unless --web-public says otherwise.
func TestListenWeb_LoopbackOnly(t *testing.T) {
	_, err := listenWeb("0.0.0.0:0", false, true)
	require.ErrorContains(t, err, "--web-public")
	ln, err := listenWeb("127.0.0.1:0", false, true)
	require.NoError(t, err)
	ln.Close()
}

// The docs and sources the boxes link to are served from the repository,
// and nothing outside it.
func TestWeb_LinksServeTheRepoDocsAndSources(t *testing.T) {
	u, srv := newTestUI(t)
	u.repoRoot = findRepoRoot()
	require.NotEmpty(t, u.repoRoot)
	for p, want := range map[string]int{"/docs/reflector.md": 200, "/src/reflector/reflector.go": 200,
		"/src/../go.mod": 404, "/docs/nope.md": 404, "/src/go.sum": 404} {
		resp, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, p)
	}
}

// The whole demo with its page: the stream carries the demo's real
// numbers, and ends when the demo does.
func TestDemo_LiveViewStreamsAndEndsWithTheDemo(t *testing.T) {
	var out syncbuf.Buffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--web", "127.0.0.1:0", "--chaos-every", "0",
			"--start-delay", "100ms", "--quiet", "--lang", "en"}, &out)
	}()
	pageRe := regexp.MustCompile(`live view: (http://\S+)/`)
	require.Eventually(t, func() bool { return pageRe.MatchString(out.String()) }, 10*time.Second, time.Millisecond)
	page := pageRe.FindStringSubmatch(out.String())[1]
	resp, sse := openStream(t, context.Background(), http.DefaultClient, page)
	defer resp.Body.Close()
	for i := 0; ; i++ {
		require.Less(t, i, 200, "200 snapshots (50 s) without the ReplicaSet ready")
		_, s := sse.next(t)
		if s.Controller.Ready == 3 && len(s.Reflectors) == 2 && s.Reflectors[0].Phase == "watching" {
			break // the controller's three pods, started by the kubelet, seen through the trace
		}
	}
	stop()
	for {
		event, _ := sse.next(t)
		if event == "end" {
			break
		}
	}
	require.NoError(t, <-done)
}
