package storage

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kinformer/kinformer/trace"
)

// Durability: Open, Restart, Close, and the hooks commitLocked calls. The
// log is wal.go, snapshots snapshot.go, recovery recover.go.

// Open reads Options.Dir back (creating it if need be) and starts the
// log: the store then holds every write acknowledged before the last
// Close, crash or kill -9, at a revision that never goes back. Recovery
// says what it found. Without Dir, Open does nothing.
func (s *Store[O]) Open() error {
	if s.opts.Dir == "" {
		return nil
	}
	if s.opts.Decode == nil {
		return errors.New("storage: Options.Decode is required with Dir")
	}
	if s.opts.SnapshotRecords <= 0 {
		s.opts.SnapshotRecords = 10000
	}
	if s.opts.SnapshotBytes <= 0 {
		s.opts.SnapshotBytes = 64 << 20
	}
	return s.load()
}

// Recovery reports what the last Open or Restart found in Dir.
func (s *Store[O]) Recovery() Recovery {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.recovery
}

// Durable reports whether the store keeps its values in Dir.
func (s *Store[O]) Durable() bool { return s.opts.Dir != "" }

// Restart simulates a crash and restart of the store, in process: what is
// not yet durable is dropped (its writers get ErrUnavailable; no client
// saw it, visible.go), every watch is ended, and the state is read back from Dir: every acknowledged
// write, at a revision that went forward, with an empty history (every
// older revision is ErrCompacted).
func (s *Store[O]) Restart() error {
	s.mu.Lock()
	if s.wal == nil {
		s.mu.Unlock()
		return errors.New("storage: Restart: the store is closed")
	}
	s.wal.crash()
	s.wal = nil
	s.dropUndeliveredLocked() // no client saw them: they go with the process
	s.eachWatcher(func(w *Watcher[O]) { w.stopLocked() })
	s.mu.Unlock()
	return s.load()
}

// load replaces the in-memory state by what Dir holds and starts the log.
func (s *Store[O]) load() error {
	s.mu.Lock()
	rc, err := recoverDir(s.opts.Dir)
	if err == nil {
		err = s.attachLocked(rc)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if l := s.opts.Logger; l != nil {
		if rc.report.Truncated != "" {
			l.Warn("storage: damaged log tail truncated", "recovery", rc.report.String())
		} else {
			l.Info("storage: data dir opened", "recovery", rc.report.String())
		}
	}
	return nil
}

// attachLocked installs recovered state: the values, the counter, an empty
// history at it, a new log segment after the last one kept. A counter moved
// past the disk (after a crash) is logged and fsync'd before anything can
// be served at it.
func (s *Store[O]) attachLocked(rc *recovered) error {
	kvs := rc.sorted()
	vals, err := s.opts.Decode(kvs)
	if err != nil {
		return fmt.Errorf("decoding the recovered values: %w", err)
	}
	if len(vals) != len(kvs) {
		return fmt.Errorf("decoding the recovered values: %d values for %d keys", len(vals), len(kvs))
	}
	w, err := openWAL(s.opts.Dir, rc.lastSeg+1, rc.lastRV)
	if err != nil {
		return err
	}
	w.logger = s.opts.Logger
	// The log just replayed counts towards the next snapshot, and so does
	// a pile of segments (every open starts one).
	w.sinceSnapRecords = rc.report.Records
	if rc.report.Segments >= 16 {
		w.sinceSnapRecords = max(w.sinceSnapRecords, s.opts.SnapshotRecords)
	}
	if rc.rv != rc.lastRV {
		w.append(&walRecord{typ: walRV, rv: rc.rv})
		if err := w.waitDurable(rc.rv); err != nil {
			w.crash()
			return fmt.Errorf("logging the restart's resourceVersion: %w", err)
		}
	}
	s.values = make(map[string]kv[O], len(kvs))
	s.keys = make([]string, len(kvs))
	for i, e := range kvs {
		s.values[e.Key] = kv[O]{value: vals[i], rev: e.Rev}
		s.keys[i] = e.Key
	}
	s.rev, s.visible = rc.rv, rc.rv
	s.dropUndeliveredLocked()
	s.history.clear()
	s.compacted = rc.rv
	s.wal = w
	s.recovery = rc.report
	s.wakeLocked()
	if t := s.opts.Tracer; t.On() {
		t.Event("storage recovered", trace.RV(strconv.FormatUint(rc.rv, 10)), trace.Count(rc.report.Objects),
			trace.Reason("history starts empty here: older versions answer 410 Expired"))
	}
	return nil
}

// Close logs a clean shutdown and closes the log; writes are refused from
// then on. Without Dir it does nothing.
func (s *Store[O]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wal == nil {
		return nil
	}
	s.wal.append(&walRecord{typ: walClose, rv: s.rev})
	err := s.wal.close()
	s.wal = nil
	return err
}

// WALStats reports how many fsyncs the log made and how many records they
// made durable: their ratio is how many writes share an fsync (group
// commit). Zero without a log.
func (s *Store[O]) WALStats() (syncs, records int64) {
	s.mu.RLock()
	w := s.wal
	s.mu.RUnlock()
	if w == nil {
		return 0, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs, w.synced
}

// logLocked queues ev's record. commitLocked calls it first, before the
// change is applied or seen by anyone.
func (s *Store[O]) logLocked(ev *Event[O]) {
	rec := walRecord{typ: walType(ev.Type), rv: ev.Rev, key: ev.Key, obj: ev.Value.Bytes()}
	s.wal.append(&rec)
	s.wal.sinceSnapRecords++
	s.wal.sinceSnapBytes += int64(frameSize(&rec))
}

// maybeSnapshotLocked starts a snapshot when enough log has piled up since
// the last one (see snapshot.go). commitLocked calls it once the change is
// applied, so the snapshot holds every record queued so far and the new
// segment starts with the next one.
func (s *Store[O]) maybeSnapshotLocked() {
	w := s.wal
	if w.sinceSnapRecords < s.opts.SnapshotRecords && int64(w.sinceSnapBytes) < s.opts.SnapshotBytes {
		return
	}
	w.snapMu.Lock()
	busy := w.snapshotting
	w.snapshotting = true
	w.snapMu.Unlock()
	if busy {
		return // the counters keep growing: the next write tries again
	}
	snap := &snapshotState{rv: s.rev, seg: w.rotate(), recs: make([]walRecord, len(s.keys))}
	for i, k := range s.keys {
		e := s.values[k]
		snap.recs[i] = walRecord{typ: walAdded, rv: e.rev, key: k, obj: e.value.Bytes()}
	}
	w.sinceSnapRecords, w.sinceSnapBytes = 0, 0
	w.snapWG.Add(1)
	go w.snapshot(snap)
}
