package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// The write-ahead log: on a durable server (Open with a data directory),
// every committed event is appended to a log segment (DataDir/wal-<n>.log, frames as in walrecord.go)
// and fsync'd before the write that made it is acknowledged.
//
// # When a write is acknowledged, and when it is seen (the invariant)
//
//  1. Under the store's lock a writer takes the next resourceVersion, applies
//     the change to the writer's state (what a transaction reads) and appends
//     its record to the log's queue (memory). The lock makes the queue's
//     order the resourceVersion order. No client sees the change yet: its
//     event waits on the store's undelivered list (visible.go).
//  2. It releases the lock and waits (waitDurable) until the flusher has
//     written and fsync'd a batch holding its record. Many writers share one
//     fsync: while the flusher syncs one batch, the next one fills up (group
//     commit).
//  3. It takes the lock again and makes visible every change the log has
//     made durable, in order: the watches get the events, lists and gets
//     and Rev show them (whichever writer of a batch comes first does it for
//     all).
//  4. Only then does it answer: the HTTP response or the Go API's return.
//
// So an acknowledged write is on disk, and so is every change any client
// saw: a watch event, a list, a bookmark's or a list's resourceVersion are
// all at most the durable mark. Nothing a client saw can un-happen: a crash
// (kill -9, Restart) loses only changes that were never acknowledged and
// never seen, as etcd applies and serves only committed revisions. The
// cost: a watch event waits for the group fsync of its change (about one
// fsync of latency), as the writer's answer always did; the fsyncs are
// still shared. At most walMaxPending records are queued and not yet
// durable (a writer waits for room under the store's lock), which bounds
// the memory a stalled disk can pin.
type wal struct {
	dir string

	mu          sync.Mutex
	flushCond   *sync.Cond // the flusher waits here for work
	durableCond *sync.Cond // writers wait here for their record (and for room)
	queue       []walChunk // appended, not yet taken by the flusher
	appendSeg   uint64     // the segment new records go to
	pending     int        // records appended and not yet durable
	durable     uint64     // every record with rv <= durable is fsync'd
	err         error      // sticky: the log failed, crashed or was closed
	stopping    bool       // the flusher exits once the queue is empty
	stalled     bool       // the flusher takes nothing until resumed (StallDisk), unless stopping
	done        chan struct{}
	syncs       int64 // batches fsync'd, and the records in them: their
	synced      int64 // ratio is how many writes share an fsync

	f       *os.File // the flusher's: the segment being written
	fileSeg uint64

	// Snapshot bookkeeping: the counters are guarded by the store's lock,
	// snapshotting and snapErr by snapMu (the snapshot goroutine never takes
	// the store's lock).
	sinceSnapRecords int
	sinceSnapBytes   int64
	snapMu           sync.Mutex
	snapshotting     bool
	snapErr          error // the last snapshot's failure, reported by close
	snapWG           sync.WaitGroup
	logger           *slog.Logger // nil: quiet
}

// walMaxPending bounds the records queued and not yet durable. It is also how
// far a restart after a crash moves the resourceVersion counter ahead.
const walMaxPending = 1024

// walChunk is a run of frames bound for one segment.
type walChunk struct {
	seg    uint64
	data   []byte
	lastRV uint64
	n      int // records
}

var (
	errWALClosed  = errors.New("the write-ahead log is closed")
	errWALCrashed = errors.New("the server restarted before the write was durable")
)

func segmentName(seg uint64) string { return fmt.Sprintf("wal-%016d.log", seg) }

// openWAL starts a new segment seg in dir and the flusher; durable is the
// last resourceVersion already on disk.
func openWAL(dir string, seg, durable uint64) (*wal, error) {
	f, err := createSegment(dir, seg)
	if err != nil {
		return nil, err
	}
	w := &wal{dir: dir, appendSeg: seg, durable: durable, f: f, fileSeg: seg, done: make(chan struct{})}
	w.flushCond = sync.NewCond(&w.mu)
	w.durableCond = sync.NewCond(&w.mu)
	go w.flushLoop()
	return w, nil
}

// createSegment creates a segment file holding only the magic, durably.
func createSegment(dir string, seg uint64) (*os.File, error) {
	path := filepath.Join(dir, segmentName(seg))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating log segment: %w", err)
	}
	if _, err := f.WriteString(walMagic); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing log segment %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("syncing log segment %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncDir makes a file's creation, rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening data dir to sync it: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing data dir %s: %w", dir, err)
	}
	return nil
}

