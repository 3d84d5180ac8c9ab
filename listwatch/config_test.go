package listwatch

import (
	"context"
	"encoding/pem"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/trace"
)

// tlsServer is the fake API server over HTTPS, requiring a bearer token,
// as a real cluster's API server (reference 08-auth-401-403.txt). It
// returns the server's URL and its CA as PEM.
func tlsServer(t *testing.T, token string) (serverURL string, caPEM []byte) {
	t.Helper()
	srv := fakeapiserver.New(fakeapiserver.Options{Token: token, Tracer: trace.ForTest(t)})
	hs := httptest.NewUnstartedServer(srv)
	// The HTTP server logs a TLS handshake a client breaks off (the client
	// that does not trust its certificate): to the test's log, labelled.
	hs.Config.ErrorLog = log.New(testWriter(t, "server's http log (expected when a client refuses the certificate)"), "", 0)
	hs.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
}

func listPods(c *Client) error {
	_, err := For[*api.Pod](c, Pods).List(context.Background(), "default", ListOptions{})
	return err
}

// The code path of a real cluster: HTTPS, the server's certificate checked
// against the cluster CA, a bearer token; list and watch both work.
func TestTLSWithCADataAndBearerToken(t *testing.T) {
	url, ca := tlsServer(t, "s3cret")
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAData: ca, BearerToken: "s3cret"})
	require.NoError(t, err)
	require.NoError(t, listPods(c))

	w, err := For[*api.Namespace](c, Namespaces).Watch(context.Background(), "", ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	ev := next(t, w)
	assert.Equal(t, api.Added, ev.Type, "the synthetic ADDED of an existing namespace, over TLS")

	anonymous, err := NewClient(Config{Server: url, CAData: ca}) // the same CA, no token
	require.NoError(t, err)
	errNoToken := listPods(anonymous)
	assert.True(t, IsUnauthorized(errNoToken), "%v", errNoToken)
	trace.Checkf(t, "the server checks the token: with the bearer token, list and watch over TLS succeed; without it: %v", errNoToken)
}

// A wrong token is 401 Unauthorized, as a Status the helpers recognize.
func TestTLSWrongTokenIsUnauthorized(t *testing.T) {
	url, ca := tlsServer(t, "s3cret")
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAData: ca, BearerToken: "wrong"})
	require.NoError(t, err)
	err = listPods(c)
	assert.True(t, IsUnauthorized(err), "%v", err)

	c, err = NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAData: ca})
	require.NoError(t, err)
	assert.True(t, IsUnauthorized(listPods(c)), "no token at all")
}

// CA and token from files, as kubectl's --certificate-authority and a
// mounted service-account token. The token file is read on every request,
// so a rotated token is picked up.
func TestTLSWithCAFileAndTokenFile(t *testing.T) {
	url, ca := tlsServer(t, "s3cret")
	dir := t.TempDir()
	caFile, tokenFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(caFile, ca, 0o600))
	require.NoError(t, os.WriteFile(tokenFile, []byte("expired-token\n"), 0o600))

	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAFile: caFile, BearerTokenFile: tokenFile, BearerToken: "ignored"})
	require.NoError(t, err)
	assert.True(t, IsUnauthorized(listPods(c)))

	require.NoError(t, os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600)) // the kubelet rotates it
	require.NoError(t, listPods(c))

	require.NoError(t, os.Remove(tokenFile))
	assert.ErrorContains(t, listPods(c), "reading the bearer token file")
}

