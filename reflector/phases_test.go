package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/listwatch"
)

func statusErr(code int32, reason api.StatusReason, details *api.StatusDetails) error {
	return &listwatch.StatusError{ErrStatus: &api.Status{Code: code, Reason: reason, Message: string(reason), Details: details}}
}

// Every rule of next, the one function that decides what the reflector does
// after each phase, checked without a server: an outcome in, a transition
// out. Each row names the rule and what it pins: client-go's behaviour
// (client-go spreads these rules over ListAndWatch, list, watch, watchList
// and Run's backoff loop), an article's section, or where kinformer differs.
// The reason is the trace's: the "phase" event quotes it.
func TestReflector_NextPhase(t *testing.T) {
	var (
		expired  = statusErr(410, api.StatusReasonExpired, nil)
		tooLarge = statusErr(504, api.StatusReasonTimeout, &api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge}}})
		timeout  = statusErr(504, api.StatusReasonTimeout, nil)
		tooMany  = statusErr(429, api.StatusReasonTooManyRequests, &api.StatusDetails{RetryAfterSeconds: 5})
		internal = statusErr(500, api.StatusReasonInternalError, nil)
		busy     = statusErr(503, api.StatusReasonServiceUnavailable, &api.StatusDetails{RetryAfterSeconds: 2})
		down     = statusErr(503, api.StatusReasonServiceUnavailable, nil)
		refused  = fmt.Errorf("watch pods: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
		cut      = fmt.Errorf("watch: decoding frame: %w", io.ErrUnexpectedEOF)
		eofOpen  = fmt.Errorf("watch pods: %w", io.EOF)
		resync   = errors.New("resync: boom")
		invalid  = statusErr(422, api.StatusReasonInvalid, &api.StatusDetails{Causes: []api.StatusCause{{Type: "FieldValueForbidden", Field: "sendInitialEvents"}}})
		noEnd    = fmt.Errorf("streaming list: %w", errNoEndBookmark)
		noEndCut = fmt.Errorf("streaming list: %w (%w)", errNoEndBookmark, io.ErrUnexpectedEOF)
		open     = newFakeWatch() // a streaming list's watch, open after its initial events
	)
	var (
		paged     = listing{streaming: false}
		streaming = listing{streaming: true}
		rewatch   = watching{}
	)
	list := func(rv string, err error) outcome { return outcome{phase: paged, rv: rv, err: err} }
	stream := func(rv string, err error) outcome { return outcome{phase: streaming, rv: rv, err: err} }
	streamed := func(err error, events int, lasted time.Duration) outcome {
		return outcome{phase: streaming, rv: "5", opened: true, err: err, events: events, lasted: lasted}
	}
	openFailed := func(err error) outcome { return outcome{phase: watching{}, err: err} }
	watched := func(err error, events int, lasted time.Duration) outcome {
		return outcome{phase: watching{}, opened: true, err: err, events: events, lasted: lasted}
	}
	backOff := func(delay time.Duration, then phase) backingOff { return backingOff{delay: delay, then: then} }

	tests := []struct {
		rule         string
		pins         string
		useWatchList bool // Options.UseWatchList
		o            outcome
		want         transition // report is matched with errors.Is
	}{
		// start
		{"start: a paged list first", "000 §1: list the stock, then watch the changes", false,
			outcome{phase: start{}}, transition{to: paged, reason: "start"}},
		{"start with UseWatchList: a streaming list first", "ListAndWatch: watchList first when useWatchList (the default since 1.35)", true,
			outcome{phase: start{}}, transition{to: streaming, reason: "start"}},

		// listing (paged)
		{"listed: watch from the list's version", "ListAndWatch: list, then watchWithResync (004 step 1)", false,
			list("0", nil), transition{to: rewatch, reason: "listed", resync: true}},
		{"list at a version gets 410: the same list at \"\" at once", "list: isExpiredError → setIsLastSyncResourceVersionUnavailable, list again", false,
			list("7", expired), transition{to: paged, reason: "410 Expired", unavailable: true}},
		{"list at a version gets 504 too large: the same list at \"\" at once", "list: isTooLargeResourceVersionError, the same", false,
			list("7", tooLarge), transition{to: paged, reason: "504 too large resource version", unavailable: true}},
		{"list at \"0\" gets 410: at \"\" at once", "list: the same for any version but \"\"", false,
			list("0", expired), transition{to: paged, reason: "410 Expired", unavailable: true}},
		{"list at \"\" gets 410 all the same: back off, relist; the lap ends", "list returns the error; Run's backoff", false,
			list("", expired), transition{to: backOff(0, paged), reason: "410 Expired", report: expired, endsLap: true}},
		{"an ordinary 504 is not a version problem: back off, relist", "isTooLargeResourceVersionError needs the cause or the message", false,
			list("7", timeout), transition{to: backOff(0, paged), reason: "504 Timeout", report: timeout, endsLap: true}},
		{"list gets 500: back off, relist; the lap ends", "ListAndWatch returns list's error; Run backs off (~0.22 QPS)", false,
			list("0", internal), transition{to: backOff(0, paged), reason: "500 InternalError", report: internal, endsLap: true}},
		{"list gets 429: back off at least Retry-After, relist", "Retry-After is the least wait (docs/reflector.md, Failures)", false,
			list("0", tooMany), transition{to: backOff(5*time.Second, paged), reason: "429 TooManyRequests", report: tooMany, endsLap: true}},
		{"the paged fallback gets 410 at a version: at \"\", still paged", "list after fallbackToList: its own 410 rule", true,
			list("7", expired), transition{to: paged, reason: "410 Expired", unavailable: true}},
		{"the paged fallback gets 500: back off, then a streaming list again", "the fallback is for one ListAndWatch; the next lap tries watchList again", true,
			list("0", internal), transition{to: backOff(0, streaming), reason: "500 InternalError", report: internal, endsLap: true}},

		// listing (streaming)
		{"streaming list done: watch on with its open watch", "ListAndWatch hands watchList's watch to watchWithResync: a list and a watch in one request", true,
			outcome{phase: streaming, rv: "", watch: open}, transition{to: watching{open: open}, reason: "listed", resync: true}},
		{"streaming list gets 429: back off (≥ Retry-After), stream again", "watchList: isWatchErrorRetriable → backoff, retry", true,
			stream("", tooMany), transition{to: backOff(5*time.Second, streaming), reason: "streaming list: 429 TooManyRequests"}},
		{"streaming list refused: back off, stream again", "watchList: isWatchErrorRetriable (connection refused)", true,
			stream("", refused), transition{to: backOff(0, streaming), reason: "streaming list: connection refused"}},
		{"streaming list gets 503 with Retry-After: back off, stream again", "the REST client retries a 5xx with Retry-After (kinformer: the reflector)", true,
			stream("", busy), transition{to: backOff(2*time.Second, streaming), reason: "streaming list: 503 ServiceUnavailable"}},
		{"streaming list gets 500: fall back to a paged list at once", "ListAndWatch: fallbackToList", true,
			stream("", internal), transition{to: paged, reason: "streaming list: 500 InternalError"}},
		{"streaming list gets 503 without Retry-After: fall back", "ListAndWatch: fallbackToList", true,
			stream("", down), transition{to: paged, reason: "streaming list: 503 ServiceUnavailable"}},
		{"streaming list ends before the bookmark: stream again at once", "watchList: no error, no bookmark → its loop goes round", true,
			streamed(noEnd, 40, 6*time.Minute), transition{to: streaming, reason: "streaming list: ended before the initial-events-end bookmark"}},
		{"streaming list cut before the bookmark: stream again at once", "StreamWatcher closes quietly on a cut: the same", true,
			streamed(noEndCut, 3, 200*time.Millisecond), transition{to: streaming, reason: "streaming list: dropped connection before the initial-events-end bookmark"}},
		{"streaming list ends at once, no events: fall back", "handleAnyWatch: VeryShortWatchError → fallbackToList", true,
			streamed(noEnd, 0, 200*time.Millisecond), transition{to: paged, reason: "streaming list: very short watch"}},
		{"streaming list cut at once, no events: fall back", "the same", true,
			streamed(noEndCut, 0, 0), transition{to: paged, reason: "streaming list: very short watch"}},
		{"a quiet stream ends after a second, no events: stream again", "not very short: a second or more", true,
			streamed(noEnd, 0, time.Second), transition{to: streaming, reason: "streaming list: ended before the initial-events-end bookmark"}},
		{"server refuses sendInitialEvents (422): fall back", "an API server with WatchList off: Invalid, sendInitialEvents Forbidden → fallbackToList", true,
			stream("", invalid), transition{to: paged, reason: "streaming list: 422 Invalid"}},
		{"streaming list at a version gets 410: stream at \"\" at once", "watchList: isExpiredError → setIsLastSyncResourceVersionUnavailable, retry", true,
			stream("7", expired), transition{to: streaming, reason: "410 Expired", unavailable: true}},
		{"streaming list at a version gets 504 too large: stream at \"\" at once", "watchList: isTooLargeResourceVersionError, the same", true,
			stream("7", tooLarge), transition{to: streaming, reason: "504 too large resource version", unavailable: true}},
		{"streaming list at \"\" gets 410 all the same: fall back", "kinformer: client-go's watchList would stream at \"\" again at once, with no backoff", true,
			stream("", expired), transition{to: paged, reason: "streaming list: 410 Expired"}},

		// opening a watch
		{"watch refused: back off, rewatch", "watch: isWatchErrorRetriable → backoff, watch again", false,
			openFailed(refused), transition{to: backOff(0, rewatch), reason: "connection refused", report: refused, resync: true}},
		{"watch gets 429: back off (≥ Retry-After), rewatch", "watch: isWatchErrorRetriable (429)", false,
			openFailed(tooMany), transition{to: backOff(5*time.Second, rewatch), reason: "429 TooManyRequests", report: tooMany, resync: true}},
		{"watch gets HTTP 410: back off, relist; the lap ends", "watch returns: Run backs off, lists at the last version", false,
			openFailed(expired), transition{to: backOff(0, paged), reason: "410 Expired", report: expired, endsLap: true}},
		{"watch gets 500: back off, relist", "watch returns: no MaxInternalErrorRetryDuration window (0, client-go's default)", false,
			openFailed(internal), transition{to: backOff(0, paged), reason: "500 InternalError", report: internal, endsLap: true}},
		{"watch request cut before an answer: back off, relist", "a failed request is not a dropped stream", false,
			openFailed(eofOpen), transition{to: backOff(0, paged), reason: "dropped connection", report: eofOpen, endsLap: true}},
		{"watch fails with UseWatchList: back off, then a streaming list", "the next lap starts with watchList", true,
			openFailed(internal), transition{to: backOff(0, streaming), reason: "500 InternalError", report: internal, endsLap: true}},

		// a watch's end
		{"ended cleanly after events: rewatch from the last version", "watch: handleWatch returned nil → watch again", false,
			watched(nil, 5, 7*time.Minute), transition{to: rewatch, reason: "ended cleanly", resync: true}},
		{"quiet watch timed out, no events: rewatch", "the server's timeoutSeconds ends a quiet watch; not very short", false,
			watched(nil, 0, 5*time.Minute), transition{to: rewatch, reason: "ended cleanly", resync: true}},
		{"connection dropped: rewatch (watchHandler reported it)", "StreamWatcher closes silently on a probable EOF", false,
			watched(cut, 3, time.Minute), transition{to: rewatch, reason: "dropped connection", resync: true}},
		{"ERROR 410 Expired: back off, relist", "watch: isExpiredError → return; Run lists at the last version", false,
			watched(expired, 0, 0), transition{to: backOff(0, paged), reason: "410 Expired", report: expired, endsLap: true}},
		{"ERROR 429: back off (≥ Retry-After), rewatch", "watch: IsTooManyRequests → backoff, continue", false,
			watched(tooMany, 2, time.Minute), transition{to: backOff(5*time.Second, rewatch), reason: "429 TooManyRequests", report: tooMany, resync: true}},
		{"ERROR 500: back off, relist", "watch: \"watch ended with error\" → return", false,
			watched(internal, 2, time.Minute), transition{to: backOff(0, paged), reason: "500 InternalError", report: internal, endsLap: true}},
		{"resync failed: back off, relist", "watchWithResync: a resync error ends the watch", false,
			watched(resync, 2, time.Minute), transition{to: backOff(0, paged), reason: "resync: boom", report: resync, endsLap: true}},
		{"very short watch: back off, relist", "handleAnyWatch: VeryShortWatchError", false,
			watched(nil, 0, 200*time.Millisecond), transition{to: backOff(0, paged), reason: "very short watch", report: errVeryShortWatch, endsLap: true}},
		{"cut at once, no events: a very short watch too", "never reconnect in a tight loop", false,
			watched(cut, 0, 0), transition{to: backOff(0, paged), reason: "very short watch", report: errVeryShortWatch, endsLap: true}},

		// backing off
		{"backoff over: relist", "Run: the backoff, then ListAndWatch again", false,
			outcome{phase: backOff(time.Second, paged)}, transition{to: paged, reason: "backoff over"}},
		{"backoff over: a streaming list again", "watchList: the backoff, then retry", true,
			outcome{phase: backOff(time.Second, streaming)}, transition{to: streaming, reason: "backoff over"}},
		{"backoff over: rewatch", "watch: the backoff, then continue", false,
			outcome{phase: backOff(time.Second, rewatch)}, transition{to: rewatch, reason: "backoff over", resync: true}},

		// the context ended
		{"stopped while listing", "Run returns when its context ends (client-go: stopCh)", false,
			outcome{phase: paged, stopped: true, err: context.Canceled}, transition{to: stopped{}, reason: "context ended"}},
		{"stopped while watching", "the same", false,
			outcome{phase: watching{}, opened: true, stopped: true, err: context.Canceled}, transition{to: stopped{}, reason: "context ended"}},
		{"stopped while backing off", "the same", false,
			outcome{phase: backOff(time.Second, rewatch), stopped: true}, transition{to: stopped{}, reason: "context ended"}},
		{"stopped stays stopped", "the loop never runs a stopped phase; next is total all the same", false,
			outcome{phase: stopped{}}, transition{to: stopped{}, reason: "stopped"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := next(tt.o, tt.useWatchList)
			t.Logf("%s, err %v → %s (reason %q); pins: %s", describe(tt.o.phase), tt.o.err, describe(got.to), got.reason, tt.pins)
			require.Equal(t, tt.want.to, got.to)
			require.Equal(t, tt.want.reason, got.reason, "the trace's reason")
			require.Equal(t, tt.want.unavailable, got.unavailable, "isLastSyncResourceVersionUnavailable")
			require.Equal(t, tt.want.resync, got.resync, "the resync timer runs")
			require.Equal(t, tt.want.endsLap, got.endsLap, "ListAndWatch returns here")
			if tt.want.report == nil {
				require.NoError(t, got.report, "the watch error handler is not told")
			} else {
				require.ErrorIs(t, got.report, tt.want.report)
			}
		})
	}
}

