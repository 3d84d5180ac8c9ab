package deltafifo

import (
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// isDone reports, without blocking, whether c's channel is closed.
func isDone(c DoneChecker) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// syncedQueue is a queue under test with how to pop it.
type syncedQueue struct {
	name string
	q    Queue
	// unlocked: process runs without the queue's lock, so it may call
	// HasSynced itself.
	unlocked bool
	batch    bool // popped with PopBatch
	atomic   bool // a relist is one ReplacedAll item
}

// syncedQueues builds one queue of each kind and mode.
func syncedQueues(t *testing.T) []syncedQueue {
	return []syncedQueue{
		{name: "DeltaFIFO", q: newDeltaFIFO(t, DeltaFIFOOptions{KnownObjects: newKnown(), EmitDeltaTypeReplaced: true})},
		{name: "RealFIFO", q: newRealFIFO(t, RealFIFOOptions{KnownObjects: newKnown()})},
		{name: "RealFIFO, PopBatch", q: newRealFIFO(t, RealFIFOOptions{KnownObjects: newKnown()}), batch: true},
		{name: "RealFIFO, AtomicEvents", q: newRealFIFO(t, RealFIFOOptions{AtomicEvents: true}), atomic: true},
		{name: "RealFIFO, AtomicEvents and UnlockWhileProcessing", q: newRealFIFO(t, RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true}), atomic: true, unlocked: true},
		{name: "RealFIFO, all 1.36 modes, PopBatch", q: newRealFIFO(t, RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true}), atomic: true, unlocked: true, batch: true},
	}
}

// pop pops one item (or batch) from sq, calling during with whether it is
// part of the initial list while it is processed.
func (sq syncedQueue) pop(t *testing.T, during func(isInInitialList bool)) {
	t.Helper()
	if sq.batch {
		err := sq.q.(QueueWithBatch).PopBatch(
			func(_ []Delta, initial bool) error { during(initial); return nil },
			func(_ Deltas, initial bool) error { during(initial); return nil })
		require.NoError(t, err)
		return
	}
	_, err := sq.q.Pop(func(_ Deltas, initial bool) error { during(initial); return nil })
	require.NoError(t, err)
}

// client-go 1.36: a queue's HasSyncedChecker is a channel closed at the
// moment HasSynced turns true, so informer.WaitFor can wait on it. In every
// queue and mode: not while the last item of the initial list is being
// processed (a waiter woken then would read a cache without it), and the
// channel and HasSynced agree after every step.
func TestHasSyncedChecker_ClosesWhenHasSyncedTurnsTrue(t *testing.T) {
	for _, sq := range syncedQueues(t) {
		t.Run(sq.name, func(t *testing.T) {
			checker := sq.q.HasSyncedChecker()
			agree := func(when string) {
				t.Helper()
				t.Logf("deltafifo: %s: HasSynced %v, %s channel closed %v", when, sq.q.HasSynced(), checker.Name(), isDone(checker))
				require.Equal(t, sq.q.HasSynced(), isDone(checker), "HasSynced and the channel disagree %s", when)
			}
			agree("before anything")
			require.False(t, isDone(checker))

			t.Log("reflector (played by the test): the first list: a, b, c")
			require.NoError(t, sq.q.Replace([]api.Object{cm("a", "1"), cm("b", "2"), cm("c", "3")}, "3"))
			agree("after the first Replace")
			require.False(t, isDone(checker))

			pops := 0
			for !sq.q.HasSynced() {
				pops++
				sq.pop(t, func(initial bool) {
					require.True(t, initial)
					require.False(t, isDone(checker), "closed while an item of the initial list is being processed")
					if sq.unlocked {
						require.False(t, sq.q.HasSynced(), "the lock is released; HasSynced can be asked, and says no")
					}
				})
				agree("after a pop")
			}
			t.Logf("deltafifo: synced after %d pop(s)", pops)
			require.True(t, isDone(checker))

			t.Log("reflector: a relist; HasSynced stays true, the channel stays closed")
			require.NoError(t, sq.q.Replace([]api.Object{cm("a", "4")}, "4"))
			agree("after a relist")
			require.True(t, isDone(checker))
		})
	}
}

// The other two ways to sync close the channel as well: a first list that
// is empty (synced at once, or, in an atomic queue, once its one empty
// ReplacedAll is popped: it still has to empty the cache), and a watch
// event before any list.
func TestHasSyncedChecker_ClosedByAnEventOrAnEmptyList(t *testing.T) {
	for _, sq := range syncedQueues(t) {
		t.Run(sq.name+", empty list", func(t *testing.T) {
			require.NoError(t, sq.q.Replace(nil, "1"))
			pops := 0
			for !isDone(sq.q.HasSyncedChecker()) {
				require.False(t, sq.q.HasSynced())
				sq.pop(t, func(bool) {})
				pops++
			}
			t.Logf("deltafifo: an empty first list: channel closed after %d pop(s); HasSynced %v", pops, sq.q.HasSynced())
			require.True(t, sq.q.HasSynced())
			want := 0
			if sq.atomic {
				want = 1
			}
			require.Equal(t, want, pops)
		})
	}
	for _, sq := range syncedQueues(t) {
		t.Run(sq.name+", event first", func(t *testing.T) {
			require.NoError(t, sq.q.Delete(cm("gone", "1"))) // a DeltaFIFO queues nothing for an unknown key, and is synced all the same
			t.Logf("deltafifo: a Delete before any list: HasSynced %v, channel closed %v", sq.q.HasSynced(), isDone(sq.q.HasSyncedChecker()))
			require.True(t, isDone(sq.q.HasSyncedChecker()))
			require.True(t, sq.q.HasSynced())
		})
	}
}
