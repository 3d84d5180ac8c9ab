package informer

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// A batch's notifications reach a listener in one hand-off
// (distributeAll, listener_batch.go) and its handler exactly as if they had
// come one by one: in order, batch after batch, counted by Pending from
// the moment they are given, and the registration's HasSynced waits for
// the initial list's adds among them.
func TestProcessorListener_BatchArrivesAsIfOneByOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var got []int
		h := ResourceEventHandlerFuncs{
			AddFunc:    func(obj any, _ bool) { <-gate; got = append(got, obj.(int)) },
			UpdateFunc: func(_, obj any) { <-gate; got = append(got, obj.(int)) },
		}
		p := newSharedProcessor(nil)
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		p.addListener(l)
		p.start()

		initial := []notification{addNotification{newObj: 0, isInInitialList: true}, addNotification{newObj: 1, isInInitialList: true}}
		p.distributeAll(initial)
		p.distributeAll([]notification{updateNotification{newObj: 2}, addNotification{newObj: 3}, updateNotification{newObj: 4}})
		p.distributeAll([]notification{updateNotification{newObj: 5}}) // a batch of one goes as one notification
		l.markRegistered()                                             // as AddEventHandler does when it returns
		synctest.Wait()
		t.Logf("informer: 3 batches (2, 3 and 1 notifications) given; the handler is blocked in its first call; Pending=%d", l.Pending())
		require.Equal(t, 6, l.Pending(), "every notification counts from the moment it is given")
		require.False(t, l.HasSynced(), "two initial adds are not handled yet")

		close(gate)
		synctest.Wait()
		t.Logf("handler: got %v; Pending=%d, HasSynced=%v", got, l.Pending(), l.HasSynced())
		require.Equal(t, []int{0, 1, 2, 3, 4, 5}, got, "in order, batch after batch")
		require.Zero(t, l.Pending())
		require.True(t, l.HasSynced())
		p.stop()
	})
}

// Stopping a listener in the middle of a batch drops the rest of it, as it
// drops whatever else it still buffers: nothing reaches a handler after
// RemoveEventHandler but the call in progress.
func TestProcessorListener_StopInTheMiddleOfABatchDropsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		calls := 0
		h := ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { <-gate; calls++ }}
		p := newSharedProcessor(nil)
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		p.addListener(l)
		p.start()
		batch := make([]notification, 10)
		for i := range batch {
			batch[i] = updateNotification{newObj: i}
		}
		p.distributeAll(batch)
		synctest.Wait()
		stopped := make(chan struct{})
		go func() { p.stop(); close(stopped) }()
		synctest.Wait()
		t.Log("informer: stop called while the handler is in the batch's first call; opening the gate")
		close(gate)
		<-stopped
		t.Logf("handler: %d call(s); the batch's other 9 were dropped", calls)
		require.Equal(t, 1, calls)
	})
}

// A handler that panics on one notification of a batch has it skipped
// (recovered and logged, as one by one) and gets the rest.
func TestProcessorListener_PanicInABatchSkipsOnlyThatNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []int
		h := ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
			if obj.(int) == 1 {
				panic("handler bug")
			}
			got = append(got, obj.(int))
		}}
		p := newSharedProcessor(nil)
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		p.addListener(l)
		p.start()
		p.distributeAll([]notification{updateNotification{newObj: 0}, updateNotification{newObj: 1}, updateNotification{newObj: 2}})
		synctest.Wait()
		t.Logf("handler: got %v (it panicked on 1); Pending=%d", got, l.Pending())
		require.Equal(t, []int{0, 2}, got)
		require.Zero(t, l.Pending())
		p.stop()
	})
}

// A batch with a resync in it (an update whose object did not change)
// gives the resync only to the listeners due for one, as distribute does
// one notification at a time; the other notifications go to every
// listener, in order.
func TestSharedProcessor_DistributeAllGivesResyncsOnlyToListenersDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pod := func(name, rv string) *api.Pod {
			return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
		}
		record := func(got *[]string) ResourceEventHandlerFuncs {
			return ResourceEventHandlerFuncs{
				AddFunc: func(obj any, _ bool) { *got = append(*got, "add "+obj.(*api.Pod).Name) },
				UpdateFunc: func(old, obj any) {
					what := "update "
					if old.(*api.Pod).ResourceVersion == obj.(*api.Pod).ResourceVersion {
						what = "resync "
					}
					*got = append(*got, what+obj.(*api.Pod).Name)
				},
			}
		}
		var dueGot, notDueGot []string
		p := newSharedProcessor(nil)
		due := newProcessListener(record(&dueGot), time.Minute, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		notDue := newProcessListener(record(&notDueGot), 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		p.addListener(due)
		p.addListener(notDue)
		p.listeners[due] = true // as shouldResync marks it at a resync tick
		p.start()

		p.distributeAll([]notification{
			updateNotification{oldObj: pod("a", "1"), newObj: pod("a", "2")},
			updateNotification{oldObj: pod("b", "3"), newObj: pod("b", "3")}, // a resync
			addNotification{newObj: pod("c", "4")},
		})
		synctest.Wait()
		t.Logf("due for a resync: %v; not due: %v", dueGot, notDueGot)
		require.Equal(t, []string{"update a", "resync b", "add c"}, dueGot)
		require.Equal(t, []string{"update a", "add c"}, notDueGot)
		p.stop()
	})
}
