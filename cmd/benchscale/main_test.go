package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/syncbuf"
)

// TestMain makes the test binary the server process when the run under
// test starts it again (as the command starts itself: startServer).
func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		if err := serveMain(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "benchscale server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The whole run at a thousand pods: two processes, the informer syncs every
// pod and handles every update, and the report says so. (The times it
// reports are not checked: only make bench-scale's are worth reading.)
func TestRun_AThousandPodsThenAThousandUpdates(t *testing.T) {
	var out bytes.Buffer
	var progress syncbuf.Buffer // the server's stderr is copied into it too
	err := run(t.Context(), []string{"-pods", "1000", "-updates", "1500", "-batch", "100"}, &out, &progress)
	require.NoError(t, err, "progress:\n%s", progress.String())
	t.Logf("the report:\n%s", &out)
	report := out.String()
	require.Contains(t, report, "benchscale: 1,000 pods of 3,954 B of JSON, 1,500 updates, today's informer")
	require.Contains(t, report, "1,000 pods cached, 1,000 added")
	require.Contains(t, report, "updates:  1,500 handled in")
	require.Regexp(t, `peak RSS: (informer [0-9.]+ GiB \(pid \d+, below the 4 GiB limit\); server [0-9.]+ GiB|not measured)`, report)
}

// Each update is the pod the server holds with one more restart: the same
// name, uid and node, a resourceVersion the server stamps.
func TestPodTemplate_UpdatesAreTheSamePodRestarted(t *testing.T) {
	tmpl := newPodTemplate()
	var first, again api.Pod
	a, b := tmpl.appendPod(nil, 12_345, 0), tmpl.appendPod(nil, 12_345, 2)
	require.NoError(t, json.Unmarshal(a, &first))
	require.NoError(t, json.Unmarshal(b, &again))
	require.Equal(t, "web-7d9f8b6c5d-0012345", first.Name)
	require.Equal(t, "node-2345", first.Spec.NodeName)
	require.Equal(t, fmt.Sprintf("%08x-6dde-4e82-83f3-%012x", 12_345, 12_345*7919), first.UID)
	require.Equal(t, first.ObjectMeta, again.ObjectMeta)
	require.Contains(t, string(a), `"restartCount":0`)
	require.Contains(t, string(b), `"restartCount":2`)
	require.Equal(t, len(a)+0, len(b), "one digit for another")
	require.NotContains(t, string(a), "__")
	other := tmpl.appendPod(nil, 12_346, 0)
	var p api.Pod
	require.NoError(t, json.Unmarshal(other, &p))
	require.NotEqual(t, first.UID, p.UID)
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1_000_000: "1,000,000", -12345: "-12,345"} {
		require.Equal(t, want, thousands(n))
	}
}

// Bad flags are refused before anything starts.
func TestRun_RefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-pods", "0"}, {"-informer", "tomorrow"}, {"-batch", "-1"}} {
		err := run(t.Context(), args, new(bytes.Buffer), new(syncbuf.Buffer))
		require.Error(t, err, strings.Join(args, " "))
	}
}

// A run whose context ends stops, and takes its server process with it
// (stop waits for it to exit).
func TestRun_EndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := run(ctx, []string{"-pods", "1000", "-updates", "10", "-batch", "100"}, new(bytes.Buffer), new(syncbuf.Buffer))
	require.ErrorIs(t, err, context.Canceled)
}
