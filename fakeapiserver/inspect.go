package fakeapiserver

import (
	"log/slog"
	"strconv"

	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// Inspect: the open watches and the frames each has yet to send, for the
// lab.
//
// When the server's Tracer is Inspecting (a trace.Inspect consumer: the
// demo's lab), its watch events ("commit", "watch opened", "frame sent",
// "bookmark sent", "bookmark sent (initial-events-end)", "watch closed",
// "watch cut off") carry a WatchesState, box "server" named "watches":
// every open watch with the events the server has for it and has not yet
// written to its connection, oldest first. The storage keeps that list
// (storage/inspect.go) under its lock; a watch's own events are reported
// after it is released, since the lab may hold them while the server
// goes on taking writes. A frame counts as sent once its "frame sent" event is reported,
// which is before its bytes are written (watch_stream.go). A watch that
// ended leaves the map. When the Tracer is not Inspecting, nothing here
// runs.

// maxListed caps every list of a State: a box shows the first entries and
// says how many more there are (Truncated).
const maxListed = 200

// WatchesState is the server's open watches, by number ("7"), for the lab.
type WatchesState struct {
	Watches map[string]WatchState `json:"watches"`
	// Truncated counts the entries left out of the lists above (watches,
	// and each watch's pending frames), each capped at 200.
	Truncated int `json:"truncated,omitempty"`
}

// WatchState is one open watch: the resource it watches and the frames the
// server has for it, not yet written, oldest first.
type WatchState struct {
	Resource string         `json:"resource"`
	Pending  []PendingFrame `json:"pending"`
}

// PendingFrame is one event waiting to be written to a watch: its type
// (ADDED, MODIFIED, DELETED; GARBAGE for a fault's), the object's key and
// resourceVersion.
type PendingFrame struct {
	Type string `json:"type"`
	Key  string `json:"key"`
	RV   string `json:"rv"`
}

// watchesState is storage.Options.WatchesState: the open watches as the
// lab's state. Called under the storage's lock.
func (s *Server) watchesState(watches []storage.OpenWatch[*record]) slog.Attr {
	st := WatchesState{Watches: make(map[string]WatchState, min(len(watches), maxListed))}
	for i, w := range watches {
		if i == maxListed {
			st.Truncated += len(watches) - i
			break
		}
		resource, _ := s.describeKey(w.Key)
		n := min(len(w.Pending), maxListed)
		st.Truncated += len(w.Pending) - n
		ws := WatchState{Resource: resource, Pending: make([]PendingFrame, n)}
		for j, ev := range w.Pending[:n] {
			ws.Pending[j] = pendingFrame(ev)
		}
		st.Watches[strconv.FormatUint(w.ID, 10)] = ws
	}
	return trace.StateOf("server", "watches", st)
}

func pendingFrame(ev *watchEvent) PendingFrame {
	if ev.Type == garbageEvent {
		return PendingFrame{Type: string(ev.Type)}
	}
	return PendingFrame{Type: string(ev.Type), Key: ev.Value.key, RV: strconv.FormatUint(ev.Value.rv, 10)}
}

// traceWatches reports what, with the open watches' state when inspecting
// (under the storage's lock), as a plain event otherwise.
func (s *Server) traceWatches(what string, attrs ...slog.Attr) {
	if !s.tracer.Inspecting() {
		s.tracer.Event(what, attrs...)
		return
	}
	if state, ok := s.store.Report(); ok {
		attrs = append(attrs, state)
	}
	s.tracer.Event(what, attrs...) // outside the store's lock: the lab may hold it
}
