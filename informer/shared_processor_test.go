package informer

import (
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
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
			// Thousands of events: the log follows default/p0 only.
			tr := traceKeys(t, "default/p0")
			lw := newFakeLW(pod("p0"), pod("p1"), pod("p2")).tracing(tr)
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind, Tracer: tr}))
			t.Log("handlers: 4 stay (registered racing Run); 20 more come and go while the server writes 60 changes")

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
			t.Logf("informer: cache %v; every staying handler's view must equal it", want)
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
	for i := range 50 {
		synctest.Test(t, func(t *testing.T) {
			opts := SharedIndexInformerOptions{}
			if i > 0 { // the story of the first run is the story of every run
				opts.Tracer = trace.New(slog.DiscardHandler)
			}
			inf := NewSharedIndexInformerWithOptions(newFakeLW(pod("a"), pod("b"), pod("c")), &api.Pod{}, testOptions(t, opts))
			oneShot := &recorder{}
			var reg ResourceEventHandlerRegistration
			registered := make(chan struct{})
			removed := make(chan error, 3) // room for every add, should the removal not hold
			reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(obj any, initial bool) {
				oneShot.OnAdd(obj, initial)
				<-registered
				removed <- inf.RemoveEventHandler(reg)
			}}, HandlerOptions{Name: "one-shot"})
			require.NoError(t, err)
			close(registered)
			runInformer(t, inf)
			synctest.Wait()
			require.NoError(t, <-removed)
			require.Len(t, oneShot.Events(), 1, "nothing after the call that removed it")
			if i == 0 {
				t.Logf("handler one-shot: got %v and removed itself; 49 more runs, untraced", oneShot.Events())
			}
		})
	}
}
