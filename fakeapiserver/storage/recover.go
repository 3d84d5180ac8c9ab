package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Recovery: reading DataDir back at Open and RestartStore.
//
// The snapshot (if any) gives the key/values at its revision S and the
// first segment K to replay; the segments from K on are replayed in order,
// record by record. A record must make sense where it stands (a known
// type, a revision above the one before it), or it counts as corrupt, like
// a bad checksum. Replay stops at
// the first bad or torn record: that segment is truncated there and every
// later segment removed, so new records append to a clean log, and the
// Recovery report says what was cut and why. Everything before it is kept.
// An acknowledged write is never in the cut part unless the disk itself lied:
// it was fsync'd whole before it was acknowledged, and a torn tail can only
// hold records still being written when the process died.
//
// # The resourceVersion after a restart
//
// After a clean Close (the log ends with a walClose record) the counter
// continues exactly where it stopped. After a crash it continues
// walMaxPending+1 past the last version on disk: up to walMaxPending
// versions may have been handed to writes that were lost with the process.
// No client saw them (a change is visible only once durable, visible.go),
// but the trace named them (a "commit" line at each), and skipping every
// version that could have been handed out means no version ever names two
// states, not even in a log. That jump is itself logged (walRV) and fsync'd
// before the server serves, so a crash right after a restart cannot go
// back. Either way history starts empty at the new version: a watch, an
// exact list or a continue token at any older version answers 410 Expired,
// as a restarted kube-apiserver's empty watch cache does, and clients relist.

// Recovery reports what Open or RestartStore found in the data directory.
type Recovery struct {
	Fresh      bool   // DataDir held no data: a new cluster
	Clean      bool   // the previous run ended with Close
	SnapshotRV uint64 // the snapshot's resourceVersion; 0: no snapshot
	Segments   int    // log segments read
	Records    int    // log records replayed after the snapshot
	Objects    int    // objects recovered
	// LastRV is the last resourceVersion found on disk; ResourceVersion the
	// one the server continues from (LastRV, or past it after a crash).
	LastRV          uint64
	ResourceVersion uint64
	// Truncated names the log segment cut at its first bad record ("" if
	// the log was whole); TruncatedBytes counts what was dropped with it
	// (later segments included) and Problem says what was wrong there.
	Truncated      string
	TruncatedAt    int64
	TruncatedBytes int64
	Problem        string
}

func (r Recovery) String() string {
	s := fmt.Sprintf("recovered %d objects at resourceVersion %d (snapshot at %d, %d log records in %d segments, last on disk %d, clean shutdown %v)",
		r.Objects, r.ResourceVersion, r.SnapshotRV, r.Records, r.Segments, r.LastRV, r.Clean)
	if r.Fresh {
		s = "fresh data dir: a new cluster"
	}
	if r.Truncated != "" {
		s += fmt.Sprintf("; log damaged: %s at byte %d: %s; %d bytes dropped", r.Truncated, r.TruncatedAt, r.Problem, r.TruncatedBytes)
	}
	return s
}

// recovered is the state read back from DataDir: raw key/values, which
// Options.Decode turns into values in one call once replay is done.
type recovered struct {
	kvs     map[string]KeyValue
	rv      uint64 // where the counter continues
	lastRV  uint64 // the last version on disk
	lastSeg uint64 // the highest segment number kept (0: none)
	report  Recovery
}

// KeyValue is a key and its value's bytes as recovery read them back, with
// the revision of the value's last write.
type KeyValue struct {
	Key   string
	Rev   uint64
	Value []byte
}

