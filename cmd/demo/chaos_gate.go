package main

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
)

// The chaos loop's manners. Unchecked, a fault every few seconds froze the
// show: each compaction (a 410 and a backoff) came before the reflector's
// backoff had started over, so its wait doubled, fault after fault, to
// almost a minute (30 s, plus up to as much again in jitter), while the
// pods it should have reported sat Terminating. A reflector's backoff
// starts over from its first wait (800 ms) only after ResetAfter (2 min)
// without a failure (reflector/backoff.go). So the chaos loop, before each
// fault, reads the trace and the informers' caches, and holds off while
//
//   - a fault you asked for (curl /faults/..., a page button) is recent:
//     it skips chaosQuietTicks ticks, so as not to land in the middle of
//     your experiment (a compact, then close-watches);
//   - a reflector is not watching (listing, backing off), or has watched
//     for less than chaosWatchSettle: dropping a watch younger than a
//     second that carried no event is a "very short watch", a backoff and
//     a relist where a drop should be a plain rewatch;
//   - the ReplicaSet web is short of ready pods, or one is terminating:
//     the controller is still repairing the last fault.
//
// And it compacts (the one default fault that makes every reflector back
// off) only when no reflector has backed off for compactSpacing, longer
// than ResetAfter: so every backoff the chaos loop causes is a first wait,
// 0.8 to 1.6 s. Otherwise that tick drops the watches instead.

// chaosWatchSettle is how long every reflector must have been watching
// before the chaos loop breaks anything: more than the second under which
// a watch with no event is a very short watch.
const chaosWatchSettle = 2 * time.Second

// chaosQuietTicks is how many ticks the chaos loop skips after a fault you
// asked for.
const chaosQuietTicks = 3

// compactSpacing is how long no reflector may have backed off before the
// chaos loop compacts: the reflector's ResetAfter and a margin.
var compactSpacing = reflector.DefaultBackoff.ResetAfter + 10*time.Second

// faultKind is what one tick of the chaos loop did.
type faultKind int

const (
	noFault faultKind = iota
	deletePodFault
	dropWatchesFault
	compactFault
)

// worldState is what the chaos loop reads from the informers' caches:
// the ReplicaSet's wanted and ready replicas, and its pods terminating.
type worldState struct {
	want, ready, terminating int
}

// holdKind is why the chaos loop skips a tick.
type holdKind int

const (
	notHeld holdKind = iota
	heldForYou
	heldNoReflector
	heldReflectorBusy
	heldWatchYoung
	heldShort
	heldTerminating
)

// hold is a skipped tick and its reason, for the narration (lang.go's
// texts.holdLine says it in either language).
type hold struct {
	kind     holdKind
	resource string        // heldReflectorBusy, heldWatchYoung
	phase    string        // heldReflectorBusy
	d        time.Duration // heldForYou: since your fault; heldWatchYoung: watching for
	have     int           // heldShort: ready pods
	want     int           // heldShort
}

// phaseSince is a reflector's phase and when it entered it.
type phaseSince struct {
	phase string
	since time.Time
}

// chaosGate follows the trace (event is a trace.Func callback) and says
// whether the chaos loop may strike now, and with what. Times are its
// clock's, read as each event arrives.
type chaosGate struct {
	mu          sync.Mutex
	clock       clock.Clock
	phases      map[string]phaseSince // by resource
	lastBackoff time.Time             // any reflector's last "backing off"
	lastCompact time.Time             // the chaos loop's last compaction
	lastYours   time.Time             // the last fault you asked for
}

func newChaosGate(c clock.Clock) *chaosGate {
	return &chaosGate{clock: c, phases: map[string]phaseSince{}}
}

// event follows one trace event.
func (g *chaosGate) event(e trace.Event) {
	yours := e.Stage == trace.StageServer && e.What == faultRequested
	phase := e.Stage == trace.StageReflector && e.What == "phase"
	if !yours && !phase {
		return
	}
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if yours {
		g.lastYours = now
		return
	}
	p := e.Get(trace.KeyPhase)
	g.phases[e.Get(trace.KeyResource)] = phaseSince{phase: p, since: now}
	if p == "backing off" {
		g.lastBackoff = now
	}
}

// yoursNow records a fault you asked for that the server's trace does not
// report (the page's "delete a random pod").
func (g *chaosGate) yoursNow() {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastYours = now
}

// decide says what the chaos loop does at now, a tick of interval: the
// fault roll picked (0 or 1: delete a pod, 2: drop the watches, 3:
// compact), or why it holds off.
func (g *chaosGate) decide(now time.Time, interval time.Duration, w worldState, roll int) (faultKind, hold) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.lastYours.IsZero() && now.Sub(g.lastYours) < chaosQuietTicks*interval {
		return noFault, hold{kind: heldForYou, d: now.Sub(g.lastYours)}
	}
	if len(g.phases) == 0 {
		return noFault, hold{kind: heldNoReflector}
	}
	for _, res := range slices.Sorted(maps.Keys(g.phases)) {
		p := g.phases[res]
		if p.phase != "watching" {
			return noFault, hold{kind: heldReflectorBusy, resource: res, phase: p.phase}
		}
		if now.Sub(p.since) < chaosWatchSettle {
			return noFault, hold{kind: heldWatchYoung, resource: res, d: now.Sub(p.since)}
		}
	}
	switch {
	case w.ready < w.want:
		return noFault, hold{kind: heldShort, have: w.ready, want: w.want}
	case w.terminating > 0:
		return noFault, hold{kind: heldTerminating}
	}
	switch roll {
	case 0, 1: // deleting a pod is the most instructive: twice as likely
		return deletePodFault, hold{}
	case 3:
		if (g.lastBackoff.IsZero() || now.Sub(g.lastBackoff) > compactSpacing) &&
			(g.lastCompact.IsZero() || now.Sub(g.lastCompact) > compactSpacing) {
			g.lastCompact = now
			return compactFault, hold{}
		}
	}
	return dropWatchesFault, hold{}
}
