package deltafifo

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A queue that held a big list gives its storage back when it empties
// (fifo_state.go, "Giving back the room a big list needed"): Go never
// shrinks a map or a popped-from slice, so otherwise an idle informer would
// keep room for its whole initial list beside its cache. A queue that stays
// short keeps its storage: the RealFIFO, emptied, starts again at the
// front of the same array (takeLocked), so one in, one out allocates no
// new one.
func TestQueue_GivesBackRoomAfterABigDrain(t *testing.T) {
	df := NewDeltaFIFO(DeltaFIFOOptions{}) // untraced: 2,000 lines of queueing would hide the story
	rf := NewRealFIFO(RealFIFOOptions{})
	mapOf := func() uintptr { return uintptr(reflect.ValueOf(df.items).UnsafePointer()) }
	for _, q := range []struct {
		name     string
		q        Queue
		released func() bool // the queue has dropped its storage
	}{
		{"DeltaFIFO", df, func() bool { return df.queue == nil }},
		{"RealFIFO", rf, func() bool { return rf.items == nil }},
	} {
		pop := func() {
			_, err := q.q.Pop(func(Deltas, bool) error { return nil })
			require.NoError(t, err)
		}
		// Short: one in, one out. The storage stays.
		firstMap := mapOf()
		var firstArray *Delta
		for i := range 3 {
			require.NoError(t, q.q.Add(cm(fmt.Sprint("short-", i), "1")))
			if i == 0 {
				firstArray = unsafe.SliceData(rf.items)
			}
			pop()
		}
		require.False(t, q.released(), "%s: a short queue dropped its storage", q.name)
		require.Equal(t, firstMap, mapOf(), "the DeltaFIFO's map was replaced after short bursts")
		require.Same(t, firstArray, unsafe.SliceData(rf.items), "the RealFIFO's array was replaced after short bursts")

		// Big: more than shrinkAfterDrainAbove at once, then drained.
		big := shrinkAfterDrainAbove + 1
		for i := range big {
			require.NoError(t, q.q.Add(cm(fmt.Sprint("big-", i), "1")))
		}
		for range big - 1 {
			pop()
		}
		require.False(t, q.released(), "%s: one entry left, the storage is still in use", q.name)
		pop()
		require.True(t, q.released(), "%s: drained after holding %d entries, the queue keeps its storage", q.name, big)
		t.Logf("%s: %d entries queued, then popped to empty: storage given back", q.name, big)
	}
	require.NotEqual(t, uintptr(0), mapOf())
	require.Zero(t, df.Len())
}
