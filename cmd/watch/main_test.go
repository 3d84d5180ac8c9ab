package main

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/kinformer/kinformer/trace"
)

// TestMain fails if a test leaves a watch stream running.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/listwatch.") }

const deadline = 10 * time.Second

// program is run started in the background against a fake server.
type program struct {
	srv            *fakeapiserver.Server
	clock          *clock.FakeClock
	stdout, stderr *syncbuf.Buffer
	cancel         context.CancelFunc
	done           chan error
}

func newServer(t *testing.T, opts fakeapiserver.Options) (*fakeapiserver.Server, *httptest.Server, *clock.FakeClock) {
	t.Helper()
	clk := clock.NewFakeClock(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC))
	opts.Clock = clk
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t, trace.StageServer) // the server's side of the story
	}
	srv := fakeapiserver.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs, clk
}

// start runs the program with args (plus --server) against a fresh fake
// server holding the given pods.
func start(t *testing.T, args []string, pods ...*api.Pod) *program {
	t.Helper()
	srv, hs, clk := newServer(t, fakeapiserver.Options{})
	for _, p := range pods {
		_, err := srv.Create(p)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &program{srv: srv, clock: clk, stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	tell := newStory(t)
	stdout, stderr := tell.stream("stdout: ", p.stdout), tell.stream("stderr: ", p.stderr)
	go func() { p.done <- run(ctx, append([]string{"--server", hs.URL}, args...), stdout, stderr) }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// waitFor waits until stream holds s.
func waitFor(t *testing.T, stream *syncbuf.Buffer, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(stream.String(), s) }, deadline, time.Millisecond,
		"waiting for %q in:\n%s", s, stream)
}

// stop cancels the program and returns what run returned.
func (p *program) stop(t *testing.T) error {
	t.Helper()
	p.cancel()
	select {
	case err := <-p.done:
		p.done <- err // for a second stop (the cleanup)
		return err
	case <-time.After(deadline):
		t.Fatal("run did not return after its context was cancelled")
		return nil
	}
}

func pod(name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox"}}},
	}
}

// Article: Kubernetes Controller 实现机制深度解析 (赵化冰), "K8s HTTP API 的 List Watch 机制":
// list, then watch from the list's resourceVersion; create and delete a
// pod named test in another terminal and see ADDED, MODIFIED, DELETED.
func TestRunListsThenWatchesFromListResourceVersion(t *testing.T) {
	p := start(t, nil, pod("foo", nil), pod("bar", nil))
	waitFor(t, p.stderr, "listed 2 pods at resourceVersion 5; watching from there")

	_, err := p.srv.Create(pod("test", nil))
	require.NoError(t, err)
	_, err = p.srv.Delete("pods", "default", "test")
	require.NoError(t, err)
	waitFor(t, p.stdout, "DELETED")
	require.NoError(t, p.stop(t))

	assert.Equal(t, `LIST Pod default/bar 5
LIST Pod default/foo 4
ADDED Pod default/test 6
MODIFIED Pod default/test 7
DELETED Pod default/test 8
`, p.stdout.String())
	trace.Checkf(t, "listed at resourceVersion 5, watched from 5: only what changed after it (test@6, 7, 8)")
}

// When the server ends the watch cleanly, the program watches again from
// the last resourceVersion it saw: nothing is missed, nothing repeated.
func TestRunResumesFromLastResourceVersionWhenServerEndsWatch(t *testing.T) {
	p := start(t, nil)
	waitFor(t, p.stderr, "watching from there")
	_, err := p.srv.Create(pod("a", nil))
	require.NoError(t, err)
	waitFor(t, p.stdout, "ADDED Pod default/a 4")

	p.srv.CloseWatches()
	waitFor(t, p.stderr, "the server ended the watch; watching again from resourceVersion 4")
	_, err = p.srv.Create(pod("b", nil))
	require.NoError(t, err)
	waitFor(t, p.stdout, "ADDED Pod default/b 5")
	require.NoError(t, p.stop(t))
	assert.Equal(t, "ADDED Pod default/a 4\nADDED Pod default/b 5\n", p.stdout.String())
	assert.Equal(t, 2, p.srv.RequestCount("watch", "pods"))
	trace.Checkf(t, "%d watches, %d list: the second watch from resourceVersion 4, nothing missed, nothing repeated",
		p.srv.RequestCount("watch", "pods"), p.srv.RequestCount("list", "pods"))
}

