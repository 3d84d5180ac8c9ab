package trace

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Event is one trace event as the consumers in this package see it.
type Event struct {
	Seq   uint64     // order of arrival at the handler, from 1
	Time  time.Time  // when the stage reported it
	Level slog.Level // Info, or Warn for a failure the stage handles itself
	Stage string     // the "stage" attribute
	What  string     // what happened: "delta queued", "watch opened" ...
	Attrs []slog.Attr
	// State is the stage's contents after this hop, when the consumer is
	// an Inspect handler and the stage reported them (nil otherwise). It
	// is not one of Attrs, and String does not print it.
	State *State
}

// Get returns the attribute key's value as a string ("" if absent).
func (e Event) Get(key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

// Key is the event's object key ("" if it has none).
func (e Event) Key() string { return e.Get(KeyKey) }

// RV is the event's resourceVersion ("" if it has none).
func (e Event) RV() string { return e.Get(KeyRV) }

// String is the event as one line: "stage: what key=value ...", with a
// warning marked as such. It has no time, so that a run on the fake clock
// prints the same lines every time.
func (e Event) String() string {
	var b strings.Builder
	if e.Stage != "" {
		b.WriteString(e.Stage)
		b.WriteString(": ")
	}
	if e.Level >= slog.LevelWarn {
		b.WriteString("[warning] ")
	}
	b.WriteString(e.What)
	for _, a := range e.Attrs {
		b.WriteByte(' ')
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(formatValue(a.Value))
	}
	return b.String()
}

func formatValue(v slog.Value) string {
	s := v.Resolve().String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// Func is a slog.Handler that turns each record into an Event and calls a
// function with it, synchronously, on the stage's goroutine. It is the
// building block of the other consumers. The function must be safe for
// concurrent use and quick: the traced stage waits for it.
func Func(fn func(Event)) slog.Handler {
	return &funcHandler{fn: fn, seq: new(atomic.Uint64)}
}

// Inspect is Func for a consumer that also wants each stage's contents:
// a Tracer on it is Inspecting, so stages add a State to their events
// (Event.State). The lab uses it; everything else uses Func.
func Inspect(fn func(Event)) slog.Handler {
	return &funcHandler{fn: fn, seq: new(atomic.Uint64), inspect: true}
}

// inspects reports whether h, or one of the handlers it tees to, is an
// Inspect handler.
func inspects(h slog.Handler) bool {
	switch h := h.(type) {
	case *funcHandler:
		return h.inspect
	case teeHandler:
		for _, x := range h {
			if inspects(x) {
				return true
			}
		}
	}
	return false
}

type funcHandler struct {
	inspect bool
	fn      func(Event)
	seq     *atomic.Uint64
	stage   string
	attrs   []slog.Attr
	prefix  string // from WithGroup
}

func (h *funcHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *funcHandler) Handle(_ context.Context, r slog.Record) error {
	e := Event{Time: r.Time, Level: r.Level, Stage: h.stage, What: r.Message,
		Attrs: make([]slog.Attr, 0, len(h.attrs)+r.NumAttrs())}
	e.Attrs = append(e.Attrs, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == KeyStage && h.prefix == "" {
			e.Stage = a.Value.String()
			return true
		}
		if a.Key == KeyState && h.prefix == "" {
			if st, ok := a.Value.Any().(State); ok {
				e.State = &st
			}
			return true
		}
		a.Key = h.prefix + a.Key
		e.Attrs = append(e.Attrs, a)
		return true
	})
	e.Seq = h.seq.Add(1)
	h.fn(e)
	return nil
}

func (h *funcHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		if a.Key == KeyStage && h.prefix == "" {
			c.stage = a.Value.String()
			continue
		}
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *funcHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// Recorder keeps every event in memory, in arrival order. Tests and
// scenario scripts read it; it is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []Event
	tracer *Tracer
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	r := &Recorder{}
	r.tracer = New(Func(r.record))
	return r
}

func (r *Recorder) record(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Tracer returns the Tracer that records into r.
func (r *Recorder) Tracer() *Tracer { return r.tracer }

// Events returns a copy of the events recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Take returns the events recorded so far and forgets them.
func (r *Recorder) Take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events = nil
	return ev
}

// ForKey returns the recorded events about the object with key k, in
// order: one object's path through the pipeline.
func (r *Recorder) ForKey(k string) []Event {
	var out []Event
	for _, e := range r.Events() {
		if e.Key() == k {
			out = append(out, e)
		}
	}
	return out
}

// Lines returns the recorded events as lines (Event.String).
func (r *Recorder) Lines() []string {
	ev := r.Events()
	out := make([]string, len(ev))
	for i, e := range ev {
		out[i] = e.String()
	}
	return out
}

// TB is the part of testing.TB that ForTest uses.
type TB interface {
	Output() io.Writer
	Cleanup(func())
}

// ForTest returns a Tracer that writes each event as one line of the
// test's log (t.Output, so without t.Log's file:line prefix), so that
// `go test -run X -v` shows what happened, hop by hop, and a passing test
// without -v prints nothing. With stages, only events of those stages
// are written. Events reported after the test has finished are dropped
// (testing panics on a Log after that).
func ForTest(t TB, stages ...string) *Tracer {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
	})
	want := map[string]bool{}
	for _, s := range stages {
		want[s] = true
	}
	return New(Func(func(e Event) {
		if len(want) > 0 && !want[e.Stage] {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !done {
			fmt.Fprintln(t.Output(), e)
		}
	}))
}

