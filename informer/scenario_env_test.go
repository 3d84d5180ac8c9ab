package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// scEnv is one running script: the fake server on an in-memory listener, a
// client, the informer (with its queue behind a gate), the handlers, the
// work queue and the stepped worker, all inside one synctest bubble.
type scEnv struct {
	t      *testing.T
	tracer *trace.Tracer
	out    *scOutput

	serverOpts fakeapiserver.Options
	srv        *fakeapiserver.Server
	ln         *scListener
	client     *listwatch.Client
	stopServer context.CancelFunc
	serverDone chan struct{}

	pipeline  Pipeline // the informer the script runs under (runScenarioScript)
	resource  listwatch.Resource
	queueKind QueueKind
	resync    time.Duration
	watchList bool

	inf          *sharedIndexInformer
	gate         *scGate
	stopInformer context.CancelFunc
	informerDone chan struct{}

	handlers  map[string]*scHandler
	wq        workqueue.RateLimitingInterface[string]
	failNext  map[string]int // reconciles of a key still to fail
	wqTracer  *trace.Tracer  // stage controller: the worker's events
	workModel *scWorkModel

	// update: the script is being rewritten (-update), so an expect that
	// does not hold says what did instead of failing; lastExpect is what
	// the last expect found (scenario_expect_test.go).
	update     bool
	lastExpect *scExpect
}

func newScenarioEnv(t *testing.T) *scEnv {
	e := &scEnv{
		t:         t,
		resource:  listwatch.Pods,
		handlers:  map[string]*scHandler{},
		failNext:  map[string]int{},
		workModel: newScWorkModel(),
	}
	e.out = newScOutput(e.workModel)
	e.tracer = trace.New(trace.Func(e.out.record))
	e.wqTracer = e.tracer.Stage(trace.StageController)
	e.wq = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultControllerRateLimiter[string](),
		workqueue.QueueConfig{Name: "scenario", Tracer: e.tracer})
	return e
}

var scQuietLogger = slog.New(slog.DiscardHandler)

// server returns the fake server, starting it (and the client) on first
// use.
func (e *scEnv) server() *fakeapiserver.Server {
	if e.srv != nil {
		return e.srv
	}
	opts := e.serverOpts
	opts.Tracer = e.tracer
	opts.AllowAnyHost = true // the client names it http://fakeapiserver, not a loopback host
	e.srv = fakeapiserver.New(opts)
	e.ln = newScListener()
	ctx, cancel := context.WithCancel(context.Background())
	e.stopServer, e.serverDone = cancel, make(chan struct{})
	go func() {
		defer close(e.serverDone)
		_ = e.srv.Serve(ctx, e.ln)
	}()
	c, err := listwatch.NewClient(listwatch.Config{Server: "http://fakeapiserver", Dial: e.ln.dial, Tracer: e.tracer})
	if err != nil {
		e.t.Fatalf("client: %v", err)
	}
	e.client = c
	return e.srv
}

// informer returns the informer, building it on first use.
func (e *scEnv) informer() *sharedIndexInformer {
	if e.inf != nil {
		return e.inf
	}
	e.server()
	lw := listwatch.NewFilteredListWatchFromClient(e.client, e.resource, api.NamespaceDefault, nil)
	inf := NewSharedIndexInformerWithOptions(lw, e.resource.New(), SharedIndexInformerOptions{
		ResyncPeriod: e.resync,
		Pipeline:     e.pipeline,
		Queue:        e.queueKind,
		UseWatchList: e.watchList,
		Logger:       scQuietLogger,
		Tracer:       e.tracer,
	}).(*sharedIndexInformer)
	// The cache is a map: the informer lists it in random order when it
	// resyncs, finds tombstones and replays to a late handler, as
	// client-go does. The scenario's cache lists in key order instead.
	inf.indexer = scSortedIndexer{inf.indexer}
	inf.wrapQueue = func(q deltafifo.Queue) deltafifo.Queue {
		e.gate = newScGate(q)
		if inf.realFIFO == ClientGo136() {
			return scModesGate{e.gate}
		}
		return e.gate
	}
	e.inf = inf
	return inf
}

