package informer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/deltafifo"
)

// state prints what a state command asks for ("state": all of it).
func (e *scEnv) state(what string) []string {
	if e.inf == nil {
		return []string{"informer: not built yet (it is built by informer, handler or start)"}
	}
	var out []string
	if what == "state" || what == "rv" {
		out = append(out, e.rvLine())
	}
	if what == "state" || what == "queue" {
		out = append(out, e.queueLine())
	}
	if what == "state" || what == "cache" {
		out = append(out, "cache: "+strings.Join(e.cacheItems(), " "))
	}
	if what == "state" || what == "handlers" {
		out = append(out, e.handlerLines()...)
	}
	if what == "state" || what == "workqueue" {
		out = append(out, e.workqueueLines()...)
	}
	return out
}

func (e *scEnv) rvLine() string {
	line := "rv: informer " + scOr(e.informer().LastSyncResourceVersion(), `""`)
	if e.srv != nil {
		line += fmt.Sprintf(", server %s (lists %d, watches %d)", e.srv.ResourceVersion(),
			e.srv.RequestCount("list", e.resource.Resource), e.srv.RequestCount("watch", e.resource.Resource))
	}
	return line
}

// queueLine prints the queue between Reflector and informer: a DeltaFIFO
// as key{deltas} per key, a RealFIFO as its items in order.
func (e *scEnv) queueLine() string {
	if e.gate == nil {
		return "queue: (not started)"
	}
	var items []string
	switch q := e.gate.inner.(type) {
	case *deltafifo.DeltaFIFO:
		for _, key := range q.ListKeys() {
			deltas, _, _ := q.GetByKey(key)
			items = append(items, key+"{"+scDeltas(deltas, ", ")+"}")
		}
	case *deltafifo.RealFIFO:
		if queued := q.Queued(); len(queued) > 0 {
			items = append(items, scDeltas(queued, " | "))
		}
	}
	if len(items) == 0 {
		return "queue: (empty)"
	}
	paused := ""
	if e.gate.isPaused() {
		paused = " (pop paused)"
	}
	return "queue" + paused + ": " + strings.Join(items, " ")
}

// scDeltas prints deltas as "Updated 7, Deleted 8" (with the key for a
// RealFIFO, whose items are of every key).
func scDeltas(deltas deltafifo.Deltas, sep string) string {
	parts := make([]string, len(deltas))
	for i, d := range deltas {
		obj := scDescribe(d.Object)
		if sep == ", " { // a DeltaFIFO's key is printed once, before
			obj = scRV(d.Object)
			if _, ok := d.Object.(deltafifo.DeletedFinalStateUnknown); ok {
				obj = "tombstone(" + obj + ")"
			}
		}
		parts[i] = string(d.Type) + " " + obj
	}
	return strings.Join(parts, sep)
}

func (e *scEnv) cacheItems() []string {
	var items []string
	for _, obj := range e.informer().GetStore().List() {
		items = append(items, scDescribe(obj))
	}
	slices.Sort(items)
	if len(items) == 0 {
		return []string{"(empty)"}
	}
	return items
}

// handlerLines prints each handler's state, then its calls since the last
// time they were printed.
func (e *scEnv) handlerLines() []string {
	var out []string
	for _, h := range e.sortedHandlers() {
		h.mu.Lock()
		plural := "s"
		if h.ncalls == 1 {
			plural = ""
		}
		line := fmt.Sprintf("handler %s: %d call%s done, pending %d, synced %v", h.name, h.ncalls, plural, h.reg.Pending(), h.reg.HasSynced())
		if h.blocked {
			line += ", blocked"
		}
		if h.feeds {
			line += ", feeds the work queue"
		}
		out = append(out, line)
		for _, c := range h.calls {
			out = append(out, "  "+c)
		}
		h.calls = nil
		h.mu.Unlock()
	}
	if len(out) == 0 {
		return []string{"handlers: none"}
	}
	return out
}

func (e *scEnv) workqueueLines() []string {
	out := []string{"workqueue: " + e.workModel.String()}
	var requeues []string
	for _, key := range e.workModel.keys() {
		if n := e.wq.NumRequeues(key); n > 0 {
			requeues = append(requeues, fmt.Sprintf("%s=%d", key, n))
		}
	}
	if len(requeues) > 0 {
		out = append(out, "requeues: "+strings.Join(requeues, " "))
	}
	if n := e.wq.Len(); n != len(e.workModel.ready) {
		out = append(out, fmt.Sprintf("workqueue: BUG in the scenario's model: the queue holds %d, the model %d", n, len(e.workModel.ready)))
	}
	return out
}

// scExpandKeys makes "web@5" into "default/web@5" ("(empty)" stays).
func scExpandKeys(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		if it == "(empty)" || strings.HasPrefix(it, "tombstone(") {
			out[i] = it
			continue
		}
		out[i] = scKey(it)
	}
	return out
}

// keys returns every key the work-queue model has seen.
func (m *scWorkModel) keys() []string {
	seen := map[string]bool{}
	for _, k := range m.ready {
		seen[k] = true
	}
	for k := range m.processing {
		seen[k] = true
	}
	for k := range m.waiting {
		seen[k] = true
	}
	for k := range m.seen {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
