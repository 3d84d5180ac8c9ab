package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/internal/syncbuf"
)

// TestMain fails if the program leaves a goroutine of kinformer's running
// after it returned: the controller, its informers, their watches.
func TestMain(m *testing.M) { leakcheck.Main(m, "github.com/kinformer/kinformer/") }

const deadline = 10 * time.Second

func webReplicaSet(replicas int32) *api.ReplicaSet {
	labels := map[string]string{"app": "web"}
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	}
}

// The program against a fake API server holding a ReplicaSet of 2: it
// creates the 2 pods, and when its context is cancelled (SIGINT) it drains,
// prints its counters and returns nil; with either informer.
func TestRun_CreatesPodsAndStopsCleanly(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) { createsPodsAndStopsCleanly(t, inf) })
	}
}

func createsPodsAndStopsCleanly(t *testing.T, inf string) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	_, err := srv.Create(webReplicaSet(2))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--server", hs.URL, "--workers", "1", "--trace", "--trace-stages", "controller", "--informer", inf}, stdout, stderr)
	}()

	require.Eventually(t, func() bool {
		obj, err := srv.Get("replicasets", "default", "web")
		return err == nil && obj.(*api.ReplicaSet).Status.Replicas == 2
	}, deadline, 10*time.Millisecond, "the controller creates 2 pods and writes the status")
	pods, _, err := srv.List("pods", "default")
	require.NoError(t, err)
	assert.Len(t, pods, 2)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(deadline):
		t.Fatal("run did not return after its context was cancelled")
	}
	assert.Contains(t, stdout.String(), "reconciling the ReplicaSets of namespace default on "+hs.URL+" with 1 workers (informer: "+inf+")")
	assert.Contains(t, stdout.String(), "stopped: reconciles=")
	assert.Contains(t, stdout.String(), "podsCreated=2 ")
	assert.Contains(t, stderr.String(), "controller: pod created key=default/web-")
	assert.Contains(t, stderr.String(), "controller: status written key=default/web")
	assert.NotContains(t, stderr.String(), "informer:", "--trace-stages controller prints only the controller's events")
	t.Log("stdout:\n" + stdout.String())
}

func TestRun_RejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--workers", "0"}, {"--no-such-flag"}, {"--informer", "1.33"}} {
		err := run(context.Background(), args, &syncbuf.Buffer{}, &syncbuf.Buffer{})
		assert.Error(t, err, "%q", args)
	}
}