// sorted returns the recovered key/values in key order.
func (rc *recovered) sorted() []KeyValue {
	out := make([]KeyValue, 0, len(rc.kvs))
	for _, kv := range rc.kvs {
		out = append(out, kv)
	}
	slices.SortFunc(out, func(a, b KeyValue) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// recoverDir reads dir back, truncating a damaged log tail. An unreadable
// snapshot or an I/O error is an error: starting without part of the data
// would silently lose acknowledged writes.
func recoverDir(dir string) (*recovered, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, snapshotTmpFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing an unfinished snapshot: %w", err)
	}
	snap, err := readSnapshot(dir)
	if err != nil {
		return nil, err
	}
	segs, err := listSegments(dir)
	if err != nil {
		return nil, err
	}
	if err := refuseOldFormat(dir, segs); err != nil {
		return nil, err
	}
	rc := &recovered{kvs: map[string]KeyValue{}}
	rep := &rc.report
	existed := snap != nil || len(segs) > 0
	firstSeg := uint64(0)
	if snap != nil {
		for i := range snap.recs {
			if err := rc.put(&snap.recs[i]); err != nil {
				return nil, fmt.Errorf("snapshot: %w", err)
			}
		}
		rc.rv, firstSeg = snap.rv, snap.seg
		rep.SnapshotRV = snap.rv
	}
	lastType := byte(0)
	for i, seg := range segs {
		path := filepath.Join(dir, segmentName(seg))
		if seg < firstSeg { // covered by the snapshot
			if err := os.Remove(path); err != nil {
				return nil, fmt.Errorf("removing old log segment: %w", err)
			}
			continue
		}
		rc.lastSeg = seg
		rep.Segments++
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading log segment: %w", err)
		}
		recs, valid, derr := decodeFrames(data, walMagic)
		off := int64(len(walMagic))
		for j := range recs {
			if aerr := rc.apply(&recs[j]); aerr != nil {
				valid, derr = int(off), &corruptError{Offset: off, Reason: aerr.Error()}
				break
			}
			rep.Records++
			lastType = recs[j].typ
			off += int64(frameSize(&recs[j]))
		}
		if derr == nil {
			continue
		}
		// The first bad record: cut here, drop what follows.
		var ce *corruptError
		errors.As(derr, &ce)
		rep.Truncated, rep.TruncatedAt, rep.Problem = path, int64(valid), ce.Reason
		rep.TruncatedBytes = int64(len(data) - valid)
		lastType = 0
		if valid < len(walMagic) {
			valid = 0 // not even the magic: an empty file, which reads as a valid empty segment
		}
		if err := os.Truncate(path, int64(valid)); err != nil {
			return nil, fmt.Errorf("truncating the damaged log tail: %w", err)
		}
		for _, later := range segs[i+1:] {
			lp := filepath.Join(dir, segmentName(later))
			if fi, err := os.Stat(lp); err == nil {
				rep.TruncatedBytes += fi.Size()
			}
			if err := os.Remove(lp); err != nil {
				return nil, fmt.Errorf("removing log segments after the damaged one: %w", err)
			}
		}
		if err := syncDir(dir); err != nil {
			return nil, err
		}
		break
	}
	rep.Clean = lastType == walClose
	rep.Fresh = snap == nil && rep.Records == 0
	rc.lastRV = rc.rv
	if existed && !rep.Clean {
		rc.rv += walMaxPending + 1
	}
	rep.LastRV, rep.ResourceVersion = rc.lastRV, rc.rv
	rep.Objects = len(rc.kvs)
	return rc, nil
}

// apply replays one record onto the recovered state.
func (rc *recovered) apply(rec *walRecord) error {
	switch rec.typ {
	case walRV, walClose:
		if rec.rv < rc.rv {
			return fmt.Errorf("resourceVersion %d goes back from %d", rec.rv, rc.rv)
		}
		rc.rv = rec.rv
		return nil
	case walAdded, walModified, walDeleted:
	default:
		return fmt.Errorf("record type %d does not belong in a log", rec.typ)
	}
	if rec.rv <= rc.rv {
		return fmt.Errorf("resourceVersion %d does not follow %d", rec.rv, rc.rv)
	}
	if err := rc.put(rec); err != nil {
		return err
	}
	rc.rv = rec.rv
	return nil
}

// put applies an event record (or a snapshot's object) to the key/values.
func (rc *recovered) put(rec *walRecord) error {
	if rec.key == "" {
		return errors.New("empty key")
	}
	if rec.typ == walDeleted {
		delete(rc.kvs, rec.key)
	} else {
		rc.kvs[rec.key] = KeyValue{Key: rec.key, Rev: rec.rv, Value: rec.obj}
	}
	return nil
}

// refuseOldFormat fails on a data directory written before the storage
// package (its frames also named the resource): reading it as damaged would
// truncate it away.
func refuseOldFormat(dir string, segs []uint64) error {
	files := []string{snapshotFile}
	for _, seg := range segs {
		files = append(files, segmentName(seg))
	}
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		head := make([]byte, len(walMagic))
		n, _ := f.Read(head)
		f.Close()
		if m := string(head[:n]); m == oldWALMagic || m == oldSnapMagic {
			return fmt.Errorf("%s is in the format of an older fakeapiserver (%s): start with an empty data directory", name, m)
		}
	}
	return nil
}

func walType(t EventType) byte {
	switch t {
	case Added:
		return walAdded
	case Deleted:
		return walDeleted
	}
	return walModified
}
