package storage

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stalledStore is a durable store whose commits are announced on the
// returned channel (OnCommit runs under the lock, as each change commits).
func stalledStore(t *testing.T) (*Store[*val], chan uint64) {
	committed := make(chan uint64, 100)
	s := newTestStore(t, Options[*val]{Dir: t.TempDir(), OnCommit: func(_ *Tx[*val], ev *Event[*val]) { committed <- ev.Rev }})
	return s, committed
}

// update rewrites key to data in a goroutine; the result arrives on the
// returned channel once Update returns.
func update(s *Store[*val], key, data string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := s.GuaranteedUpdate(key, Preconditions{}, func(cur *val, next uint64) (*val, error) {
			return &val{uid: cur.uid, rev: next, data: data}, nil
		})
		done <- err
	}()
	return done
}

// With a log, a committed change is invisible until its record is fsync'd:
// while the disk is stalled the writer waits, a watch receives nothing, a
// list, a get and Rev still show the state before, and a bookmark could not
// jump it; only a transaction (the writer's view) sees it. Once the fsync
// completes, the writer returns and by then the watch has the event and the
// list shows it.
func TestStorage_WriteIsVisibleOnlyOnceDurable(t *testing.T) {
	s, committed := stalledStore(t)
	before := put(t, s, "/registry/pods/ns/a", "v1")
	<-committed
	w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{})
	require.NoError(t, err)
	defer w.Stop()
	_, revChanged := s.RevChanged()

	resume := s.StallDisk()
	t.Cleanup(resume)
	done := update(s, "/registry/pods/ns/a", "v2")
	rev := <-committed
	t.Logf("committed rev %d; the disk is stalled, so it is not durable", rev)

	assert.Empty(t, drain(w), "a watch is told nothing before the change is durable")
	l, err := s.List("/registry/pods/", ListOptions[*val]{})
	require.NoError(t, err)
	assert.Equal(t, "[v1@1]", fmtVals(l.Items), "a list does not show it")
	assert.Equal(t, before, l.Rev, "and reads at the last visible revision")
	got, err := s.Get("/registry/pods/ns/a")
	require.NoError(t, err)
	assert.Equal(t, "v1@1", got.String(), "nor does a get")
	assert.Equal(t, before, s.Rev())
	progress, _, _ := w.Progress()
	assert.Equal(t, before, progress, "a bookmark now would carry the old revision, never jump the change")
	late, initial, err := s.Watch("/registry/pods/", WatchOptions[*val]{SendInitialEvents: true})
	require.NoError(t, err)
	defer late.Stop()
	assert.Equal(t, []string{"ADDED v1@1"}, events(initial), "a watch opened now starts from the visible state")
	require.NoError(t, s.Update(func(tx *Tx[*val]) error {
		v, _, err := tx.Get("/registry/pods/ns/a")
		assert.Equal(t, "v2@2", v.String(), "a transaction reads what was committed")
		return err
	}))
	select {
	case <-revChanged:
		t.Fatal("RevChanged fired before the change was durable")
	case err := <-done:
		t.Fatalf("the writer returned (%v) before its change was durable", err)
	default:
	}

	t.Log("the disk answers: the fsync completes")
	resume()
	require.NoError(t, <-done)
	t.Logf("the writer returned; the watches now have: %v, %v", drain(w), drain(late))
	<-revChanged
	l, err = s.List("/registry/pods/", ListOptions[*val]{})
	require.NoError(t, err)
	assert.Equal(t, "[v2@2]", fmtVals(l.Items))
	assert.Equal(t, rev, s.Rev())
}

