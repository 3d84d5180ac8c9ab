package deltafifo

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every notification is kept, in arrival order, one Delta per Pop: nothing
// is merged per key, not even two deletions.
func TestRealFIFO_KeepsEveryNotificationInOrder(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{})
	require.NoError(t, f.Add(cm("foo", "1")))
	require.NoError(t, f.Add(cm("bar", "1")))
	require.NoError(t, f.Update(cm("foo", "2")))
	require.NoError(t, f.Delete(cm("foo", "3")))
	require.NoError(t, f.Delete(cm("foo", "3")))

	require.Equal(t, "foo Added 1 | bar Added 1 | foo Updated 2 | foo Deleted 3 | foo Deleted 3", formatRealFIFO(f))
	for _, want := range []string{"{Added 1}", "{Added 1}", "{Updated 2}", "{Deleted 3}", "{Deleted 3}"} {
		d, _ := popOne(t, f)
		require.Len(t, d, 1)
		require.Equal(t, want, formatDeltas(d))
	}
}

// Delete is queued even for a key nobody knows: every notification counts.
func TestRealFIFO_DeleteIsAlwaysQueued(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{KnownObjects: newKnown()})
	t.Log("reflector (played by the test): DELETED for stranger, a key neither queued nor cached")
	require.NoError(t, f.Delete(cm("stranger", "1")))
	require.Equal(t, "stranger Deleted 1", formatRealFIFO(f))
	t.Logf("deltafifo: the RealFIFO queued it anyway: %s", formatRealFIFO(f))
}

// Replace queues tombstones first (queued keys the list lacks, unless their
// last delta is already a deletion; then cached keys the list lacks that are
// not queued), then a Replaced delta per listed object, always Replaced.
func TestRealFIFO_ReplaceQueuesTombstonesThenReplaced(t *testing.T) {
	known := newKnown(cm("cached", "1"), cm("listed", "1"), cm("queued", "1"))
	f := newRealFIFO(t, RealFIFOOptions{KnownObjects: known})
	require.NoError(t, f.Add(cm("onlyqueued", "2")))
	require.NoError(t, f.Update(cm("queued", "2")))
	require.NoError(t, f.Add(cm("deleted", "2")))
	require.NoError(t, f.Delete(cm("deleted", "3")))

	t.Logf("informer cache: %s", formatCache(known))
	t.Log("reflector (played by the test): a relist at rv=9 has only listed and new")
	require.NoError(t, f.Replace([]api.Object{cm("listed", "9"), cm("new", "9")}, "9"))

	require.Equal(t, "onlyqueued Added 2 | queued Updated 2 | deleted Added 2 | deleted Deleted 3"+
		" | onlyqueued Deleted tombstone(2) | queued Deleted tombstone(2) | cached Deleted tombstone(1)"+
		" | listed Replaced 9 | new Replaced 9", formatRealFIFO(f))

	for f.Len() > 0 {
		popApply(t, f, known)
	}
	require.Equal(t, "listed=9 new=9", formatCache(known))
}

// As in the DeltaFIFO, Resync skips keys with something queued.
func TestRealFIFO_ResyncSkipsKeysInQueue(t *testing.T) {
	known := newKnown(cm("foo", "1"), cm("bar", "1"))
	f := newRealFIFO(t, RealFIFOOptions{KnownObjects: known})
	require.NoError(t, f.Update(cm("foo", "2")))
	require.NoError(t, f.Resync())
	require.Equal(t, "foo Updated 2 | bar Sync 1", formatRealFIFO(f))
	require.NoError(t, newRealFIFO(t, RealFIFOOptions{}).Resync())
}

func TestRealFIFO_HasSyncedAfterInitialListPopped(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{KnownObjects: newKnown(cm("stale", "1"))})
	require.False(t, f.HasSynced())
	require.NoError(t, f.Replace([]api.Object{cm("a", "5")}, "5"))
	require.NoError(t, f.Update(cm("a", "6")))

	for range 2 { // the tombstone for stale, then a
		_, initial := popOne(t, f)
		require.True(t, initial)
	}
	require.True(t, f.HasSynced())
	d, initial := popOne(t, f)
	require.Equal(t, "{Updated 6}", formatDeltas(d))
	require.False(t, initial)
}

func TestRealFIFO_PopBlocksUntilAddOrClose(t *testing.T) {
	testPopBlocksUntilAddOrClose(t, func(t *testing.T) Queue { return newRealFIFO(t, RealFIFOOptions{}) })
}

func TestRealFIFO_ClosedAndBadInput(t *testing.T) {
	f := newRealFIFO(t, RealFIFOOptions{})
	require.ErrorIs(t, f.Add(nil), errNilObject)
	require.ErrorContains(t, f.Add(&api.ConfigMap{}), "without a name")
	require.ErrorContains(t, f.Replace([]api.Object{nil}, "1"), "item 0")
	_, err := f.Pop(nil)
	require.Error(t, err)
	require.NoError(t, f.Add(cm("foo", "1")))
	f.Close()
	require.True(t, f.IsClosed())
	require.ErrorIs(t, f.Update(cm("foo", "2")), ErrFIFOClosed)
	require.ErrorIs(t, f.Replace(nil, "2"), ErrFIFOClosed)
	require.ErrorIs(t, f.Resync(), ErrFIFOClosed)
	d, _ := popOne(t, f)
	require.Equal(t, "{Added 1}", formatDeltas(d))
	_, err = f.Pop(func(Deltas, bool) error { return nil })
	require.ErrorIs(t, err, ErrFIFOClosed)
}

