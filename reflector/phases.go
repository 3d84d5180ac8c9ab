package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kinformer/kinformer/listwatch"
)

// The reflector is a state machine. It is always in one phase; a phase's
// body (ListAndWatch's list, syncWith, watchHandler, a backoff) runs to its
// end and says how it ended, an outcome; and one pure function, next, turns
// that outcome into the phase that follows. Run is nothing but
//
//	for p := listing; p != stopped; p = step(p) {}
//
// so every rule about what happens after a failure is in next, and
// TestReflector_NextPhase checks each of them without a server.

// phase is where the reflector is.
type phase struct {
	kind kind
	// then is what follows a backoff: kindListing (relist) or kindWatching
	// (rewatch).
	then kind
	// paged: list with a paged LIST even if Options.UseWatchList is set,
	// because the streaming list just failed (client-go's fallback).
	paged bool
}

type kind uint8

const (
	kindStopped kind = iota
	kindListing
	kindWatching
	kindBackingOff
)

// The phases.
var (
	// listing: a list (a streaming list if UseWatchList) at
	// relistResourceVersion, then syncWith: the store is Replaced.
	listing = phase{kind: kindListing}
	// listingPaged: the same with a paged LIST, after a streaming list
	// failed in a way a retry would not mend.
	listingPaged = phase{kind: kindListing, paged: true}
	// watching: one watch from LastSyncResourceVersion (or the streaming
	// list's, already open), its events applied by watchHandler.
	watching = phase{kind: kindWatching}
	// backOffRelist, backOffRewatch: wait out the backoff (or the server's
	// Retry-After), then list again, or watch again without a list.
	backOffRelist  = phase{kind: kindBackingOff, then: kindListing}
	backOffRewatch = phase{kind: kindBackingOff, then: kindWatching}
	// stopped: the context ended; Run returns.
	stopped = phase{kind: kindStopped}
)

// String is the phase's name in trace events.
func (p phase) String() string {
	switch p.kind {
	case kindListing:
		return "listing"
	case kindWatching:
		return "watching"
	case kindBackingOff:
		return "backing off"
	}
	return "stopped"
}

// outcome is how a phase ended: all next needs to know.
type outcome struct {
	phase   phase // the phase that ended
	stopped bool  // the context ended
	err     error // how it failed; nil: it did what it set out to do

	// listing
	rv        string // the resourceVersion the list asked for
	streaming bool   // it was a streaming list

	// watching
	opened bool          // the watch request succeeded; err is how the stream ended
	events int           // events the watch delivered (bookmarks too)
	lasted time.Duration // from the watch request to the watch's end
}

// transition is next's decision.
type transition struct {
	to     phase
	reason string // why, in the words of the trace
	// report is what the watch error handler is told (nil: nothing). Problems
	// inside a stream (an object of the wrong type, a dropped connection)
	// are reported by watchHandler as they happen, not here.
	report error
	// unavailable: the last synced version is gone (410) or not reached yet
	// (504): set isLastSyncResourceVersionUnavailable, so the next list asks
	// for "".
	unavailable bool
}

// errVeryShortWatch is client-go's "very short watch": a watch that ended
// with no events in under a second, likely a server or proxy that accepts
// watches and cuts them at once.
var errVeryShortWatch = errors.New("very short watch: unexpected watch close - watch lasted less than a second and no items received")

// next decides the phase that follows an outcome. It is pure: it reads only
// o. The rules, as client-go's reflector follows them:
//
//	listing  ok                                  → watching
//	listing  410 / 504 too large, not at ""      → listing at "" at once
//	listing  streaming: 429, refused, 5xx+Retry  → back off, then relist (a streaming list again)
//	listing  streaming: anything else            → a paged list at once (the fallback)
//	listing  anything else                       → back off, then relist
//	watching 429 or connection refused           → back off, then rewatch
//	watching 410 Expired, any other error        → back off, then relist
//	watching no events, under a second           → back off, then relist (very short watch)
//	watching ended cleanly, or connection dropped → watching again, from the last version
//	backing off, over                            → what it was backing off for
//	the context ended, in any phase              → stopped
func next(o outcome) transition {
	if o.stopped {
		return transition{to: stopped, reason: "context ended"}
	}
	switch o.phase.kind {
	case kindListing:
		return afterList(o)
	case kindWatching:
		return afterWatch(o)
	case kindBackingOff:
		return transition{to: phase{kind: o.phase.then}, reason: "backoff over"}
	}
	return transition{to: stopped, reason: "stopped"}
}

