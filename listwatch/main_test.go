package listwatch

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/trace"
)

// TestMain fails the package if a test leaves a watch goroutine (or a test
// server handler of this package) running, or a decode worker of the fast
// form (listwatch/internal/fastdecode, whose goroutines a stack names
// "kinformer/listwatch/internal/fastdecode.": hence the marker's lack of
// a dot).
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/listwatch") }

var epoch = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)

// deadline bounds every wait in these tests; reaching it is a failure.
const deadline = 10 * time.Second

// env is the in-process fake API server on a loopback socket, a fake clock
// driving its timeouts and bookmarks, and a Client pointed at it.
type env struct {
	srv    *fakeapiserver.Server
	hs     *httptest.Server
	clock  *clock.FakeClock
	client *Client
}

func newEnv(t *testing.T, opts fakeapiserver.Options) *env {
	t.Helper()
	clk := clock.NewFakeClock(epoch)
	if opts.Clock == nil {
		opts.Clock = clk
	}
	// The server's and the client's trace go to t.Log: under -v a test
	// shows each request from both ends (list served / list, frame sent /
	// frame decoded).
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	srv := fakeapiserver.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	c, err := NewClient(Config{Server: hs.URL, BearerToken: opts.Token, Tracer: opts.Tracer})
	require.NoError(t, err)
	return &env{srv: srv, hs: hs, clock: clk, client: c}
}

// pod is a minimal valid pod.
func pod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox"}}},
	}
}

// create stores obj through the server's Go API and returns it as stored.
func (e *env) create(t *testing.T, obj api.Object) api.Object {
	t.Helper()
	got, err := e.srv.Create(obj)
	require.NoError(t, err)
	return got
}

// next waits for the next event of w; the channel must not close first.
func next(t *testing.T, w Watch) Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.True(t, ok, "the watch ended; an event was expected")
		return ev
	case <-time.After(deadline):
		t.Fatal("no watch event within the deadline")
		return Event{}
	}
}

// requireClosed waits for w's channel to close, failing on any event.
func requireClosed(t *testing.T, w Watch) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.False(t, ok, "the watch should have ended, got %s %v", ev.Type, ev.Err)
	case <-time.After(deadline):
		t.Fatal("the watch did not end within the deadline")
	}
}

// names returns the names of objects.
func names[T api.Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}

// blockUntilWaiters waits until the fake clock has n timers.
func (e *env) blockUntilWaiters(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	require.NoError(t, e.clock.BlockUntilWaiters(ctx, n))
}

func ptr[T any](v T) *T { return &v }

// testWriter is an io.Writer that writes each line to t.Log after label,
// and drops what is written after the test has finished.
func testWriter(t testing.TB, label string) io.Writer {
	w := &tWriter{t: t, label: label}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return w
}

type tWriter struct {
	t     testing.TB
	label string
	mu    sync.Mutex
	done  bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		for line := range strings.Lines(string(p)) {
			w.t.Logf("%s: %s", w.label, strings.TrimSuffix(line, "\n"))
		}
	}
	return len(p), nil
}
