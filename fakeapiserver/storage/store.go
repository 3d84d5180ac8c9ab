package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kinformer/kinformer/trace"
)

// Object is what the store keeps under a key. A value is never changed
// once it is handed to the store: a write hands over a new one, so readers
// and watchers may hold on to old ones without locks.
type Object interface {
	// UID names the object across its versions: a key deleted and
	// created again holds a value with another UID (Preconditions).
	UID() string
	// Bytes is the value as stored, what the write-ahead log and snapshots
	// keep; its length is what Options.HistoryBytes counts.
	Bytes() []byte
}

// EventType says what a change did to its key.
type EventType string

// The three changes; their names are the watch API's.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change in the history: the value after it (for Deleted,
// the last value stamped with the deletion's revision) and the value
// before it (the zero O for Added).
type Event[O Object] struct {
	Type  EventType
	Key   string
	Rev   uint64
	Value O
	Prev  O
}

// Errors. Each is returned as is or wrapped, so test with errors.Is.
var (
	ErrNotFound    = errors.New("storage: key not found")
	ErrExists      = errors.New("storage: key already exists")
	ErrConflict    = errors.New("storage: the revision precondition failed")
	ErrUIDMismatch = errors.New("storage: the UID precondition failed")
	// ErrCompacted: the revision asked for is older than the history
	// reaches (a *CompactedError says how old).
	ErrCompacted = errors.New("storage: revision compacted")
	// ErrUnavailable: the store is closed, or restarted before a write was
	// durable. The write may or may not be on disk.
	ErrUnavailable = errors.New("storage: unavailable")
	// ErrMissedEvent: a watch went deaf at an event a hide fault kept from
	// it (a *MissedEventError says which).
	ErrMissedEvent = errors.New("storage: the watch missed an event")
)

// CompactedError is ErrCompacted with the numbers: Rev was asked for, and
// Compacted is the newest revision the history no longer holds (every
// revision after it can still be watched or listed).
type CompactedError struct{ Rev, Compacted uint64 }

func (e *CompactedError) Error() string {
	return fmt.Sprintf("storage: revision %d is compacted (history starts after %d)", e.Rev, e.Compacted)
}

// Is makes errors.Is(err, ErrCompacted) true.
func (e *CompactedError) Is(target error) bool { return target == ErrCompacted }

// MissedEventError is ErrMissedEvent with the revision of the first event
// the watch missed.
type MissedEventError struct{ Rev uint64 }

func (e *MissedEventError) Error() string {
	return fmt.Sprintf("storage: the watch missed the event at revision %d", e.Rev)
}

// Is makes errors.Is(err, ErrMissedEvent) true.
func (e *MissedEventError) Is(target error) bool { return target == ErrMissedEvent }

// Options configure a Store.
type Options[O Object] struct {
	// History is how many events the store keeps (default 1000);
	// HistoryBytes also bounds them by the size of their values (0: by
	// count only). The newest event always stays.
	History      int
	HistoryBytes int64
	// Versioner returns a copy of o carrying revision rev, leaving o as it
	// is: the value a DELETED event carries (the last state, at the
	// deletion's revision), as kube-apiserver's storage.Versioner stamps
	// it. Required.
	Versioner func(o O, rev uint64) O
	// OnCommit, if set, is called under the store's lock after each change
	// is applied and before any watcher sees it. It may write in the same
	// transaction (tx), and those writes commit after this one.
	OnCommit func(tx *Tx[O], ev *Event[O])
	// Describe, if set, names a key in the trace: the resource and the
	// key a client knows ("pods", "default/web"). Default: the key.
	Describe func(key string) (resource, name string)
	// Tracer gets the store's events (commits, compactions, recoveries,
	// watches cut off). nil: off.
	Tracer *trace.Tracer
	// WatchesState, if set and the Tracer is Inspecting, makes the state
	// the lab gets with the store's events from the open watches and what
	// each has queued (inspect.go). It is called under the store's lock.
	WatchesState func(watches []OpenWatch[O]) slog.Attr
	// Logger gets what durability has to say (a damaged tail, a failed
	// snapshot). nil: quiet.
	Logger *slog.Logger

	// Dir, if set, makes the store durable (durable.go): every write is
	// in a write-ahead log there before it is acknowledged.
	Dir string
	// SnapshotRecords and SnapshotBytes: a snapshot is written after this
	// many log records or bytes. Defaults 10000 and 64 MiB.
	SnapshotRecords int
	SnapshotBytes   int64
	// Decode turns the key/values recovery read back (in key order) into
	// values, in the same order; required with Dir. It is called once per
	// recovery, under the store's lock, so the caller can decode the
	// values that give the others their meaning first.
	Decode func(kvs []KeyValue) ([]O, error)
}

// Store is etcd in miniature: see the package documentation.
//
// # Locking
//
// One mutex guards everything. Writers hold it while they commit and while
// they hand events to every open watcher (a non-blocking channel send
// per watcher), so every watcher sees every event in revision order.
//
// # Two revisions: committed and visible
//
// rev is the writer's view: the last change committed, what a transaction
// (Tx) reads. visible is the clients' view: every change up to it is
// durable and has been delivered to the watches (visible.go). Without a
// log the two are always equal; with one, the changes in between wait in
// undelivered until the log has fsync'd them.
type Store[O Object] struct {
	opts Options[O]
	tx   Tx[O] // the one transaction, valid while mu is held (no allocation per write)

	mu     sync.RWMutex
	rev    uint64
	values map[string]kv[O]
	keys   []string // the keys of values, sorted: a prefix is a range
	// visible, undelivered and atVisible: see visible.go.
	visible     uint64
	undelivered []*Event[O]
	atVisible   map[string]atVisible[O]
	// history keeps the last events; compacted is the newest revision it
	// no longer holds (every event with Rev > compacted is in it).
	history   ring[O]
	compacted uint64
	// revChanged is closed and replaced on every commit (WaitForRev).
	revChanged chan struct{}

	watchers map[string]map[*Watcher[O]]struct{} // by the key they watch
	watchIDs uint64                              // numbers the watches, for the trace
	hide     *Hiding[O]                          // a hide fault, while one is on (faults.go)
	inspect  bool                                // watches keep what they have queued, for the lab (inspect.go)

	// Durability (durable.go): the log, nil without Dir (and after Close).
	wal      *wal
	recovery Recovery
}

