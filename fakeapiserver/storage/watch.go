package storage

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/kinformer/kinformer/trace"
)

// Watch.
//
// A watch is registered on a key, or on a prefix (a key ending in "/"),
// and gets every change under it after a revision, in revision order:
// first what it asked to start with (the current values as ADDED, or the
// history after its revision replayed), then each change as it becomes
// visible (as it commits; with a log, once it is durable: visible.go).
// Registration and the start happen under one lock, so no change falls
// between the two; a revision older than the history is ErrCompacted.
//
// With a Predicate the store does what kube-apiserver's etcd3 watcher
// does for a selector: a change whose old and new values both match is
// MODIFIED, one that only the new value matches is ADDED, and one that
// only the old value matches is DELETED, carrying the old value at the
// change's revision (the object left the watch's view).
//
// Events reach a watch through a buffered channel filled by the writer
// while it holds the store's lock; a watcher that lets the buffer fill is
// cut off (Done is closed; its client resumes from the last revision it
// saw), so a slow reader cannot make memory grow without bound.

// WatchOptions say where a watch starts and what it sees.
type WatchOptions[O Object] struct {
	// Rev: replay every change after Rev from the history, then go on
	// live (ErrCompacted if the history no longer reaches back). 0: from
	// the current revision on.
	Rev uint64
	// SendInitialEvents starts the watch with an ADDED for every current
	// value under the key (Rev is then ignored).
	SendInitialEvents bool
	// Predicate, if set, selects the values the watch sees.
	Predicate func(O) bool
	// Buffer is how many events may wait for the reader before the watch
	// is cut off. Default 100.
	Buffer int
	// Admit, if set, is called under the store's lock as the watch is
	// registered; false: the watch starts ended (what it watches is gone).
	Admit func() bool
}

// WatchEvent is what a watch receives. One committed change that several
// watches receive alike is one *WatchEvent, so an encoding made for one of
// them can be shared with the others (Memo).
type WatchEvent[O Object] struct {
	Type  EventType
	Value O
	memo  [MemoSlots]struct {
		once  sync.Once
		bytes []byte
	}
}

// MemoSlots is how many encodings a WatchEvent can share.
const MemoSlots = 4

// Memo returns the bytes of slot, making them with mk on the first call:
// however many watchers send this event in the form slot stands for, it is
// encoded once. The bytes must only be read.
func (e *WatchEvent[O]) Memo(slot int, mk func() []byte) []byte {
	m := &e.memo[slot]
	m.once.Do(func() { m.bytes = mk() })
	return m.bytes
}

// Watcher is one open watch.
type Watcher[O Object] struct {
	s     *Store[O]
	id    uint64
	key   string
	pred  func(O) bool
	rev   uint64 // the revision at registration
	after uint64 // deliver only events with Rev > after
	ch    chan *WatchEvent[O]
	done  chan struct{} // closed when the store ends this watch
	// Guarded by the store's lock.
	stopped bool
	// missed is the revision of the first event a hide fault kept from
	// this watch (0: none). From then on it is deaf: it receives nothing
	// more, and Err reports ErrMissedEvent (faults.go).
	missed uint64
	// pending is a copy of what is queued for the watch and not yet sent,
	// kept only when the store is inspected (inspect.go).
	pending []*WatchEvent[O]
}

// ID numbers the watch, for the trace.
func (w *Watcher[O]) ID() uint64 { return w.id }

// StartRev is the store's revision (Rev) when the watch was registered:
// the state its initial events showed.
func (w *Watcher[O]) StartRev() uint64 { return w.rev }

// ResultChan delivers the watch's events.
func (w *Watcher[O]) ResultChan() <-chan *WatchEvent[O] { return w.ch }

// Done is closed when the store ends the watch (cut off, closed by a
// fault, its key's owner gone); what is still queued may be read first.
func (w *Watcher[O]) Done() <-chan struct{} { return w.done }

// Err is nil while the watch is whole, and a *MissedEventError once it is
// deaf: it cannot go on without a hole.
func (w *Watcher[O]) Err() error {
	w.s.mu.RLock()
	defer w.s.mu.RUnlock()
	if w.missed != 0 {
		return &MissedEventError{Rev: w.missed}
	}
	return nil
}

