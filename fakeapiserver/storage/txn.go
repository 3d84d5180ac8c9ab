package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/trace"
)

// Transactions.
//
// Every write runs inside Update: the store's lock is held from the first
// read to the last commit, so what the caller checked (the value's
// revision, that a namespace exists, that a row is still served) is still
// true when it writes. That is the simplest faithful model of etcd's
// compare-and-swap transactions, which kube-apiserver's GuaranteedUpdate
// retries until the compare holds: here the compare always holds, because
// nothing else can write in between.
//
// A transaction may commit several changes (a namespace and everything in
// it); each takes the next revision. Update returns only once every change
// it committed is durable (group commit, wal.go).

// Tx is a transaction: reads and writes under the store's lock. It is
// only valid during the function Update passes it to.
type Tx[O Object] struct {
	s *Store[O]
}

// Update runs fn with the store locked for writing, then waits until what
// it committed is durable and visible (visible.go): once Update returns, a
// Get, List or Watch sees it. fn's error is returned as is; a store that
// cannot take writes (closed, its log failed) refuses before fn runs.
func (s *Store[O]) Update(fn func(tx *Tx[O]) error) error {
	s.mu.Lock()
	if err := s.writableLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	mark := s.rev
	err := fn(&s.tx)
	rev, w := s.rev, s.wal
	s.mu.Unlock()
	if w == nil || rev == mark {
		return err
	}
	if derr := w.waitDurable(rev); derr != nil {
		if err == nil {
			err = &NotDurableError{Err: derr}
		}
		return err
	}
	// Durable: deliver it, and whatever else the same fsync made durable
	// (unless a writer of the same batch came first). After a Restart the
	// undelivered events are gone and this does nothing: the recovered
	// state holds the write.
	s.mu.Lock()
	s.deliverLocked(w.durableRev())
	s.mu.Unlock()
	return err
}

// NotDurableError: the transaction committed, but the log could not make
// it durable (errors.Is(err, ErrUnavailable) when the store closed or
// restarted first).
type NotDurableError struct{ Err error }

func (e *NotDurableError) Error() string { return "the write was not made durable: " + e.Err.Error() }

// Is makes errors.Is(err, ErrUnavailable) true when the log stopped first.
func (e *NotDurableError) Is(target error) bool {
	return target == ErrUnavailable && (errors.Is(e.Err, errWALCrashed) || errors.Is(e.Err, errWALClosed))
}

// Preconditions a write checks against the current value: its UID and
// its revision ("" and 0: not checked), as etcd3's store checks
// storage.Preconditions.
type Preconditions struct {
	UID string
	Rev uint64
}

// check returns ErrUIDMismatch or ErrConflict.
func (p Preconditions) check(uid string, rev uint64) error {
	if p.UID != "" && p.UID != uid {
		return ErrUIDMismatch
	}
	if p.Rev != 0 && p.Rev != rev {
		return ErrConflict
	}
	return nil
}

// NextRev is the revision the next write takes. A value written must carry
// it (the caller stamps it, so the value is encoded once).
func (tx *Tx[O]) NextRev() uint64 { return tx.s.rev + 1 }

// Get returns the current value at key and the revision of its last write.
func (tx *Tx[O]) Get(key string) (O, uint64, error) {
	e, ok := tx.s.values[key]
	if !ok {
		return e.value, 0, ErrNotFound
	}
	return e.value, e.rev, nil
}

// Create writes v at a key that holds nothing (else ErrExists).
func (tx *Tx[O]) Create(key string, v O) error {
	s := tx.s
	if _, ok := s.values[key]; ok {
		return ErrExists
	}
	s.commitLocked(&Event[O]{Type: Added, Key: key, Rev: s.rev + 1, Value: v})
	return nil
}

// Update replaces the value at key (ErrNotFound if there is none) if the
// preconditions hold.
func (tx *Tx[O]) Update(key string, v O, pre Preconditions) error {
	s := tx.s
	old, ok := s.values[key]
	if !ok {
		return ErrNotFound
	}
	if err := pre.check(old.value.UID(), old.rev); err != nil {
		return err
	}
	s.commitLocked(&Event[O]{Type: Modified, Key: key, Rev: s.rev + 1, Value: v, Prev: old.value})
	return nil
}

