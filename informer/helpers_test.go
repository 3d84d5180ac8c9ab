package informer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// quiet is a logger that discards everything (benchmarks).
var quiet = slog.New(slog.DiscardHandler)

// testOptions returns opts with the trace of the informer, its Reflector
// and its queue written to t.Log (so `go test -run X -v` tells the story
// hop by hop and a plain `go test` stays quiet), and its log messages too.
// Fields already set win.
func testOptions(t testing.TB, opts SharedIndexInformerOptions) SharedIndexInformerOptions {
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t, "")
	}
	switch queueKindsSubtest(t) {
	case "DeltaFIFO", "RealFIFO":
		opts.Pipeline = Articles
	case realFIFO136:
		opts.Pipeline = Articles
		if opts.Queue == RealFIFOQueue {
			opts.RealFIFO = ClientGo136()
		}
	}
	return opts
}

// testLogger is a slog.Logger that writes each message to t.Log, as
// "log: [warning] msg key=value ...", after label if there is one. Messages
// after the test has finished are dropped.
func testLogger(t testing.TB, label string) *slog.Logger {
	prefix := "log"
	if label != "" {
		prefix += " " + label
	}
	var mu sync.Mutex
	done := false
	t.Cleanup(func() { mu.Lock(); done = true; mu.Unlock() })
	return slog.New(trace.Func(func(e trace.Event) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			t.Logf("%s: %s", prefix, e)
		}
	}))
}

// expectedLogs is the logger of a test that makes the informer warn on
// purpose: its warnings are part of the story, labelled as such.
func expectedLogs(t testing.TB) *slog.Logger { return testLogger(t, "(expected in this test)") }

// traceKeys returns a Tracer that writes to t.Log only the events about
// one of keys, or about no key at all (lists, watches, replaces): the story
// of a few objects in a test that moves hundreds.
func traceKeys(t testing.TB, keys ...string) *trace.Tracer {
	logged := trace.ForTest(t)
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	return trace.New(trace.Func(func(e trace.Event) {
		if k := e.Key(); k == "" || want[k] {
			reemit(logged, e)
		}
	}))
}

// traced returns a Tracer that writes to t.Log and records into a
// Recorder, for a test that asserts on what the trace shows.
func traced(t testing.TB) (*trace.Tracer, *trace.Recorder) {
	rec := trace.NewRecorder()
	return trace.Tee(trace.ForTest(t), rec.Tracer()), rec
}

// reemit reports e again through t.
func reemit(t *trace.Tracer, e trace.Event) {
	attrs := append([]slog.Attr{slog.String(trace.KeyStage, e.Stage)}, e.Attrs...)
	if e.Level >= slog.LevelWarn {
		t.Warn(e.What, attrs...)
	} else {
		t.Event(e.What, attrs...)
	}
}

// eventsOf returns the recorded events with the given stage and what.
func eventsOf(rec *trace.Recorder, stage, what string) []trace.Event {
	var out []trace.Event
	for _, e := range rec.Events() {
		if e.Stage == stage && e.What == what {
			out = append(out, e)
		}
	}
	return out
}

// fakeLW is an in-memory ListerWatcher in the spirit of client-go's
// FakeControllerSource: a map of objects, one resourceVersion counter, a log
// of every change, and open watches that get each change as it happens.
// Everything is channels and mutexes, so it runs inside a synctest bubble,
// where the whole informer is then in memory and synctest.Wait means
// "everything that can happen has happened".
type fakeLW struct {
	mu      sync.Mutex
	rv      int
	objects map[string]api.Object
	log     []listwatch.Event
	watches []*fakeWatch
	lists   int
	tracer  *trace.Tracer // stage "server": fakeLW plays the API server; nil: off
}

// tracing makes f report what it does (commit, list served, watch opened)
// through tr, as the API server it plays, and returns f.
func (f *fakeLW) tracing(tr *trace.Tracer) *fakeLW {
	f.tracer = tr.Stage(trace.StageServer)
	return f
}

func newFakeLW(objs ...api.Object) *fakeLW {
	f := &fakeLW{objects: map[string]api.Object{}}
	for _, o := range objs {
		f.Add(o)
	}
	return f
}

func (f *fakeLW) List(_ context.Context, _ listwatch.ListOptions) (*listwatch.ObjectList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	keys := make([]string, 0, len(f.objects))
	for k := range f.objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	l := &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: strconv.Itoa(f.rv)}}
	for _, k := range keys {
		l.Items = append(l.Items, f.objects[k].DeepCopyObject())
	}
	f.tracer.Event("list served", trace.RV(l.ResourceVersion), trace.Count(len(l.Items)))
	return l, nil
}

