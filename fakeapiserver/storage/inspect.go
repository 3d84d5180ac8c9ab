package storage

import (
	"log/slog"
)

// Inspect: the open watches and what each has queued, for the lab.
//
// When the Tracer is Inspecting (a trace.Inspect consumer: the demo's lab)
// and Options.WatchesState is set, every watch keeps, under the store's
// lock, a copy of the events queued for it that its reader has not taken:
// its initial (or replayed) events as it is opened, then each change the
// fan-out queues, in order; the reader takes them off as it sends them
// (Sent). The events are in the watch's channel and its reader's hands;
// the copy is what the lab can read without taking either. The "commit"
// and "watch cut off" events then carry the state of every open watch
// (WatchesState turns it into a trace attribute), and "commit" is reported
// after the fan-out, so that every watch that got the change shows it
// queued (not inspected, it is reported before). With a log (Options.Dir)
// a change reaches the watches only once it is durable, which no event
// reports: its commit shows it queued nowhere yet.
//
// When the Tracer is not Inspecting, no watch keeps a copy.

// OpenWatch is one open watch as the lab sees it: its number, the key (or
// prefix) it watches, and the events queued for it, oldest first. Pending
// is the store's own slice, valid only during the WatchesState call.
type OpenWatch[O Object] struct {
	ID      uint64
	Key     string
	Pending []*WatchEvent[O]
}

// openWatchesLocked lists the registered watches (a watch leaves when its
// reader stops it), by number.
func (s *Store[O]) openWatchesLocked() []OpenWatch[O] {
	var out []OpenWatch[O]
	s.eachWatcher(func(w *Watcher[O]) {
		out = append(out, OpenWatch[O]{ID: w.id, Key: w.key, Pending: w.pending})
	})
	return out
}

// stateLocked is the open watches' state, as WatchesState makes it.
func (s *Store[O]) stateLocked() slog.Attr {
	return s.opts.WatchesState(s.openWatchesLocked())
}

// queuedLocked records that ev was queued for w.
func (w *Watcher[O]) queuedLocked(evs ...*WatchEvent[O]) {
	if w.s.inspect {
		w.pending = append(w.pending, evs...)
	}
}

// Report returns the open watches' state, taken under the store's lock;
// ok is false when not inspecting. The caller reports its event with it
// after the lock is released: the lab may hold that event (a watch's
// frame) for as long as the learner likes, and the store must go on
// taking writes meanwhile. So a "commit" reported at the same moment may
// reach the lab first, with a newer state; the next event corrects it.
func (s *Store[O]) Report() (state slog.Attr, ok bool) {
	if !s.inspect {
		return slog.Attr{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(), true
}

// Sent tells the store that the reader has taken the oldest event queued
// for w and is sending it, and returns the state after it (see Report:
// reported by the caller, outside the store's lock). Only when inspecting.
func (w *Watcher[O]) Sent() (state slog.Attr, ok bool) {
	s := w.s
	if !s.inspect {
		return slog.Attr{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(w.pending) > 0 {
		w.pending[0] = nil
		w.pending = w.pending[1:]
	}
	return s.stateLocked(), true
}

// StopAndReport is Stop, then report with the state of the watches left,
// under the store's lock. Only when inspecting: otherwise it only stops.
func (w *Watcher[O]) StopAndReport(report func(state slog.Attr)) {
	s := w.s
	if !s.inspect {
		w.Stop()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w.stopLocked()
	s.unregisterLocked(w)
	report(s.stateLocked())
}