// New returns an empty store at revision 0. With opts.Dir it is durable,
// and Open must be called before it is used.
func New[O Object](opts Options[O]) *Store[O] {
	if opts.History <= 0 {
		opts.History = 1000
	}
	if opts.Versioner == nil {
		panic("storage: Options.Versioner is required")
	}
	s := &Store[O]{
		opts:       opts,
		values:     map[string]kv[O]{},
		history:    ring[O]{buf: make([]*Event[O], opts.History)},
		revChanged: make(chan struct{}),
		watchers:   map[string]map[*Watcher[O]]struct{}{},
		atVisible:  map[string]atVisible[O]{},
	}
	s.tx.s = s
	s.inspect = opts.Tracer.Inspecting() && opts.WatchesState != nil
	return s
}

// Rev is the current revision as clients see it: that of the latest write
// made visible (with a log, the latest durable one; see visible.go). A
// bookmark or a list never carries a revision past an event a watch has
// not been handed yet.
func (s *Store[O]) Rev() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.visible
}

// Compacted is the newest revision the history no longer holds: a watch
// or an exact list at a revision older than Compacted() is ErrCompacted.
func (s *Store[O]) Compacted() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.compacted
}

// HistoryStats reports how many events the history holds and the size of
// their values.
func (s *Store[O]) HistoryStats() (events int, bytes int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.history.n, s.history.bytes
}

// RevChanged returns the current revision (Rev) and a channel closed when
// it next moves: wait on it to learn when the store has reached a revision.
func (s *Store[O]) RevChanged() (uint64, <-chan struct{}) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.visible, s.revChanged
}

// kv is a value with the revision of its last write (etcd's mod revision).
type kv[O Object] struct {
	value O
	rev   uint64
}

// Get returns the current value at key, as clients see it (Rev).
func (s *Store[O]) Get(key string) (O, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.getLocked(key)
}

func (s *Store[O]) getLocked(key string) (O, error) {
	if p, ok := s.atVisible[key]; ok {
		if !p.present {
			var zero O
			return zero, ErrNotFound
		}
		return p.value, nil
	}
	e, ok := s.values[key]
	if !ok {
		return e.value, ErrNotFound
	}
	return e.value, nil
}

// Compact forgets all history: a watch or exact list at any revision
// before the current one (Rev) is ErrCompacted from now on. Open watches
// keep running.
func (s *Store[O]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked()
	s.traceCompacted()
}

// ForgetHistory is Compact without a trace line: a new cluster's history
// starts after its bootstrap writes, as a real cluster's first writes were
// compacted long ago.
func (s *Store[O]) ForgetHistory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked()
}

// compactLocked forgets every change a client could have seen: the
// history keeps only the changes not yet visible, which watches opened now
// will still need once they are delivered.
func (s *Store[O]) compactLocked() {
	for s.history.n > 0 && s.history.at(0).Rev <= s.visible {
		s.history.popOldest()
	}
	s.compacted = max(s.compacted, s.visible)
}

// traceCompacted says a compaction happened.
func (s *Store[O]) traceCompacted() {
	if t := s.opts.Tracer; t.On() {
		t.Event("history compacted", trace.RV(strconv.FormatUint(s.visible, 10)), trace.Reason("a watch or list from an older rv now gets 410 Expired"))
	}
}

// describe is what the trace calls key.
func (s *Store[O]) describe(key string) []slog.Attr {
	if s.opts.Describe == nil {
		return []slog.Attr{trace.Key(key)}
	}
	res, name := s.opts.Describe(key)
	return []slog.Attr{trace.Resource(res), trace.Key(name)}
}

// keyRange returns the sorted keys under prefix from the key from on
// ("" for all): a binary search, not a scan. The slice is only valid while
// the lock is held.
func (s *Store[O]) keyRange(prefix, from string) []string {
	lo, _ := slices.BinarySearch(s.keys, max(prefix, from))
	hi := len(s.keys)
	if end := prefixEnd(prefix); end != "" {
		hi, _ = slices.BinarySearch(s.keys, end)
	}
	return s.keys[lo:max(lo, hi)]
}

// prefixEnd is the first string after every string with prefix p ("":
// none, p is empty or all 0xff).
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// setLocked and removeLocked keep values and the sorted key index in step.
func (s *Store[O]) setLocked(key string, e kv[O]) {
	if _, ok := s.values[key]; !ok {
		if i, found := slices.BinarySearch(s.keys, key); !found {
			s.keys = slices.Insert(s.keys, i, key)
		}
	}
	s.values[key] = e
}

func (s *Store[O]) removeLocked(key string) {
	delete(s.values, key)
	if i, found := slices.BinarySearch(s.keys, key); found {
		s.keys = slices.Delete(s.keys, i, i+1)
	}
}

// watchCovers reports whether key is under prefix; a prefix that does not
// end in "/" names one key.
func watchCovers(key, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(key, prefix)
	}
	return key == prefix
}
