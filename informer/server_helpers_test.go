package informer

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// serverEnv is the in-process fake API server over HTTP, a client for it,
// and a fake clock for the informers' Reflectors (backoff, resync).
type serverEnv struct {
	t      *testing.T
	srv    *fakeapiserver.Server
	client *listwatch.Client
	clock  *clock.FakeClock
	// tracer writes the trace of every stage (server, listwatch, and the
	// informers podInformer builds) to t.Log.
	tracer *trace.Tracer
	// logger is the informers' logger; nil: testLogger.
	logger *slog.Logger
	// counted are the ListerWatchers listWatch built, by resource.
	counted map[string][]*listCounter
}

// expectWarnings marks the informers' warnings as provoked by the test:
// they are logged labelled "(expected in this test)".
func (e *serverEnv) expectWarnings() { e.logger = expectedLogs(e.t) }

func newServerEnv(t *testing.T, opts fakeapiserver.Options) *serverEnv {
	t.Helper()
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	srv := fakeapiserver.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	c, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: opts.Tracer})
	require.NoError(t, err)
	return &serverEnv{t: t, srv: srv, client: c, clock: clock.NewFakeClock(time.Unix(0, 0)), tracer: opts.Tracer}
}

// podInformer returns an informer of the pods in namespace default, with
// the fake clock.
func (e *serverEnv) podInformer(kind QueueKind, optionsModifier func(*listwatch.ListOptions)) SharedIndexInformer {
	lw := e.listWatch(listwatch.Pods, optionsModifier)
	return NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(e.t, SharedIndexInformerOptions{Queue: kind, Clock: e.clock, Tracer: e.tracer, Logger: e.logger}))
}

// listWatch returns a ListerWatcher of r in namespace default whose lists
// lists counts.
func (e *serverEnv) listWatch(r listwatch.Resource, optionsModifier func(*listwatch.ListOptions)) listwatch.ListerWatcher {
	c := &listCounter{ListerWatcher: listwatch.NewFilteredListWatchFromClient(e.client, r, "default", optionsModifier)}
	if e.counted == nil {
		e.counted = map[string][]*listCounter{}
	}
	e.counted[r.Resource] = append(e.counted[r.Resource], c)
	return c
}

// lists is how many times the informers of resource (built through
// listWatch) listed it, by either way: a paged LIST (the articles'
// informer) or a streaming list (today's: a watch with
// sendInitialEvents, which the server counts as a watch).
func (e *serverEnv) lists(resource string) int {
	n := 0
	for _, c := range e.counted[resource] {
		n += int(c.lists.Load())
	}
	return n
}

// watches is how many plain watches (not streaming lists) the informers
// of resource opened through listWatch.
func (e *serverEnv) watches(resource string) int {
	n := 0
	for _, c := range e.counted[resource] {
		n += int(c.watches.Load())
	}
	return n
}

// listCounter counts the lists and watches a ListerWatcher serves; a
// watch with SendInitialEvents is a streaming list, and counts as a list.
type listCounter struct {
	listwatch.ListerWatcher
	lists, watches atomic.Int32
}

func (c *listCounter) List(ctx context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
	if opts.Continue == "" { // the first page
		c.lists.Add(1)
	}
	return c.ListerWatcher.List(ctx, opts)
}

func (c *listCounter) Watch(ctx context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		c.lists.Add(1)
	} else {
		c.watches.Add(1)
	}
	return c.ListerWatcher.Watch(ctx, opts)
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

// faultStory returns a Tracer for a test that moves hundreds of objects
// through faults: it writes to t.Log the faults the server injects, its
// compactions and refused watches, the Reflector's phases and lists, and
// the tombstones relists queue, and leaves out the per-object hops.
func faultStory(t testing.TB) *trace.Tracer {
	logged := trace.ForTest(t)
	return trace.New(trace.Func(func(e trace.Event) {
		show := false
		switch e.Stage {
		case trace.StageServer:
			show = strings.HasPrefix(e.What, "fault: ") || e.What == "history compacted" || e.What == "watch refused"
		case trace.StageReflector:
			show = e.What == "phase" || e.What == "listed"
		case trace.StageDeltaFIFO:
			show = e.What == "tombstone queued"
		}
		if show {
			reemit(logged, e)
		}
	}))
}

// randomWrite makes op's write to one of n configmaps in default, picked by
// rnd: a create if it does not exist (live says), else a delete one time in
// four, else an update. The chaos tests drive the server with it.
func (e *serverEnv) randomWrite(rnd *rand.Rand, live map[string]bool, n, op int) {
	e.t.Helper()
	name := fmt.Sprintf("cm-%02d", rnd.IntN(n))
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"op": strconv.Itoa(op)}}
	switch {
	case !live[name]:
		e.create(cm)
		live[name] = true
	case rnd.IntN(4) == 0:
		_, err := e.srv.Delete("configmaps", "default", name)
		require.NoError(e.t, err)
		delete(live, name)
	default:
		e.update(cm)
	}
}