// A crash while the disk is stalled loses the changes that were not yet
// durable, and only those: no watch was ever handed them, no list showed
// them, the writer is told ErrUnavailable (it was never acknowledged), and
// after the restart every key is at its last durable state. Every revision
// a client holds answers ErrCompacted (410), so every client relists.
func TestStorage_CrashLosesOnlyWhatNoClientSaw(t *testing.T) {
	s, committed := stalledStore(t)
	put(t, s, "/registry/pods/ns/a", "a1")
	durable := put(t, s, "/registry/pods/ns/b", "b1")
	<-committed
	<-committed
	w, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{})
	require.NoError(t, err)
	defer w.Stop()

	resume := s.StallDisk()
	t.Cleanup(resume)
	done := make(chan error, 1)
	go func() {
		done <- s.Update(func(tx *Tx[*val]) error {
			if err := tx.Update("/registry/pods/ns/a", &val{uid: "u-a", rev: tx.NextRev(), data: "a2"}, Preconditions{}); err != nil {
				return err
			}
			if _, err := tx.Delete("/registry/pods/ns/b", Preconditions{}); err != nil {
				return err
			}
			return tx.Create("/registry/pods/ns/c", &val{uid: "u-c", rev: tx.NextRev(), data: "c1"})
		})
	}()
	for range 3 {
		t.Logf("committed rev %d, not durable", <-committed)
	}
	l, err := s.List("/registry/pods/", ListOptions[*val]{})
	require.NoError(t, err)
	assert.Equal(t, "[a1@1 b1@2]", fmtVals(l.Items), "no list shows the changes")

	t.Log("crash (kill -9) while the fsync is held, and restart")
	require.NoError(t, s.Restart())
	err = <-done
	t.Logf("the writer: %v", err)
	require.ErrorIs(t, err, ErrUnavailable, "never acknowledged")
	<-w.Done()
	assert.Empty(t, drain(w), "no watcher ever got the lost changes")

	l, err = s.List("/registry/pods/", ListOptions[*val]{})
	require.NoError(t, err)
	t.Logf("after the restart: %v at rev %d; %s", fmtVals(l.Items), l.Rev, s.Recovery())
	assert.Equal(t, "[a1@1 b1@2]", fmtVals(l.Items), "every key at its last durable state")
	assert.Equal(t, durable, s.Recovery().LastRV)
	for rev := uint64(1); rev <= durable; rev++ {
		_, _, err := s.Watch("/registry/pods/", WatchOptions[*val]{Rev: rev})
		assert.ErrorIs(t, err, ErrCompacted, "a watch from rev %d: 410, relist", rev)
		_, err = s.List("/registry/pods/", ListOptions[*val]{Rev: rev})
		assert.ErrorIs(t, err, ErrCompacted, "a list at rev %d: 410, relist", rev)
	}
}