// Delete removes the value at key if the preconditions hold, and returns
// what the DELETED event carries: the last value at the deletion's
// revision (Options.Versioner).
func (tx *Tx[O]) Delete(key string, pre Preconditions) (O, error) {
	s := tx.s
	old, ok := s.values[key]
	if !ok {
		return old.value, ErrNotFound
	}
	if err := pre.check(old.value.UID(), old.rev); err != nil {
		var zero O
		return zero, err
	}
	rev := s.rev + 1
	gone := s.opts.Versioner(old.value, rev)
	s.commitLocked(&Event[O]{Type: Deleted, Key: key, Rev: rev, Value: gone, Prev: old.value})
	return gone, nil
}

// Create, GuaranteedUpdate and Delete are one-write transactions, named
// after storage.Interface's.

// Create writes at key, which must hold nothing (else ErrExists), the value
// mk makes for the next revision.
func (s *Store[O]) Create(key string, mk func(rev uint64) O) (O, error) {
	var v O
	err := s.Update(func(tx *Tx[O]) error {
		v = mk(tx.NextRev())
		return tx.Create(key, v)
	})
	return v, err
}

// GuaranteedUpdate replaces the value at key by what try makes of the
// current one for the next revision, if the preconditions hold; an error
// from try is returned as is. kube-apiserver's GuaranteedUpdate calls try
// again whenever etcd's compare-and-swap finds the value changed in
// between; under the store's lock nothing can change it, so try runs once.
func (s *Store[O]) GuaranteedUpdate(key string, pre Preconditions, try func(cur O, next uint64) (O, error)) (O, error) {
	var v O
	err := s.Update(func(tx *Tx[O]) error {
		cur, rev, err := tx.Get(key)
		if err != nil {
			return err
		}
		if err := pre.check(cur.UID(), rev); err != nil {
			return err
		}
		if v, err = try(cur, tx.NextRev()); err != nil {
			return err
		}
		return tx.Update(key, v, Preconditions{})
	})
	return v, err
}

// Delete removes the value at key if the preconditions hold, and returns
// what the DELETED event carries.
func (s *Store[O]) Delete(key string, pre Preconditions) (O, error) {
	var v O
	err := s.Update(func(tx *Tx[O]) error {
		var err error
		v, err = tx.Delete(key, pre)
		return err
	})
	return v, err
}

// Rewrite replaces every value under prefix by f's copy of it, with no
// new revision, no event and nothing logged: for a change of how values
// are seen, not of what they hold (a custom resource's row rebuilt after
// its CRD changed). f must keep the bytes' meaning.
func (tx *Tx[O]) Rewrite(prefix string, f func(O) O) {
	s := tx.s
	for _, k := range s.keyRange(prefix, "") {
		e := s.values[k]
		e.value = f(e.value)
		s.values[k] = e
	}
	for k, p := range s.atVisible {
		if p.present && strings.HasPrefix(k, prefix) {
			p.value = f(p.value)
			s.atVisible[k] = p
		}
	}
}

// List is Store.List inside the transaction: it reads the writer's state
// (every change committed, durable or not).
func (tx *Tx[O]) List(prefix string, opts ListOptions[O]) (ListResult[O], error) {
	return tx.s.listLocked(prefix, opts, tx.s.rev)
}

