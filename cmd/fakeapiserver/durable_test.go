package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/kinformer/kinformer/listwatch"
)

// childArgsEnv carries the program's arguments to a child process: the test
// binary re-run as the server (TestServerChildProcess), so the parent can
// kill -9 a real process and start another on the same data dir.
const childArgsEnv = "KINFORMER_FAKEAPISERVER_CHILD_ARGS"

// TestServerChildProcess is not a test: in a child started by startChild it
// runs the program until killed (or SIGTERM); otherwise it does nothing.
func TestServerChildProcess(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("only runs as the child of TestKill9_AcknowledgedWritesSurvive")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := run(ctx, strings.Split(args, "\n"), os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type child struct {
	cmd  *exec.Cmd
	logs *syncbuf.Buffer
	url  string
	done chan error
}

// startChild runs the server in a child process and waits for the URL it
// logs.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerChildProcess$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\n"))
	c := &child{cmd: cmd, logs: &syncbuf.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr, cmd.Stdout = c.logs, c.logs
	require.NoError(t, cmd.Start())
	go func() { c.done <- cmd.Wait() }()
	t.Cleanup(func() { c.kill(syscall.SIGKILL) })
	urlRe := regexp.MustCompile(`listening" url=(http://\S+)`)
	require.Eventually(t, func() bool {
		if m := urlRe.FindStringSubmatch(c.logs.String()); m != nil {
			c.url = m[1]
			return true
		}
		select {
		case err := <-c.done:
			c.done <- err
			t.Fatalf("child exited (%v): %s", err, c.logs.String())
		default:
		}
		return false
	}, 20*time.Second, 5*time.Millisecond)
	return c
}

func (c *child) kill(sig syscall.Signal) {
	_ = c.cmd.Process.Signal(sig)
	err := <-c.done
	c.done <- err
}

// podVersions lists the pods of namespace default as name -> resourceVersion.
func podVersions(t *testing.T, base string) map[string]string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var l api.PodList
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&l))
	out := map[string]string{}
	for _, p := range l.Items {
		out[p.Name] = p.ResourceVersion
	}
	return out
}

// THE durability test. A real server process with --data-dir takes creates
// from several concurrent HTTP clients, each recording the writes it got an
// answer for, with their resourceVersions; it is SIGKILLed in the middle of
// them and started again on the same data dir and address. Every
// acknowledged write must be there with its resourceVersion, --seed must not
// seed a data dir that has data, and an informer that ran across the crash
// must converge on the restarted server's state (its watch from an old
// version gets 410, it relists).
func TestKill9_AcknowledgedWritesSurvive(t *testing.T) {
	dir := t.TempDir()
	first := startChild(t, "--addr", "127.0.0.1:0", "--data-dir", dir, "--seed", "2", "--quiet")
	require.Contains(t, podVersions(t, first.url), "seed-0", "a fresh data dir is seeded")

	client, err := listwatch.NewClient(listwatch.Config{Server: first.url})
	require.NoError(t, err)
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	pods := factory.InformerFor(listwatch.Pods)
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	require.True(t, informer.WaitForCacheSync(ctx, pods.HasSynced))

	// Concurrent writers; each stops at its first failed request (the kill).
	var mu sync.Mutex
	acked := map[string]string{}
	httpc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := 0; ; i++ {
				name := fmt.Sprintf("w%d-%04d", w, i)
				body := `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
				resp, err := httpc.Post(first.url+"/api/v1/namespaces/default/pods", "application/json", strings.NewReader(body))
				if err != nil {
					return
				}
				var p api.Pod
				derr := json.NewDecoder(resp.Body).Decode(&p)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated || derr != nil {
					return
				}
				mu.Lock()
				acked[name] = p.ResourceVersion
				mu.Unlock()
			}
		})
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 300
	}, 20*time.Second, time.Millisecond)
	first.kill(syscall.SIGKILL) // mid-writes
	wg.Wait()
	httpc.CloseIdleConnections()
	t.Logf("%d writes acknowledged before kill -9", len(acked))

	u, err := url.Parse(first.url)
	require.NoError(t, err)
	second := startChild(t, "--addr", u.Host, "--data-dir", dir, "--seed", "5", "--quiet")
	require.Equal(t, first.url, second.url)
	t.Logf("restarted: %s", regexp.MustCompile(`recovery="[^"]*"`).FindString(second.logs.String()))
	after := podVersions(t, second.url)
	for name, rv := range acked {
		require.Equal(t, rv, after[name], "acknowledged write %s", name)
	}
	require.NotContains(t, after, "seed-4", "--seed does not seed a data dir that has data")

	// One more write after the restart, then the informer must hold exactly
	// what the server lists.
	resp, err := http.Post(second.url+"/api/v1/namespaces/default/pods", "application/json",
		strings.NewReader(`{"metadata":{"name":"after-restart"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	var cached, listed map[string]string
	require.Eventually(t, func() bool {
		listed = podVersions(t, second.url)
		cached = map[string]string{}
		for _, obj := range pods.GetIndexer().List() {
			p := obj.(*api.Pod)
			cached[p.Name] = p.ResourceVersion
		}
		return len(cached) == len(listed) && fmt.Sprint(cached) == fmt.Sprint(listed)
	}, 20*time.Second, 10*time.Millisecond, "the informer converges on the restarted server")

	second.kill(syscall.SIGTERM)
}
