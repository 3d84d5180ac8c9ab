package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kinformer/kinformer/listwatch"
)

// The reflector is a state machine with one loop and one rule book.
//
// It is always in one phase, and a phase carries what it needs to run:
//
//	start                    nothing yet: the first list follows
//	listing{streaming}       one list: a paged LIST, or a streaming list (a watch with sendInitialEvents)
//	watching{open}           one watch; open is a streaming list's watch, still open (nil: open one)
//	backingOff{delay, then}  wait delay, then go on to then (a listing: relist; a watching: rewatch)
//	stopped                  the context ended
//
// The loop runs a phase's body (list, watchList, watch, a sleep) to its end,
// which says how it ended, an outcome; next, one pure function, turns the
// outcome into a transition (the phase that follows, and why, and what to
// report); and the loop enters that phase:
//
//	for p := phase(start{}); p != (stopped{}); p = enter(next(do(p))) {}
//
// Every decision (which list, when to back off and for what, when a lap of
// ListAndWatch ends, when the resync timer runs) is in next, and
// TestReflector_NextPhase checks each rule without a server. The loop only
// carries them out; the one thing it adds is the roll of the dice: entering
// a backoff, it draws the wait from the backoff manager.

// phase is where the reflector is: one of start, listing, watching,
// backingOff and stopped, each with its data (a closed set, as the states of
// kube-rs's watcher).
type phase interface {
	fmt.Stringer // the phase's name in trace events
	isPhase()
}

type (
	// start is the phase before the first list. Its body does nothing;
	// next picks the first list.
	start struct{}

	// listing lists the whole resource at relistResourceVersion and
	// Replaces the store with the result (syncWith).
	listing struct {
		// streaming: a streaming list (watchList: one watch with
		// sendInitialEvents, with Options.UseWatchList) rather than a paged
		// LIST (list). next chooses: a streaming list if UseWatchList, a
		// paged LIST after a streaming list failed in a way a retry would
		// not mend (client-go's fallbackToList).
		streaming bool
	}

	// watching runs one watch from LastSyncResourceVersion through
	// watchHandler until it ends.
	watching struct {
		// open is the watch to read if one is open already: the streaming
		// list's, whose initial events filled the store (next moves it from
		// the listing's outcome to here). nil: open a watch.
		open listwatch.Watch
	}

	// backingOff waits, then goes on to what it was backing off for.
	backingOff struct {
		// delay is how long it waits. next sets the server's Retry-After (0
		// if it sent none): the least the wait may be. Entering the phase,
		// the loop raises it to the wait drawn from the backoff manager
		// (doubling, jittered: the one thing next does not decide).
		delay time.Duration
		// then is what follows: a listing (relist) or a watching with no
		// open watch (rewatch from the last synced version).
		then phase
	}

	// stopped: the context ended. Run returns.
	stopped struct{}
)

func (start) isPhase()      {}
func (listing) isPhase()    {}
func (watching) isPhase()   {}
func (backingOff) isPhase() {}
func (stopped) isPhase()    {}

func (start) String() string      { return "start" }
func (listing) String() string    { return "listing" }
func (watching) String() string   { return "watching" }
func (backingOff) String() string { return "backing off" }
func (stopped) String() string    { return "stopped" }

// outcome is how a phase ended: all next needs to know.
type outcome struct {
	phase   phase // the phase that ended
	stopped bool  // the context ended
	err     error // how it failed; nil: it did what it set out to do

	// listing
	rv    string          // the resourceVersion the list asked for
	watch listwatch.Watch // a streaming list's watch, open after its initial events

	// watching, and a streaming list's stream
	opened bool          // the watch request succeeded; err is how the stream ended
	events int           // events the watch delivered (bookmarks too)
	lasted time.Duration // from the watch request to the watch's end (a streaming list's: to its bookmark, or the stream's end)
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
	// resync: the resync timer runs in the phase that follows. It runs on
	// the watch side of the loop, from the list that filled the store to the
	// next relist, over any number of rewatches (client-go's
	// watchWithResync): restarting it on every rewatch would never resync if
	// watches end more often than FullResyncPeriod.
	resync bool
	// endsLap: here client-go's ListAndWatch returns (with a list's error;
	// after a watch's, having logged it), and its Run backs off and starts
	// the next lap with a list. Run's loop goes on into the backoff and the
	// relist; ListAndWatch stops and returns report, for its caller to
	// report and back off from.
	endsLap bool
}

// errVeryShortWatch is client-go's "very short watch": a watch that ended
// with no events in under a second, likely a server or proxy that accepts
// watches and cuts them at once.
var errVeryShortWatch = errors.New("very short watch: unexpected watch close - watch lasted less than a second and no items received")

