package informer

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// scStages are the stages in pipeline order: the order of a step's lines.
var scStages = []string{trace.StageServer, trace.StageListWatch, trace.StageReflector,
	trace.StageDeltaFIFO, trace.StageInformer, trace.StageWorkQueue, trace.StageController}

// scDefaultStages print unless a script says otherwise: from the Reflector
// on. The server and listwatch lines (every frame, twice) are one "trace
// +server +listwatch" away.
var scDefaultStages = []string{trace.StageReflector, trace.StageDeltaFIFO, trace.StageInformer,
	trace.StageWorkQueue, trace.StageController}

// scOutput collects the trace events of a script and turns those of one
// step into lines.
type scOutput struct {
	mu     sync.Mutex
	events []trace.Event

	show map[string]bool
	work *scWorkModel
	// notified and called count each handler's notifications and calls
	// so far: the i-th call of a handler is for its i-th notification.
	notified, called map[string]int
}

func newScOutput(work *scWorkModel) *scOutput {
	o := &scOutput{work: work, notified: map[string]int{}, called: map[string]int{}}
	o.setShow(scDefaultStages)
	return o
}

func (o *scOutput) record(e trace.Event) {
	o.mu.Lock()
	o.events = append(o.events, e)
	o.mu.Unlock()
}

func (o *scOutput) setShow(stages []string) {
	o.show = map[string]bool{}
	for _, s := range stages {
		o.show[s] = true
	}
}

// setTrace applies a "trace" command's arguments: a plain list of stages
// replaces the selection, +STAGE and -STAGE change it.
func (o *scOutput) setTrace(args []string) error {
	var tokens []string
	for _, arg := range args {
		tokens = append(tokens, strings.Split(arg, ",")...)
	}
	if len(tokens) == 0 {
		return fmt.Errorf("usage: trace all|off|default|STAGE,STAGE...|+STAGE -STAGE")
	}
	if slices.Contains(scStages, tokens[0]) {
		o.setShow(nil)
	}
	for _, a := range tokens {
		switch {
		case a == "all":
			o.setShow(scStages)
		case a == "off":
			o.setShow(nil)
		case a == "default":
			o.setShow(scDefaultStages)
		case slices.Contains(scStages, a):
			o.show[a] = true
		case strings.HasPrefix(a, "+") && slices.Contains(scStages, a[1:]):
			o.show[a[1:]] = true
		case strings.HasPrefix(a, "-") && slices.Contains(scStages, a[1:]):
			delete(o.show, a[1:])
		default:
			return fmt.Errorf("trace: unknown stage %q (stages: %s)", a, strings.Join(scStages, ", "))
		}
	}
	return nil
}

func (o *scOutput) shownStages() string {
	var s []string
	for _, st := range scStages {
		if o.show[st] {
			s = append(s, st)
		}
	}
	if len(s) == 0 {
		return "trace: off"
	}
	return "trace: " + strings.Join(s, ", ")
}

// scLine is one event to print with its sort key.
type scLine struct {
	stage   int
	sub     int // server: 0 for what the command itself did (commit, fault), 1 for the rest
	handler string
	index   int // the handler's notification this is about
	call    int // 0: the notification, 1: the call
	seq     int // arrival order
	text    string
}