// Without the cluster's CA the server's certificate is not trusted;
// --insecure-skip-tls-verify skips the check.
func TestTLSVerification(t *testing.T) {
	url, _ := tlsServer(t, "")
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: url})
	require.NoError(t, err)
	err = listPods(c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")

	c, err = NewClient(Config{Tracer: trace.ForTest(t), Server: url, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	assert.NoError(t, listPods(c))
}

// Bad configurations are refused by NewClient with a clear message.
func TestNewClientRejectsBadConfig(t *testing.T) {
	_, ca := tlsServer(t, "")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no server", Config{}, "Config.Server is empty"},
		{"other scheme", Config{Server: "ftp://example.com"}, "scheme must be http or https"},
		{"no host", Config{Server: "http://"}, "has no host"},
		{"CA and insecure", Config{Server: "https://x", CAData: ca, InsecureSkipTLSVerify: true}, "may not be combined"},
		{"CA data not PEM", Config{Server: "https://x", CAData: []byte("nope")}, "CAData holds no PEM certificate"},
		{"CA file missing", Config{Server: "https://x", CAFile: "/does/not/exist"}, "reading the CA file"},
		{"token file missing", Config{Server: "https://x", BearerTokenFile: "/does/not/exist"}, "reading the bearer token file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(tt.cfg)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A server without a scheme is http, unless TLS settings say https (as
// kubectl's --server does).
func TestServerWithoutScheme(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: strings.TrimPrefix(e.hs.URL, "http://")})
	require.NoError(t, err)
	assert.Equal(t, e.hs.URL, c.Server())
	require.NoError(t, listPods(c))

	url, ca := tlsServer(t, "")
	c, err = NewClient(Config{Tracer: trace.ForTest(t), Server: strings.TrimPrefix(url, "https://"), CAData: ca})
	require.NoError(t, err)
	assert.Equal(t, url, c.Server())
	require.NoError(t, listPods(c))
}

// Article: Kubernetes Controller 实现机制深度解析 (赵化冰) uses rest.InClusterConfig():
// a pod finds its API server through the KUBERNETES_SERVICE_* variables
// and authenticates with its mounted service-account token.
func TestInClusterConfig(t *testing.T) {
	serverURL, ca := tlsServer(t, "sa-token")
	host, port, err := net.SplitHostPort(strings.TrimPrefix(serverURL, "https://"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("sa-token"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600))
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)

	cfg, err := inClusterConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, Config{Server: serverURL, BearerTokenFile: filepath.Join(dir, "token"), CAFile: filepath.Join(dir, "ca.crt")}, cfg)
	c, err := NewClient(cfg)
	require.NoError(t, err)
	require.NoError(t, listPods(c), "the in-cluster config reaches the server over verified TLS with the token")

	t.Setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	cfg, err = inClusterConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, "https://[fd00::1]:443", cfg.Server, "an IPv6 service address")
}

func TestInClusterConfigErrors(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, err := InClusterConfig()
	assert.ErrorIs(t, err, ErrNotInCluster)

	t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	dir := t.TempDir()
	_, err = inClusterConfig(dir)
	assert.ErrorContains(t, err, "reading the service-account token")

	// A CA file that does not load is left out, as client-go does.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("t"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), []byte("garbage"), 0o600))
	cfg, err := inClusterConfig(dir)
	require.NoError(t, err)
	assert.Empty(t, cfg.CAFile)
}

// The connection flags every kinformer program takes.
func TestBindFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cfg := BindFlags(fs)
	require.NoError(t, fs.Parse([]string{"--server", "https://10.0.0.1:6443", "--token", "t", "--token-file", "/tok",
		"--ca-file", "/ca.crt", "--insecure-skip-tls-verify", "--request-timeout", "5s",
		"--client-certificate", "/me.crt", "--client-key", "/me.key", "--kubeconfig", "/kubeconfig", "--context", "kind-kind"}))
	assert.Equal(t, Config{Server: "https://10.0.0.1:6443", BearerToken: "t", BearerTokenFile: "/tok", CAFile: "/ca.crt",
		InsecureSkipTLSVerify: true, Timeout: 5 * time.Second, CertFile: "/me.crt", KeyFile: "/me.key",
		Kubeconfig: "/kubeconfig", Context: "kind-kind"}, *cfg)
}

// Config.Timeout bounds a request that is not a watch, and how long a
// watch waits for its response headers.
func TestTimeoutBoundsRequestsAndWatchHeaders(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer hs.Close()
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL, Timeout: 50 * time.Millisecond})
	require.NoError(t, err)

	err = listPods(c)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	ctx, cancel := context.WithTimeout(context.Background(), deadline) // fails, not hangs, if the header timeout is lost
	defer cancel()
	_, err = For[*api.Pod](c, Pods).Watch(ctx, "default", ListOptions{})
	assert.ErrorContains(t, err, "watch pods: no response headers within 50ms")
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}

// A command's flags without --server (or a kubeconfig: see TestResolve_Order) fall back to the given server outside
// a pod; with --server they are kept as they are.
func TestConfig_OrInClusterFallsBackOutsideAPod(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	cfg, err := Config{Timeout: 3 * time.Second}.OrInCluster("http://127.0.0.1:8080")
	require.NoError(t, err)
	require.Equal(t, Config{Server: "http://127.0.0.1:8080", Timeout: 3 * time.Second}, cfg)
	cfg, err = Config{Server: "https://example:6443"}.OrInCluster("http://127.0.0.1:8080")
	require.NoError(t, err)
	require.Equal(t, "https://example:6443", cfg.Server)
}

// The transport reads the socket in 64 KiB pieces, not net/http's default
// 4 KiB: a watch or a list body of hundreds of MB otherwise costs a system
// call every few KiB (docs/performance.md).
func TestTransportReadsInBigPieces(t *testing.T) {
	tr, err := Config{Server: "http://127.0.0.1:1"}.transport()
	require.NoError(t, err)
	require.Equal(t, 64<<10, tr.ReadBufferSize)
	require.Greater(t, tr.ReadBufferSize, http.DefaultTransport.(*http.Transport).ReadBufferSize)
}