// Progress reports the store's revision and how many events were queued
// for the watch when it was read (every event up to rev), and whether the
// watch is deaf. It is what a bookmark needs: send the queued events, then
// the revision.
func (w *Watcher[O]) Progress() (rev uint64, queued int, deaf bool) {
	w.s.mu.RLock()
	defer w.s.mu.RUnlock()
	return w.s.visible, len(w.ch), w.missed != 0
}

// Stop ends the watch and unregisters it. The reader calls it when done.
func (w *Watcher[O]) Stop() {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	w.stopLocked()
	s.unregisterLocked(w)
}

func (w *Watcher[O]) stopLocked() {
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
}

func (s *Store[O]) unregisterLocked(w *Watcher[O]) {
	if ws := s.watchers[w.key]; ws != nil {
		delete(ws, w)
		if len(ws) == 0 {
			delete(s.watchers, w.key)
		}
	}
}

func (w *Watcher[O]) matches(v O) bool { return w.pred == nil || w.pred(v) }

// Watch opens a watch on key (a prefix if it ends in "/") and returns it
// with the events it starts with.
func (s *Store[O]) Watch(key string, opts WatchOptions[O]) (*Watcher[O], []*WatchEvent[O], error) {
	if opts.Buffer <= 0 {
		opts.Buffer = 100
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !opts.SendInitialEvents && opts.Rev != 0 && opts.Rev < s.compacted {
		return nil, nil, &CompactedError{Rev: opts.Rev, Compacted: s.compacted}
	}
	s.watchIDs++
	w := &Watcher[O]{s: s, id: s.watchIDs, key: key, pred: opts.Predicate, rev: s.visible, after: s.visible,
		ch: make(chan *WatchEvent[O], opts.Buffer), done: make(chan struct{})}
	if opts.Admit != nil && !opts.Admit() {
		w.stopLocked()
		return w, nil, nil
	}
	var initial []*WatchEvent[O]
	switch {
	case opts.SendInitialEvents:
		var vals []O
		keys, value := s.keysFor(key)
		for i := range keys {
			if v := value(i); w.matches(v) {
				vals = append(vals, v)
			}
		}
		evs := make([]WatchEvent[O], len(vals)) // one allocation for all
		for i, v := range vals {
			evs[i].Type, evs[i].Value = Added, v
			initial = append(initial, &evs[i])
		}
	case opts.Rev != 0:
		w.after = opts.Rev
		for _, ev := range s.history.since(opts.Rev) {
			if ev.Rev > s.visible {
				break // not visible yet: delivered to it later
			}
			if watchCovers(ev.Key, key) {
				if typ, v, ok := w.view(ev, nil); ok {
					initial = append(initial, &WatchEvent[O]{Type: typ, Value: v})
				}
			}
		}
		w.after = max(opts.Rev, s.visible)
	}
	if s.watchers[key] == nil {
		s.watchers[key] = map[*Watcher[O]]struct{}{}
	}
	s.watchers[key][w] = struct{}{}
	w.queuedLocked(initial...)
	return w, initial, nil
}

// keysFor is the keys a watch of key covers, and their values, as clients
// see them (at the visible revision).
func (s *Store[O]) keysFor(key string) ([]string, func(i int) O) {
	if strings.HasSuffix(key, "/") {
		return s.readLocked(key, "", s.visible)
	}
	v, err := s.getLocked(key)
	if err != nil {
		return nil, nil
	}
	return []string{key}, func(int) O { return v }
}

// view turns a change into what this watcher sees of it, if anything. fo,
// if not nil, shares the old value at the new revision with the event's
// other watchers.
func (w *Watcher[O]) view(ev *Event[O], fo *fanOut[O]) (EventType, O, bool) {
	var zero O
	if ev.Rev <= w.after {
		return "", zero, false
	}
	oldMatch := ev.Type != Added && w.matches(ev.Prev)
	if ev.Type == Deleted {
		return Deleted, ev.Value, oldMatch
	}
	newMatch := w.matches(ev.Value)
	switch {
	case newMatch && oldMatch:
		return Modified, ev.Value, true
	case newMatch:
		return Added, ev.Value, true
	case oldMatch:
		// It left the watch's view: for this watcher it is gone. Like the
		// real watch cache, send its last matching state at the new
		// revision.
		if fo != nil {
			return Deleted, fo.goneValue(), true
		}
		return Deleted, w.s.opts.Versioner(ev.Prev, ev.Rev), true
	}
	return "", zero, false
}

// fanOut is what one committed change looks like to the watchers it is
// delivered to: at most one WatchEvent per (type, value), each made when
// the first watcher needs it, and the old value at the new revision made
// once however many watchers it left. Only the committing writer uses it,
// under the store's lock.
type fanOut[O Object] struct {
	s      *Store[O]
	ev     *Event[O]
	gone   *O
	events [4]*WatchEvent[O] // ADDED, MODIFIED, DELETED of ev.Value; DELETED of gone
}

func (fo *fanOut[O]) goneValue() O {
	if fo.gone == nil {
		g := fo.s.opts.Versioner(fo.ev.Prev, fo.ev.Rev)
		fo.gone = &g
	}
	return *fo.gone
}

// share returns the WatchEvent for (typ, v), made once per change.
func (fo *fanOut[O]) share(typ EventType, v O, gone bool) *WatchEvent[O] {
	i := 3
	if !gone {
		switch typ {
		case Added:
			i = 0
		case Modified:
			i = 1
		default:
			i = 2
		}
	}
	if fo.events[i] == nil {
		fo.events[i] = &WatchEvent[O]{Type: typ, Value: v}
	}
	return fo.events[i]
}

// fanOutLocked hands a committed change to every watch of a key or prefix
// it falls under, without blocking.
func (s *Store[O]) fanOutLocked(ev *Event[O]) {
	fo := fanOut[O]{s: s, ev: ev}
	s.eachWatcherOf(ev.Key, func(w *Watcher[O]) {
		if w.stopped || w.missed != 0 {
			return // a deaf watch receives nothing past its hole
		}
		typ, v, ok := w.view(ev, &fo)
		if !ok {
			return
		}
		if !w.sendLocked(fo.share(typ, v, typ == Deleted && ev.Type != Deleted)) && s.opts.Tracer.On() {
			attrs := []slog.Attr{slog.Uint64(trace.KeyWatch, w.id), trace.Reason("too slow: its buffer is full")}
			if s.inspect {
				attrs = append(attrs, s.stateLocked())
			}
			s.opts.Tracer.Warn("watch cut off", attrs...)
		}
	})
}

// eachWatcherOf calls fn for every watch whose key is key or a prefix of
// it: the watches of each "/"-ended prefix of key, then those of key.
func (s *Store[O]) eachWatcherOf(key string, fn func(*Watcher[O])) {
	if len(s.watchers) == 0 {
		return
	}
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			for w := range s.watchers[key[:i+1]] {
				fn(w)
			}
		}
	}
	if !strings.HasSuffix(key, "/") {
		for w := range s.watchers[key] {
			fn(w)
		}
	}
}

// sendLocked queues an event; false if the buffer was full and the watch
// was cut off.
func (w *Watcher[O]) sendLocked(ev *WatchEvent[O]) bool {
	select {
	case w.ch <- ev:
		w.queuedLocked(ev)
		return true
	default:
		w.stopLocked() // too slow: cut it off
		return false
	}
}

// Backlog is the most events any open watch under prefix has queued and
// its reader not yet taken: how far behind the slowest reader is. A
// writer that must not cut a watch off (a bulk load driving a benchmark)
// waits for it to fall before it writes more.
func (s *Store[O]) Backlog(prefix string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	most := 0
	for key, ws := range s.watchers {
		if strings.HasPrefix(key, prefix) {
			for w := range ws {
				most = max(most, len(w.ch))
			}
		}
	}
	return most
}

// Watchers counts the open watches whose key is under prefix, and how many
// of them are deaf.
func (s *Store[O]) Watchers(prefix string) (open, deaf int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for key, ws := range s.watchers {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		open += len(ws)
		for w := range ws {
			if w.missed != 0 && !w.stopped {
				deaf++
			}
		}
	}
	return open, deaf
}
