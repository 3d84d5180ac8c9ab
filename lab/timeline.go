package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Hop is one recorded step: one trace event that passed the gate.
type Hop struct {
	Step  int       `json:"step"`
	Time  time.Time `json:"time"` // on the lab's clock
	Stage string    `json:"stage"`
	What  string    `json:"what"`
	Text  string    `json:"text"` // the event as one line (trace.Event.String)
	Key   string    `json:"key,omitempty"`
	RV    string    `json:"rv,omitempty"`
	// World is true for an event the lab does not hold: the server
	// accepting a write or a fault while the pipeline is paused.
	World bool `json:"world,omitempty"`
	// Box is the box whose contents this hop changed ("fifo/pods"), if it
	// reported them.
	Box   string            `json:"box,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

func hopOf(e trace.Event, gated bool, step int, at time.Time) Hop {
	h := Hop{Step: step, Time: at, Stage: e.Stage, What: e.What, Text: e.String(), Key: e.Key(), RV: e.RV(), World: !gated}
	if len(e.Attrs) > 0 {
		h.Attrs = make(map[string]string, len(e.Attrs))
		for _, a := range e.Attrs {
			h.Attrs[a.Key] = a.Value.String()
		}
	}
	return h
}

// boxKey names a box's entry: "fifo/pods", "listener/pods/replicaset",
// "server/watches". A State without a Name is named by the event's
// resource (and, for a listener, its handler).
func boxKey(e trace.Event) string {
	s := e.State
	name := s.Name
	if name == "" {
		name = e.Get(trace.KeyResource)
		if h := e.Get(trace.KeyHandler); h != "" {
			name += "/" + h
		}
	}
	return s.Box + "/" + name
}

// entry is a recorded hop and the contents of every box after it.
type entry struct {
	hop   Hop
	state *trace.State   // what this hop reported, nil if nothing
	boxes map[string]any // every box after this hop; shared until a hop changes one
}

// timeline keeps the last keep hops.
type timeline struct {
	keep    int
	entries []entry // entries[i] is step first+i
	first   int
	last    int            // the last step recorded
	boxes   map[string]any // the latest contents, never mutated (copied on write)
	base    map[string]any // the contents before entries[0]
}

func newTimeline(keep int) timeline {
	return timeline{keep: keep, first: 1, boxes: map[string]any{}, base: map[string]any{}}
}

// record appends e as the next step.
func (t *timeline) record(e trace.Event, gated bool, at time.Time) Hop {
	t.last++
	h := hopOf(e, gated, t.last, at)
	if e.State != nil {
		k := boxKey(e)
		h.Box = k
		boxes := maps.Clone(t.boxes)
		if e.State.Value == nil {
			delete(boxes, k)
		} else {
			boxes[k] = e.State.Value
		}
		t.boxes = boxes
	}
	t.entries = append(t.entries, entry{hop: h, state: e.State, boxes: t.boxes})
	if len(t.entries) > t.keep {
		drop := len(t.entries) - t.keep
		t.base = t.entries[drop-1].boxes
		t.entries = append([]entry(nil), t.entries[drop:]...)
		t.first += drop
	}
	return h
}

// at returns the entry of step, if kept.
func (t *timeline) at(step int) (entry, bool) {
	i := step - t.first
	if i < 0 || i >= len(t.entries) {
		return entry{}, false
	}
	return t.entries[i], true
}

// Recording is a saved timeline: every kept hop with what it reported.
type Recording struct {
	Kinformer string            `json:"kinformer"` // "lab recording v1"
	Hops      []RecordedHop     `json:"hops"`
	Start     map[string]any    `json:"start"` // the boxes before the first hop
	Meta      map[string]string `json:"meta,omitempty"`
}

// RecordedHop is a hop and the contents it reported.
type RecordedHop struct {
	Hop
	State *RecordedState `json:"state,omitempty"`
}

// RecordedState is a trace.State as saved: Value as JSON.
type RecordedState struct {
	Box   string          `json:"box"`
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

const recordingFormat = "lab recording v1"

// save writes t as a Recording.
func (t *timeline) save(w io.Writer) error {
	rec := Recording{Kinformer: recordingFormat, Start: t.base}
	for _, e := range t.entries {
		rh := RecordedHop{Hop: e.hop}
		if e.state != nil {
			v, err := json.Marshal(e.state.Value)
			if err != nil {
				return fmt.Errorf("save step %d: %w", e.hop.Step, err)
			}
			rh.State = &RecordedState{Box: e.state.Box, Name: e.state.Name, Value: v}
		}
		rec.Hops = append(rec.Hops, rh)
	}
	enc := json.NewEncoder(w)
	return enc.Encode(rec)
}

// loadTimeline reads a Recording into a timeline for viewing.
func loadTimeline(r io.Reader) (*timeline, error) {
	var rec Recording
	dec := json.NewDecoder(io.LimitReader(r, 256<<20))
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("load recording: %w", err)
	}
	if rec.Kinformer != recordingFormat {
		return nil, fmt.Errorf("load recording: not a lab recording (kinformer=%q, want %q)", rec.Kinformer, recordingFormat)
	}
	t := &timeline{keep: len(rec.Hops) + 1, boxes: map[string]any{}}
	for k, v := range rec.Start {
		t.boxes[k] = v
	}
	t.base = t.boxes
	for i, rh := range rec.Hops {
		if i > 0 && rh.Step != rec.Hops[i-1].Step+1 {
			return nil, fmt.Errorf("load recording: step %d follows step %d", rh.Step, rec.Hops[i-1].Step)
		}
		if i == 0 {
			t.first = rh.Step
		}
		t.last = rh.Step
		e := entry{hop: rh.Hop}
		if rh.State != nil {
			var v any
			if err := json.Unmarshal(rh.State.Value, &v); err != nil {
				return nil, fmt.Errorf("load recording: step %d: %w", rh.Step, err)
			}
			if rh.Hop.Box == "" {
				return nil, fmt.Errorf("load recording: step %d has a state but no box", rh.Step)
			}
			boxes := maps.Clone(t.boxes)
			if v == nil {
				delete(boxes, rh.Hop.Box)
			} else {
				boxes[rh.Hop.Box] = v
			}
			t.boxes = boxes
			e.state = &trace.State{Box: rh.State.Box, Name: rh.State.Name, Value: v}
		}
		e.boxes = t.boxes
		t.entries = append(t.entries, e)
	}
	if len(t.entries) == 0 {
		return nil, fmt.Errorf("load recording: no hops")
	}
	return t, nil
}
