package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// The loop a Reflector runs, printed: list, then watch from the list's
// resourceVersion, and when the watch ends
//
//	cleanly (its timeoutSeconds)    watch again from the last resourceVersion
//	connection dropped, bad frame   watch again from the last resourceVersion
//	no frame for the idle limit     give up on it; back off, watch again from there
//	410 Expired / Gone              relist (printed as LIST lines), watch from the new list
//	any other failure               back off (1 s, doubling to 30 s; at least a
//	                                429's Retry-After) and try the same step again
//
// The program ends on Ctrl-C, after --max-failures failures in a row, or
// at once on an error retrying cannot fix (400, 401, 403, 404: the request
// itself is wrong).
//
// Every request has a time limit: --request-timeout (default 30 s) bounds a
// list and the wait for a watch's response headers; a watch asks the server
// to end it after timeoutSeconds (--watch-timeout; default a random 5-10
// min, as a Reflector), and is given up if no frame arrives for the idle
// limit (--idle-timeout; default timeoutSeconds + 30 s): a server or proxy
// that keeps the connection open but sends nothing cannot hang the program.

const (
	// minWatchTimeout is the Reflector's: a watch asks for a random
	// timeoutSeconds between it and twice it, so that many clients do not
	// come back at once.
	minWatchTimeout = 5 * time.Minute
	// idleMargin is how long past its timeoutSeconds a silent watch is
	// waited for before it is given up.
	idleMargin = 30 * time.Second
	// maxBackoff caps the wait between failed attempts.
	maxBackoff = 30 * time.Second
	// veryShortWatch: a watch that ends this soon with no event counts as
	// a failure (backoff), so a server that ends every watch at once is
	// not hammered. The Reflector has the same rule.
	veryShortWatch = time.Second
)

// outcome is how one watch ended.
type outcome int

const (
	stopped outcome = iota // ctx ended
	ended                  // the server ended the stream cleanly
	broken                 // the stream broke: connection cut, malformed frame
	idle                   // no frame for the idle limit
	expired                // 410: the resourceVersion is too old
	failed                 // an error (an ERROR frame, or the watch request failed)
)

// loop is the program's state between attempts.
type loop struct {
	o              options
	lw             listwatch.ListerWatcher
	stdout, stderr io.Writer
	rv             string        // where the next watch starts
	failures       int           // in a row
	backoff        time.Duration // the next wait after a failure
}

func (l *loop) run(ctx context.Context) error {
	needList, lists := true, 0
	for ctx.Err() == nil {
		if needList {
			rv, n, err := list(ctx, l.lw, l.stdout)
			if err != nil {
				if err := l.fail(ctx, "", err); err != nil {
					return err
				}
				continue
			}
			verb := "listed"
			if lists++; lists > 1 {
				verb = "relisted"
			}
			fmt.Fprintf(l.stderr, "%s %d %s at resourceVersion %s; watching from there\n", verb, n, l.o.resource, rv)
			l.rv, needList = rv, false
			l.succeeded()
		}
		how, err := l.watch(ctx)
		switch how {
		case stopped:
		case ended:
			fmt.Fprintf(l.stderr, "the server ended the watch; watching again from resourceVersion %s\n", l.rv)
		case broken:
			fmt.Fprintf(l.stderr, "the watch broke (%v); watching again from resourceVersion %s\n", err, l.rv)
		case expired:
			fmt.Fprintf(l.stderr, "resourceVersion %s is too old (%v); relisting\n", l.rv, err)
			needList = true
		case idle, failed:
			if err := l.fail(ctx, "watch from resourceVersion "+l.rv+": ", err); err != nil {
				return err
			}
		}
	}
	return nil
}

// watch runs one watch from l.rv, printing its events, until it ends.
func (l *loop) watch(ctx context.Context) (outcome, error) {
	timeout := l.o.watchTimeout
	if timeout <= 0 {
		timeout = time.Duration(float64(minWatchTimeout) * (1 + rand.Float64()))
	}
	secs := max(int64(math.Ceil(timeout.Seconds())), 1)
	idleLimit := l.o.idleTimeout
	if idleLimit <= 0 {
		idleLimit = time.Duration(secs)*time.Second + idleMargin
	}
	w, err := l.lw.Watch(ctx, listwatch.ListOptions{ResourceVersion: l.rv, AllowWatchBookmarks: l.o.bookmarks, TimeoutSeconds: &secs})
	switch {
	case ctx.Err() != nil:
		return stopped, nil
	case isExpired(err):
		return expired, err
	case err != nil:
		return failed, err
	}
	defer w.Stop()
	start, events := time.Now(), 0
	timer := time.NewTimer(idleLimit)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return stopped, nil
		case <-timer.C:
			return idle, fmt.Errorf("no event for %s (the watch asked for timeoutSeconds=%d): giving up on it", idleLimit, secs)
		case ev, ok := <-w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return stopped, nil
				}
				if events == 0 && time.Since(start) < veryShortWatch {
					return failed, errors.New("the watch ended at once, with no event")
				}
				return ended, nil
			}
			timer.Reset(idleLimit)
			if ev.Type == api.Error {
				return l.watchError(ev.Err, events, start)
			}
			printLine(l.stdout, string(ev.Type), ev.Object)
			l.rv = ev.Object.GetResourceVersion()
			events++
			l.succeeded()
		}
	}
}

// watchError sorts the error that ended a watch: an ERROR frame from the
// server (printed as an ERROR line, as the stream carried it) or a broken
// stream.
func (l *loop) watchError(err error, events int, start time.Time) (outcome, error) {
	if listwatch.ReasonForError(err) == "" {
		if events == 0 && time.Since(start) < veryShortWatch {
			return failed, err
		}
		return broken, err
	}
	fmt.Fprintf(l.stdout, "ERROR %s %v\n", listwatch.ReasonForError(err), err)
	if isExpired(err) {
		return expired, err
	}
	return failed, err
}

func isExpired(err error) bool {
	return err != nil && (listwatch.IsResourceExpired(err) || listwatch.IsGone(err))
}

// fatal: errors retrying cannot fix, because the request itself is wrong.
func fatal(err error) bool {
	return listwatch.IsUnauthorized(err) || listwatch.IsForbidden(err) || listwatch.IsNotFound(err) || listwatch.IsBadRequest(err)
}

// fail reports a failed step (what prefixes err in the message) and waits
// before the next attempt. It returns an error when the program should end
// instead.
func (l *loop) fail(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	if fatal(err) {
		return err
	}
	l.failures++
	if l.o.maxFailures > 0 && l.failures >= l.o.maxFailures {
		return fmt.Errorf("giving up after %d failures in a row: %w", l.failures, err)
	}
	wait := l.backoff
	if wait <= 0 {
		wait = l.o.retryBackoff
	}
	l.backoff = min(2*wait, maxBackoff)
	if d, ok := listwatch.RetryAfter(err); ok && d > wait {
		wait = d
	}
	fmt.Fprintf(l.stderr, "%s%v; retrying in %s\n", what, err, wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return nil
}

// succeeded resets the failure count and the backoff.
func (l *loop) succeeded() {
	l.failures, l.backoff = 0, 0
}
