package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/internal/syncbuf"
)

// TestMain fails the package if a test leaves the server's goroutines (its
// Serve loop, a request handler) running after run returned.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/fakeapiserver.") }

// The program serves the seeded pods on the address it logs, requires the
// token when given one, and stops when its context ends.
func TestRun_ServesSeedsAndStops(t *testing.T) {
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", "2", "--token", "s3cret"}, &logs) }()

	urlRe := regexp.MustCompile(`listening" url=(http://\S+)`)
	var url string
	require.Eventually(t, func() bool {
		m := urlRe.FindStringSubmatch(logs.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)

	resp, err := http.Get(url + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/namespaces/default/pods", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var pods api.PodList
	require.NoError(t, json.Unmarshal(body, &pods))
	require.Len(t, pods.Items, 2)
	require.Contains(t, logs.String(), `url=/api/v1/namespaces/default/pods code=200`, "one log line per request")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

func TestRun_BadFlag(t *testing.T) {
	var logs syncbuf.Buffer
	err := run(context.Background(), []string{"--no-such-flag"}, &logs)
	require.Error(t, err)
	require.Contains(t, logs.String(), "flag provided but not defined")
}

// With --tls-dir the server speaks HTTPS with a CA it writes out, so a
// client can trust it the way it trusts a real cluster.
func TestRun_HTTPSWithGeneratedCA(t *testing.T) {
	dir := t.TempDir()
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", "1", "--tls-dir", dir, "--quiet"}, &logs)
	}()
	defer func() { cancel(); <-done }()
	urlRe := regexp.MustCompile(`listening" url=(https://\S+)`)
	var url string
	require.Eventually(t, func() bool {
		m := urlRe.FindStringSubmatch(logs.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)

	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(url + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	_, err = http.Get(url + "/api/v1/namespaces/default/pods")
	require.Error(t, err, "a client that does not trust the CA is refused")
	require.Contains(t, logs.String(), "--certificate-authority "+filepath.Join(dir, "ca.crt"))
}
