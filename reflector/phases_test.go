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
// out. (client-go spreads these rules over ListAndWatch, list, watch,
// watchList and Run's BackoffUntil.)
func TestReflector_NextPhase(t *testing.T) {
	var (
		expired   = statusErr(410, api.StatusReasonExpired, nil)
		tooLarge  = statusErr(504, api.StatusReasonTimeout, &api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge}}})
		timeout   = statusErr(504, api.StatusReasonTimeout, nil)
		tooMany   = statusErr(429, api.StatusReasonTooManyRequests, &api.StatusDetails{RetryAfterSeconds: 5})
		internal  = statusErr(500, api.StatusReasonInternalError, nil)
		busy      = statusErr(503, api.StatusReasonServiceUnavailable, &api.StatusDetails{RetryAfterSeconds: 2})
		down      = statusErr(503, api.StatusReasonServiceUnavailable, nil)
		refused   = fmt.Errorf("watch pods: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
		cut       = fmt.Errorf("watch: decoding frame: %w", io.ErrUnexpectedEOF)
		eofOpen   = fmt.Errorf("watch pods: %w", io.EOF)
		resync    = errors.New("resync: boom")
		streaming = outcome{phase: listing, streaming: true, rv: ""}
	)
	list := func(rv string, err error) outcome { return outcome{phase: listing, rv: rv, err: err} }
	paged := func(rv string, err error) outcome { return outcome{phase: listingPaged, rv: rv, err: err} }
	stream := func(rv string, err error) outcome { o := streaming; o.rv, o.err = rv, err; return o }
	openFailed := func(err error) outcome { return outcome{phase: watching, err: err} }
	watched := func(err error, events int, lasted time.Duration) outcome {
		return outcome{phase: watching, opened: true, err: err, events: events, lasted: lasted}
	}

	tests := []struct {
		name        string
		o           outcome
		to          phase
		report      error // nil: the watch error handler is not told
		unavailable bool
	}{
		// listing
		{"listed", list("0", nil), watching, nil, false},
		{"list at a version gets 410: relist at \"\" at once", list("7", expired), listing, nil, true},
		{"list at a version gets 504 too large: relist at \"\" at once", list("7", tooLarge), listing, nil, true},
		{"list at \"0\" gets 410: relist at \"\" at once", list("0", expired), listing, nil, true},
		{"list at \"\" gets 410 all the same: back off", list("", expired), backOffRelist, expired, false},
		{"an ordinary 504 is not a version problem", list("7", timeout), backOffRelist, timeout, false},
		{"list gets 500: back off, relist", list("0", internal), backOffRelist, internal, false},
		{"list gets 429: back off, relist", list("0", tooMany), backOffRelist, tooMany, false},
		{"the paged fallback gets 410: relist at \"\", still paged", paged("7", expired), listingPaged, nil, true},
		{"the paged fallback gets 500: back off, relist (streaming again)", paged("0", internal), backOffRelist, internal, false},
		// streaming list
		{"streaming list done", stream("", nil), watching, nil, false},
		{"streaming list gets 429: back off, stream again", stream("", tooMany), backOffRelist, nil, false},
		{"streaming list refused: back off, stream again", stream("", refused), backOffRelist, nil, false},
		{"streaming list gets 503 with Retry-After: back off, stream again", stream("", busy), backOffRelist, nil, false},
		{"streaming list gets 500: fall back to a paged list", stream("", internal), listingPaged, nil, false},
		{"streaming list gets 503 without Retry-After: fall back", stream("", down), listingPaged, nil, false},
		{"streaming list ends before the bookmark: fall back", stream("", errNoEndBookmark), listingPaged, nil, false},
		{"streaming list at a version gets 410: stream at \"\" at once", stream("7", expired), listing, nil, true},
		// opening a watch
		{"watch refused: back off, rewatch", openFailed(refused), backOffRewatch, refused, false},
		{"watch gets 429: back off, rewatch", openFailed(tooMany), backOffRewatch, tooMany, false},
		{"watch gets HTTP 410: back off, relist", openFailed(expired), backOffRelist, expired, false},
		{"watch gets 500: back off, relist", openFailed(internal), backOffRelist, internal, false},
		{"watch request cut before an answer: back off, relist", openFailed(eofOpen), backOffRelist, eofOpen, false},
		// a watch's end
		{"ended cleanly after events: rewatch", watched(nil, 5, 7*time.Minute), watching, nil, false},
		{"quiet watch timed out, no events: rewatch", watched(nil, 0, 5*time.Minute), watching, nil, false},
		{"connection dropped: rewatch (watchHandler reported it)", watched(cut, 3, time.Minute), watching, nil, false},
		{"ERROR 410 Expired: back off, relist", watched(expired, 0, 0), backOffRelist, expired, false},
		{"ERROR 429: back off, rewatch", watched(tooMany, 2, time.Minute), backOffRewatch, tooMany, false},
		{"ERROR 500: back off, relist", watched(internal, 2, time.Minute), backOffRelist, internal, false},
		{"resync failed: back off, relist", watched(resync, 2, time.Minute), backOffRelist, resync, false},
		{"very short watch: back off, relist", watched(nil, 0, 200*time.Millisecond), backOffRelist, errVeryShortWatch, false},
		{"cut at once, no events: a very short watch too", watched(cut, 0, 0), backOffRelist, errVeryShortWatch, false},
		// backing off
		{"backoff over: relist", outcome{phase: backOffRelist}, listing, nil, false},
		{"backoff over: rewatch", outcome{phase: backOffRewatch}, watching, nil, false},
		// the context ended
		{"stopped while listing", outcome{phase: listing, stopped: true, err: context.Canceled}, stopped, nil, false},
		{"stopped while watching", outcome{phase: watching, opened: true, stopped: true, err: context.Canceled}, stopped, nil, false},
		{"stopped while backing off", outcome{phase: backOffRewatch, stopped: true}, stopped, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := next(tt.o)
			t.Logf("%s, err %v → %s (reason %q)", describe(tt.o.phase), tt.o.err, describe(got.to), got.reason)
			require.Equal(t, tt.to, got.to)
			require.NotEmpty(t, got.reason, "every transition says why")
			require.Equal(t, tt.unavailable, got.unavailable, "isLastSyncResourceVersionUnavailable")
			if tt.report == nil {
				require.NoError(t, got.report)
			} else {
				require.ErrorIs(t, got.report, tt.report)
			}
		})
	}
}

// describe names a phase with what follows a backoff, for test logs.
func describe(p phase) string {
	switch {
	case p == listingPaged:
		return "listing (paged)"
	case p == backOffRelist:
		return "backing off, then relist"
	case p == backOffRewatch:
		return "backing off, then rewatch"
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
