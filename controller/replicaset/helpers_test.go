package replicaset

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// deadline bounds every wait for the controller to converge.
const deadline = 20 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// envConfig says how to set up a test's world.
type envConfig struct {
	server fakeapiserver.Options
	// resync is the informers' resync period: every step of their fake
	// clock past it queues every ReplicaSet again (0: none).
	resync time.Duration
	// before runs on the controller before Run (to set test knobs).
	before func(*ReplicaSetController)
	// informers, if set, changes the factory's options (the informers
	// client-go 1.36 runs: clientGo136).
	informers func(*informer.FactoryOptions)
	// options, if set, changes the controller's options.
	options func(*Options)
}

// clientGo136 makes the factory's informers run client-go 1.36's queue
// (RealFIFO with AtomicFIFO and the rest), whose caches report how far
// they have got (LastStoreSyncResourceVersion): what read-your-writes
// needs.
func clientGo136(o *informer.FactoryOptions) {
	o.Queue = informer.RealFIFOQueue
	o.RealFIFO = informer.ClientGo136()
}

// env is a running controller: an in-process fake API server over HTTP,
// a factory whose informers run on a fake clock, and the controller,
// stopped and checked when the test ends.
type env struct {
	t       *testing.T
	srv     *fakeapiserver.Server
	factory informer.SharedInformerFactory
	ctrl    *ReplicaSetController
	clock   *clock.FakeClock // the informers' (backoff, resync)
	// srvClock, if set, is the server's clock (lagging): eventually steps
	// it too, and with a watch delay it is what lets frames out.
	srvClock *clock.FakeClock
	story    *story
}

func start(t *testing.T, cfg envConfig) *env {
	t.Helper()
	srv := fakeapiserver.New(cfg.server)
	hs := httptest.NewServer(srv)
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	require.NoError(t, err)
	clk := clock.NewFakeClock(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC))
	fopts := informer.FactoryOptions{DefaultResync: cfg.resync, Namespace: api.NamespaceDefault, Clock: clk, Logger: quiet}
	if cfg.informers != nil {
		cfg.informers(&fopts)
	}
	factory := informer.NewSharedInformerFactory(client, fopts)
	st := newStory(t)
	opts := Options{Client: client, Factory: factory, Logger: quiet, Tracer: st.tracer}
	if cfg.options != nil {
		cfg.options(&opts)
	}
	ctrl, err := NewReplicaSetController(opts)
	require.NoError(t, err)
	if cfg.before != nil {
		cfg.before(ctrl)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err, "Run")
		case <-time.After(deadline):
			t.Error("Run did not return after its context ended")
		}
		factory.Shutdown()
		srv.Close()
		hs.Close()
	})
	return &env{t: t, srv: srv, factory: factory, ctrl: ctrl, clock: clk, story: st}
}

// eventually waits for cond, stepping the informers' fake clock by 2 s
// between checks, so that a Reflector's backoff passes and, with a resync
// period, every ReplicaSet is queued again.
func (e *env) eventually(cond func() bool, msgAndArgs ...any) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		if cond() {
			return true
		}
		e.clock.Step(2 * time.Second)
		if e.srvClock != nil {
			e.srvClock.Step(time.Second)
		}
		return false
	}, deadline, 10*time.Millisecond, msgAndArgs...)
}

// newReplicaSet is a ReplicaSet of app=<name> pods running nginx.
func newReplicaSet(name string, replicas int32) *api.ReplicaSet {
	labels := map[string]string{"app": name}
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Namespace: api.NamespaceDefault, Name: name},
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

// createRS creates a ReplicaSet on the server.
func (e *env) createRS(name string, replicas int32) *api.ReplicaSet {
	e.t.Helper()
	obj, err := e.srv.Create(newReplicaSet(name, replicas))
	require.NoError(e.t, err)
	return obj.(*api.ReplicaSet)
}

// rs reads a ReplicaSet from the server.
func (e *env) rs(name string) *api.ReplicaSet {
	e.t.Helper()
	obj, err := e.srv.Get("replicasets", api.NamespaceDefault, name)
	require.NoError(e.t, err)
	return obj.(*api.ReplicaSet)
}

// scale sets a ReplicaSet's spec.replicas on the server, as `kubectl scale`.
func (e *env) scale(name string, replicas int32) {
	e.t.Helper()
	rs := e.rs(name)
	rs.Spec.Replicas = &replicas
	rs.ResourceVersion = "" // unconditional: the controller writes the status meanwhile
	_, err := e.srv.Update(rs)
	require.NoError(e.t, err)
}

// pods returns the pods on the server that the ReplicaSet controls, by name.
// It is safe to call from require.Eventually's goroutine.
func (e *env) pods(rsName string) []*api.Pod {
	rs, err := e.srv.Get("replicasets", api.NamespaceDefault, rsName)
	if err != nil {
		return nil
	}
	objs, _, err := e.srv.List("pods", api.NamespaceDefault)
	if err != nil {
		return nil
	}
	var pods []*api.Pod
	for _, obj := range objs {
		pod := obj.(*api.Pod)
		if ref := api.GetControllerOf(pod); ref != nil && ref.UID == rs.GetUID() {
			pods = append(pods, pod)
		}
	}
	slices.SortFunc(pods, func(a, b *api.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	return pods
}

// converged reports whether the server has replicas pods for the
// ReplicaSet and its status says so for its current generation.
func (e *env) converged(name string, replicas int) bool {
	obj, err := e.srv.Get("replicasets", api.NamespaceDefault, name)
	if err != nil {
		return false
	}
	rs := obj.(*api.ReplicaSet)
	return len(e.pods(name)) == replicas && int(rs.Status.Replicas) == replicas &&
		rs.Status.ObservedGeneration == rs.Generation
}

// setReady marks a pod Running and Ready on the server, as a kubelet would.
func (e *env) setReady(name string) {
	e.t.Helper()
	obj, err := e.srv.Get("pods", api.NamespaceDefault, name)
	require.NoError(e.t, err)
	pod := obj.(*api.Pod)
	pod.Status.Phase = api.PodRunning
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	_, err = e.srv.UpdateStatus(pod)
	require.NoError(e.t, err)
}

func names(pods []*api.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// story records every trace event, and writes the controller's to t.Log,
// so `go test -run X -v` tells what the controller did and a passing test
// without -v prints nothing (trace.ForTest, plus a record to assert on).
type story struct {
	tracer *trace.Tracer
	mu     sync.Mutex
	events []trace.Event
	done   bool
}

func newStory(t *testing.T) *story {
	s := &story{}
	t.Cleanup(func() {
		s.mu.Lock()
		s.done = true
		s.mu.Unlock()
	})
	s.tracer = trace.New(trace.Func(func(ev trace.Event) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.events = append(s.events, ev)
		if !s.done && ev.Stage == trace.StageController {
			t.Logf("%s", ev)
		}
	}))
	return s
}

// find returns the controller's events named what about key, in order.
func (s *story) find(what, key string) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []trace.Event
	for _, ev := range s.events {
		if ev.Stage == trace.StageController && ev.What == what && ev.Key() == key {
			out = append(out, ev)
		}
	}
	return out
}
