package fakeapiserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// A server without a token answers only requests addressed to a loopback
// host, as kubectl proxy does: a DNS-rebinding page's request carries its
// own Host and is refused with a Status saying why.
func TestHostCheck_NoTokenRefusesForeignHosts(t *testing.T) {
	e := newEnv(t, Options{})
	for _, host := range []string{"attacker.example", "attacker.example:8080", "10.0.0.1:8080", "127.0.0.1.attacker.example", "[::2]:80"} {
		r := e.doHost(host, "/api/v1/namespaces/default/pods")
		require.Equal(t, http.StatusForbidden, r.code, "Host %q", host)
		st := r.status(t)
		assert.Equal(t, api.StatusReasonForbidden, st.Reason)
		assert.Contains(t, st.Message, fmt.Sprintf("host %q is not allowed", host))
		assert.Contains(t, st.Message, "DNS rebinding")
	}
	for _, host := range []string{"127.0.0.1", "127.0.0.1:8080", "127.1.2.3:80", "localhost", "LOCALHOST:9", "[::1]:8080", "::1"} {
		r := e.doHost(host, "/api/v1/namespaces/default/pods")
		require.Equal(t, http.StatusOK, r.code, "Host %q", host)
	}
	// httptest.NewServer's own URL (Host 127.0.0.1:port) works, as every
	// other test shows; /healthz is checked too.
	require.Equal(t, http.StatusForbidden, e.doHost("evil.example", "/healthz").code)
}

// A token, or AllowAnyHost, lifts the Host check.
func TestHostCheck_TokenOrAllowAnyHost(t *testing.T) {
	e := newEnv(t, Options{AllowAnyHost: true})
	require.Equal(t, http.StatusOK, e.doHost("attacker.example", "/api/v1/namespaces/default/pods").code)

	e = newEnv(t, Options{Token: "s3cret"})
	require.Equal(t, http.StatusUnauthorized, e.doHost("cluster.example", "/api/v1/namespaces/default/pods").code)
	require.Equal(t, http.StatusOK, e.doHost("cluster.example", "/api/v1/namespaces/default/pods", "Authorization", "Bearer s3cret").code)
}

// doHost sends a GET with the Host header set to host (as a browser page
// reached through DNS rebinding would send its own name).
func (e *env) doHost(host, path string, headers ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
	require.NoError(e.t, err)
	req.Host = host
	return e.send(req, headers...)
}

func TestTokenMatches(t *testing.T) {
	assert.True(t, tokenMatches("Bearer s3cret", "s3cret"))
	for _, h := range []string{"", "Bearer ", "Bearer s3cre", "Bearer s3cret ", "bearer s3cret", "Basic s3cret", "Bearer s3cretX"} {
		assert.False(t, tokenMatches(h, "s3cret"), "%q", h)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:80": true, "127.255.0.9:1": true, "[::1]:1": true, "::1": true, "[::1]": true,
		"localhost": true, "localhost:8080": true, "Localhost.": true,
		"": false, "0.0.0.0:80": false, "192.168.1.1": false, "example.com": false, "localhost.example.com": false,
		"[::2]:1": false, "128.0.0.1": false,
	} {
		assert.Equal(t, want, IsLoopbackHost(host), "%q", host)
	}
}

// serveForTest runs s.Serve on a free loopback port until the test ends.
func serveForTest(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// stalled opens n connections that each send what and then nothing, and
// counts those the server has closed.
func stalled(t *testing.T, addr string, n int, what string) *atomic.Int32 {
	t.Helper()
	var closed atomic.Int32
	for range n {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		_, err = io.WriteString(conn, what)
		require.NoError(t, err)
		go func() {
			_, _ = io.Copy(io.Discard, conn) // returns when the server closes it
			closed.Add(1)
		}()
	}
	return &closed
}

// Slow clients cannot hold connections: ones that send headers and then
// stall their body, ones that never finish their headers, and idle
// kept-alive ones are all closed within their timeout. A watch, which has
// no body, outlives them all.
func TestTimeouts_StalledClientsAreDisconnected(t *testing.T) {
	const n = 100
	s := New(Options{ReadHeaderTimeout: 150 * time.Millisecond, BodyTimeout: 150 * time.Millisecond, IdleTimeout: 150 * time.Millisecond})
	addr := serveForTest(t, s)

	watchReq, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/namespaces/default/pods?watch=true&resourceVersion=3", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := http.DefaultClient.Do(watchReq.WithContext(ctx))
	require.NoError(t, err)
	defer watch.Body.Close()
	require.Equal(t, http.StatusOK, watch.StatusCode)
	opened := time.Now()

	body := stalled(t, addr, n, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"metadata\":")
	headers := stalled(t, addr, n, "GET /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: localhost\r\nAccept: appl")
	idle := stalled(t, addr, n, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	for name, c := range map[string]*atomic.Int32{"stalled bodies": body, "stalled headers": headers, "idle": idle} {
		require.Eventually(t, func() bool { return c.Load() == n }, 3*time.Second, 5*time.Millisecond,
			"%s: %d of %d connections closed", name, c.Load(), n)
	}
	require.Greater(t, time.Since(opened), 150*time.Millisecond)

	// The watch is still open, past every timeout, and delivers.
	_, err = s.Create(testPod("default", "after", nil))
	require.NoError(t, err)
	line, err := bufio.NewReader(watch.Body).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"name":"after"`)
}

// A stalled body gets a 400 that says why before the connection closes.
func TestTimeouts_StalledBodyAnswers400(t *testing.T) {
	s := New(Options{BodyTimeout: 50 * time.Millisecond})
	addr := serveForTest(t, s)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)
	got, err := io.ReadAll(conn)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(got), "HTTP/1.1 400 Bad Request"), "%s", got)
	require.Contains(t, string(got), "the client did not send the body within 50ms")

	// A body sent in time is read as usual.
	resp, err := http.Post("http://"+addr+"/api/v1/namespaces/default/configmaps", "application/json",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok"}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
}
