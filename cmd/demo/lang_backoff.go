package main

import (
	"fmt"
	"time"

	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
)

// backoffLine says how long a reflector backs off and by which rule: its
// wait (the trace's after=), what follows (a list or a watch), and the
// backoff's rule.
func (t *texts) backoffLine(e trace.Event) string {
	next := t.nextList
	if e.Get("next") == "rewatch" {
		next = t.nextWatch
	}
	return fmt.Sprintf(t.backoff, e.Get(trace.KeyResource), t.phase(e.Get("from")), t.reason(e.Get(trace.KeyReason)),
		humanDuration(e.Get(trace.KeyDelay)), next, t.rule())
}

// rule is the backoff's rule, in the numbers of reflector.DefaultBackoff,
// which the demo's reflectors use: doubling up to Cap, jittered, back to
// Initial after ResetAfter without a failure.
func (t *texts) rule() string {
	b := reflector.DefaultBackoff
	return fmt.Sprintf(t.backoffRule, human(b.Cap), human(b.Initial), human(b.ResetAfter))
}

// why is the hover text of a reflector's phase on the page: the reason,
// and for a backoff its rule.
func (t *texts) why(phase, reason string) string {
	if phase == "backing off" {
		sep := "; "
		if t.lang == chinese {
			sep = "；"
		}
		return t.reason(reason) + sep + t.rule()
	}
	return t.reason(reason)
}

// holdLine says why the chaos loop skips a tick.
func (t *texts) holdLine(h hold) string {
	chaos := t.who("chaos")
	switch h.kind {
	case heldForYou:
		return fmt.Sprintf(t.heldForYou, chaos, human(h.d), chaosQuietTicks)
	case heldNoReflector:
		return fmt.Sprintf(t.heldNoReflector, chaos)
	case heldReflectorBusy:
		return fmt.Sprintf(t.heldReflectorBusy, chaos, h.resource, t.phase(h.phase))
	case heldWatchYoung:
		return fmt.Sprintf(t.heldWatchYoung, chaos, h.resource, human(h.d))
	case heldShort:
		return fmt.Sprintf(t.heldShort, chaos, h.have, h.want)
	case heldTerminating:
		return fmt.Sprintf(t.heldTerminating, chaos)
	}
	return ""
}

// human is humanDuration of a time.Duration.
func human(d time.Duration) string { return humanDuration(d.String()) }
