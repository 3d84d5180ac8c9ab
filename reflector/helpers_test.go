package reflector

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/reflector.") }

var epoch = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)

// recordingStore writes down every call the reflector makes, as text:
// "Replace [a@4 b@5] @5", "Add c@6", "Update c@7", "Delete c@8", "Resync".
type recordingStore struct {
	mu    sync.Mutex
	calls []string
	fail  error // returned by Resync when set
}

func (s *recordingStore) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func nameRV(o api.Object) string { return o.GetName() + "@" + o.GetResourceVersion() }

func (s *recordingStore) Add(o api.Object) error    { s.record("Add " + nameRV(o)); return nil }
func (s *recordingStore) Update(o api.Object) error { s.record("Update " + nameRV(o)); return nil }
func (s *recordingStore) Delete(o api.Object) error { s.record("Delete " + nameRV(o)); return nil }
func (s *recordingStore) Resync() error {
	s.record("Resync")
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fail
}
func (s *recordingStore) Replace(list []api.Object, rv string) error {
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = nameRV(o)
	}
	s.record(fmt.Sprintf("Replace [%s] @%s", strings.Join(names, " "), rv))
	return nil
}

func (s *recordingStore) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// waitForSynced waits until the reflector's last synced version is rv. The
// store is written before the version moves (client-go's order: a crash
// between the two re-delivers an event, never skips one), so a test that has
// just seen the store write must wait for the version too, not read it.
func waitForSynced(t *testing.T, r *Reflector, rv string) {
	t.Helper()
	require.Eventually(t, func() bool { return r.LastSyncResourceVersion() == rv },
		10*time.Second, time.Millisecond, "last synced version never reached %s; it is %q", rv, r.LastSyncResourceVersion())
}

// waitFor waits until the store has received call (matched by prefix).
func (s *recordingStore) waitFor(t *testing.T, call string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, c := range s.Calls() {
			if strings.HasPrefix(c, call) {
				return true
			}
		}
		return false
	}, 10*time.Second, time.Millisecond, "store never got %q; got %q", call, s.Calls())
}

// recordingLW wraps a ListerWatcher and writes down the options of every
// call, so a test can check which resourceVersion each list and watch asked
// for. beforeList runs before the n-th list (0-based); a closed-over gate in
// it lets a test act between pages.
type recordingLW struct {
	inner      listwatch.ListerWatcher
	mu         sync.Mutex
	lists      []listwatch.ListOptions
	watches    []listwatch.ListOptions
	beforeList func(n int)
	watchGate  chan struct{} // when set, Watch waits for it to close
}

func (l *recordingLW) List(ctx context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
	l.mu.Lock()
	n := len(l.lists)
	l.lists = append(l.lists, opts)
	hook := l.beforeList
	l.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return l.inner.List(ctx, opts)
}

func (l *recordingLW) Watch(ctx context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
	l.mu.Lock()
	l.watches = append(l.watches, opts)
	gate := l.watchGate
	l.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return l.inner.Watch(ctx, opts)
}

func (l *recordingLW) Lists() []listwatch.ListOptions {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lists)
}

func (l *recordingLW) Watches() []listwatch.ListOptions {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.watches)
}

func (l *recordingLW) setWatchGate(g chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watchGate = g
}

// env is a fake API server and a reflector of its pods in "default", both
// on one fake clock.
type env struct {
	t      *testing.T
	srv    *fakeapiserver.Server
	clock  *clock.FakeClock
	lw     *recordingLW
	store  *recordingStore
	errs   *errorLog
	opts   Options
	cancel context.CancelFunc
	done   chan struct{}
}

type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (e *errorLog) add(_ *Reflector, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, err)
}

func (e *errorLog) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.errs)
}