// A watch that cannot go on gets the 410 ERROR frame; the program prints it
// and relists, as a Reflector does: the relist brings the pod whose event
// the watch missed. Here the fake server hides the pod's ADDED from the
// open watch (a drop fault), and when the drop ends it ends that watch with
// 410 Expired rather than let it go on past the hole.
func TestRunRelistsOnExpiredWatch(t *testing.T) {
	p := start(t, []string{"--retry-backoff", "1ms"})
	waitFor(t, p.stderr, "watching from there")
	require.Eventually(t, func() bool { return p.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)
	p.srv.DropEvents(func(fakeapiserver.Event) bool { return true }) // the open watch misses this pod...
	_, err := p.srv.Create(pod("missed", nil))
	require.NoError(t, err)
	p.srv.DropEvents(nil) // ...and so it ends with 410 Expired

	waitFor(t, p.stderr, "relisted 1 pods at resourceVersion 4; watching from there")
	assert.Contains(t, p.stderr.String(), "resourceVersion 3 is too old")
	_, err = p.srv.Create(pod("after", nil))
	require.NoError(t, err)
	waitFor(t, p.stdout, "ADDED Pod default/after 5")
	require.NoError(t, p.stop(t))
	assert.Regexp(t, `^ERROR Expired the watch missed the event at resourceVersion 4 .*\nLIST Pod default/missed 4\nADDED Pod default/after 5\n$`, p.stdout.String())
	trace.Checkf(t, "the 410 ERROR frame made it relist (%d lists): the missed pod came back with the list", p.srv.RequestCount("list", "pods"))
}

// --resource, --all-namespaces and --selector.
func TestRunFlags(t *testing.T) {
	t.Run("selector", func(t *testing.T) {
		p := start(t, []string{"--selector", "app=web"}, pod("web-0", map[string]string{"app": "web"}), pod("db-0", map[string]string{"app": "db"}))
		waitFor(t, p.stderr, "listed 1 pods")
		require.NoError(t, p.stop(t))
		assert.Equal(t, "LIST Pod default/web-0 4\n", p.stdout.String())
	})
	t.Run("cluster-scoped resource", func(t *testing.T) {
		p := start(t, []string{"--resource", "namespaces"})
		waitFor(t, p.stderr, "listed 3 namespaces")
		require.NoError(t, p.stop(t))
		assert.Equal(t, "LIST Namespace default 1\nLIST Namespace kube-public 3\nLIST Namespace kube-system 2\n", p.stdout.String())
	})
	t.Run("all namespaces", func(t *testing.T) {
		other := pod("sys", nil)
		other.Namespace = "kube-system"
		p := start(t, []string{"--all-namespaces"}, pod("a", nil), other)
		waitFor(t, p.stderr, "listed 2 pods")
		require.NoError(t, p.stop(t))
		assert.Equal(t, "LIST Pod default/a 4\nLIST Pod kube-system/sys 5\n", p.stdout.String())
	})
	t.Run("unknown resource", func(t *testing.T) {
		err := run(context.Background(), []string{"--server", "http://127.0.0.1:1", "--resource", "deployments"}, &syncbuf.Buffer{}, &syncbuf.Buffer{})
		assert.ErrorContains(t, err, `unknown --resource "deployments": want one of configmaps, namespaces, pods, replicasets`)
	})
	t.Run("stray argument", func(t *testing.T) {
		err := run(context.Background(), []string{"pods"}, &syncbuf.Buffer{}, &syncbuf.Buffer{})
		assert.ErrorContains(t, err, "unexpected arguments")
	})
}

// --bookmarks asks for BOOKMARK events; they name no object.
func TestRunBookmarks(t *testing.T) {
	p := start(t, []string{"--bookmarks"})
	waitFor(t, p.stderr, "watching from there")
	_, err := p.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "moves-the-version", Namespace: "default"}})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	require.NoError(t, p.clock.BlockUntilWaiters(ctx, 2)) // the watch's timeout and bookmark timers
	p.clock.Step(time.Minute)
	waitFor(t, p.stdout, "BOOKMARK Pod - 4\n")
}

// The flags of a real cluster: HTTPS, a CA file and a token file.
func TestRunOverTLSWithTokenAndCA(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{Token: "s3cret", Tracer: trace.ForTest(t, trace.StageServer)})
	_, err := srv.Create(pod("web-0", nil))
	require.NoError(t, err)
	hs := httptest.NewTLSServer(srv)
	defer hs.Close()
	defer srv.Close()
	dir := t.TempDir()
	caFile, tokenFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw}), 0o600))
	require.NoError(t, os.WriteFile(tokenFile, []byte("s3cret"), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	tell := newStory(t)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--server", hs.URL, "--ca-file", caFile, "--token-file", tokenFile},
			tell.stream("stdout: ", stdout), tell.stream("stderr: ", stderr))
	}()
	waitFor(t, stderr, "watching from there")
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, "LIST Pod default/web-0 4\n", stdout.String())
	trace.Checkf(t, "with the token from --token-file and the CA from --ca-file: listed and watched over HTTPS")

	err = run(context.Background(), []string{"--server", hs.URL, "--ca-file", caFile, "--token", "wrong"}, stdout, stderr)
	assert.ErrorContains(t, err, "list: Unauthorized")
	trace.Checkf(t, "with --token wrong: %v", err)
}
