package fakeapiserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// Fault injection: the ways a real API server and network misbehave, on
// demand, so tests can make a reflector relist, back off, resume or build a
// tombstone deterministically. client-go's own tests have the same knobs on
// their FakeControllerSource (ResetWatch, the *DropWatch changes).

// Fault makes the next Count requests that match it fail.
type Fault struct {
	// Verb and Resource select requests ("watch", "pods"); empty matches all.
	Verb     string
	Resource string
	// Code is the HTTP status: 500 (InternalError), 429 (TooManyRequests),
	// 410 (Expired), 504 (Timeout) or 503 (ServiceUnavailable).
	Code int
	// RetryAfter, if set, is sent as the Retry-After header (whole seconds).
	RetryAfter time.Duration
	// Count is how many requests fail; 0 means one.
	Count int
}

type faults struct {
	mu    sync.Mutex
	queue []Fault
	delay time.Duration
}

// take returns the Status to fail rq with, if a pending fault matches it.
func (f *faults) take(rq *request) *api.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.queue {
		ft := &f.queue[i]
		if (ft.Verb != "" && ft.Verb != rq.verb) || (ft.Resource != "" && ft.Resource != rq.res.Name) {
			continue
		}
		hit := *ft
		ft.Count--
		if ft.Count <= 0 {
			f.queue = append(f.queue[:i], f.queue[i+1:]...)
		}
		return hit.status()
	}
	return nil
}

func (ft Fault) status() *api.Status {
	retry := int32((ft.RetryAfter + time.Second - 1) / time.Second)
	var st *api.Status
	switch ft.Code {
	case http.StatusTooManyRequests:
		st = errTooManyRequests(retry)
	case http.StatusGone:
		st = errExpired("The resourceVersion for the provided list is too old.")
	case http.StatusGatewayTimeout:
		st = errTooLargeResourceVersion(0, 0)
	case http.StatusServiceUnavailable:
		st = errServiceUnavailable("injected fault: service unavailable")
	default:
		st = errInternal("injected fault")
	}
	if retry > 0 {
		if st.Details == nil {
			st.Details = &api.StatusDetails{}
		}
		st.Details.RetryAfterSeconds = retry
	}
	return st
}

func (f *faults) watchDelay() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delay
}

// FailRequests makes the next ft.Count requests matching ft fail with
// ft.Code. Faults queue up; the first matching one is used.
func (s *Server) FailRequests(ft Fault) {
	if ft.Count <= 0 {
		ft.Count = 1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.queue = append(s.faults.queue, ft)
	if s.tracer.On() {
		s.tracer.Event("fault: fail requests", slog.String("verb", ft.Verb), trace.Resource(ft.Resource), slog.Int("code", ft.Code), trace.Count(ft.Count))
	}
}

// CompactHistory forgets every event so far, as etcd compaction (and a
// restarted API server's empty watch cache) does: a watch, exact list or
// continue token at any older resourceVersion now answers 410 Expired.
// Open watches keep running.
func (s *Server) CompactHistory() {
	s.store.Compact()
}

// CloseWatches ends every open watch, as a load balancer or an API server
// restart would. A watch that is whole ends cleanly, and its client resumes
// from its last resourceVersion; a deaf one (it missed an event a drop fault
// hid) ends with a 410 Expired ERROR frame, so its client relists.
func (s *Server) CloseWatches() {
	if s.tracer.On() {
		s.tracer.Event("fault: close every watch")
	}
	s.store.CloseWatches()
}

// WriteGarbage writes frame (which need not be JSON, nor end in a newline)
// into every open watch, to test how clients handle a corrupt stream.
func (s *Server) WriteGarbage(frame []byte) {
	s.store.Inject(&watchEvent{Type: garbageEvent, Value: &record{raw: append([]byte(nil), frame...)}})
}

// SetWatchDelay delays every watch frame by d (0 turns it off), measured on
// the server's clock.
func (s *Server) SetWatchDelay(d time.Duration) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.delay = d
	if s.tracer.On() {
		s.tracer.Event("fault: watch delay", trace.Delay(d))
	}
}

// Event describes a change, for DropEvents.
type Event struct {
	Type            api.EventType // Added, Modified or Deleted
	Resource        string        // "pods"
	Namespace       string
	Name            string
	ResourceVersion string
}

// publicEvent is a storage event as DropEvents' filter sees it.
func publicEvent(ev *storage.Event[*record]) Event {
	return Event{Type: api.EventType(ev.Type), Resource: ev.Value.res.Name, Namespace: ev.Value.ns, Name: ev.Value.name,
		ResourceVersion: strconv.FormatUint(ev.Rev, 10)}
}

