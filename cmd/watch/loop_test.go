package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the program against scripted servers that misbehave in
// one way each, with small timeouts, so each finishes in well under a
// second.

// scripted is an API server whose lists and watches the test writes.
type scripted struct {
	mu      sync.Mutex
	lists   int
	watches []url.Values // each watch request's query
	list    func(n int) string
	watch   func(n int, w http.ResponseWriter, r *http.Request)
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if r.URL.Query().Get("watch") != "true" {
		s.lists++
		n := s.lists
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, s.list(n))
		return
	}
	s.watches = append(s.watches, r.URL.Query())
	n := len(s.watches)
	s.mu.Unlock()
	s.watch(n, w, r)
}

func (s *scripted) watchQueries() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.watches...)
}

func podList(rv string, names ...string) string {
	items := make([]string, len(names))
	for i, n := range names {
		items[i] = fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default","resourceVersion":%q}}`, n, rv)
	}
	return fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q},"items":[%s]}`, rv, strings.Join(items, ","))
}

func frame(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q}}}`+"\n", typ, name, rv)
}

// startWatch flushes the watch's response headers.
func startWatch(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// hang blocks until the client goes away.
func hang(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// runAgainst starts the program against url; the test's cleanup stops it.
func runAgainst(t *testing.T, url string, args ...string) *program {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &program{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	tell := newStory(t)
	stdout, stderr := tell.stream("stdout: ", p.stdout), tell.stream("stderr: ", p.stderr)
	go func() { p.done <- run(ctx, append([]string{"--server", url}, args...), stdout, stderr) }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

func serveScript(t *testing.T, s *scripted) string {
	t.Helper()
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close) // after the program stopped: cleanups run last first
	return hs.URL
}

// waitDone waits for run to return by itself.
func (p *program) waitDone(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(deadline):
		t.Fatalf("run did not return; stderr:\n%s", p.stderr)
		return nil
	}
}

// A server that accepts connections and never answers: the list times
// out, is retried after a backoff, and --max-failures ends the program.
func TestLoop_SilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})

	start := time.Now()
	p := runAgainst(t, "http://"+ln.Addr().String(), "--request-timeout", "50ms", "--retry-backoff", "1ms", "--max-failures", "3")
	err = p.waitDone(t)
	require.ErrorContains(t, err, "giving up after 3 failures in a row: list: list pods: Get ")
	require.ErrorContains(t, err, "context deadline exceeded")
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, 2, strings.Count(p.stderr.String(), "; retrying in "), p.stderr.String())
}

// The list works but a watch's response headers never come: the watch
// request times out and is retried from the same version.
func TestLoop_WatchHeadersTimeOut(t *testing.T) {
	s := &scripted{list: func(int) string { return podList("10", "a") }, watch: hang}
	p := runAgainst(t, serveScript(t, s), "--request-timeout", "50ms", "--retry-backoff", "1ms", "--max-failures", "2")
	err := p.waitDone(t)
	require.ErrorContains(t, err, "giving up after 2 failures in a row: watch pods: no response headers within 50ms")
	assert.Contains(t, p.stderr.String(), "watch from resourceVersion 10: watch pods: no response headers within 50ms")
	for _, q := range s.watchQueries() {
		assert.Equal(t, "10", q.Get("resourceVersion"))
	}
}

// A watch whose headers come but then nothing, not even the end its
// timeoutSeconds asked for: given up after the idle limit and watched
// again, every time with timeoutSeconds.
func TestLoop_IdleWatchIsGivenUp(t *testing.T) {
	s := &scripted{list: func(int) string { return podList("10", "a") },
		watch: func(_ int, w http.ResponseWriter, r *http.Request) { startWatch(w); <-r.Context().Done() }}
	p := runAgainst(t, serveScript(t, s), "--watch-timeout", "7s", "--idle-timeout", "30ms", "--retry-backoff", "1ms")
	require.Eventually(t, func() bool { return len(s.watchQueries()) >= 3 }, deadline, time.Millisecond)
	require.NoError(t, p.stop(t))
	assert.Contains(t, p.stderr.String(), "watch from resourceVersion 10: no event for 30ms (the watch asked for timeoutSeconds=7): giving up on it; retrying in 1ms")
	for _, q := range s.watchQueries() {
		assert.Equal(t, "10", q.Get("resourceVersion"))
		assert.Equal(t, "7", q.Get("timeoutSeconds"))
	}
}