// Reads outside a transaction are exact at the visible revision while
// changes wait for the disk: a seeded run of transactions (creates,
// updates, deletes, some keys changed twice in one) each held back by a
// stalled disk, checked against a model of every revision's state. Lists
// (whole, paged, at every older revision the history holds), gets and a
// watch's initial events show the last durable state, then the new one once
// the fsync completes.
func TestStorage_ReadsAtTheVisibleRevision(t *testing.T) {
	s := newTestStore(t, Options[*val]{Dir: t.TempDir(), History: 40})
	rng := rand.New(rand.NewPCG(1, 2))
	states := map[uint64]map[string]string{0: {}} // rev -> key -> "data@rev"
	want := func(at uint64, prefix string) string {
		var keys []string
		for k := range states[at] {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var vs []string
		for _, k := range keys {
			vs = append(vs, states[at][k])
		}
		return "[" + strings.Join(vs, " ") + "]"
	}
	check := func(round int) {
		t.Helper()
		at := s.Rev()
		for _, prefix := range []string{"/p/", "/q/", "/"} {
			l, err := s.List(prefix, ListOptions[*val]{})
			require.NoError(t, err)
			require.Equal(t, at, l.Rev)
			require.Equal(t, want(at, prefix), fmtVals(l.Items), "round %d: list %s at %d", round, prefix, at)
			var paged []*val
			for from := ""; ; {
				l, err := s.List(prefix, ListOptions[*val]{Rev: at, From: from, Limit: 2})
				require.NoError(t, err)
				paged = append(paged, l.Items...)
				if !l.More {
					break
				}
				key, _, _ := strings.Cut(l.Items[len(l.Items)-1].data, "=")
				from = key + "\x00"
			}
			require.Equal(t, want(at, prefix), fmtVals(paged), "round %d: paged list %s", round, prefix)
		}
		for r := max(s.Compacted(), 1); r < at; r++ {
			l, err := s.List("/", ListOptions[*val]{Rev: r})
			require.NoError(t, err)
			require.Equal(t, want(r, "/"), fmtVals(l.Items), "round %d: list at old rev %d", round, r)
		}
		for _, k := range []string{"/p/0", "/p/1", "/p/2", "/q/0", "/q/1", "/q/2"} {
			v, err := s.Get(k)
			w, initial, werr := s.Watch(k, WatchOptions[*val]{SendInitialEvents: true})
			require.NoError(t, werr)
			w.Stop()
			if d, ok := states[at][k]; ok {
				require.NoError(t, err)
				require.Equal(t, d, v.String(), "round %d: get %s", round, k)
				require.Equal(t, []string{"ADDED " + d}, events(initial), "round %d: watch %s", round, k)
			} else {
				require.ErrorIs(t, err, ErrNotFound, "round %d: get %s", round, k)
				require.Empty(t, initial, "round %d: watch %s", round, k)
			}
		}
	}
	cur := map[string]string{}
	for round := range 30 {
		resume := s.StallDisk()
		done := make(chan map[uint64]map[string]string, 1)
		go func() { // the writer: only it touches rng and cur until done
			made := map[uint64]map[string]string{}
			err := s.Update(func(tx *Tx[*val]) error {
				for range 1 + rng.IntN(4) {
					k := fmt.Sprintf("/%c/%d", "pq"[rng.IntN(2)], rng.IntN(3))
					next := tx.NextRev()
					var err error
					if _, _, gerr := tx.Get(k); gerr != nil {
						err = tx.Create(k, &val{uid: "u", rev: next, data: k + "=c"})
						cur[k] = fmt.Sprintf("%s=c@%d", k, next)
					} else if rng.IntN(3) == 0 {
						_, err = tx.Delete(k, Preconditions{})
						delete(cur, k)
					} else {
						err = tx.Update(k, &val{uid: "u", rev: next, data: k + "=m"}, Preconditions{})
						cur[k] = fmt.Sprintf("%s=m@%d", k, next)
					}
					if err != nil {
						return err
					}
					made[next] = maps.Clone(cur)
				}
				return nil
			})
			if err != nil {
				made = nil
			}
			done <- made
		}()
		// The transaction commits; it cannot be durable yet.
		require.Eventually(t, func() bool {
			var committed uint64
			_ = s.Update(func(tx *Tx[*val]) error { committed = tx.NextRev() - 1; return nil })
			return committed > s.Rev()
		}, 10*time.Second, time.Millisecond)
		check(round)
		resume()
		made := <-done
		require.NotNil(t, made, "the transaction failed")
		maps.Copy(states, made)
		check(round)
	}
	t.Logf("30 transactions held back by the disk: every read showed the last durable state, then the new one (rev %d)", s.Rev())
}

// The faults act on what clients see, so they apply when a change becomes
// visible, not when it commits. A Compact while a change waits for the disk
// forgets what clients could have seen and keeps the pending change in the
// history: a watch from the compacted revision then gets it once it is
// durable, with no hole. A hide switched on after the commit hides it at
// delivery: the watch open then goes deaf at it.
func TestStorage_FaultsApplyWhenAChangeBecomesVisible(t *testing.T) {
	s, committed := stalledStore(t)
	put(t, s, "/registry/pods/ns/a", "v1")
	<-committed

	resume := s.StallDisk()
	done := update(s, "/registry/pods/ns/a", "v2")
	rev := <-committed
	s.Compact()
	t.Logf("compacted at %d while rev %d waits for the disk", s.Compacted(), rev)
	assert.Equal(t, rev-1, s.Compacted(), "compaction reaches the visible revision, not past it")
	resumed, replay, err := s.Watch("/registry/pods/", WatchOptions[*val]{Rev: s.Compacted()})
	require.NoError(t, err, "a client at the visible revision may still resume")
	defer resumed.Stop()
	assert.Empty(t, replay)
	resume()
	require.NoError(t, <-done)
	assert.Equal(t, []string{"MODIFIED v2@2"}, drain(resumed), "the pending change, kept through the compaction: no hole")

	resume = s.StallDisk()
	t.Cleanup(resume)
	done = update(s, "/registry/pods/ns/a", "v3")
	rev = <-committed
	h := s.Hide(func(*Event[*val]) bool { return true }, 0)
	t.Logf("a hide switched on after rev %d committed", rev)
	resume()
	require.NoError(t, <-done)
	assert.Empty(t, drain(resumed), "hidden at delivery")
	assert.ErrorIs(t, resumed.Err(), ErrMissedEvent, "the watch went deaf at it")
	s.EndOutage(h)
	<-resumed.Done()
	_, _, err = s.Watch("/registry/pods/", WatchOptions[*val]{Rev: rev - 1})
	assert.ErrorIs(t, err, ErrCompacted, "after the outage its reader relists")
}