// next decides the phase that follows an outcome. It is pure: it reads only
// o and useWatchList (Options.UseWatchList). The rules, as client-go's
// reflector follows them:
//
//	start                                         → listing: streaming if UseWatchList, else paged
//	listing  ok                                   → watching (a streaming list's watch, still open)
//	listing  410 / 504 too large, not at ""       → the same listing, at "", at once
//	listing  streaming: 429, refused, 5xx+Retry   → back off, then a streaming list again
//	listing  streaming: ended before the bookmark → a streaming list again, at once
//	listing  streaming: ... no events, under 1 s  → a paged list at once (very short watch)
//	listing  streaming: anything else             → a paged list at once (the fallback), e.g. a
//	                                                server that refuses sendInitialEvents (422)
//	listing  anything else                        → back off, then relist; the lap ends
//	watching 429 or connection refused            → back off, then rewatch
//	watching 410 Expired, any other error         → back off, then relist; the lap ends
//	watching no events, under a second            → back off, then relist; the lap ends (very short watch)
//	watching ended cleanly, or connection dropped → watching again, from the last version
//	backing off, over                             → what it was backing off for
//	the context ended, in any phase               → stopped
//
// A relist is a streaming list if UseWatchList, else a paged one; a backoff
// waits at least the server's Retry-After; the resync timer runs in
// watching and in a backoff before a rewatch.
func next(o outcome, useWatchList bool) transition {
	relist := listing{streaming: useWatchList}
	var t transition
	if o.stopped {
		t = transition{to: stopped{}, reason: "context ended"}
	} else {
		switch p := o.phase.(type) {
		case start:
			t = transition{to: relist, reason: "start"}
		case listing:
			t = afterList(p, o, relist)
		case watching:
			t = afterWatch(o, relist)
		case backingOff:
			t = transition{to: p.then, reason: "backoff over"}
		default:
			t = transition{to: stopped{}, reason: "stopped"}
		}
	}
	switch to := t.to.(type) {
	case watching:
		t.resync = true
	case backingOff:
		_, t.resync = to.then.(watching)
	}
	return t
}

// afterList: the rules after a list. For a streaming list they are those of
// client-go's watchList loop and of ListAndWatch's fallbackToList: each
// case names the one it pins.
func afterList(p listing, o outcome, relist listing) transition {
	switch {
	case o.err == nil:
		return transition{to: watching{open: o.watch}, reason: "listed"}
	case isVersionUnavailable(o.err) && o.rv != "":
		// Asking again for the same version would fail again; client-go's
		// list (and its streaming list) retries at once for the most recent
		// state (isExpiredError, isTooLargeResourceVersionError →
		// setIsLastSyncResourceVersionUnavailable). At "" it cannot be too
		// old or too new: if it fails even so, the default rule backs off
		// (a paged list) or falls back (a streaming list), where client-go's
		// watchList would stream again at "" at once, without a backoff,
		// for as long as the server kept answering so.
		return transition{to: p, reason: cause(o.err), unavailable: true}
	case p.streaming && retriesStreamingList(o.err):
		// The server sheds load or is restarting (watchList:
		// isWatchErrorRetriable → back off, continue): a paged LIST is
		// exactly what it is trying to avoid. Try the streaming list
		// again, later.
		return transition{to: backOff(o.err, p), reason: "streaming list: " + cause(o.err)}
	case p.streaming && errors.Is(o.err, errNoEndBookmark) && (o.events > 0 || o.lasted >= time.Second):
		// The stream ended (the server's timeout, a cut connection) before
		// the initial-events-end bookmark: watchList's handleListWatch
		// returns no error and no bookmark, and its loop opens a new
		// streaming list at once, from the same version, the initial
		// events collected so far dropped.
		return transition{to: p, reason: "streaming list: " + cause(o.err)}
	case p.streaming && errors.Is(o.err, errNoEndBookmark):
		// The same with no events in under a second: handleAnyWatch's
		// VeryShortWatchError, which watchList does not retry:
		// ListAndWatch falls back to a paged list.
		return transition{to: listing{streaming: false}, reason: "streaming list: very short watch"}
	case p.streaming:
		// Any other failure: ListAndWatch's fallbackToList, a paged list
		// at once, for this lap. A server that does not support streaming
		// lists lands here: one whose WatchList feature gate is off
		// answers 422 Invalid (sendInitialEvents: Forbidden).
		return transition{to: listing{streaming: false}, reason: "streaming list: " + cause(o.err)}
	default:
		return transition{to: backOff(o.err, relist), reason: cause(o.err), report: o.err, endsLap: true}
	}
}

func afterWatch(o outcome, relist listing) transition {
	// A stream cut after it was opened ends the watch like a clean end; a
	// request that failed to open is an error like any other.
	dropped := o.opened && isDroppedConnection(o.err)
	switch {
	case isRetriableWatchError(o.err):
		return transition{to: backOff(o.err, watching{}), reason: cause(o.err), report: o.err}
	case o.err != nil && !dropped:
		return transition{to: backOff(o.err, relist), reason: cause(o.err), report: o.err, endsLap: true}
	case o.events == 0 && o.lasted < time.Second:
		return transition{to: backOff(o.err, relist), reason: "very short watch", report: errVeryShortWatch, endsLap: true}
	case dropped:
		return transition{to: watching{}, reason: "dropped connection"}
	default:
		return transition{to: watching{}, reason: "ended cleanly"}
	}
}