// start runs the informer and waits until it has synced.
func (e *scEnv) start() ([]string, error) {
	inf := e.informer()
	if e.informerDone != nil {
		return nil, errors.New("start: already started")
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stopInformer, e.informerDone = cancel, make(chan struct{})
	go func() {
		defer close(e.informerDone)
		inf.Run(ctx)
	}()
	out := e.settle()
	return append(out, fmt.Sprintf("synced: %v, rv %s", inf.HasSynced(), scOr(inf.LastSyncResourceVersion(), `""`))), nil
}

// settle waits for the pipeline to come to rest, opening the queue's gate
// one spot at a time, and returns the trace lines of every step.
func (e *scEnv) settle() []string {
	var out []string
	for i := 0; ; i++ {
		synctest.Wait()
		out = append(out, e.out.take()...)
		if e.gate == nil || !e.gate.next() {
			return out
		}
		if i > 100000 {
			e.t.Fatal("the pipeline never settles")
		}
	}
}

// tickStep is the longest fake time that passes in one step of "tick":
// a queue write that becomes due within a step waits for its end.
const tickStep = 100 * time.Millisecond

// tick lets d of fake time pass, settling after each step.
func (e *scEnv) tick(d time.Duration) []string {
	out := e.settle()
	for d > 0 {
		step := min(d, tickStep)
		<-time.After(step) // fake time: in the synctest bubble this advances the clock at once
		d -= step
		out = append(out, e.settle()...)
	}
	return out
}

// teardown stops everything inside the bubble, so that synctest sees no
// goroutine left: handlers are released, the gate opened, the informer
// and work queue stopped, the server shut down and every pipe closed.
func (e *scEnv) teardown() {
	for _, h := range e.handlers {
		h.setBlocked(false)
	}
	if e.gate != nil {
		e.gate.openForGood()
	}
	if e.stopInformer != nil {
		e.stopInformer()
		<-e.informerDone
	}
	e.wq.ShutDown()
	if e.stopServer != nil {
		e.stopServer()
		<-e.serverDone
		e.ln.closeAll()
	}
	synctest.Wait()
}

// scSortedIndexer is the informer's cache, listed in key order.
type scSortedIndexer struct{ indexer.Indexer }

func (s scSortedIndexer) List() []api.Object {
	items := s.Indexer.List()
	slices.SortFunc(items, func(a, b api.Object) int {
		return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
	})
	return items
}

func (s scSortedIndexer) ListKeys() []string {
	keys := s.Indexer.ListKeys()
	slices.Sort(keys)
	return keys
}

// scHandler is a script's event handler: it counts and describes its
// calls, can be held (block), and, if it feeds, adds each object's key to
// the work queue, as article 004's handlers do.
type scHandler struct {
	name  string
	env   *scEnv
	feeds bool
	reg   ResourceEventHandlerRegistration

	mu      sync.Mutex
	hold    chan struct{} // non-nil while blocked: calls wait for it to close
	calls   []string      // since the last "handlers"
	ncalls  int
	blocked bool
}

func (h *scHandler) setBlocked(b bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case b && h.hold == nil:
		h.hold = make(chan struct{})
	case !b && h.hold != nil:
		close(h.hold)
		h.hold = nil
	}
	h.blocked = b
}

func (h *scHandler) OnAdd(obj any, isInInitialList bool) {
	call := "OnAdd " + scDescribe(obj)
	if isInInitialList {
		call += " (initial list)"
	}
	h.called(call, obj)
}

func (h *scHandler) OnUpdate(oldObj, newObj any) {
	call := "OnUpdate " + scDescribe(oldObj) + " -> " + scRV(newObj)
	if scRV(oldObj) == scRV(newObj) {
		call += " (resync"
		if oldObj == newObj {
			call += ": old and new are the same object"
		}
		call += ")"
	}
	h.called(call, newObj)
}

func (h *scHandler) OnDelete(obj any) { h.called("OnDelete "+scDescribe(obj), obj) }

func (h *scHandler) called(call string, obj any) {
	h.mu.Lock()
	hold := h.hold
	h.mu.Unlock()
	if hold != nil {
		<-hold
	}
	h.mu.Lock()
	h.calls = append(h.calls, call)
	h.ncalls++
	h.mu.Unlock()
	if h.feeds {
		if key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			h.env.wq.Add(key)
		}
	}
}

// sortedHandlers returns the handlers by name.
func (e *scEnv) sortedHandlers() []*scHandler {
	hs := make([]*scHandler, 0, len(e.handlers))
	for _, h := range e.handlers {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].name < hs[j].name })
	return hs
}

// scDescribe prints an object as "default/web@5", a tombstone as
// "tombstone(default/web@5)".
func scDescribe(obj any) string {
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		if tomb.Obj == nil {
			return "tombstone(" + tomb.Key + ")"
		}
		return "tombstone(" + scDescribe(tomb.Obj) + ")"
	}
	key, _ := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	return key + "@" + scRV(obj)
}

func scRV(obj any) string {
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if o, ok := obj.(api.Object); ok && !api.IsNil(o) {
		return o.GetResourceVersion()
	}
	return "?"
}

func scOr(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
