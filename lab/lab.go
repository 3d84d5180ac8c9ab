package lab

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Options configures a Lab.
type Options struct {
	// Clock is the pipeline's clock: the lab stops it while paused and
	// jumps it to its next timer when a step finds nothing waiting. Nil:
	// a new Clock at the wall clock's time.
	Clock *Clock
	// Next receives every event once it has passed the gate, in the order
	// the lab records them (the demo's narration and page). Called on the
	// stage's goroutine, or on the stepper's; it must be quick.
	Next func(trace.Event)
	// Gated says which events are hops the lab holds while paused.
	// Nil: Gated (every pipeline stage, and the server's watch frames).
	Gated func(trace.Event) bool
	// Keep is how many hops the timeline keeps for rewind (default 10000).
	Keep int
	// Settle is how long a step waits for a hop to arrive before it moves
	// the clock to its next timer (default 300 ms of wall clock).
	Settle time.Duration
}

// Errors of Step and Rewind.
var (
	// ErrIdle: nothing is waiting at the gate and no timer brought a hop.
	ErrIdle = errors.New("nothing to step: no hop is waiting and no timer is due")
	// ErrNotPaused: a step needs the lab paused.
	ErrNotPaused = errors.New("the lab is not paused: pause it first")
	// ErrNoSuchStep: the step is not in the kept timeline.
	ErrNoSuchStep = errors.New("that step is not in the timeline")
)

// jumpsPerStep bounds how many timers one step may fire while it looks
// for a hop (a ticker that reports nothing would otherwise spin).
const jumpsPerStep = 8

// Lab holds a pipeline's hops while paused, records every hop with the
// contents of each box after it, and answers what the pipeline held at
// any kept step.
type Lab struct {
	opts   Options
	clock  *Clock
	tracer *trace.Tracer

	stepMu sync.Mutex // one Step at a time

	mu      sync.Mutex
	paused  bool
	pace    time.Duration // > 0: running slower than real time, one hop per pace
	closed  bool
	waiting []*held       // hops held at the gate, in arrival order
	arrived chan struct{} // a hop arrived while paused (cap 1)
	tl      timeline      // the live recording
	loaded  *timeline     // a loaded recording being viewed, nil: live
	viewing int           // the step shown; 0: the latest
}

// held is a hop waiting at the gate.
type held struct {
	e    trace.Event
	done chan struct{}
}

// New returns a running (not paused) Lab.
func New(opts Options) *Lab {
	if opts.Clock == nil {
		opts.Clock = NewClock(time.Now())
	}
	if opts.Gated == nil {
		opts.Gated = Gated
	}
	if opts.Keep <= 0 {
		opts.Keep = 10000
	}
	if opts.Settle <= 0 {
		opts.Settle = 300 * time.Millisecond
	}
	l := &Lab{opts: opts, clock: opts.Clock, arrived: make(chan struct{}, 1)}
	l.tl = newTimeline(opts.Keep)
	l.tracer = trace.New(trace.Inspect(l.arrive))
	return l
}

// Gated is the default gate: every event of the pipeline's stages, and of
// the server only the frames it writes to a watch (so the server keeps
// accepting writes while the lab is paused: kubectl works, and the
// frames wait, as they would on a slow connection).
func Gated(e trace.Event) bool {
	if e.Stage != trace.StageServer {
		return true
	}
	switch e.What {
	case "frame sent", "bookmark sent", "bookmark sent (initial-events-end)", "garbage sent (fault)":
		return true
	}
	return false
}

// Tracer is the tracer to give every stage of the pipeline.
func (l *Lab) Tracer() *trace.Tracer { return l.tracer }

// Clock is the lab's clock.
func (l *Lab) Clock() *Clock { return l.clock }

// Run drives the lab's clock and, at a slow speed, releases one hop per
// pace, until ctx ends; then it lets every held hop go (Close).
func (l *Lab) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { l.clock.Run(ctx) })
	wg.Go(func() { l.pacer(ctx) })
	<-ctx.Done()
	l.Close()
	wg.Wait()
}

// Close stops holding hops for good and lets every held one go, so that
// no goroutine of the pipeline stays blocked in a trace call.
func (l *Lab) Close() {
	l.mu.Lock()
	l.closed = true
	l.paused = false
	l.mu.Unlock()
	l.drain()
	l.clock.Resume()
}

// arrive is the gate: the trace consumer every stage reports to.
func (l *Lab) arrive(e trace.Event) {
	if !l.opts.Gated(e) {
		l.pass(e, false)
		return
	}
	l.mu.Lock()
	if l.closed || (!l.paused && l.pace == 0 && len(l.waiting) == 0) {
		l.mu.Unlock()
		l.pass(e, true)
		return
	}
	h := &held{e: e, done: make(chan struct{})}
	l.waiting = append(l.waiting, h)
	select {
	case l.arrived <- struct{}{}:
	default:
	}
	l.mu.Unlock()
	<-h.done // released by Step, Resume, the pacer or Close
}