// Without --watch-timeout each watch asks for a random 5-10 minutes, as a
// Reflector's does.
func TestLoop_DefaultWatchTimeoutIsRandomFiveToTenMinutes(t *testing.T) {
	s := &scripted{list: func(int) string { return podList("10") },
		watch: func(n int, w http.ResponseWriter, r *http.Request) {
			startWatch(w)
			if n < 5 {
				io.WriteString(w, frame("ADDED", fmt.Sprint("p", n), fmt.Sprint(10+n)))
				return // ends the watch: the program watches again
			}
			<-r.Context().Done()
		}}
	p := runAgainst(t, serveScript(t, s))
	require.Eventually(t, func() bool { return len(s.watchQueries()) == 5 }, deadline, time.Millisecond)
	require.NoError(t, p.stop(t))
	for _, q := range s.watchQueries() {
		var secs int
		_, err := fmt.Sscan(q.Get("timeoutSeconds"), &secs)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, secs, 300)
		assert.LessOrEqual(t, secs, 600)
	}
}

// A server that ends every watch, cleanly or by cutting it mid-frame: the
// program watches again from the last resourceVersion it printed, with no
// relist and nothing missed or repeated.
func TestLoop_EndedWatchesResume(t *testing.T) {
	s := &scripted{list: func(int) string { return podList("10", "a") },
		watch: func(n int, w http.ResponseWriter, r *http.Request) {
			startWatch(w)
			switch n {
			case 1: // one event, then a clean end
				io.WriteString(w, frame("ADDED", "b", "11"))
			case 2: // one event, then the connection breaks mid-frame
				io.WriteString(w, frame("MODIFIED", "b", "12")+`{"type":"DELETED","obj`)
			case 3:
				io.WriteString(w, frame("DELETED", "b", "13"))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}
		}}
	p := runAgainst(t, serveScript(t, s))
	waitFor(t, p.stdout, "DELETED Pod default/b 13")
	require.NoError(t, p.stop(t))
	assert.Equal(t, "LIST Pod default/a 10\nADDED Pod default/b 11\nMODIFIED Pod default/b 12\nDELETED Pod default/b 13\n", p.stdout.String())
	assert.Contains(t, p.stderr.String(), "the server ended the watch; watching again from resourceVersion 11")
	assert.Contains(t, p.stderr.String(), "the watch broke (watch stream ended in the middle of a frame")
	assert.Contains(t, p.stderr.String(), "; watching again from resourceVersion 12")
	var rvs []string
	for _, q := range s.watchQueries() {
		rvs = append(rvs, q.Get("resourceVersion"))
	}
	assert.Equal(t, []string{"10", "11", "12"}, rvs)
	assert.Equal(t, 1, s.lists, "no relist")
}

// A server that answers the watch with 410: the program relists (printing
// the new list) and watches from the new list's version. A 500 is retried
// after a backoff from the same version.
func TestLoop_GoneRelistsOtherErrorsBackOff(t *testing.T) {
	s := &scripted{
		list: func(n int) string {
			if n == 1 {
				return podList("10", "a")
			}
			return podList("20", "a", "b")
		},
		watch: func(n int, w http.ResponseWriter, r *http.Request) {
			switch n {
			case 1:
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd is sad","reason":"InternalError","code":500}`)
			case 2:
				w.WriteHeader(http.StatusGone)
				io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 10 (15)","reason":"Expired","code":410}`)
			default:
				startWatch(w)
				<-r.Context().Done()
			}
		}}
	p := runAgainst(t, serveScript(t, s), "--retry-backoff", "1ms")
	waitFor(t, p.stderr, "relisted 2 pods at resourceVersion 20; watching from there")
	require.Eventually(t, func() bool { return len(s.watchQueries()) == 3 }, deadline, time.Millisecond)
	require.NoError(t, p.stop(t))
	assert.Equal(t, "LIST Pod default/a 10\nLIST Pod default/a 20\nLIST Pod default/b 20\n", p.stdout.String())
	assert.Contains(t, p.stderr.String(), "watch from resourceVersion 10: etcd is sad; retrying in 1ms")
	assert.Contains(t, p.stderr.String(), "resourceVersion 10 is too old (too old resource version: 10 (15)); relisting")
	var rvs []string
	for _, q := range s.watchQueries() {
		rvs = append(rvs, q.Get("resourceVersion"))
	}
	assert.Equal(t, []string{"10", "10", "20"}, rvs)
}