// Watch replays the logged changes after opts.ResourceVersion, then
// delivers new ones until stopped.
func (f *fakeLW) Watch(ctx context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
	from, err := strconv.Atoi(opts.ResourceVersion)
	if err != nil {
		return nil, fmt.Errorf("fakeLW: watch from resourceVersion %q: %w", opts.ResourceVersion, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	w := &fakeWatch{lw: f, ch: make(chan listwatch.Event, 1024)}
	for _, ev := range f.log {
		if rv, _ := strconv.Atoi(ev.Object.GetResourceVersion()); rv > from {
			w.ch <- ev
		}
	}
	f.watches = append(f.watches, w)
	f.tracer.Event("watch opened", trace.RV(opts.ResourceVersion), trace.Count(len(w.ch)))
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

// Lists is how many lists were served.
func (f *fakeLW) Lists() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists
}

// Add creates obj (a copy, stamped with the next resourceVersion) and
// returns the stored copy.
func (f *fakeLW) Add(obj api.Object) api.Object { return f.change(api.Added, obj) }

// Modify replaces obj.
func (f *fakeLW) Modify(obj api.Object) api.Object { return f.change(api.Modified, obj) }

// Delete deletes obj.
func (f *fakeLW) Delete(obj api.Object) api.Object { return f.change(api.Deleted, obj) }

func (f *fakeLW) change(t api.EventType, obj api.Object) api.Object {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	obj = obj.DeepCopyObject()
	obj.SetResourceVersion(strconv.Itoa(f.rv))
	key, _ := indexer.MetaNamespaceKeyFunc(obj)
	if t == api.Deleted {
		delete(f.objects, key)
	} else {
		f.objects[key] = obj
	}
	ev := listwatch.Event{Type: t, Object: obj}
	f.tracer.Event("commit", trace.Type(string(t)), trace.Key(key), trace.RV(obj.GetResourceVersion()))
	f.log = append(f.log, ev)
	for _, w := range f.watches {
		w.ch <- ev
	}
	return obj.DeepCopyObject()
}

type fakeWatch struct {
	lw      *fakeLW
	ch      chan listwatch.Event
	stopped bool
}

func (w *fakeWatch) ResultChan() <-chan listwatch.Event { return w.ch }

func (w *fakeWatch) Stop() {
	f := w.lw
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.stopped {
		return
	}
	w.stopped = true
	close(w.ch)
	f.watches = slices.DeleteFunc(f.watches, func(x *fakeWatch) bool { return x == w })
}

// pod returns a pod in namespace default with the given labels
// ("k=v" pairs).
func pod(name string, labels ...string) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
	return p
}

// describe prints a notification's object: "default/a@3", or
// "tombstone(default/a@3)" for a DeletedFinalStateUnknown.
func describe(obj any) string {
	switch o := obj.(type) {
	case deltafifo.DeletedFinalStateUnknown:
		if o.Obj == nil {
			return "tombstone(" + o.Key + ")"
		}
		return "tombstone(" + describe(o.Obj) + ")"
	case api.Object:
		key, _ := indexer.MetaNamespaceKeyFunc(o)
		return key + "@" + o.GetResourceVersion()
	}
	return fmt.Sprintf("%T", obj)
}

// recorder is a handler that writes down every notification as a line:
//
//	add default/a@1 initial
//	update default/a@1->default/a@2
//	delete default/a@3
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	line := "add " + describe(obj)
	if isInInitialList {
		line += " initial"
	}
	r.record(line)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.record("update " + describe(oldObj) + "->" + describe(newObj))
}

func (r *recorder) OnDelete(obj any) { r.record("delete " + describe(obj)) }

func (r *recorder) record(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, line)
}

// Events returns the lines so far.
func (r *recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Len returns how many notifications were recorded.
func (r *recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// runInformer runs inf until the test ends (or stop is called) and returns
// stop, which cancels the informer and waits for Run to return.
func runInformer(t *testing.T, inf interface{ Run(context.Context) }) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

// cachedKeys returns the keys of a store, sorted, with resourceVersions:
// ["default/a@1", ...].
func cachedKeys(s indexer.Store) []string {
	var out []string
	for _, obj := range s.List() {
		out = append(out, describe(obj))
	}
	slices.Sort(out)
	return out
}

// queueKinds runs f once per informer the package can build, each in a
// subtest named after it. The first three are the articles' informer
// (testOptions, seeing the subtest's name, sets Pipeline: Articles): with
// its DeltaFIFO ("DeltaFIFO", f gets DeltaFIFOQueue), with the RealFIFO of
// client-go 1.33 ("RealFIFO", RealFIFOQueue), and with that RealFIFO's
// 1.36 modes but still listing then watching ("RealFIFO-1.36":
// RealFIFOQueue, and testOptions adds ClientGo136()). The fourth, "Today",
// is today's informer, the zero Pipeline: streaming list and the 1.36
// RealFIFO whatever the queue f passes (f gets RealFIFOQueue).
func queueKinds(t *testing.T, f func(t *testing.T, kind QueueKind)) {
	for _, kind := range []struct {
		name string
		kind QueueKind
	}{{"DeltaFIFO", DeltaFIFOQueue}, {"RealFIFO", RealFIFOQueue}, {realFIFO136, RealFIFOQueue}, {todaySubtest, RealFIFOQueue}} {
		t.Run(kind.name, func(t *testing.T) { f(t, kind.kind) })
	}
}

// realFIFO136 and todaySubtest name queueKinds' third and fourth subtests.
const (
	realFIFO136  = "RealFIFO-1.36"
	todaySubtest = "Today"
)

// queueKindsSubtest is the name of the queueKinds subtest t runs in (""
// if none): the path element after the test's own name.
func queueKindsSubtest(t testing.TB) string {
	for _, part := range strings.Split(t.Name(), "/")[1:] {
		switch part {
		case "DeltaFIFO", "RealFIFO", realFIFO136, todaySubtest:
			return part
		}
	}
	return ""
}

// in136Subtest reports whether t runs inside queueKinds' RealFIFO-1.36 or
// Today subtest: a RealFIFO with client-go 1.36's modes.
func in136Subtest(t testing.TB) bool {
	s := queueKindsSubtest(t)
	return s == realFIFO136 || s == todaySubtest
}
