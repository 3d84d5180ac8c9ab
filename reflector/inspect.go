package reflector

import (
	"log/slog"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Inspect: the reflector's state at each hop, for the lab.
//
// When its Tracer is Inspecting (a trace.Inspect consumer: the demo's lab),
// the reflector adds a ReflectorState, box "reflector" (unnamed: the lab
// names it by the event's resource), to its "phase" events and to every
// event after which its last synced version has moved: listed, replace,
// initial events end, watch event, bookmark; and to "watch", which says
// the version a watch starts from. The state is the reflector once that
// hop is done. Most of those events are reported before the store is
// written, and the version moves only after the store has taken the
// change (client-go's order; waitForSynced in the tests waits for it): so
// the state carries the version the hop moves it to, which the reflector
// holds by the time it reports its next event. A list the store refuses
// never moves it; the "phase" event that follows shows the version it
// really holds.
//
// Only the loop's goroutine reports these events and keeps the phase they
// show; when the Tracer is not Inspecting, it keeps nothing.

// ReflectorState is what the lab shows of a reflector.
type ReflectorState struct {
	// Phase is the phase the reflector is in (listing, watching, backing
	// off, stopped; start before the first), and Reason why it entered it.
	Phase  string `json:"phase"`
	Reason string `json:"reason"`
	// LastSyncResourceVersion is the version the store has caught up to:
	// where the next watch starts, and what the next relist asks for.
	LastSyncResourceVersion string `json:"lastSyncResourceVersion"`
	// BackoffUntil is when a backoff ends, on the reflector's clock (nil
	// when it is not backing off), and Backoff how long it is, e.g. "2.8s".
	BackoffUntil *time.Time `json:"backoffUntil,omitempty"`
	Backoff      string     `json:"backoff,omitempty"`
}

// inspection is the part of the state the reflector keeps only for the
// lab: the phase it entered last, and why. The loop's goroutine alone
// reads and writes it.
type inspection struct {
	phase, reason string
	backoffUntil  *time.Time
	backoff       time.Duration
}

// inspect returns the reflector's state, with rv as its last synced
// version, as a State attribute; nil unless the Tracer is Inspecting.
func (r *Reflector) inspect(rv string) []slog.Attr {
	if !r.tracer.Inspecting() {
		return nil
	}
	st := ReflectorState{Phase: r.insp.phase, Reason: r.insp.reason, LastSyncResourceVersion: rv}
	if st.Phase == "" {
		st.Phase = start{}.String()
	}
	if r.insp.backoffUntil != nil {
		until := *r.insp.backoffUntil
		st.BackoffUntil, st.Backoff = &until, humanDelay(r.insp.backoff)
	}
	return []slog.Attr{trace.StateOf("reflector", "", st)}
}

// entered records the phase t enters, for the states of the events that
// follow; only when inspecting.
func (r *Reflector) entered(t transition) {
	if !r.tracer.Inspecting() {
		return
	}
	r.insp = inspection{phase: t.to.String(), reason: t.reason}
	if b, ok := t.to.(backingOff); ok {
		until := r.clock.Now().Add(b.delay)
		r.insp.backoffUntil, r.insp.backoff = &until, b.delay
	}
}

// humanDelay prints a delay as a person reads it: "2.8s", "800ms".
func humanDelay(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
