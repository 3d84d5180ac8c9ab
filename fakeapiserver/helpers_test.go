package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/trace"
)

// TestMain fails the package if a test leaves a goroutine of this package
// running: every watch must end when its client or the server goes.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/fakeapiserver.") }

var epoch = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)

// env is a fake API server on a real loopback socket, driven by a fake clock.
type env struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	clock *clock.FakeClock
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	return newEnvIn(t, "", opts)
}

// newEnvIn is newEnv on a durable server in dir (in memory if dir is "").
func newEnvIn(t *testing.T, dir string, opts Options) *env {
	t.Helper()
	clk := clock.NewFakeClock(epoch)
	if opts.Clock == nil {
		opts.Clock = clk
	}
	// The server's trace goes to t.Log: under -v a test shows each commit,
	// list served, watch opened and frame sent.
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	srv, err := Open(dir, opts)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return &env{t: t, srv: srv, http: hs, clock: clk}
}

// response is a finished HTTP exchange.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) status(t *testing.T) *api.Status {
	t.Helper()
	var st api.Status
	require.NoError(t, json.Unmarshal(r.body, &st), "body: %s", r.body)
	require.Equal(t, "Status", st.Kind, "body: %s", r.body)
	return &st
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), "body: %s", r.body)
}

// requestClient sends the requests that are not watches; its timeout turns
// a request that wrongly never ends (a watch the server should have refused)
// into a failure instead of a hung test.
var requestClient = &http.Client{Timeout: 30 * time.Second}

// do sends one request. headers alternate name, value.
func (e *env) do(method, path, body string, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	require.NoError(e.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return e.send(req, headers...)
}

// send sends req with the headers (alternating name, value) and reads the
// whole answer.
func (e *env) send(req *http.Request, headers ...string) response {
	e.t.Helper()
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := requestClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

func (e *env) get(path string) response { return e.do(http.MethodGet, path, "") }

// createPod creates a pod through the Go API and returns it as stored.
func (e *env) createPod(ns, name string, labels map[string]string) *api.Pod {
	e.t.Helper()
	obj, err := e.srv.Create(testPod(ns, name, labels))
	require.NoError(e.t, err)
	return obj.(*api.Pod)
}

func testPod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}},
	}
}

// frame is one decoded watch frame.
type frame struct {
	Type   api.EventType   `json:"type"`
	Object json.RawMessage `json:"object"`
	raw    string
}

func (f frame) meta(t *testing.T) api.ObjectMeta {
	t.Helper()
	var o struct {
		Metadata api.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(f.Object, &o), "frame: %s", f.raw)
	return o.Metadata
}

// summary is "TYPE name@rv", enough to compare event sequences.
func (f frame) summary(t *testing.T) string {
	m := f.meta(t)
	return fmt.Sprintf("%s %s@%s", f.Type, m.Name, m.ResourceVersion)
}

// watchStream reads a watch response frame by frame.
type watchStream struct {
	t      *testing.T
	resp   *http.Response
	frames chan frame
	done   chan error
	cancel context.CancelFunc
}

func (e *env) watch(path string, headers ...string) *watchStream {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+path, nil)
	require.NoError(e.t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	ws := &watchStream{t: e.t, resp: resp, frames: make(chan frame, 1000), done: make(chan error, 1), cancel: cancel}
	go func() {
		defer close(ws.frames)
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var f frame
				f.raw = string(line)
				if jerr := json.Unmarshal(line, &f); jerr != nil {
					f.Type = "GARBAGE"
				}
				ws.frames <- f
			}
			if err != nil {
				ws.done <- err
				return
			}
		}
	}()
	e.t.Cleanup(ws.close)
	return ws
}

func (ws *watchStream) close() {
	ws.cancel()
	ws.resp.Body.Close()
}

// next waits for the next frame (failing after 10 s of real time).
func (ws *watchStream) next() frame {
	ws.t.Helper()
	select {
	case f, ok := <-ws.frames:
		require.True(ws.t, ok, "watch stream ended while a frame was expected")
		return f
	case <-time.After(10 * time.Second):
		ws.t.Fatal("no watch frame within 10s")
		return frame{}
	}
}

// nextN returns the summaries of the next n frames.
func (ws *watchStream) nextN(n int) []string {
	ws.t.Helper()
	var out []string
	for range n {
		out = append(out, ws.next().summary(ws.t))
	}
	return out
}

// ended waits for the stream to end and reports leftover frames.
func (ws *watchStream) ended() []frame {
	ws.t.Helper()
	var rest []frame
	for {
		select {
		case f, ok := <-ws.frames:
			if !ok {
				return rest
			}
			rest = append(rest, f)
		case <-time.After(10 * time.Second):
			ws.t.Fatal("watch stream did not end within 10s")
			return nil
		}
	}
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