// commitLocked makes one change: it takes the next revision, logs it
// (durable.go), applies it, keeps it in the history, makes it visible (or,
// with a log, queues it until it is durable: visible.go) and finally tells
// OnCommit.
func (s *Store[O]) commitLocked(ev *Event[O]) {
	s.rev = ev.Rev
	if s.wal != nil {
		s.logLocked(ev)
	}
	prev, existed := s.values[ev.Key]
	if ev.Type == Deleted {
		s.removeLocked(ev.Key)
	} else {
		s.setLocked(ev.Key, kv[O]{value: ev.Value, rev: ev.Rev})
	}
	if evicted := s.history.push(ev); evicted != nil {
		s.compacted = evicted.Rev
	}
	// Bounded by bytes too, keeping at least the newest event: a few
	// versions of a huge object must not pin gigabytes.
	for s.opts.HistoryBytes > 0 && s.history.bytes > s.opts.HistoryBytes && s.history.n > 1 {
		s.compacted = s.history.popOldest().Rev
	}
	if t := s.opts.Tracer; t.On() && !s.inspect {
		attrs := append([]slog.Attr{trace.Type(string(ev.Type))}, s.describe(ev.Key)...)
		t.Event("commit", append(attrs, trace.RV(strconv.FormatUint(ev.Rev, 10)))...)
	}
	s.publishLocked(ev, prev, existed)
	if s.inspect { // after the fan-out: the watches that got it show it queued (inspect.go)
		attrs := append([]slog.Attr{trace.Type(string(ev.Type))}, s.describe(ev.Key)...)
		s.opts.Tracer.Event("commit", append(attrs, trace.RV(strconv.FormatUint(ev.Rev, 10)), s.stateLocked())...)
	}
	if s.wal != nil {
		s.maybeSnapshotLocked()
	}
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(&s.tx, ev)
	}
}

// ListOptions say which values a list returns.
type ListOptions[O Object] struct {
	// Rev: 0 reads the current state; otherwise the state exactly at Rev,
	// rebuilt from the history (ErrCompacted if it no longer reaches
	// back that far).
	Rev uint64
	// From is the first key to consider (a page's start); "" from the
	// start of the prefix.
	From string
	// Limit ends the page after this many values (0: no limit).
	Limit int
	// Predicate, if set, keeps only the values it accepts.
	Predicate func(O) bool
}

// ListResult is one page of a list.
type ListResult[O Object] struct {
	Items []O
	Rev   uint64 // the revision the list read at
	// More: keys under the prefix follow the page, accepted by Predicate
	// or not (as etcd answers); Remaining counts them.
	More      bool
	Remaining int
}

// List returns, in key order, the values under prefix as opts asks, as
// clients see them: at Rev (0) or older.
func (s *Store[O]) List(prefix string, opts ListOptions[O]) (ListResult[O], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listLocked(prefix, opts, s.visible)
}

// listLocked lists as of now (the visible revision, or the writer's).
func (s *Store[O]) listLocked(prefix string, opts ListOptions[O], now uint64) (ListResult[O], error) {
	res := ListResult[O]{Rev: now}
	at := now
	if opts.Rev != 0 {
		if opts.Rev < s.compacted {
			return res, &CompactedError{Rev: opts.Rev, Compacted: s.compacted}
		}
		res.Rev = opts.Rev
		at = min(opts.Rev, now)
	}
	keys, value := s.readLocked(prefix, opts.From, at)
	n := len(keys)
	i := 0
	for ; i < n; i++ {
		if opts.Limit > 0 && len(res.Items) >= opts.Limit {
			res.More, res.Remaining = true, n-i
			break
		}
		v := value(i)
		if opts.Predicate == nil || opts.Predicate(v) {
			res.Items = append(res.Items, v)
		}
	}
	return res, nil
}

// writableLocked refuses a write to a durable store whose log cannot take
// it (closed, or failed): the write would otherwise live in memory only.
func (s *Store[O]) writableLocked() error {
	if s.opts.Dir == "" {
		return nil
	}
	if s.wal == nil {
		return ErrClosed
	}
	if err := s.wal.failed(); err != nil {
		return &FailedError{Err: err}
	}
	return nil
}

// ErrClosed: a durable store refuses writes once closed (and while it
// restarts).
var ErrClosed = fmt.Errorf("%w: the storage is closed", ErrUnavailable)

// FailedError: the log failed (a write or fsync error); the store refuses
// every write from then on.
type FailedError struct{ Err error }

func (e *FailedError) Error() string { return fmt.Sprintf("storage failed: %v", e.Err) }
