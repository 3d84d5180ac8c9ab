package lab

import (
	"io"
	"strings"
	"time"
)

// View is what the lab shows at one step (the demo's GET /api/lab/state):
// where the pipeline stands, and the contents of every box after that
// step, each box keyed by resource (fifo, indexer, reflector), by
// resource/handler (listeners), by queue name (workqueue), by controller
// name, or "watches" (server).
type View struct {
	Paused    bool       `json:"paused"`
	Speed     float64    `json:"speed"`
	Step      int        `json:"step"`      // the step shown
	LastStep  int        `json:"lastStep"`  // the latest step recorded
	FirstStep int        `json:"firstStep"` // the oldest step kept
	Rewound   bool       `json:"rewound"`   // the view is of the past: read-only
	Loaded    bool       `json:"loaded"`    // the view is of a loaded recording
	Now       time.Time  `json:"now"`       // the lab's clock (live) or the hop's time
	NextTimer *time.Time `json:"nextTimer,omitempty"`
	Hop       *Hop       `json:"hop,omitempty"` // the step shown
	Waiting   []Hop      `json:"waiting"`       // held at the gate, the next to go first (live only)

	Server     map[string]any `json:"server"`
	Reflector  map[string]any `json:"reflector"`
	FIFO       map[string]any `json:"fifo"`
	Indexer    map[string]any `json:"indexer"`
	Listeners  map[string]any `json:"listeners"`
	WorkQueue  map[string]any `json:"workqueue"`
	Controller map[string]any `json:"controller"`
	Other      map[string]any `json:"other,omitempty"`
}

// fill sorts boxes ("fifo/pods" -> FIFO["pods"]) into the view.
func (v *View) fill(boxes map[string]any) {
	v.Server, v.Reflector, v.FIFO, v.Indexer = map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	v.Listeners, v.WorkQueue, v.Controller = map[string]any{}, map[string]any{}, map[string]any{}
	for k, val := range boxes {
		box, name, _ := strings.Cut(k, "/")
		switch box {
		case "server":
			v.Server[name] = val
		case "reflector":
			v.Reflector[name] = val
		case "fifo":
			v.FIFO[name] = val
		case "indexer":
			v.Indexer[name] = val
		case "listener":
			v.Listeners[name] = val
		case "workqueue":
			v.WorkQueue[name] = val
		case "controller":
			v.Controller[name] = val
		default:
			if v.Other == nil {
				v.Other = map[string]any{}
			}
			v.Other[k] = val
		}
	}
}

// State is the view the lab shows now: live, or the step rewound to, or
// a step of a loaded recording.
func (l *Lab) State() View {
	l.mu.Lock()
	step := l.viewing
	l.mu.Unlock()
	v, err := l.StateAt(step)
	if err != nil { // the step rewound to left the kept timeline
		v, _ = l.StateAt(0)
	}
	return v
}

// StateAt is the view after step (0: the latest), read-only.
func (l *Lab) StateAt(step int) (View, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tl := &l.tl
	if l.loaded != nil {
		tl = l.loaded
	}
	v := View{Paused: l.paused, Speed: l.clock.Speed(), LastStep: tl.last, FirstStep: tl.first, Loaded: l.loaded != nil}
	if v.FirstStep > v.LastStep {
		v.FirstStep = v.LastStep
	}
	live := step == 0 || step == tl.last
	if step == 0 {
		step = tl.last
	}
	boxes := tl.base
	if step > 0 {
		e, ok := tl.at(step)
		if !ok {
			return View{}, ErrNoSuchStep
		}
		h := e.hop
		v.Hop, boxes = &h, e.boxes
	}
	v.Step = step
	v.fill(boxes)
	if live && l.loaded == nil {
		v.Now = l.clock.Now()
		if t, ok := l.clock.Next(); ok {
			v.NextTimer = &t
		}
		for _, h := range l.waiting {
			v.Waiting = append(v.Waiting, hopOf(h.e, true, 0, time.Time{}))
		}
	} else {
		v.Rewound = true
		if v.Hop != nil {
			v.Now = v.Hop.Time
		}
	}
	if v.Waiting == nil {
		v.Waiting = []Hop{}
	}
	return v, nil
}

// Rewind pauses the lab and shows the state after step (read-only);
// Resume or Step goes on live from now.
// A step not kept changes nothing (the lab is not paused by it).
func (l *Lab) Rewind(step int) error {
	kept := func() bool {
		tl := &l.tl
		if l.loaded != nil {
			tl = l.loaded
		}
		_, ok := tl.at(step)
		return ok
	}
	l.mu.Lock()
	ok := kept()
	l.mu.Unlock()
	if !ok {
		return ErrNoSuchStep
	}
	l.Pause()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !kept() { // the step left the kept timeline meanwhile
		return ErrNoSuchStep
	}
	l.viewing = step
	return nil
}

// Live ends a rewind, or the view of a loaded recording: the view is the
// latest step again. A paused lab stays paused (the lessons' Next goes
// back to the newest narrated step so).
func (l *Lab) Live() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.viewing, l.loaded = 0, nil
}

// Timeline returns the kept hops from step from on, at most limit.
func (l *Lab) Timeline(from, limit int) []Hop {
	l.mu.Lock()
	defer l.mu.Unlock()
	tl := &l.tl
	if l.loaded != nil {
		tl = l.loaded
	}
	from = max(from, tl.first)
	var out []Hop
	for s := from; s <= tl.last && len(out) < limit; s++ {
		if e, ok := tl.at(s); ok {
			out = append(out, e.hop)
		}
	}
	return out
}

// Save writes the kept timeline as a Recording (JSON).
func (l *Lab) Save(w io.Writer) error {
	l.mu.Lock()
	tl := l.tl
	if l.loaded != nil {
		tl = *l.loaded
	}
	l.mu.Unlock()
	return tl.save(w) // entries are never mutated once recorded
}

// Load reads a Recording and shows it (read-only) until Resume: the
// pipeline is paused meanwhile, and keeps recording live.
func (l *Lab) Load(r io.Reader) error {
	t, err := loadTimeline(r)
	if err != nil {
		return err
	}
	l.Pause()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loaded, l.viewing = t, t.first
	return nil
}
