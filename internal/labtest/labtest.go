// Package labtest is the demo's lab as the stages' tests see it: a trace
// consumer made with trace.Inspect, so that every stage traced to it adds
// its contents to its events (trace.State), which it keeps. Under
// `go test -v` it tells each event and, below it, the box's contents as
// the lab's page gets them (JSON); a plain `go test` stays quiet.
package labtest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/trace"
)

// Lab keeps every event reported to its Tracer, in order, with its State.
type Lab struct {
	t      testing.TB
	mu     sync.Mutex
	events []trace.Event
	done   bool // the test has finished: write nothing more
}

// New returns a Lab and the Tracer that reports to it (Inspecting).
func New(t testing.TB) (*Lab, *trace.Tracer) {
	l := &Lab{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l, trace.New(trace.Inspect(l.record))
}

func (l *Lab) record(e trace.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	if l.done {
		return
	}
	fmt.Fprintln(l.t.Output(), e)
	if e.State != nil {
		b, err := json.Marshal(e.State.Value)
		if err != nil {
			b = []byte(err.Error())
		}
		fmt.Fprintf(l.t.Output(), "    %s %q: %s\n", e.State.Box, e.State.Name, b)
	}
}

// Events returns the events so far.
func (l *Lab) Events() []trace.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]trace.Event(nil), l.events...)
}

// States returns the State values of the events named what, in order. It
// fails the test if one of them has no State, or one of another type
// than V, or if the value does not encode as JSON (the lab's page gets it
// so).
func States[V any](l *Lab, what string) []V {
	l.t.Helper()
	var out []V
	for _, e := range l.Events() {
		if e.What != what {
			continue
		}
		if e.State == nil {
			l.t.Fatalf("labtest: %q (event %d) has no State", what, e.Seq)
		}
		v, ok := e.State.Value.(V)
		if !ok {
			l.t.Fatalf("labtest: the State of %q (event %d) is a %T", what, e.Seq, e.State.Value)
		}
		if _, err := json.Marshal(v); err != nil {
			l.t.Fatalf("labtest: the State of %q (event %d) is not JSON: %v", what, e.Seq, err)
		}
		out = append(out, v)
	}
	return out
}

// Last returns the State value of the last event named what; the test
// fails if there is none.
func Last[V any](l *Lab, what string) V {
	l.t.Helper()
	all := States[V](l, what)
	if len(all) == 0 {
		l.t.Fatalf("labtest: no %q event", what)
	}
	return all[len(all)-1]
}
