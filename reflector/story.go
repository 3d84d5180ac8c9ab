package reflector

import (
	"log/slog"

	"github.com/kinformer/kinformer/trace"
)

// The trace events of the loop itself: how each phase ended and which
// phase follows. The bodies of the phases report their own requests and
// events (list, listed, replace, watch, watch event, bookmark, ...).

// traceStep reports outcome o and transition t, whose backoff (if it is
// one) has its wait drawn.
func (r *Reflector) traceStep(o outcome, t transition) {
	r.traceOutcome(o, t)
	r.tracePhase(o.phase, t)
}

// traceOutcome reports how a phase ended, and a version found unavailable.
func (r *Reflector) traceOutcome(o outcome, t transition) {
	if !o.stopped {
		switch p := o.phase.(type) {
		case listing:
			switch {
			case o.err != nil && p.streaming:
				r.tracer.Warn("streaming list failed", trace.RV(o.rv), trace.Err(o.err), slog.String("next", streamingNext(t)))
			case o.err != nil:
				r.tracer.Warn("list failed", trace.RV(o.rv), trace.Err(o.err))
			}
		case watching:
			switch {
			case !o.opened:
				r.tracer.Warn("watch failed", trace.Err(o.err))
			case o.err != nil:
				r.tracer.Warn("watch ended", trace.Err(o.err), trace.Count(o.events), slog.Duration("lasted", o.lasted))
			default:
				r.tracer.Event("watch ended", trace.Reason("the server closed it"), trace.Count(o.events), slog.Duration("lasted", o.lasted))
			}
		}
	}
	if t.unavailable {
		r.tracer.Event(`relist at ""`, trace.RV(o.rv), trace.Reason(t.reason))
	}
}

// tracePhase reports the move from phase from to t.to ("phase"
// phase=<new> from=<old> reason=<why>, without from after start; for a
// backoff also after=<wait> next=relist|rewatch).
func (r *Reflector) tracePhase(from phase, t transition) {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, trace.Phase(t.to.String()))
	if _, first := from.(start); !first {
		attrs = append(attrs, slog.String("from", from.String()))
	}
	attrs = append(attrs, trace.Reason(t.reason))
	if b, ok := t.to.(backingOff); ok {
		then := "relist"
		if _, rewatch := b.then.(watching); rewatch {
			then = "rewatch"
		}
		attrs = append(attrs, trace.Delay(b.delay), slog.String("next", then))
	}
	r.entered(t)
	r.tracer.Event("phase", append(attrs, r.inspect(r.LastSyncResourceVersion())...)...)
}

// streamingNext says what follows a failed streaming list, for its trace
// event and log line.
func streamingNext(t transition) string {
	switch to := t.to.(type) {
	case listing:
		switch {
		case t.unavailable:
			return `relist at ""`
		case !to.streaming:
			return "fallback to list"
		default:
			return "retry at once"
		}
	case backingOff:
		return "retry"
	}
	return t.to.String()
}
