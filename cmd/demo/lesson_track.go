package main

import (
	"time"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// labWatcher reads the lab's timeline as it grows, for the lessons: every
// hop once, in order, and what the hops say about each reflector (its
// phase, since when on the lab's clock) and each server watch (its
// resource: a frame's hop names only the watch).
type labWatcher struct {
	cursor     int // the last step read
	reflectors map[string]reflectorSeen
	watches    map[string]string // server watch number → resource
}

// reflectorSeen is a reflector's phase, from its last "phase" hop.
type reflectorSeen struct {
	phase string
	since time.Time // the lab's time of its last phase change or watch
}

// scan returns the hops recorded since the last scan, oldest first.
func (w *labWatcher) scan(l *lab.Lab) []lab.Hop {
	var out []lab.Hop
	for {
		hops := l.Timeline(w.cursor+1, 1000)
		if len(hops) == 0 {
			return out
		}
		for _, h := range hops {
			w.track(h)
		}
		w.cursor = hops[len(hops)-1].Step
		out = append(out, hops...)
	}
}

func (w *labWatcher) track(h lab.Hop) {
	res := h.Attrs[trace.KeyResource]
	switch {
	case h.Stage == trace.StageReflector && h.What == "phase":
		w.reflectors[res] = reflectorSeen{phase: h.Attrs[trace.KeyPhase], since: h.Time}
	case h.Stage == trace.StageReflector && (h.What == "watch" || h.What == "streaming list"):
		s := w.reflectors[res]
		s.since = h.Time
		w.reflectors[res] = s
	case h.Stage == trace.StageServer && h.What == "watch opened":
		w.watches[h.Attrs[trace.KeyWatch]] = res
	}
}

// resourceOf is the resource a hop is about: its resource attribute, or
// for a server frame the resource of its watch.
func (w *labWatcher) resourceOf(h lab.Hop) string {
	if r := h.Attrs[trace.KeyResource]; r != "" {
		return r
	}
	if id := h.Attrs[trace.KeyWatch]; id != "" {
		return w.watches[id]
	}
	return ""
}
