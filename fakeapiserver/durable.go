package fakeapiserver

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// Durability: Open, Close's part, RestartStore, and the hooks the write path
// calls. The log is wal.go, snapshots snapshot.go, recovery recover.go.

// Open returns a server that keeps its objects in the directory dir: every write
// is in a write-ahead log, fsync'd before it is acknowledged, and a server
// opened again on the same directory (after Close, a crash or kill -9) has
// every acknowledged object, and a resourceVersion counter that never goes
// back. Recovery() says what it found. An empty dir is the in-memory
// server New returns (so that a --data-dir flag left empty needs no second
// path), and then Open cannot fail.
//
// The namespaces a new cluster has (default, kube-system, kube-public) are
// created only where they are missing, so reopening does not duplicate them.
func Open(dir string, opts Options) (*Server, error) {
	s := New(opts) // defaults, and an in-memory state that recovery replaces
	if dir == "" {
		return s, nil
	}
	st := s.store
	st.persistent, st.dataDir = true, dir
	st.snapEveryRecords, st.snapEveryBytes = opts.SnapshotRecords, opts.SnapshotBytes
	if st.snapEveryRecords <= 0 {
		st.snapEveryRecords = 10000
	}
	if st.snapEveryBytes <= 0 {
		st.snapEveryBytes = 64 << 20
	}
	if err := s.loadDataDir(); err != nil {
		s.Close()
		return nil, fmt.Errorf("fakeapiserver: opening data dir %s: %w", dir, err)
	}
	return s, nil
}

// ErrNoDataDir is what RestartStore returns on an in-memory server (New,
// or Open without a data directory): it has nothing to restart from.
var ErrNoDataDir = errors.New("fakeapiserver: RestartStore needs a data directory (fakeapiserver.Open, --data-dir): an in-memory server has nothing to restart from")

// Recovery reports what the last Open or RestartStore found in DataDir (the
// zero Recovery without one). A damaged log tail shows here; Open also logs
// it through Options.Logger.
func (s *Server) Recovery() Recovery {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	return s.store.recovery
}

// RestartStore simulates a crash and restart of the server's storage, in
// process: what is not yet durable is dropped (its writers get 503), every
// watch is closed, and the state is read back from DataDir, so what a client
// sees is what it would see after kill -9 and a restart: every acknowledged
// object, a resourceVersion that went forward, and 410 Expired for a watch
// or exact list at any older version. Without DataDir it is an error: an
// in-memory server has nothing to restart from.
func (s *Server) RestartStore() error {
	st := s.store
	if !st.persistent {
		return ErrNoDataDir
	}
	st.mu.Lock()
	if st.wal == nil {
		st.mu.Unlock()
		return errors.New("fakeapiserver: RestartStore: the server is closed")
	}
	st.wal.crash()
	st.wal = nil
	for _, ws := range st.watchers {
		for w := range ws {
			w.stopLocked()
		}
	}
	if s.tracer.On() {
		s.tracer.Event("fault: storage restart", trace.RV(strconv.FormatUint(st.rv, 10)))
	}
	st.mu.Unlock()
	if err := s.loadDataDir(); err != nil {
		return fmt.Errorf("fakeapiserver: restarting from %s: %w", st.dataDir, err)
	}
	return nil
}