// backOff is the backoff after err, then: it waits at least the server's
// Retry-After, if err carries one.
func backOff(err error, then phase) backingOff {
	after, _ := listwatch.RetryAfter(err)
	return backingOff{delay: after, then: then}
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
// streaming list, after a backoff: those of a watch (client-go's
// isWatchErrorRetriable: 429, connection refused), and a 5xx that asks to
// be retried (Retry-After). client-go's REST client retries that one itself
// (up to 10 times, waiting Retry-After each time) before the reflector ever
// sees it, and only a 5xx that outlasts those retries makes ListAndWatch
// fall back; kinformer's listwatch client does not retry, so the reflector's
// backoff, at least Retry-After, stands in for the REST client's.
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
	case errors.Is(err, errNoEndBookmark) && isDroppedConnection(err):
		return "dropped connection before the initial-events-end bookmark"
	case errors.Is(err, errNoEndBookmark):
		return "ended before the initial-events-end bookmark"
	case isDroppedConnection(err):
		return "dropped connection"
	}
	return err.Error()
}

// Run lists and watches until ctx ends, one phase after the other, as next
// says. It returns once the phase is stopped and every goroutine it started
// has returned.
func (r *Reflector) Run(ctx context.Context) { _ = r.run(ctx, false) }

// ListAndWatch is one lap of Run's loop, client-go's name for it: it lists
// (or opens a streaming list), Replaces the store with the result, then
// watches, rewatching as next says, until next ends the lap: a failure
// after which the reflector backs off and relists. It returns that failure,
// which its caller reports and backs off from (as client-go's Run does with
// its ListAndWatch), or nil when ctx ends.
func (r *Reflector) ListAndWatch(ctx context.Context) error { return r.run(ctx, true) }

// run is the loop of Run and of ListAndWatch: from start to stopped, or,
// with oneLap, to the first transition that ends the lap.
func (r *Reflector) run(ctx context.Context, oneLap bool) error {
	l := &loop{r: r, ctx: ctx}
	defer l.stopResync()
	var p phase = start{}
	for {
		o := l.do(p)
		t := next(o, r.opts.UseWatchList)
		if oneLap && t.endsLap {
			if r.tracer.On() {
				r.traceOutcome(o, t) // the backoff and the relist are the caller's
			}
			return fmt.Errorf("%s: %w", r.name, t.report)
		}
		if p = l.enter(o, t); p == (stopped{}) {
			return nil
		}
	}
}

// loop is what the phases of one Run (or one ListAndWatch) share besides
// the phase itself: the context, and the resync goroutine, which runs
// beside the watch side of the loop (transition.resync).
type loop struct {
	r   *Reflector
	ctx context.Context

	stopResyncLoop func()
	resyncErr      <-chan error // a failed Store.Resync, which ends the watch
	resyncDone     sync.WaitGroup
}

// do runs the body of phase p and says how it ended. The body is what the
// phase says: do decides nothing.
func (l *loop) do(p phase) outcome {
	r := l.r
	if _, ok := p.(start); ok {
		return outcome{phase: p}
	}
	if l.ctx.Err() != nil {
		if w, ok := p.(watching); ok && w.open != nil {
			w.open.Stop()
		}
		return outcome{phase: p, stopped: true}
	}
	var o outcome
	switch p := p.(type) {
	case listing:
		if p.streaming {
			o = r.watchList(l.ctx)
		} else {
			o.rv, o.err = r.list(l.ctx)
		}
	case watching:
		o = r.watch(l.ctx, p.open, l.resyncErr)
	case backingOff:
		r.sleep(l.ctx, p.delay)
	}
	o.phase = p
	if o.stopped = l.ctx.Err() != nil; o.stopped && o.watch != nil {
		o.watch.Stop() // the streaming list's watch, never to be read
		o.watch = nil
	}
	return o
}

// enter carries out transition t, made after outcome o: it sets
// isLastSyncResourceVersionUnavailable, tells the watch error handler,
// starts or stops the resync goroutine, draws the backoff, and traces it
// all. It returns the new phase.
func (l *loop) enter(o outcome, t transition) phase {
	r := l.r
	if t.unavailable {
		r.setIsLastSyncResourceVersionUnavailable(true)
	}
	if t.report != nil {
		r.watchErrorHandler(r, fmt.Errorf("%s: %w", r.name, t.report))
	}
	if lp, ok := o.phase.(listing); ok && lp.streaming && o.err != nil && !o.stopped && !t.unavailable {
		r.logger.Info("streaming list failed", "reflector", r.name, "next", streamingNext(t), "err", o.err)
	}
	if t.resync {
		l.startResync()
	} else {
		l.stopResync()
	}
	if b, ok := t.to.(backingOff); ok {
		b.delay = max(b.delay, r.backoff.next())
		t.to = b
	}
	if r.tracer.On() {
		r.traceStep(o, t)
	}
	return t.to
}

func (l *loop) startResync() {
	if l.stopResyncLoop != nil || l.r.opts.FullResyncPeriod <= 0 {
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
