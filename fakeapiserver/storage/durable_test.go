package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A durable store closed and opened again has every value at its
// revision, and goes on counting from where it stopped.
func TestStorage_DurableRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := newTestStore(t, Options[*val]{Dir: dir})
	put(t, s, "/registry/pods/ns/a", "a1")
	put(t, s, "/registry/pods/ns/b", "b1")
	put(t, s, "/registry/pods/ns/a", "a2")
	del(t, s, "/registry/pods/ns/b")
	require.NoError(t, s.Close())
	again := newTestStore(t, Options[*val]{Dir: dir})
	l, _ := again.List("/", ListOptions[*val]{})
	t.Logf("recovered: %v; %s", l.Items, again.Recovery())
	assert.Equal(t, "[a2@3]", fmtVals(l.Items))
	assert.True(t, again.Recovery().Clean)
	assert.Equal(t, uint64(4), again.Rev(), "a clean close: the counter continues exactly")
	assert.Equal(t, uint64(5), put(t, again, "/registry/pods/ns/c", "c1"))
}

// After a crash (Restart) the revision jumps past anything that could have
// been handed out before it was durable, and every older revision is
// compacted: watchers must relist.
func TestStorage_RestartMovesRevisionPastTheDisk(t *testing.T) {
	s := newTestStore(t, Options[*val]{Dir: t.TempDir()})
	rev := put(t, s, "/k", "v")
	w, _, err := s.Watch("/", WatchOptions[*val]{})
	require.NoError(t, err)
	defer w.Stop()
	require.NoError(t, s.Restart())
	<-w.Done()
	t.Logf("after restart: rev %d (was %d); %s", s.Rev(), rev, s.Recovery())
	assert.Equal(t, rev+walMaxPending+1, s.Rev())
	_, _, err = s.Watch("/", WatchOptions[*val]{Rev: rev})
	assert.ErrorIs(t, err, ErrCompacted)
	got, err := s.Get("/k")
	require.NoError(t, err)
	assert.Equal(t, "v@1", got.String())
}

// The only segment of dir, and the offsets of its frames.
func segmentFrames(t *testing.T, dir string) (path string, data []byte, offsets []int) {
	t.Helper()
	segs, err := listSegments(dir)
	require.NoError(t, err)
	require.NotEmpty(t, segs)
	path = filepath.Join(dir, segmentName(segs[len(segs)-1]))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	recs, valid, err := decodeFrames(data, walMagic)
	require.NoError(t, err)
	require.Equal(t, len(data), valid)
	off := len(walMagic)
	for i := range recs {
		offsets = append(offsets, off)
		off += frameSize(&recs[i])
	}
	return path, data, offsets
}

// A log cut at every byte of its last record (a write torn by the crash):
// everything before it is recovered, the cut is reported and truncated,
// and the counter moves past anything handed out.
func TestStorage_TornTailAtEveryOffset(t *testing.T) {
	src := t.TempDir()
	s := newTestStore(t, Options[*val]{Dir: src})
	for i := range 3 {
		put(t, s, fmt.Sprintf("/p%d", i), "v")
	}
	last := put(t, s, "/torn", "v")
	require.NoError(t, s.Close())
	_, data, offsets := segmentFrames(t, src)
	// The frames end ... put /torn, close: drop the close record, so the
	// last record is the put.
	start, end := offsets[len(offsets)-2], offsets[len(offsets)-1]
	for cut := start; cut < end; cut++ {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, segmentName(1)), data[:cut], 0o644))
		rc, err := recoverDir(dir)
		require.NoError(t, err, "cut at %d", cut)
		rep := rc.report
		assert.Len(t, rc.kvs, 3, "cut at %d", cut)
		assert.False(t, rep.Clean)
		assert.Equal(t, last-1, rep.LastRV)
		assert.Greater(t, rep.ResourceVersion, last, "after a crash the counter moves past anything handed out")
		if cut == start {
			assert.Empty(t, rep.Truncated, "a cut between records is not damage")
		} else {
			assert.Equal(t, int64(start), rep.TruncatedAt, "cut at %d", cut)
			assert.Equal(t, int64(cut-start), rep.TruncatedBytes)
			assert.Contains(t, rep.Problem, "torn")
		}
		fi, err := os.Stat(filepath.Join(dir, segmentName(1)))
		require.NoError(t, err)
		assert.Equal(t, int64(start), fi.Size(), "the torn tail is truncated")
	}
	t.Logf("cut at each of %d bytes: the 3 earlier values recovered, the tail truncated", end-start)
}

// With small snapshot thresholds, snapshots are written, old segments go,
// and a reopen reads the snapshot plus the log after it.
func TestStorage_SnapshotAndLogReplay(t *testing.T) {
	dir := t.TempDir()
	s := newTestStore(t, Options[*val]{Dir: dir, SnapshotRecords: 10})
	for i := range 35 {
		put(t, s, fmt.Sprintf("/p%02d", i), "v")
	}
	for i := range 5 {
		del(t, s, fmt.Sprintf("/p%02d", i))
	}
	require.NoError(t, s.Close())
	again := newTestStore(t, Options[*val]{Dir: dir})
	rep := again.Recovery()
	t.Logf("recovery: %s", rep)
	assert.NotZero(t, rep.SnapshotRV)
	assert.Equal(t, 30, rep.Objects)
	assert.Equal(t, uint64(40), again.Rev())
}

// A directory written in the format before this package (its frames named
// the resource too) is refused, not truncated away as damage.
func TestStorage_OldFormatIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, segmentName(1)), []byte(oldWALMagic+"whatever"), 0o644))
	s := New(Options[*val]{Dir: dir, Versioner: stamp, Decode: decode})
	err := s.Open()
	t.Logf("open: %v", err)
	require.Error(t, err)
	data, _ := os.ReadFile(filepath.Join(dir, segmentName(1)))
	assert.Equal(t, oldWALMagic+"whatever", string(data), "left as it was")
}

// A flipped bit in a record in the middle: that record and everything after
// it are dropped (they cannot be trusted to follow on), what comes before is
// recovered, and the report says "checksum mismatch".
func TestStorage_CorruptChecksum(t *testing.T) {
	dir := t.TempDir()
	s := newTestStore(t, Options[*val]{Dir: dir})
	for i := range 6 {
		put(t, s, fmt.Sprintf("/p%d", i), "v")
	}
	require.NoError(t, s.Close())
	path, data, offsets := segmentFrames(t, dir)
	bad := offsets[3] // the fourth put
	data[bad+frameHeader+12] ^= 0x40
	require.NoError(t, os.WriteFile(path, data, 0o644))

	again := newTestStore(t, Options[*val]{Dir: dir})
	rep := again.Recovery()
	t.Logf("recovery: %s", rep)
	assert.Equal(t, "checksum mismatch", rep.Problem)
	assert.Equal(t, int64(bad), rep.TruncatedAt)
	assert.Equal(t, int64(len(data)-bad), rep.TruncatedBytes)
	l, _ := again.List("/", ListOptions[*val]{})
	assert.Equal(t, "[v@1 v@2 v@3]", fmtVals(l.Items))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, int64(bad), fi.Size(), "the bad tail is truncated")
}
