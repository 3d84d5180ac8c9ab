package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startRun runs the program with args until the test ends and returns the
// URL it logs and its log.
func startRun(t *testing.T, args ...string) (string, *syncbuf.Buffer) {
	t.Helper()
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &logs) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after its context ended")
		}
	})
	urlRe := regexp.MustCompile(`listening" url=(https?://\S+)`)
	var url string
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("run returned %v:\n%s", err, logs.String())
		default:
		}
		m := urlRe.FindStringSubmatch(logs.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)
	return url, &logs
}

func get(t *testing.T, method, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// --token-file keeps the token out of the process list, and the program
// never prints it: the log says one is required and the suggested lines
// read the file.
func TestRun_TokenFileIsNeverPrinted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("  hunter2-from-file\n"), 0o600))
	url, logs := startRun(t, "--addr", "127.0.0.1:0", "--token-file", file)

	code, _ := get(t, http.MethodGet, url+"/api/v1/namespaces/default/pods", "")
	require.Equal(t, http.StatusUnauthorized, code)
	code, _ = get(t, http.MethodGet, url+"/api/v1/namespaces/default/pods", "hunter2-from-file")
	require.Equal(t, http.StatusOK, code)

	out := logs.String()
	assert.NotContains(t, out, "hunter2")
	assert.Contains(t, out, "token=\"required (from --token-file "+file+")\"")
	assert.Contains(t, out, `curl -H "Authorization: Bearer $(cat `+file+`)"`)
	assert.Contains(t, out, `--token "$(cat `+file+`)" get pods -A`)
}

// $KINFORMER_TOKEN, when no flag gives one; --token is still accepted but
// not printed either.
func TestRun_TokenFromEnvironmentAndFlag(t *testing.T) {
	t.Setenv(tokenEnv, "hunter2-from-env")
	url, logs := startRun(t, "--addr", "127.0.0.1:0", "--quiet")
	code, _ := get(t, http.MethodGet, url+"/api/v1/namespaces/default/pods", "hunter2-from-env")
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, logs.String(), "hunter2")
	assert.Contains(t, logs.String(), `-H "Authorization: Bearer $KINFORMER_TOKEN"`)

	url, logs = startRun(t, "--addr", "127.0.0.1:0", "--quiet", "--token", "hunter2-flag")
	code, _ = get(t, http.MethodGet, url+"/api/v1/namespaces/default/pods", "hunter2-flag")
	require.Equal(t, http.StatusOK, code, "--token wins over the environment")
	assert.NotContains(t, logs.String(), "hunter2")
	assert.Contains(t, logs.String(), "with TOKEN set to the token you gave")
}

func TestRun_TokenMistakes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	for args, want := range map[string]string{
		"--token a --token-file " + empty:         "not both",
		"--token-file " + empty:                   "is empty",
		"--token-file " + filepath.Join(dir, "x"): "no such file",
	} {
		var logs syncbuf.Buffer
		err := run(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, strings.Fields(args)...), &logs)
		assert.ErrorContains(t, err, want, args)
	}
}

// Without a token, a request addressed to a foreign Host (a DNS-rebinding
// page) is refused; binding a non-loopback address without a token warns.
func TestRun_NoTokenRefusesForeignHostsAndWarns(t *testing.T) {
	url, logs := startRun(t, "--addr", "0.0.0.0:0", "--quiet")
	// The warning follows the "listening" line startRun waits for.
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "listening on a non-loopback address without a token")
	}, 5*time.Second, time.Millisecond, "%s", logs.String())
	u, err := neturl.Parse(url) // http://0.0.0.0:PORT or http://[::]:PORT
	require.NoError(t, err)
	url = "http://127.0.0.1:" + u.Port()

	req, err := http.NewRequest(http.MethodGet, url+"/api/v1/namespaces/default/pods", nil)
	require.NoError(t, err)
	req.Host = "attacker.example"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	var st struct{ Reason, Message string }
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, "Forbidden", st.Reason)
	assert.Contains(t, st.Message, `host "attacker.example" is not allowed`)

	code, _ := get(t, http.MethodGet, url+"/api/v1/namespaces/default/pods", "")
	require.Equal(t, http.StatusOK, code, "a loopback Host is answered")

	_, logs = startRun(t, "--addr", "127.0.0.1:0", "--quiet")
	require.NotContains(t, logs.String(), "non-loopback")
}

// --faults turns the fault endpoints on; without it they are 404.
func TestRun_FaultEndpoints(t *testing.T) {
	url, _ := startRun(t, "--addr", "127.0.0.1:0", "--quiet")
	code, _ := get(t, http.MethodPost, url+"/faults/compact", "")
	require.Equal(t, http.StatusNotFound, code)

	url, logs := startRun(t, "--addr", "127.0.0.1:0", "--quiet", "--faults", "--token", "s3cret")
	require.Contains(t, logs.String(), "/faults/close-watches")
	code, _ = get(t, http.MethodPost, url+"/faults/compact", "")
	require.Equal(t, http.StatusUnauthorized, code, "behind the token")
	code, body := get(t, http.MethodPost, url+"/faults/compact", "s3cret")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"did":"history compacted at resourceVersion`)
}
