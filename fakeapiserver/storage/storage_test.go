package storage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every write takes the next revision of the one counter, whichever key it
// touches: the revision orders every change in the store.
func TestStorage_EveryWriteTakesTheNextRevision(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	a := put(t, s, "/registry/pods/default/a", "a1")
	b := put(t, s, "/registry/configmaps/default/b", "b1")
	a2 := put(t, s, "/registry/pods/default/a", "a2")
	d := del(t, s, "/registry/configmaps/default/b")
	t.Logf("create a@%d, create b@%d, update a@%d, delete b@%d: one counter", a, b, a2, d)
	assert.Equal(t, []uint64{1, 2, 3, 4}, []uint64{a, b, a2, d})
	assert.Equal(t, uint64(4), s.Rev())
	_, err := s.Get("/registry/configmaps/default/b")
	assert.ErrorIs(t, err, ErrNotFound)
}

// A list of a prefix is the keys under it in key order: all pods, or the
// pods of one namespace, are one range of the sorted index; a page ends
// after Limit values and says how many keys follow.
func TestStorage_ListIsAPrefixInKeyOrder(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	for _, k := range []string{"/registry/pods/b/x", "/registry/pods/a/z", "/registry/pods/a/y", "/registry/pods/a0/w", "/registry/podsx/a/q"} {
		put(t, s, k, k[len("/registry/"):])
	}
	all, err := s.List("/registry/pods/", ListOptions[*val]{})
	require.NoError(t, err)
	t.Logf("all pods: %v", all.Items)
	assert.Equal(t, "[pods/a/y@3 pods/a/z@2 pods/a0/w@4 pods/b/x@1]", fmtVals(all.Items))
	ns, err := s.List("/registry/pods/a/", ListOptions[*val]{})
	require.NoError(t, err)
	t.Logf("namespace a: %v", ns.Items)
	assert.Equal(t, "[pods/a/y@3 pods/a/z@2]", fmtVals(ns.Items))
	page, err := s.List("/registry/pods/", ListOptions[*val]{Limit: 2})
	require.NoError(t, err)
	t.Logf("first page of 2: %v, more=%v remaining=%d", page.Items, page.More, page.Remaining)
	assert.True(t, page.More)
	assert.Equal(t, 2, page.Remaining)
	next, err := s.List("/registry/pods/", ListOptions[*val]{From: "/registry/pods/a/z\x00", Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, "[pods/a0/w@4 pods/b/x@1]", fmtVals(next.Items))
	assert.False(t, next.More)
}

// A list at an old revision is the state then, rebuilt by undoing every
// later change from the history: how every page of a paged list reads the
// same snapshot while writes go on.
func TestStorage_ListAtOldRevisionUndoesLaterChanges(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	put(t, s, "/registry/pods/ns/a", "a1")
	put(t, s, "/registry/pods/ns/b", "b1")
	at := s.Rev()
	put(t, s, "/registry/pods/ns/a", "a2")
	del(t, s, "/registry/pods/ns/b")
	put(t, s, "/registry/pods/ns/c", "c1")
	now, _ := s.List("/registry/pods/", ListOptions[*val]{})
	then, err := s.List("/registry/pods/", ListOptions[*val]{Rev: at})
	require.NoError(t, err)
	t.Logf("now (rev %d): %v; at rev %d: %v", now.Rev, now.Items, then.Rev, then.Items)
	assert.Equal(t, "[a2@3 c1@5]", fmtVals(now.Items))
	assert.Equal(t, "[a1@1 b1@2]", fmtVals(then.Items))
	assert.Equal(t, at, then.Rev)
}

// Update and Delete check their preconditions against the current value:
// a stale revision is ErrConflict, another UID (the key deleted and created
// again) is ErrUIDMismatch, and nothing is written.
func TestStorage_PreconditionsGuardWrites(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	rev := put(t, s, "/registry/pods/ns/a", "a1")
	put(t, s, "/registry/pods/ns/a", "a2")
	cur, _ := s.Get("/registry/pods/ns/a")
	err := s.Update(func(tx *Tx[*val]) error {
		return tx.Update("/registry/pods/ns/a", &val{uid: cur.uid, rev: tx.NextRev(), data: "lost"}, Preconditions{Rev: rev})
	})
	t.Logf("update with revision %d after another write: %v", rev, err)
	assert.ErrorIs(t, err, ErrConflict)
	err = s.Update(func(tx *Tx[*val]) error {
		_, err := tx.Delete("/registry/pods/ns/a", Preconditions{UID: "someone-else"})
		return err
	})
	t.Logf("delete with another UID: %v", err)
	assert.ErrorIs(t, err, ErrUIDMismatch)
	err = s.Update(func(tx *Tx[*val]) error { return tx.Create("/registry/pods/ns/a", &val{rev: tx.NextRev()}) })
	assert.ErrorIs(t, err, ErrExists)
	got, _ := s.Get("/registry/pods/ns/a")
	assert.Equal(t, "a2@2", got.String())
	assert.Equal(t, uint64(2), s.Rev(), "nothing was written")
}

// A watch from an old revision first replays, from the history, every
// change after it, then goes on with live changes: nothing missed, nothing
// repeated.
func TestStorage_WatchFromRevisionReplaysHistory(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	put(t, s, "/registry/pods/ns/a", "a1")
	from := s.Rev()
	put(t, s, "/registry/pods/ns/b", "b1")
	put(t, s, "/registry/configmaps/ns/c", "c1") // another prefix: not seen
	del(t, s, "/registry/pods/ns/a")
	w, replay, err := s.Watch("/registry/pods/", WatchOptions[*val]{Rev: from})
	require.NoError(t, err)
	defer w.Stop()
	t.Logf("watch from rev %d replays: %v", from, events(replay))
	assert.Equal(t, []string{"ADDED b1@2", "DELETED a1@4"}, events(replay))
	put(t, s, "/registry/pods/ns/d", "d1")
	live := drain(w)
	t.Logf("then live: %v", live)
	assert.Equal(t, []string{"ADDED d1@5"}, live)
}

// Compaction forgets the history: a watch or an exact list at a revision
// older than it is ErrCompacted (410 Expired at the API), while one at the
// current revision works.
func TestStorage_CompactedRevisionIsGone(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	old := put(t, s, "/registry/pods/ns/a", "a1")
	put(t, s, "/registry/pods/ns/a", "a2")
	s.Compact()
	_, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{Rev: old})
	t.Logf("watch from rev %d after compaction: %v", old, err)
	var ce *CompactedError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CompactedError{Rev: 1, Compacted: 2}, *ce)
	_, err = s.List("/registry/pods/", ListOptions[*val]{Rev: old})
	assert.ErrorIs(t, err, ErrCompacted)
	w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{Rev: s.Rev()})
	require.NoError(t, err, "the current revision is still watchable")
	w.Stop()
}

