package fakeapiserver

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
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
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	s.store.compactLocked()
}

// CloseWatches ends every open watch cleanly, as a load balancer or an API
// server restart would. Clients resume from their last resourceVersion.
func (s *Server) CloseWatches() {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if s.tracer.On() {
		s.tracer.Event("fault: close every watch")
	}
	for _, ws := range s.store.watchers {
		for w := range ws {
			w.stopLocked()
		}
	}
}

// WriteGarbage writes frame (which need not be JSON, nor end in a newline)
// into every open watch, to test how clients handle a corrupt stream.
func (s *Server) WriteGarbage(frame []byte) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	for _, ws := range s.store.watchers {
		for w := range ws {
			if !w.stopped {
				w.sendLocked(watchItem{garbage: append([]byte(nil), frame...)})
			}
		}
	}
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

func (ev *event) public() Event {
	return Event{Type: ev.typ, Resource: ev.res.Name, Namespace: ev.obj.ns, Name: ev.obj.name,
		ResourceVersion: strconv.FormatUint(ev.rv, 10)}
}

// DropEvents makes every change for which drop returns true invisible to the
// watches open when it happens (it is still stored, listed and kept in
// history). That is how a client misses a delete, the only way its informer
// ends up with a DeletedFinalStateUnknown tombstone after the next relist.
// nil stops dropping. drop runs under the server's lock: keep it quick and
// do not call the server from it.
func (s *Server) DropEvents(drop func(Event) bool) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	s.store.dropEvent = drop
	if s.tracer.On() {
		s.tracer.Event("fault: drop events", slog.Bool("on", drop != nil))
	}
}
