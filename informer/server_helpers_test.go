package informer

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/clock"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/stretchr/testify/require"
)

// serverEnv is the in-process fake API server over HTTP, a client for it,
// and a fake clock for the informers' Reflectors (backoff, resync).
type serverEnv struct {
	t      *testing.T
	srv    *fakeapiserver.Server
	client *listwatch.Client
	clock  *clock.FakeClock
}

func newServerEnv(t *testing.T, opts fakeapiserver.Options) *serverEnv {
	t.Helper()
	srv := fakeapiserver.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	c, err := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	require.NoError(t, err)
	return &serverEnv{t: t, srv: srv, client: c, clock: clock.NewFakeClock(time.Unix(0, 0))}
}

// podInformer returns an informer of the pods in namespace default, with
// the fake clock.
func (e *serverEnv) podInformer(kind QueueKind, optionsModifier func(*listwatch.ListOptions)) SharedIndexInformer {
	lw := listwatch.NewFilteredListWatchFromClient(e.client, listwatch.Pods, "default", optionsModifier)
	return NewSharedIndexInformerWithOptions(lw, &api.Pod{}, SharedIndexInformerOptions{Queue: kind, Clock: e.clock})
}

// create creates obj on the server and returns it as stored.
func (e *serverEnv) create(obj api.Object) api.Object {
	e.t.Helper()
	out, err := e.srv.Create(obj)
	require.NoError(e.t, err)
	return out
}

// update replaces obj on the server (unconditionally) and returns it as
// stored.
func (e *serverEnv) update(obj api.Object) api.Object {
	e.t.Helper()
	obj = obj.DeepCopyObject()
	obj.SetResourceVersion("")
	out, err := e.srv.Update(obj)
	require.NoError(e.t, err)
	return out
}

// eventually waits for cond, stepping the Reflectors' fake clock by 2 s
// between checks so that any backoff they are waiting out passes (the first
// backoff is at most 1.6 s).
func (e *serverEnv) eventually(cond func() bool, msgAndArgs ...any) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		if cond() {
			return true
		}
		e.clock.Step(2 * time.Second)
		return false
	}, 20*time.Second, 5*time.Millisecond, msgAndArgs...)
}

// serverKeys returns what the server holds of a resource in a namespace,
// in the form cachedKeys uses.
func (e *serverEnv) serverKeys(resource, namespace string) []string {
	e.t.Helper()
	objs, _, err := e.srv.List(resource, namespace)
	require.NoError(e.t, err)
	var out []string
	for _, o := range objs {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return out
}
