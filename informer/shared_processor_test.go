package informer

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// Handlers registered while Run is starting, and handlers added and removed
// while events flow: the sharedProcessor's listener set changes under
// distribute, and
// every handler that stays still sees a consistent story (no add of a known
// key, every update from the state it had, every delete of a key it had)
// that ends equal to the cache. Run with -race, this is the check that
// registration, removal and distribution share their state safely.
func TestSharedProcessor_ListenersComeAndGoWhileEventsFlow(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("p0"), pod("p1"), pod("p2"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, SharedIndexInformerOptions{Queue: kind})

			var wg sync.WaitGroup
			errs := make(chan error, 100)
			stayers := make([]*orderChecker, 4)
			regs := make([]ResourceEventHandlerRegistration, len(stayers))
			for i := range stayers {
				stayers[i] = newOrderChecker()
				wg.Go(func() { // racing Run: before start or late, either is fine
					reg, err := inf.AddEventHandler(stayers[i])
					regs[i] = reg
					errs <- err
				})
			}
			runInformer(t, inf)

			wg.Go(func() { // the server side: creates, updates, deletes
				exists := map[string]bool{"p0": true, "p1": true, "p2": true}
				for i := range 60 {
					name := fmt.Sprintf("p%d", i%7)
					switch {
					case !exists[name]:
						lw.Add(pod(name))
						exists[name] = true
					case i%3 == 0:
						lw.Delete(pod(name))
						delete(exists, name)
					default:
						lw.Modify(pod(name, fmt.Sprintf("v=%d", i)))
					}
				}
			})
			wg.Go(func() { // handlers that come and go
				for range 20 {
					reg, err := inf.AddEventHandler(newOrderChecker())
					errs <- err
					if err == nil {
						errs <- inf.RemoveEventHandler(reg)
					}
				}
			})
			wg.Wait()
			synctest.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}

			want := cachedKeys(inf.GetStore())
			for i, h := range stayers {
				require.Empty(t, h.violations(), "handler %d", i)
				require.Equal(t, want, h.view(), "handler %d ends with the cache's view", i)
				require.True(t, regs[i].HasSynced(), "handler %d", i)
			}
		})
	})
}

// A handler may remove itself from inside one of its calls (a one-shot
// handler); it then gets nothing more, although the next notifications were
// already buffered for it. The race this pins: if pop is not parked in its
// select when addCh is closed, it may next find both addCh closed and run
// ready for the next notification, and its select picks either. Without the
// listener's stopped flag the handler got one more call in most runs under
// -race (the scheduling decides, hence the repetitions).
func TestSharedProcessor_HandlerRemovesItself(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			inf := NewSharedIndexInformer(newFakeLW(pod("a"), pod("b"), pod("c")), &api.Pod{}, 0, nil)
			oneShot := &recorder{}
			var reg ResourceEventHandlerRegistration
			registered := make(chan struct{})
			removed := make(chan error, 3) // room for every add, should the removal not hold
			reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{AddFunc: func(obj any, initial bool) {
				oneShot.OnAdd(obj, initial)
				<-registered
				removed <- inf.RemoveEventHandler(reg)
			}})
			require.NoError(t, err)
			close(registered)
			runInformer(t, inf)
			synctest.Wait()
			require.NoError(t, <-removed)
			require.Len(t, oneShot.Events(), 1, "nothing after the call that removed it")
		})
	}
}
