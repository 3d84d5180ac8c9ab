package storage

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Snapshots bound the log and the time a restart takes to replay it. Every
// Options.SnapshotRecords records or Options.SnapshotBytes bytes of log, the
// writer that crossed the line, still under the store's lock, captures the
// object set (records are immutable: capturing is copying pointers) and its
// resourceVersion S, and moves the log to a new segment K, so that every
// record after S goes to segment K or later. A goroutine then waits until
// every record up to S is durable, writes DataDir/snapshot.tmp (frames as in
// walrecord.go: a header holding S and K, one ADDED frame per object, an end
// frame holding the count), fsyncs it, renames it to DataDir/snapshot (atomic),
// fsyncs the directory, and only then removes the segments before K.
//
// A crash at any point leaves either the old snapshot and every segment it
// needs, or the new one (and maybe segments it no longer needs, which
// recovery removes). A snapshot is never half there: recovery refuses a
// damaged one instead of starting with part of the objects.

const (
	snapshotFile    = "snapshot"
	snapshotTmpFile = "snapshot.tmp"
)

// snapshotState is the key/value set at rv, captured under the store's
// lock: the values' bytes are immutable, so capturing is copying slices.
type snapshotState struct {
	rv   uint64
	seg  uint64 // the first log segment to replay after it
	recs []walRecord
}

// writeSnapshot writes snap to dir durably and atomically.
func writeSnapshot(dir string, snap *snapshotState) error {
	tmp := filepath.Join(dir, snapshotTmpFile)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("creating snapshot: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var frame []byte
	write := func(rec *walRecord) {
		frame = appendFrame(frame[:0], rec)
		bw.Write(frame) // a bufio.Writer keeps its first error; Flush reports it
	}
	bw.WriteString(snapMagic)
	write(&walRecord{typ: walSnapHeader, rv: snap.rv, key: strconv.FormatUint(snap.seg, 10)})
	for i := range snap.recs {
		write(&snap.recs[i])
	}
	write(&walRecord{typ: walSnapEnd, rv: uint64(len(snap.recs))})
	err = bw.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing snapshot at rv %d: %w", snap.rv, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, snapshotFile)); err != nil {
		return fmt.Errorf("installing snapshot at rv %d: %w", snap.rv, err)
	}
	return syncDir(dir)
}

// loadedSnapshot is a snapshot read back.
type loadedSnapshot struct {
	rv   uint64
	seg  uint64
	recs []walRecord // walAdded frames
}

// readSnapshot reads dir's snapshot; nil if there is none.
func readSnapshot(dir string) (*loadedSnapshot, error) {
	path := filepath.Join(dir, snapshotFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	recs, _, err := decodeFrames(data, snapMagic)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s is damaged: %w", path, err)
	}
	if len(recs) < 2 || recs[0].typ != walSnapHeader || recs[len(recs)-1].typ != walSnapEnd {
		return nil, fmt.Errorf("snapshot %s is damaged: no header or no end record", path)
	}
	seg, err := strconv.ParseUint(recs[0].key, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s is damaged: bad segment %q", path, recs[0].key)
	}
	objs := recs[1 : len(recs)-1]
	if uint64(len(objs)) != recs[len(recs)-1].rv {
		return nil, fmt.Errorf("snapshot %s is damaged: %d objects, the end record says %d", path, len(objs), recs[len(recs)-1].rv)
	}
	for _, r := range objs {
		if r.typ != walAdded || r.rv > recs[0].rv {
			return nil, fmt.Errorf("snapshot %s is damaged: unexpected record (type %d, rv %d)", path, r.typ, r.rv)
		}
	}
	return &loadedSnapshot{rv: recs[0].rv, seg: seg, recs: objs}, nil
}

// listSegments returns the numbers of dir's log segments, ascending.
func listSegments(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing data dir: %w", err)
	}
	var segs []uint64
	for _, e := range entries {
		name := e.Name()
		num, ok := strings.CutPrefix(name, "wal-")
		num, ok2 := strings.CutSuffix(num, ".log")
		if !ok || !ok2 {
			continue
		}
		if n, err := strconv.ParseUint(num, 10, 64); err == nil && segmentName(n) == name {
			segs = append(segs, n)
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i] < segs[j] })
	return segs, nil
}

// removeSegmentsBefore removes the segments a snapshot made useless.
func removeSegmentsBefore(dir string, seg uint64) error {
	segs, err := listSegments(dir)
	if err != nil {
		return err
	}
	removed := false
	for _, n := range segs {
		if n >= seg {
			break
		}
		if err := os.Remove(filepath.Join(dir, segmentName(n))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing old log segment: %w", err)
		}
		removed = true
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}

// snapshot is the snapshot goroutine: see the top of this file.
func (w *wal) snapshot(snap *snapshotState) {
	defer w.snapWG.Done()
	err := w.waitDurable(snap.rv)
	if err == nil {
		err = writeSnapshot(w.dir, snap)
	}
	if err == nil {
		err = removeSegmentsBefore(w.dir, snap.seg)
	}
	if err != nil && (errors.Is(err, errWALCrashed) || errors.Is(err, errWALClosed)) {
		err = nil // the log stopped first: the next run snapshots
	}
	if err != nil && w.logger != nil {
		w.logger.Warn("storage: snapshot failed; the log keeps growing until one succeeds", "err", err)
	}
	w.snapMu.Lock()
	w.snapshotting = false
	if err != nil {
		w.snapErr = err
	}
	w.snapMu.Unlock()
}