// loadDataDir replaces the in-memory state by what DataDir holds, starts the
// log, and creates the namespaces every cluster has if they are missing.
func (s *Server) loadDataDir() error {
	st := s.store
	st.mu.Lock()
	rc, err := recoverDir(st.dataDir)
	if err == nil {
		err = st.attachLocked(rc, s.opts)
	}
	st.mu.Unlock()
	if err != nil {
		return err
	}
	if l := s.opts.Logger; l != nil {
		if rc.report.Truncated != "" {
			l.Warn("fakeapiserver: damaged log tail truncated", "recovery", rc.report.String())
		} else {
			l.Info("fakeapiserver: data dir opened", "recovery", rc.report.String())
		}
	}
	for _, ns := range protectedNamespaces {
		if _, err := s.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil {
			var status *api.Status
			if errors.As(err, &status) && status.Reason == api.StatusReasonAlreadyExists {
				continue
			}
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	s.store.forgetBootstrap()
	return nil
}

// attachLocked installs recovered state: the objects, the counter, an empty
// history at it, a new log segment after the last one kept. A counter moved
// past the disk (after a crash) is logged and fsync'd before anything can
// be served at it.
func (st *store) attachLocked(rc *recovered, opts Options) error {
	w, err := openWAL(st.dataDir, rc.lastSeg+1, rc.lastRV)
	if err != nil {
		return err
	}
	w.logger = opts.Logger
	// The log just replayed counts towards the next snapshot, and so does
	// a pile of segments (every open starts one).
	w.sinceSnapRecords = rc.report.Records
	if rc.report.Segments >= 16 {
		w.sinceSnapRecords = max(w.sinceSnapRecords, st.snapEveryRecords)
	}
	if rc.rv != rc.lastRV {
		w.append(&walRecord{typ: walRV, rv: rc.rv})
		if err := w.waitDurable(rc.rv); err != nil {
			w.crash()
			return fmt.Errorf("logging the restart's resourceVersion: %w", err)
		}
	}
	st.served = rc.served
	st.objects = rc.objects
	watchers := map[*resource]map[*watcher]struct{}{}
	for _, r := range rc.served {
		watchers[r] = st.watchers[r] // a built-in row keeps its (stopped) watchers until they unregister
		if watchers[r] == nil {
			watchers[r] = map[*watcher]struct{}{}
		}
	}
	st.watchers = watchers
	st.keys = map[*resource][]string{}
	for r, m := range rc.objects {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		st.keys[r] = keys
	}
	st.rv = rc.rv
	st.history.clear()
	st.compacted = rc.rv
	st.wal = w
	st.recovery = rc.report
	close(st.rvChanged)
	st.rvChanged = make(chan struct{})
	if st.tracer.On() {
		st.tracer.Event("storage recovered", trace.RV(strconv.FormatUint(rc.rv, 10)), trace.Count(rc.report.Objects),
			trace.Reason("history starts empty here: older versions answer 410 Expired"))
	}
	return nil
}

// closeDataDir logs a clean shutdown and closes the log. Close calls it.
func (s *Server) closeDataDir() {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.wal == nil {
		return
	}
	st.wal.append(&walRecord{typ: walClose, rv: st.rv})
	err := st.wal.close()
	st.wal = nil
	if err != nil && s.opts.Logger != nil {
		s.opts.Logger.Error("fakeapiserver: closing the write-ahead log", "err", err)
	}
}

// writableLocked refuses a write when the server keeps a log that cannot
// take it (failed, or closed): the write would otherwise live in memory only.
func (st *store) writableLocked() *api.Status {
	if !st.persistent {
		return nil
	}
	if st.wal == nil {
		return errServiceUnavailable("the storage is closed")
	}
	if err := st.wal.failed(); err != nil {
		return errInternal(fmt.Sprintf("storage failed: %v", err))
	}
	return nil
}

// unlockDurable releases the store's lock a write operation took and, if
// the operation committed anything (the counter moved past mark, its value
// when the lock was taken), waits until that is durable: the write is
// acknowledged only after its fsync. Use it as
//
//	st.mu.Lock()
//	defer s.unlockDurable(st.rv, &status)
func (s *Server) unlockDurable(mark uint64, status **api.Status) {
	st := s.store
	rv, w := st.rv, st.wal
	st.mu.Unlock()
	if w == nil || rv == mark {
		return
	}
	if err := w.waitDurable(rv); err != nil && *status == nil {
		if errors.Is(err, errWALCrashed) || errors.Is(err, errWALClosed) {
			*status = errServiceUnavailable("the write was not made durable: " + err.Error())
		} else {
			*status = errInternal("the write was not made durable: " + err.Error())
		}
	}
}

// logLocked queues ev's record. commitLocked calls it first, before the
// change is applied or seen by anyone.
func (st *store) logLocked(ev *event) {
	rec := recordFrame(walType(ev.typ), ev.obj)
	rec.rv = ev.rv
	st.wal.append(&rec)
	st.wal.sinceSnapRecords++
	st.wal.sinceSnapBytes += int64(frameSize(&rec))
}

// maybeSnapshotLocked starts a snapshot when enough log has piled up since
// the last one (see snapshot.go). commitLocked calls it last, once the
// change is applied, so the snapshot holds every record queued so far and
// the new segment starts with the next one.
func (st *store) maybeSnapshotLocked() {
	w := st.wal
	if w.sinceSnapRecords < st.snapEveryRecords && w.sinceSnapBytes < st.snapEveryBytes {
		return
	}
	w.snapMu.Lock()
	busy := w.snapshotting
	w.snapshotting = true
	w.snapMu.Unlock()
	if busy {
		return // the counters keep growing: the next write tries again
	}
	snap := captureLocked(st, w.rotate())
	w.sinceSnapRecords, w.sinceSnapBytes = 0, 0
	w.snapWG.Add(1)
	go w.snapshot(snap)
}