// Checkf writes one line of a test's story that is no stage's event but a
// fact the test asserts, as "check: ..." ("check: 2 consumers, 1 list, 1
// watch"), so that under -v the story says what it showed, not only what
// happened. Like ForTest it writes through t.Output: nothing shows without
// -v unless the test fails. Call it from the test's goroutine.
func Checkf(t TB, format string, args ...any) {
	fmt.Fprintf(t.Output(), "check: "+format+"\n", args...)
}

// ForExample is ForTest for a runnable Example, which has no t: an
// Example's standard output is compared with its Output comment and never
// shown, so with verbose (pass testing.Verbose()) the Tracer writes each
// event as one indented line to standard error, which
// `go test -run ExampleX -v` shows between the Example's "=== RUN" and
// "--- PASS" lines; without it the Tracer is nil (off) and a plain go test
// stays quiet. With stages, only events of those stages are written. Call
// end when the Example is done: events reported after it (a goroutine
// still winding down) are dropped rather than landing in the next test's
// story.
func ForExample(verbose bool, stages ...string) (t *Tracer, end func()) {
	if !verbose {
		return nil, func() {}
	}
	return forWriter(os.Stderr, "    ", stages)
}

// forWriter is ForExample's Tracer writing to w.
func forWriter(w io.Writer, indent string, stages []string) (*Tracer, func()) {
	var mu sync.Mutex
	done := false
	want := map[string]bool{}
	for _, s := range stages {
		want[s] = true
	}
	t := New(Func(func(e Event) {
		if len(want) > 0 && !want[e.Stage] {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !done {
			fmt.Fprintln(w, indent+e.String())
		}
	}))
	return t, func() {
		mu.Lock()
		done = true
		mu.Unlock()
	}
}

// Tee returns a Tracer that reports every event to each of tracers (nil
// ones are skipped; with none left it is nil, and off). A test uses it to
// both tell its story (ForTest) and assert on it (a Recorder).
func Tee(tracers ...*Tracer) *Tracer {
	var hs []slog.Handler
	for _, t := range tracers {
		if t != nil {
			hs = append(hs, t.logger.Handler())
		}
	}
	if len(hs) == 0 {
		return nil
	}
	return New(teeHandler(hs))
}

type teeHandler []slog.Handler

func (t teeHandler) Enabled(context.Context, slog.Level) bool { return true }

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range t {
		if err := h.Handle(ctx, r.Clone()); err != nil {
			return err
		}
	}
	return nil
}

func (t teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithGroup(name)
	}
	return out
}