// take returns the lines of the events recorded since the last take,
// feeding every event (shown or not) to the work-queue model first.
func (o *scOutput) take() []string {
	o.mu.Lock()
	events := o.events
	o.events = nil
	o.mu.Unlock()
	lines := make([]scLine, 0, len(events))
	for i, e := range events {
		if e.Stage == trace.StageWorkQueue {
			o.work.apply(e)
		}
		l := scLine{stage: slices.Index(scStages, e.Stage), seq: i}
		if e.Stage == trace.StageServer && !scServerSync(e.What) {
			l.sub = 1
		}
		if h := e.Get(trace.KeyHandler); h != "" && e.Stage == trace.StageInformer {
			l.handler = h
			if e.What == "notify" {
				l.index = o.notified[h]
				o.notified[h]++
			} else {
				l.index = o.called[h]
				l.call = 1
				o.called[h]++
			}
		}
		if !o.show[e.Stage] {
			continue
		}
		l.text = scRedact(e).String()
		lines = append(lines, l)
	}
	// By stage (stable: arrival order within a stage), the server's own
	// writes first; the informer's lines are laid out by informerLines.
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.stage != b.stage {
			return a.stage < b.stage
		}
		return a.sub < b.sub
	})
	informer := slices.Index(scStages, trace.StageInformer)
	first := slices.IndexFunc(lines, func(l scLine) bool { return l.stage == informer })
	if first >= 0 {
		last := first
		for last < len(lines) && lines[last].stage == informer {
			last++
		}
		lines = slices.Concat(lines[:first], scInformerLines(lines[first:last]), lines[last:])
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// scInformerLines orders a step's informer lines. The cache writes and
// the notifications come from one goroutine, in a fixed order, except that
// the informer tells its handlers of one change in map order: those runs
// are sorted by handler. Each handler's calls run on its own goroutine, at
// the same time as all that: each call is printed right after the
// notification it is for (the i-th call of a handler is for its i-th
// notification), and a call for a notification of an earlier step (a
// handler released) comes at the end.
func scInformerLines(lines []scLine) []scLine {
	type id struct {
		handler string
		index   int
	}
	calls := map[id]scLine{}
	var anchors []scLine
	for _, l := range lines {
		if l.call == 1 {
			calls[id{l.handler, l.index}] = l
		} else {
			anchors = append(anchors, l)
		}
	}
	for i := 0; i < len(anchors); {
		j := i
		for j < len(anchors) && anchors[j].handler != "" {
			j++
		}
		sort.SliceStable(anchors[i:j], func(a, b int) bool {
			x, y := anchors[i+a], anchors[i+b]
			if x.handler != y.handler {
				return x.handler < y.handler
			}
			return x.index < y.index
		})
		i = max(j, i+1)
	}
	out := make([]scLine, 0, len(lines))
	for _, a := range anchors {
		out = append(out, a)
		if c, ok := calls[id{a.handler, a.index}]; ok && a.handler != "" {
			out = append(out, c)
			delete(calls, id{a.handler, a.index})
		}
	}
	rest := slices.Collect(maps.Values(calls))
	sort.Slice(rest, func(a, b int) bool {
		if rest[a].handler != rest[b].handler {
			return rest[a].handler < rest[b].handler
		}
		return rest[a].index < rest[b].index
	})
	return append(out, rest...)
}

// scServerSync reports whether a server event is reported by the caller of
// the server's Go API, that is by the script's command itself, while the
// server's watch goroutines may already be sending what it did.
func scServerSync(what string) bool {
	return what == "commit" || what == "history compacted" || what == "event dropped (fault)" ||
		strings.HasPrefix(what, "fault: ")
}

// scRedact rewrites the attributes whose value depends on scheduling or on
// chance, so that a script prints the same every time:
//
//   - a handler's "pending" (at the instant of the event: how far its
//     goroutine had got) is left out; the "handlers" command prints it;
//   - how long a watch "lasted" is left out (it may have started after a
//     jittered backoff);
//   - a Reflector backoff ("after") prints as the un-jittered step it was
//     drawn from (800ms, 1.6s, 3.2s ... 30s) plus "+jitter".
func scRedact(e trace.Event) trace.Event {
	attrs := make([]slog.Attr, 0, len(e.Attrs))
	for _, a := range e.Attrs {
		switch {
		case a.Key == "pending" && e.Stage == trace.StageInformer:
			continue
		case a.Key == "lasted":
			continue
		case a.Key == trace.KeyDelay && e.Stage == trace.StageReflector:
			a = slog.String(a.Key, scJitterBase(a.Value.Duration()))
		}
		attrs = append(attrs, a)
	}
	e.Attrs = attrs
	return e
}

// scJitterBase is the client-go backoff step d was drawn from: the largest
// of 800ms, 1.6s, 3.2s ... (capped at 30s) not above d.
func scJitterBase(d time.Duration) string {
	if d < 800*time.Millisecond {
		return d.String()
	}
	base := 800 * time.Millisecond
	for base*2 <= d && base*2 <= 30*time.Second {
		base *= 2
	}
	if base*2 > 30*time.Second && d >= 30*time.Second {
		base = 30 * time.Second
	}
	if d == base {
		return d.String()
	}
	return base.String() + "+jitter"
}

// scWorkModel follows the work queue through its trace events, to print
// what it holds (the queue itself only tells its length): the keys ready
// in order, the key a worker has, and the keys waiting out a delay.
type scWorkModel struct {
	ready      []string
	processing map[string]bool
	waiting    map[string]string // key -> its delay
	seen       map[string]bool   // every key ever added
}

func newScWorkModel() *scWorkModel {
	return &scWorkModel{processing: map[string]bool{}, waiting: map[string]string{}, seen: map[string]bool{}}
}

func (m *scWorkModel) apply(e trace.Event) {
	key := e.Key()
	if key != "" {
		m.seen[key] = true
	}
	switch e.What {
	case "add":
		m.ready = append(m.ready, key)
		delete(m.waiting, key)
	case "add (deduplicated)", "add (while processing)":
		delete(m.waiting, key)
	case "get":
		if i := slices.Index(m.ready, key); i >= 0 {
			m.ready = slices.Delete(m.ready, i, i+1)
		}
		m.processing[key] = true
	case "done":
		delete(m.processing, key)
	case "done (queued again)":
		delete(m.processing, key)
		m.ready = append(m.ready, key)
	case "add after":
		m.waiting[key] = e.Get(trace.KeyDelay)
	}
}

func (m *scWorkModel) String() string {
	var b strings.Builder
	b.WriteString("ready [" + strings.Join(m.ready, " ") + "]")
	if len(m.processing) > 0 {
		b.WriteString(" processing [" + strings.Join(slices.Sorted(maps.Keys(m.processing)), " ") + "]")
	}
	if len(m.waiting) > 0 {
		var w []string
		for _, k := range slices.Sorted(maps.Keys(m.waiting)) {
			w = append(w, k+" (after "+m.waiting[k]+")")
		}
		b.WriteString(" waiting [" + strings.Join(w, " ") + "]")
	}
	return b.String()
}