func newEnv(t *testing.T, srvOpts fakeapiserver.Options) *env {
	t.Helper()
	clk := clock.NewFakeClock(epoch)
	srvOpts.Clock = clk
	tracer := trace.ForTest(t) // the server's and the reflector's events, in order, under -v
	srvOpts.Tracer = tracer
	srv := fakeapiserver.New(srvOpts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	c, err := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	require.NoError(t, err)
	e := &env{
		t: t, srv: srv, clock: clk,
		lw:    &recordingLW{inner: listwatch.NewFilteredListWatchFromClient(c, listwatch.Pods, "default", nil)},
		store: &recordingStore{},
		errs:  &errorLog{},
	}
	e.opts = Options{
		ExpectedType:      &api.Pod{},
		Clock:             clk,
		Backoff:           Backoff{Initial: time.Second, Cap: 8 * time.Second, Factor: 2, ResetAfter: 2 * time.Minute},
		WatchErrorHandler: e.errs.add,
		Tracer:            tracer,
		Logger:            testLogger(t),
	}
	return e
}

// run starts the reflector; it is stopped at cleanup.
func (e *env) run() *Reflector {
	e.t.Helper()
	r := New(e.lw, e.store, e.opts)
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.done = make(chan struct{})
	go func() {
		defer close(e.done)
		r.Run(ctx)
	}()
	e.t.Cleanup(e.stop)
	return r
}

func (e *env) stop() {
	e.cancel()
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		e.t.Fatal("reflector did not stop within 10s of its context ending")
	}
}

func (e *env) createPod(name string) *api.Pod {
	e.t.Helper()
	obj, err := e.srv.Create(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}},
	})
	require.NoError(e.t, err)
	return obj.(*api.Pod)
}

// waitWatching waits until the reflector has n watches open on the server.
func (e *env) waitWatching(n int) {
	e.t.Helper()
	require.Eventually(e.t, func() bool { return e.srv.OpenWatches("pods") == n }, 10*time.Second, time.Millisecond,
		"want %d open watches, have %d", n, e.srv.OpenWatches("pods"))
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fakeWatch is a hand-driven listwatch.Watch for events a real server would
// not send (objects of the wrong type, a stream that ends at once).
type fakeWatch struct {
	ch   chan listwatch.Event
	once sync.Once
	stop chan struct{}
}

func newFakeWatch(events ...listwatch.Event) *fakeWatch {
	w := &fakeWatch{ch: make(chan listwatch.Event, len(events)+1), stop: make(chan struct{})}
	for _, ev := range events {
		w.ch <- ev
	}
	return w
}

func (w *fakeWatch) ResultChan() <-chan listwatch.Event { return w.ch }
func (w *fakeWatch) Stop()                              { w.once.Do(func() { close(w.stop) }) }

func pod(name, rv string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: rv}}
}

// runOn starts a reflector of lw into store; it is stopped, and waited for,
// at cleanup. Unless opts say otherwise, its trace and its log go to t.Log.
func runOn(t *testing.T, lw listwatch.ListerWatcher, store Store, opts Options) *Reflector {
	t.Helper()
	opts = storyOptions(t, opts)
	r := New(lw, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r
}

// receive waits for a value on ch, failing after 10 s.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received within 10s")
		var zero T
		return zero
	}
}

// storyOptions gives opts a Tracer and a Logger that write through t.Log
// (if they have none), so that `go test -run X -v` tells what the
// reflector did, hop by hop, and a plain `go test` prints nothing.
func storyOptions(t *testing.T, opts Options) Options {
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	return opts
}

// testLogger is a Logger for a reflector in a test: its lines go to t.Log,
// labelled as expected (tests provoke failures on purpose), and lines
// logged after the test has ended are dropped.
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.done)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{} // the same lines every run
			}
			return a
		},
	}))
}

type testWriter struct {
	t     *testing.T
	mu    sync.Mutex
	ended bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.t.Logf("log (expected in this test): %s", strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
}

// story narrates a test's own actions (what the fake server or
// ListerWatcher is made to do) between the reflector's trace lines.
func story(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("story: "+format, args...)
}