// The history is bounded by count and by bytes: versions that fall off
// the front are compacted away.
func TestStorage_HistoryBoundedByBytes(t *testing.T) {
	s := newTestStore(t, Options[*val]{HistoryBytes: 100})
	first := put(t, s, "/k", "x")
	for range 10 {
		put(t, s, "/k", "0123456789012345678901234567890123456789")
	}
	n, bytes := s.HistoryStats()
	t.Logf("history: %d events, %d bytes; compacted through %d", n, bytes, s.Compacted())
	assert.LessOrEqual(t, bytes, int64(100))
	assert.GreaterOrEqual(t, n, 1)
	_, _, err := s.Watch("/", WatchOptions[*val]{Rev: first})
	assert.ErrorIs(t, err, ErrCompacted)
}

// With a predicate, a change is what the watch sees of it: both values
// match, MODIFIED; only the new one, ADDED; only the old one, DELETED of
// the old value at the new revision.
func TestStorage_PredicateTurnsChangesIntoAddedAndDeleted(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	red := func(v *val) bool { return v.data == "red" || v.data == "red2" }
	w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{Predicate: red})
	require.NoError(t, err)
	defer w.Stop()
	put(t, s, "/registry/pods/ns/a", "blue")
	put(t, s, "/registry/pods/ns/a", "red")
	put(t, s, "/registry/pods/ns/a", "red2")
	put(t, s, "/registry/pods/ns/a", "blue")
	got := drain(w)
	t.Logf("blue, red, red2, blue seen through the predicate: %v", got)
	assert.Equal(t, []string{"ADDED red@2", "MODIFIED red2@3", "DELETED red2@4"}, got)
}