func afterList(o outcome) transition {
	switch {
	case o.err == nil:
		return transition{to: watching, reason: "listed"}
	case isVersionUnavailable(o.err) && o.rv != "":
		// Asking again for the same version would fail again; client-go's
		// list (and its streaming list) retries at once for the most recent
		// state. At "" it cannot be too old or too new: if it fails even
		// so, the default rule backs off.
		return transition{to: o.phase, reason: cause(o.err), unavailable: true}
	case o.streaming && retriesStreamingList(o.err):
		// The server sheds load or is restarting: a paged LIST is exactly
		// what it is trying to avoid. Try the streaming list again, later.
		return transition{to: backOffRelist, reason: "streaming list: " + cause(o.err)}
	case o.streaming:
		return transition{to: listingPaged, reason: "streaming list: " + cause(o.err)}
	default:
		return transition{to: backOffRelist, reason: cause(o.err), report: o.err}
	}
}

func afterWatch(o outcome) transition {
	// A stream cut after it was opened ends the watch like a clean end; a
	// request that failed to open is an error like any other.
	dropped := o.opened && isDroppedConnection(o.err)
	switch {
	case isRetriableWatchError(o.err):
		return transition{to: backOffRewatch, reason: cause(o.err), report: o.err}
	case o.err != nil && !dropped:
		return transition{to: backOffRelist, reason: cause(o.err), report: o.err}
	case o.events == 0 && o.lasted < time.Second:
		return transition{to: backOffRelist, reason: "very short watch", report: errVeryShortWatch}
	case dropped:
		return transition{to: watching, reason: "dropped connection"}
	default:
		return transition{to: watching, reason: "ended cleanly"}
	}
}

// isVersionUnavailable: the server no longer has the version a list asked
// for (410 Expired) or has not reached it yet (504 too large).
func isVersionUnavailable(err error) bool {
	return listwatch.IsResourceExpired(err) || listwatch.IsTooLargeResourceVersion(err)
}

// isRetriableWatchError: the server is restarting (connection refused) or
// shedding load (429). A watch is retried after a backoff, from the same
// version, without a relist (client-go's isWatchErrorRetriable).
func isRetriableWatchError(err error) bool {
	return listwatch.IsConnectionRefused(err) || listwatch.IsTooManyRequests(err)
}

// retriesStreamingList: the failures a streaming list is retried on, as a
// streaming list, after a backoff: those of a watch, and a 5xx that asks to
// be retried (Retry-After), which client-go's REST client retries before
// the reflector ever sees it.
func retriesStreamingList(err error) bool {
	if isRetriableWatchError(err) {
		return true
	}
	var st *listwatch.StatusError
	_, later := listwatch.RetryAfter(err)
	return later && errors.As(err, &st) && st.Status().Code >= 500
}

// cause names an error for a trace's reason: short for what next tells
// apart, the error itself for the rest.
func cause(err error) string {
	var st *listwatch.StatusError
	switch {
	case err == nil:
		return "ok"
	case listwatch.IsResourceExpired(err):
		return "410 Expired"
	case listwatch.IsTooLargeResourceVersion(err):
		return "504 too large resource version"
	case errors.As(err, &st):
		return fmt.Sprintf("%d %s", st.Status().Code, st.Status().Reason)
	case listwatch.IsConnectionRefused(err):
		return "connection refused"
	case isDroppedConnection(err):
		return "dropped connection"
	}
	return err.Error()
}

// Run lists and watches until ctx ends, one phase after the other. It
// returns once the phase is stopped and every goroutine it started has
// returned.
func (r *Reflector) Run(ctx context.Context) {
	l := r.newLoop(ctx)
	defer l.close()
	for p := l.start(); p != stopped; p = l.step(p) {
	}
}

