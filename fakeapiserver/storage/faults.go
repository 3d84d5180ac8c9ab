package storage

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/trace"
)

// Faults: what can go wrong between etcd and a watcher, on demand.
//
// # Hiding events, and the one rule it must keep
//
// Every watcher relies on one promise: a watch from revision R delivers
// every change after R under its key, in order, or it ends. A stream with
// a hole in it is invisible to its reader: its revision moves past the
// hole, a later resume from there is accepted, and what the hole held
// stays stale for good.
//
// So a hide fault hides events without ever making a hole:
//
//   - a watch that would have received a hidden event goes deaf at that
//     event: it receives nothing more (and Progress says it is deaf, so no
//     bookmark jumps the hole);
//   - when the hide ends (Hide again, EndHide, or the last event of a
//     counted hide), every deaf watch ends, in the same critical section,
//     and its Err is a *MissedEventError: its reader must start over from
//     a fresh list;
//   - a deaf watch that ends any other way (CloseWatches) has the same Err.
//
// Watches opened while a hide is on start whole: they replay from the
// history (which keeps every hidden event) and go deaf only at the next
// event they miss.

// Hiding is a hide fault: which events it hides, and how many more.
type Hiding[O Object] struct {
	match func(*Event[O]) bool
	left  int // events still to hide; 0: no limit
}

// Hide makes every change for which match returns true invisible to the
// watches open when it is made visible (visible.go: with a log, once it is
// durable; it is still stored, listed and kept in the history); count > 0 ends the hide after that many. An earlier hide
// ends first; a nil match only ends it. match runs under the store's
// lock. The returned handle names this hide for EndOutage.
func (s *Store[O]) Hide(match func(*Event[O]) bool, count int) *Hiding[O] {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endHideLocked()
	if match == nil {
		return nil
	}
	s.hide = &Hiding[O]{match: match, left: count}
	return s.hide
}

// hideLocked hides a change being made visible from the open watches: each watch
// that would have received it goes deaf at it. A counted hide ends with
// its last event.
func (s *Store[O]) hideLocked(ev *Event[O]) {
	t := s.opts.Tracer
	if t.On() {
		key := s.describe(ev.Key) // resource (if described), key: the key alone here
		t.Warn("event dropped (fault)", trace.Type(string(ev.Type)), key[len(key)-1], trace.RV(strconv.FormatUint(ev.Rev, 10)))
	}
	s.eachWatcherOf(ev.Key, func(w *Watcher[O]) {
		if w.stopped || w.missed != 0 {
			return
		}
		if _, _, ok := w.view(ev, nil); ok {
			w.missed = ev.Rev
			if t.On() {
				t.Warn("watch deaf", slog.Uint64(trace.KeyWatch, w.id), trace.RV(strconv.FormatUint(ev.Rev, 10)),
					trace.Reason("it missed this event: it sends nothing more, and ends with 410 Expired when the drop ends"))
			}
		}
	})
	if h := s.hide; h.left > 0 {
		if h.left--; h.left == 0 {
			s.endHideLocked()
		}
	}
}

// endHideLocked ends the hide fault, if one is on: every deaf watch ends
// now, before any later event can be committed.
func (s *Store[O]) endHideLocked() {
	if s.hide == nil {
		return
	}
	s.hide = nil
	s.eachWatcher(func(w *Watcher[O]) {
		if w.missed != 0 {
			w.stopLocked()
		}
	})
}

func (s *Store[O]) eachWatcher(fn func(*Watcher[O])) {
	for _, ws := range s.watchers {
		for w := range ws {
			fn(w)
		}
	}
}

// CloseWatches ends every open watch, as a restart of the API server in
// front of etcd would: a whole one cleanly (its reader resumes from its
// last revision), a deaf one with its Err.
func (s *Store[O]) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eachWatcher(func(w *Watcher[O]) { w.stopLocked() })
}

// EndOutage, in one critical section: forgets the history (what watchers
// would resume from is gone), ends every watch (a deaf one with its Err)
// and ends the hide h if it is still the one on. No reader is left past a
// hole, however writes interleave with it.
func (s *Store[O]) EndOutage(h *Hiding[O]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked()
	s.traceCompacted()
	s.eachWatcher(func(w *Watcher[O]) { w.stopLocked() })
	if s.hide == h {
		s.hide = nil
	}
}

// StallDisk stalls the log, as a disk that stops answering: from now on
// the log writes and fsyncs nothing until resume is called, so writes
// commit (a transaction sees them) but none becomes durable, or visible to
// a client (visible.go): their Update waits. A Restart while stalled loses
// them; a Close flushes them anyway. Without a log it does nothing.
func (s *Store[O]) StallDisk() (resume func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wal == nil {
		return func() {}
	}
	return s.wal.stall()
}

// Inject queues ev, as it is, on every open watch: for fault injection
// (a frame that is no change at all).
func (s *Store[O]) Inject(ev *WatchEvent[O]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eachWatcher(func(w *Watcher[O]) {
		if !w.stopped {
			w.sendLocked(ev)
		}
	})
}

// StopWatches ends and unregisters every watch whose key is under prefix
// (what they watch is gone or changed shape).
func (tx *Tx[O]) StopWatches(prefix string) {
	s := tx.s
	for key, ws := range s.watchers {
		if strings.HasPrefix(key, prefix) {
			for w := range ws {
				w.stopLocked()
			}
			delete(s.watchers, key)
		}
	}
}