// A change many watchers receive alike is one WatchEvent: an encoding made
// for one of them (Memo) is made once.
func TestStorage_SharedWatchEventIsEncodedOnce(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	var ws []*Watcher[*val]
	for range 3 {
		w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{})
		require.NoError(t, err)
		defer w.Stop()
		ws = append(ws, w)
	}
	put(t, s, "/registry/pods/ns/a", "a")
	encodings := 0
	for _, w := range ws {
		ev := <-w.ResultChan()
		ev.Memo(1, func() []byte { encodings++; return ev.Value.Bytes() })
	}
	t.Logf("3 watchers, %d encoding", encodings)
	assert.Equal(t, 1, encodings)
}

// A watcher that lets its buffer fill is cut off: Done closes, and what it
// had queued can still be read.
func TestStorage_SlowWatcherIsCutOff(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	w, _, err := s.Watch("/", WatchOptions[*val]{Buffer: 2})
	require.NoError(t, err)
	defer w.Stop()
	for i := range 3 {
		put(t, s, "/k", string(rune('a'+i)))
	}
	select {
	case <-w.Done():
	default:
		t.Fatal("the watch was not cut off")
	}
	t.Logf("cut off after: %v", drain(w))
	assert.NoError(t, w.Err(), "cut off, not deaf: its reader may resume")
}

// Backlog is how far the slowest reader is behind: what a writer that must
// not cut a watch off waits on.
func TestStorage_BacklogIsTheSlowestReadersQueue(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	fast, _, err := s.Watch("/", WatchOptions[*val]{Buffer: 10})
	require.NoError(t, err)
	defer fast.Stop()
	slow, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{Buffer: 10})
	require.NoError(t, err)
	defer slow.Stop()
	for i := range 4 {
		put(t, s, "/registry/pods/ns/"+string(rune('a'+i)), "v")
		<-fast.ResultChan()
	}
	assert.Equal(t, 4, s.Backlog("/"), "the slow reader has taken nothing")
	<-slow.ResultChan()
	assert.Equal(t, 3, s.Backlog("/registry/"))
	assert.Equal(t, 0, s.Backlog("/registry/configmaps/"), "no watch there")
}

// A hidden event makes every watch that would have received it deaf: it
// receives nothing more, and when the hide ends it ends with
// ErrMissedEvent, never leaving a hole in its stream.
func TestStorage_HiddenEventMakesTheWatchDeaf(t *testing.T) {
	s := newTestStore(t, Options[*val]{})
	w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{})
	require.NoError(t, err)
	defer w.Stop()
	s.Hide(func(ev *Event[*val]) bool { return ev.Type == Deleted }, 0)
	put(t, s, "/registry/pods/ns/a", "a1")
	del(t, s, "/registry/pods/ns/a")
	put(t, s, "/registry/pods/ns/b", "b1")
	got := drain(w)
	_, deaf := s.Watchers("/registry/pods/")
	t.Logf("received %v; deaf watches: %d", got, deaf)
	assert.Equal(t, []string{"ADDED a1@1"}, got, "nothing after the hole")
	assert.Equal(t, 1, deaf)
	s.Hide(nil, 0)
	<-w.Done()
	var me *MissedEventError
	require.ErrorAs(t, w.Err(), &me)
	t.Logf("the hide ended: the watch ended with %v", w.Err())
	assert.Equal(t, uint64(2), me.Rev)
}

// OnCommit runs under the lock after each change and may write in the same
// transaction; those writes take the following revisions.
func TestStorage_OnCommitMayWriteInTheTransaction(t *testing.T) {
	s := newTestStore(t, Options[*val]{OnCommit: func(tx *Tx[*val], ev *Event[*val]) {
		if ev.Key == "/owner" && ev.Type == Deleted {
			for _, k := range []string{"/owned/a", "/owned/b"} {
				_, err := tx.Delete(k, Preconditions{})
				require.NoError(t, err)
			}
		}
	}})
	put(t, s, "/owner", "o")
	put(t, s, "/owned/a", "a")
	put(t, s, "/owned/b", "b")
	del(t, s, "/owner")
	l, _ := s.List("/owned/", ListOptions[*val]{})
	t.Logf("deleting /owner at rev 4 deleted what it owned, at revs 5 and 6: left %v", l.Items)
	assert.Empty(t, l.Items)
	assert.Equal(t, uint64(6), s.Rev())
}

func fmtVals(vs []*val) string {
	out := "["
	for i, v := range vs {
		if i > 0 {
			out += " "
		}
		out += v.String()
	}
	return out + "]"
}