func TestRealFIFO_TransformSkipsSyncAndTombstones(t *testing.T) {
	calls := 0
	known := newKnown(cm("cached", "1"), cm("vanished", "1"))
	f := newRealFIFO(t, RealFIFOOptions{KnownObjects: known, Transform: func(o api.Object) (api.Object, error) {
		calls++
		return o, nil
	}})
	require.NoError(t, f.Add(cm("a", "1")))
	require.NoError(t, f.Replace([]api.Object{cm("a", "2"), cm("cached", "2")}, "2"))
	require.Equal(t, 3, calls, "Add and the two listed objects; not the tombstone")
	for f.Len() > 0 {
		popApply(t, f, known)
	}
	require.NoError(t, f.Resync())
	require.Equal(t, 3, calls, "not the Sync deltas")

	failing := newRealFIFO(t, RealFIFOOptions{Transform: func(api.Object) (api.Object, error) { return nil, errors.New("bad") }})
	require.ErrorContains(t, failing.Add(cm("x", "1")), "bad")
	require.Zero(t, failing.Len())
}

// The same input through both queues. The consumer drains the queue after
// the first five adds, then foo 14 arrives and it drains again.
//
// The DeltaFIFO queued foo once, so by the time the consumer pops, foo's
// three deltas (10, 11, 13) come out together and the newest is 13; bar and
// zab follow. foo 14 arrives after foo was popped, so it is a new queue
// entry. The RealFIFO hands out every notification in arrival order.
//
// Had foo 14 arrived before the first pop, the DeltaFIFO would have popped
// foo's {10, 11, 13, 14} first: 14, 1, 30.
func TestQueues_SideBySide(t *testing.T) {
	firstAdds := []*api.ConfigMap{cm("foo", "10"), cm("bar", "1"), cm("foo", "11"), cm("foo", "13"), cm("zab", "30")}
	then := cm("foo", "14")

	// drain pops until the queue is empty and returns the newest
	// resourceVersion of each pop.
	drain := func(q Queue, length func() int) []string {
		var newest []string
		for length() > 0 {
			d, err := q.Pop(func(Deltas, bool) error { return nil })
			require.NoError(t, err)
			newest = append(newest, formatObject(d.Newest().Object))
		}
		return newest
	}
	run := func(q Queue, length func() int) []string {
		for _, obj := range firstAdds {
			require.NoError(t, q.Add(obj))
		}
		popped := drain(q, length)
		require.NoError(t, q.Add(then))
		return append(popped, drain(q, length)...)
	}

	df := newDeltaFIFO(t, DeltaFIFOOptions{})
	require.Equal(t, []string{"13", "1", "30", "14"}, run(df, df.Len), "DeltaFIFO: one pop per key, newest shown")

	rf := newRealFIFO(t, RealFIFOOptions{})
	require.Equal(t, []string{"10", "1", "11", "13", "30", "14"}, run(rf, rf.Len), "RealFIFO: every notification in order")
}

// Producers and consumers at once, under -race: every delta of every key is
// processed exactly once and in order, on both queues.
func TestQueues_ConcurrentProducersAndConsumers(t *testing.T) {
	for _, tt := range []struct {
		name     string
		newQueue func(*trace.Tracer) Queue
	}{
		{"DeltaFIFO", func(tr *trace.Tracer) Queue { return NewDeltaFIFO(DeltaFIFOOptions{Tracer: tr}) }},
		{"RealFIFO", func(tr *trace.Tracer) Queue { return NewRealFIFO(RealFIFOOptions{Tracer: tr}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const producers, keysEach, versions, consumers = 4, 25, 20, 3
			// Thousands of events: recorded and summed up, not logged one by one.
			rec := trace.NewRecorder()
			q := tt.newQueue(rec.Tracer())
			t.Logf("deltafifo (%s): %d producers write %d versions of %d keys each while %d consumers pop",
				tt.name, producers, versions, keysEach, consumers)
			seen := map[string][]int{} // only touched in process, which runs under the queue's lock

			var consumersDone sync.WaitGroup
			for range consumers {
				consumersDone.Go(func() {
					for {
						_, err := q.Pop(func(deltas Deltas, _ bool) error {
							for _, d := range deltas {
								obj := d.Object.(api.Object)
								rv, err := strconv.Atoi(obj.GetResourceVersion())
								if err != nil {
									return err
								}
								seen[obj.GetName()] = append(seen[obj.GetName()], rv)
							}
							return nil
						})
						if errors.Is(err, ErrFIFOClosed) {
							return
						}
						assert.NoError(t, err)
					}
				})
			}

			var producersDone sync.WaitGroup
			for p := range producers {
				producersDone.Go(func() {
					for v := 1; v <= versions; v++ {
						for k := range keysEach {
							obj := cm(fmt.Sprintf("p%d-k%d", p, k), strconv.Itoa(v))
							if v == 1 {
								assert.NoError(t, q.Add(obj))
							} else {
								assert.NoError(t, q.Update(obj))
							}
						}
					}
				})
			}
			producersDone.Wait()
			q.Close() // consumers drain what is left, then see ErrFIFOClosed
			consumersDone.Wait()

			require.Len(t, seen, producers*keysEach)
			want := make([]int, versions)
			for i := range want {
				want[i] = i + 1
			}
			for key, rvs := range seen {
				require.Equal(t, want, rvs, "key %s: every version, once, in order", key)
			}
			counts := map[string]int{}
			for _, e := range rec.Events() {
				counts[e.What]++
			}
			t.Logf("deltafifo (%s): trace: %d delta queued, %d pop; every key's %d versions processed once, in order",
				tt.name, counts["delta queued"], counts["pop"], versions)
			require.Equal(t, producers*keysEach*versions, counts["delta queued"])
		})
	}
}