// append queues rec; the caller holds the store's lock, so records queue in
// resourceVersion order. It waits while walMaxPending records are queued
// (the flusher never takes the store's lock, so this cannot deadlock). If
// the log has failed, rec is dropped: the caller's waitDurable reports it.
func (w *wal) append(rec *walRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.pending >= walMaxPending && w.err == nil {
		w.durableCond.Wait()
	}
	if w.err != nil {
		return
	}
	if len(w.queue) == 0 || w.queue[len(w.queue)-1].seg != w.appendSeg {
		w.queue = append(w.queue, walChunk{seg: w.appendSeg})
	}
	c := &w.queue[len(w.queue)-1]
	c.data = appendFrame(c.data, rec)
	c.lastRV = max(c.lastRV, rec.rv)
	c.n++
	w.pending++
	w.flushCond.Signal()
}

// rotate sends the records appended from now on to a new segment and
// returns its number. The caller holds the store's lock.
func (w *wal) rotate() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.appendSeg++
	return w.appendSeg
}

// waitDurable waits until the record with resourceVersion rv is fsync'd.
func (w *wal) waitDurable(rv uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.durable < rv && w.err == nil {
		w.durableCond.Wait()
	}
	if w.durable >= rv {
		return nil
	}
	return w.err
}

// durableRev is the log's durable mark: every record with rv <= it is
// fsync'd.
func (w *wal) durableRev() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.durable
}

// stall makes the flusher take nothing from the queue until the returned
// resume is called (a close flushes anyway; a crash drops the queue).
func (w *wal) stall() (resume func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stalled = true
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.stalled = false
			w.flushCond.Signal()
		})
	}
}

// failed reports the log's sticky error, if any.
func (w *wal) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// flushLoop writes and fsyncs whatever has queued up, batch after batch,
// until stopped.
func (w *wal) flushLoop() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for (len(w.queue) == 0 || w.stalled) && !w.stopping {
			w.flushCond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()

		err := w.writeBatch(batch)

		w.mu.Lock()
		if err != nil {
			if w.err == nil {
				w.err = fmt.Errorf("write-ahead log: %w", err)
			}
			w.stopping = true
		} else {
			for _, c := range batch {
				w.durable = max(w.durable, c.lastRV)
				w.pending -= c.n
				w.synced += int64(c.n)
			}
			w.syncs++
		}
		w.durableCond.Broadcast()
		w.mu.Unlock()
	}
}

// writeBatch writes the chunks, moving to a new segment where one starts,
// and fsyncs once at the end.
func (w *wal) writeBatch(batch []walChunk) error {
	for _, c := range batch {
		if c.seg != w.fileSeg {
			if err := w.f.Sync(); err != nil {
				return fmt.Errorf("syncing %s: %w", w.f.Name(), err)
			}
			if err := w.f.Close(); err != nil {
				return fmt.Errorf("closing %s: %w", w.f.Name(), err)
			}
			f, err := createSegment(w.dir, c.seg)
			if err != nil {
				return err
			}
			w.f, w.fileSeg = f, c.seg
		}
		if _, err := w.f.Write(c.data); err != nil {
			return fmt.Errorf("writing %s: %w", w.f.Name(), err)
		}
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", w.f.Name(), err)
	}
	return nil
}

// close flushes everything queued, stops the flusher, waits for a snapshot
// in progress and closes the segment. The caller has appended the walClose
// record.
func (w *wal) close() error {
	w.stop(false)
	w.snapWG.Wait()
	w.snapMu.Lock()
	defer w.snapMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != errWALClosed {
		return w.err
	}
	return w.snapErr
}

// crash is a kill -9 as far as the log goes: what is queued and not yet
// handed to the flusher is dropped (its writers get errWALCrashed); a batch
// being written completes, as the kernel would finish a write already made.
func (w *wal) crash() {
	w.stop(true)
	w.snapWG.Wait()
}

func (w *wal) stop(drop bool) {
	w.mu.Lock()
	if drop {
		w.queue = nil
	}
	w.stopping = true
	w.flushCond.Signal()
	w.mu.Unlock()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = fmt.Errorf("write-ahead log: closing %s: %w", w.f.Name(), err)
	}
	if w.err == nil {
		if drop {
			w.err = errWALCrashed
		} else {
			w.err = errWALClosed
		}
	}
	w.durableCond.Broadcast()
}