// Dropping events, and the one rule it must keep.
//
// Every informer relies on one promise of the watch: a watch from version R
// delivers every matching change after R, in order, or it ends. A stream
// with a hole in it (9000, then 9209, with 9098 and 9148 missing) is
// invisible to the client: its resourceVersion moves past the hole, a later
// resume from there is accepted, and the keys the hole held stay stale in
// its cache for good, while it reports itself synced. A real kube-apiserver
// never sends such a stream: a watcher that falls behind is closed, and the
// client resumes from the last version it saw (or, if that is compacted
// away, gets 410 Expired and relists).
//
// So the drop fault hides events without ever making a hole (storage's
// Hide, storage/faults.go, does it):
//
//   - a watch that would have delivered a hidden event goes deaf at that
//     event: it sends nothing more, neither later events nor bookmarks
//     (whose version would jump the hole), and its client's cache is stale
//     for as long as the drop lasts: that is the missed-event lesson;
//   - when the drop ends (DropEvents(nil), /faults/reset, a drop that
//     replaces it, or the last of a count-limited drop's events), every
//     deaf watch ends with one ERROR frame carrying 410 Expired, in the
//     same critical section: the client relists, and the relist's Replace
//     repairs what it missed (a missed delete comes back as a
//     DeletedFinalStateUnknown tombstone);
//   - a deaf watch that ends any other way (CloseWatches, its
//     timeoutSeconds) ends with the same 410.
//
// Watches opened while a drop is on start whole: they replay from history
// (which keeps every hidden event) and go deaf only at the next event they
// miss. TestFault_DroppedEventNeverLeavesAHole pins the rule.

// DropEvents makes every change for which drop returns true invisible to the
// watches open when it happens (it is still stored, listed and kept in
// history). Each watch that misses one goes deaf: it sends nothing more
// until the drop ends, and then it ends with 410 Expired, so its client
// relists (see "Dropping events" above). That is how a client misses a
// delete, the only way its informer ends up with a DeletedFinalStateUnknown
// tombstone after the relist. nil ends the drop. drop runs under the
// server's lock: keep it quick and do not call the server from it.
func (s *Server) DropEvents(drop func(Event) bool) {
	s.dropEvents(drop, 0)
}

// dropEvents starts a drop that hides at most count events (0: no limit);
// a nil match ends the drop. Either way an earlier drop ends first.
func (s *Server) dropEvents(match func(Event) bool, count int) {
	if match == nil {
		s.store.Hide(nil, 0)
	} else {
		s.store.Hide(func(ev *storage.Event[*record]) bool { return match(publicEvent(ev)) }, count)
	}
	if s.tracer.On() {
		s.tracer.Event("fault: drop events", slog.Bool("on", match != nil), trace.Count(count))
	}
}

// deafStatus is the 410 a deaf watch ends with; nil for a whole one.
func (s *Server) deafStatus(w *watcher) *api.Status {
	var missed *storage.MissedEventError
	if !errors.As(w.Err(), &missed) {
		return nil
	}
	return errExpired(fmt.Sprintf("the watch missed the event at resourceVersion %d (hidden by a drop fault) and cannot go on without a hole: relist", missed.Rev))
}

// Outage is a network outage as one fault, the way a client lives through
// it: for d, measured on the server's clock, every event is hidden from the
// open watches (their connections are silently dead: each watch goes deaf
// at the first event it misses); then, in one critical section, the history
// is compacted (by the time the clients come back, what they would resume
// from is gone), every watch ends (a deaf one with 410 Expired) and the
// drop ends. Every client relists or resumes at a version nothing is
// missing after; none is left past a hole, however the writes interleave.
// Outage returns at once; a second outage, or any drop, replaces the first
// one's drop, but the first still compacts and closes when its time is up.
func (s *Server) Outage(d time.Duration) {
	drop := s.store.Hide(func(*storage.Event[*record]) bool { return true }, 0)
	if s.tracer.On() {
		s.tracer.Event("fault: outage", trace.Delay(d))
	}
	end := func() {
		s.store.EndOutage(drop)
		if s.tracer.On() {
			s.tracer.Event("fault: outage over", trace.Reason("history compacted, every watch closed (the deaf ones with 410 Expired)"))
		}
	}
	if d <= 0 {
		end()
		return
	}
	timer := s.clock.NewTimer(d)
	go func() {
		defer timer.Stop()
		select {
		case <-timer.C():
			end()
		case <-s.closed:
		}
	}()
}