// pass records e as the next step and hands it on.
func (l *Lab) pass(e trace.Event, gated bool) Hop {
	l.mu.Lock()
	h := l.tl.record(e, gated, l.clock.Now())
	l.mu.Unlock()
	if l.opts.Next != nil {
		l.opts.Next(e)
	}
	return h
}

// release lets the oldest held hop go, if there is one.
func (l *Lab) release() (Hop, bool) {
	l.mu.Lock()
	if len(l.waiting) == 0 {
		l.mu.Unlock()
		return Hop{}, false
	}
	h := l.waiting[0]
	l.waiting = l.waiting[1:]
	l.mu.Unlock()
	hop := l.pass(h.e, true)
	close(h.done)
	return hop, true
}

// drain releases every held hop, in order (also those that arrive while
// it drains, until none is left).
func (l *Lab) drain() {
	for {
		if _, ok := l.release(); !ok {
			return
		}
	}
}

// Pause holds every hop from now on and stops the lab's clock. A hop
// already past the gate finishes what it does up to its stage's next
// event, which then waits.
func (l *Lab) Pause() {
	l.mu.Lock()
	if !l.closed {
		l.paused = true
	}
	l.mu.Unlock()
	l.clock.Pause()
}

// Resume lets the held hops go in order, starts the clock again, and
// returns the view to live (a rewind ends).
func (l *Lab) Resume() {
	l.stepMu.Lock()
	defer l.stepMu.Unlock()
	l.mu.Lock()
	l.viewing, l.loaded = 0, nil
	l.mu.Unlock()
	for {
		l.drain()
		l.mu.Lock()
		if len(l.waiting) == 0 {
			l.paused = false
			l.mu.Unlock()
			break
		}
		l.mu.Unlock()
	}
	l.clock.Resume()
}

// Paused reports whether the lab holds hops.
func (l *Lab) Paused() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.paused
}

// SetSpeed sets the pipeline's speed. At 1 or more, the clock runs that
// many times the wall clock and hops pass as they come. Below 1 the clock
// runs slower and the hops pass one at a time, one every 50 ms / speed
// (0.25: four hops a second), so the page can be followed by eye.
func (l *Lab) SetSpeed(speed float64) error {
	if !(speed > 0 && speed <= 100) { // NaN too: it would stop the clock for good
		return fmt.Errorf("speed %v: want more than 0, at most 100", speed)
	}
	l.clock.SetSpeed(speed)
	l.mu.Lock()
	l.pace = 0
	if speed < 1 {
		l.pace = time.Duration(float64(50*time.Millisecond) / speed)
	}
	l.mu.Unlock()
	return nil
}

// pacer releases one held hop per pace while the lab runs slowly.
func (l *Lab) pacer(ctx context.Context) {
	for {
		l.mu.Lock()
		pace, paused := l.pace, l.paused
		l.mu.Unlock()
		wait := pace
		if pace == 0 || paused {
			wait = 100 * time.Millisecond // look again: the speed or the pause may change
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if pace > 0 && !paused {
			l.stepMu.Lock()
			l.release()
			l.stepMu.Unlock()
		}
		if pace == 0 {
			l.mu.Lock()
			if l.pace == 0 && !l.paused {
				l.mu.Unlock()
				l.drain() // hops held by a slow speed that has just ended
				continue
			}
			l.mu.Unlock()
		}
	}
}

// Step lets exactly one held hop go and returns it. With nothing held, it
// waits up to Settle for one to arrive; if none does, it moves the lab's
// clock to its next timer (a backoff's end, a resync, a delayed retry)
// and waits again. ErrIdle if nothing came.
func (l *Lab) Step(ctx context.Context) (Hop, error) {
	l.stepMu.Lock()
	defer l.stepMu.Unlock()
	if !l.Paused() {
		return Hop{}, ErrNotPaused
	}
	l.mu.Lock()
	l.viewing, l.loaded = 0, nil // a step goes on from the live state
	l.mu.Unlock()
	jumps := 0
	for {
		if h, ok := l.release(); ok {
			return h, nil
		}
		t := time.NewTimer(l.opts.Settle)
		select {
		case <-ctx.Done():
			t.Stop()
			return Hop{}, ctx.Err()
		case <-l.arrived:
			t.Stop()
			continue
		case <-t.C:
		}
		if jumps == jumpsPerStep {
			return Hop{}, ErrIdle
		}
		if _, ok := l.clock.Jump(); !ok {
			return Hop{}, ErrIdle
		}
		jumps++
	}
}

// Waiting returns the hops held at the gate, oldest (the next to go) first.
func (l *Lab) Waiting() []Hop {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Hop, len(l.waiting))
	for i, h := range l.waiting {
		out[i] = hopOf(h.e, true, 0, time.Time{})
	}
	return out
}
