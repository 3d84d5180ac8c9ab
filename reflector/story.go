package reflector

import (
	"log/slog"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// The trace events of the loop itself: how each phase ended and which
// phase follows. The bodies of the phases report their own requests and
// events (list, listed, replace, watch, watch event, bookmark, ...).

// traceStep reports outcome o and transition t (delay: the backoff drawn
// for it, if any).
func (r *Reflector) traceStep(o outcome, t transition, delay time.Duration) {
	r.traceOutcome(o, t)
	r.tracePhase(o.phase.String(), t, delay)
}

// traceOutcome reports how a phase ended, and a version found unavailable.
func (r *Reflector) traceOutcome(o outcome, t transition) {
	if !o.stopped {
		switch {
		case o.phase.kind == kindListing && o.err != nil && o.streaming:
			r.tracer.Warn("streaming list failed", trace.RV(o.rv), trace.Err(o.err), slog.String("next", streamingNext(t)))
		case o.phase.kind == kindListing && o.err != nil:
			r.tracer.Warn("list failed", trace.RV(o.rv), trace.Err(o.err))
		case o.phase.kind == kindWatching && !o.opened:
			r.tracer.Warn("watch failed", trace.Err(o.err))
		case o.phase.kind == kindWatching && o.err != nil:
			r.tracer.Warn("watch ended", trace.Err(o.err), trace.Count(o.events), slog.Duration("lasted", o.lasted))
		case o.phase.kind == kindWatching:
			r.tracer.Event("watch ended", trace.Reason("the server closed it"), trace.Count(o.events), slog.Duration("lasted", o.lasted))
		}
	}
	if t.unavailable {
		r.tracer.Event(`relist at ""`, trace.RV(o.rv), trace.Reason(t.reason))
	}
}

// tracePhase reports the move to t.to ("phase" phase=<new> from=<old>
// reason=<why>; for a backoff also after=<wait> next=relist|rewatch).
func (r *Reflector) tracePhase(from string, t transition, delay time.Duration) {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, trace.Phase(t.to.String()))
	if from != "" {
		attrs = append(attrs, slog.String("from", from))
	}
	attrs = append(attrs, trace.Reason(t.reason))
	if t.to.kind == kindBackingOff {
		then := "relist"
		if t.to.then == kindWatching {
			then = "rewatch"
		}
		attrs = append(attrs, trace.Delay(delay), slog.String("next", then))
	}
	r.tracer.Event("phase", attrs...)
}

// streamingNext says what follows a failed streaming list, for its trace
// event and log line.
func streamingNext(t transition) string {
	switch {
	case t.unavailable:
		return `relist at ""`
	case t.to == listingPaged:
		return "fallback to list"
	case t.to == backOffRelist:
		return "retry"
	}
	return t.to.String()
}