// ListAndWatch is one lap of Run's loop: it lists (or opens a streaming
// list), Replaces the store with the result, then watches, rewatching as
// next says, until the reflector would relist after a failure. It returns
// that failure, which its caller reports and backs off from (as client-go's
// Run does with its ListAndWatch), or nil when ctx ends.
func (r *Reflector) ListAndWatch(ctx context.Context) error {
	l := r.newLoop(ctx)
	defer l.close()
	for p := l.start(); ; {
		o := l.do(p)
		t := next(o)
		switch {
		case t.to == stopped:
			return nil
		case t.to == backOffRelist && t.report != nil:
			if r.tracer.On() {
				r.traceOutcome(o, t) // the backoff and the relist are the caller's
			}
			return fmt.Errorf("%s: %w", r.name, t.report)
		}
		p = l.enter(o, t)
	}
}

// loop is what the phases of one Run (or one ListAndWatch) share.
type loop struct {
	r     *Reflector
	ctx   context.Context
	open  listwatch.Watch // a streaming list's watch, for the watching phase that follows
	delay time.Duration   // how long the backing-off phase waits

	// The resync goroutine runs while the reflector is on the watch side of
	// the loop: from the list that filled the store to the next relist, over
	// any number of rewatches (client-go's watchWithResync). Restarting it
	// on every rewatch would never resync if watches end more often than
	// ResyncPeriod.
	stopResyncLoop func()
	resyncErr      <-chan error
	resyncDone     sync.WaitGroup
}

func (r *Reflector) newLoop(ctx context.Context) *loop { return &loop{r: r, ctx: ctx} }

// start is the first phase.
func (l *loop) start() phase {
	if l.r.tracer.On() {
		l.r.tracePhase("", transition{to: listing, reason: "start"}, 0)
	}
	return listing
}

// step runs phase p to its end and enters the phase that follows.
func (l *loop) step(p phase) phase {
	o := l.do(p)
	return l.enter(o, next(o))
}

// do runs the body of phase p.
func (l *loop) do(p phase) outcome {
	r := l.r
	var o outcome
	switch {
	case l.ctx.Err() != nil:
		o = outcome{phase: p}
	case p.kind == kindListing && r.opts.UseWatchList && !p.paged:
		o = outcome{phase: p, streaming: true}
		l.open, o.rv, o.err = r.watchList(l.ctx)
	case p.kind == kindListing:
		o = outcome{phase: p}
		o.rv, o.err = r.list(l.ctx)
	case p.kind == kindWatching:
		w := l.open
		l.open = nil
		o = r.watch(l.ctx, w, l.resyncErr)
	case p.kind == kindBackingOff:
		o = outcome{phase: p}
		r.sleep(l.ctx, l.delay)
	}
	o.stopped = l.ctx.Err() != nil
	return o
}

// enter carries out transition t, made after outcome o: it tells the
// watch error handler, starts or stops the resync goroutine, draws the
// backoff, and traces it all. It returns the new phase.
func (l *loop) enter(o outcome, t transition) phase {
	r := l.r
	if t.unavailable {
		r.setIsLastSyncResourceVersionUnavailable(true)
	}
	if t.report != nil {
		r.watchErrorHandler(r, fmt.Errorf("%s: %w", r.name, t.report))
	}
	if o.streaming && o.err != nil && !o.stopped && !t.unavailable {
		r.logger.Info("streaming list failed", "reflector", r.name, "next", streamingNext(t), "err", o.err)
	}
	if t.to == watching || t.to == backOffRewatch {
		l.startResync()
	} else {
		l.stopResync()
	}
	l.delay = 0
	if t.to.kind == kindBackingOff {
		l.delay = r.wait(o.err)
	}
	if r.tracer.On() {
		r.traceStep(o, t, l.delay)
	}
	return t.to
}

func (l *loop) startResync() {
	if l.stopResyncLoop != nil || l.r.opts.ResyncPeriod <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(l.ctx)
	errc := make(chan error, 1)
	l.stopResyncLoop, l.resyncErr = cancel, errc
	l.resyncDone.Go(func() { l.r.resyncLoop(ctx, errc) })
}

// stopResync stops the resync goroutine and waits until it has returned
// (it may be inside Store.Resync or ShouldResync).
func (l *loop) stopResync() {
	if l.stopResyncLoop == nil {
		return
	}
	l.stopResyncLoop()
	l.resyncDone.Wait()
	l.stopResyncLoop, l.resyncErr = nil, nil
}

// close releases what the loop holds: the resync goroutine, and a
// streaming list's watch if the context ended before it was used.
func (l *loop) close() {
	l.stopResync()
	if l.open != nil {
		l.open.Stop()
		l.open = nil
	}
}