// describe names a phase with its data, for test logs.
func describe(p phase) string {
	switch p := p.(type) {
	case listing:
		if p.streaming {
			return "listing (streaming)"
		}
		return "listing (paged)"
	case watching:
		if p.open != nil {
			return "watching (the streaming list's watch)"
		}
		return "watching"
	case backingOff:
		return fmt.Sprintf("backing off ≥ %v, then %s", p.delay, describe(p.then))
	}
	return p.String()
}

// ListAndWatch keeps its meaning: one lap of the loop, from a list to the
// failure that needs a relist, which it returns for its caller to report
// and back off from; a dropped watch in between is resumed inside it.
func TestReflector_ListAndWatchIsOneLap(t *testing.T) {
	expired := statusErr(410, api.StatusReasonExpired, nil)
	var watchedFrom []string
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return &listwatch.ObjectList{ListMeta: api.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(_ context.Context, opts listwatch.ListOptions) (listwatch.Watch, error) {
			watchedFrom = append(watchedFrom, opts.ResourceVersion)
			if len(watchedFrom) == 1 {
				story(t, "the first watch delivers p@2, then its connection is cut")
				return newFakeWatch(listwatch.Event{Type: api.Added, Object: pod("p", "2")},
					listwatch.Event{Type: api.Error, Err: io.ErrUnexpectedEOF}), nil
			}
			story(t, "the second watch gets 410 Expired")
			return newFakeWatch(listwatch.Event{Type: api.Error, Err: expired}), nil
		},
	}
	errs := &errorLog{}
	store := &recordingStore{}
	r := New(lw, store, storyOptions(t, Options{Clock: clock.NewFakeClock(epoch), WatchErrorHandler: errs.add}))

	err := r.ListAndWatch(context.Background())
	require.ErrorIs(t, err, expired)
	require.ErrorContains(t, err, "reflector: ")
	require.Equal(t, []string{"1", "2"}, watchedFrom, "resumed from the last event after the cut, inside one ListAndWatch")
	require.Equal(t, []string{"Replace [] @1", "Add p@2"}, store.Calls())
	require.Len(t, errs.all(), 1, "only the cut was reported; the 410 is for ListAndWatch's caller")
	require.ErrorIs(t, errs.all()[0], io.ErrUnexpectedEOF)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, r.ListAndWatch(ctx), "nil once the context has ended")
}
