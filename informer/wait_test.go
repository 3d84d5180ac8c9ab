package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/stretchr/testify/require"
)

// testChecker is a DoneChecker the test finishes by hand.
type testChecker struct {
	name   string
	done   chan struct{}
	finish func()
}

func newTestChecker(name string, done bool) *testChecker {
	c := &testChecker{name: name, done: make(chan struct{})}
	c.finish = sync.OnceFunc(func() { close(c.done) })
	if done {
		c.finish()
	}
	return c
}

func (c *testChecker) Name() string          { return c.name }
func (c *testChecker) Done() <-chan struct{} { return c.done }

// waitResult is what a wait in a goroutine reports: its answer and when.
type waitResult struct {
	ok bool
	at time.Time
}

// goWait runs wait in a goroutine and returns where its result arrives.
func goWait(wait func() bool) <-chan waitResult {
	out := make(chan waitResult, 1)
	go func() {
		ok := wait()
		out <- waitResult{ok, time.Now()}
	}()
	return out
}

// client-go 1.36: WaitFor blocks on the queue's HasSyncedChecker channel
// and returns the moment the queue syncs: in the synctest bubble, with no
// fake time passing at all. The articles' WaitForCacheSync, started at the
// same instant, asks HasSynced every 100 ms, and returns one tick later.
func TestWaitFor_WakesWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
		t.Log("reflector (played by the test): the first list, a and b, into a DeltaFIFO")
		require.NoError(t, q.Replace([]api.Object{pod("a"), pod("b")}, "2"))

		start := time.Now()
		channels := goWait(func() bool { return WaitFor(t.Context(), testLogger(t, ""), "the queue", q.HasSyncedChecker()) })
		polling := goWait(func() bool { return WaitForCacheSync(t.Context(), q.HasSynced) })
		synctest.Wait()
		t.Log("controller (played by the test): WaitFor and WaitForCacheSync both waiting")

		for range 2 {
			_, err := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
			require.NoError(t, err)
		}
		t.Logf("informer (played by the test): both items popped; HasSynced %v", q.HasSynced())
		synctest.Wait() // every goroutine blocked again; no time passes in a Wait

		select {
		case r := <-channels:
			t.Logf("WaitFor: returned %v after %v", r.ok, r.at.Sub(start))
			require.True(t, r.ok)
			require.Zero(t, r.at.Sub(start), "woken by the channel, with no time passing")
		default:
			t.Fatal("WaitFor still waiting after the queue synced")
		}
		select {
		case <-polling:
			t.Fatal("WaitForCacheSync returned before its next tick")
		default:
			t.Log("WaitForCacheSync: still waiting for its ticker")
		}
		r := <-polling // the bubble advances its fake clock to the ticker's next tick
		t.Logf("WaitForCacheSync: returned %v after %v", r.ok, r.at.Sub(start))
		require.True(t, r.ok)
		require.Equal(t, syncedPollPeriod, r.at.Sub(start), "one polling tick late")
	})
}

// The chain of channels through an informer: the informer's checker is
// done once the cache holds the initial list; a registration's only once
// its handler has also handled every add of that list. A handler blocked
// on its first add keeps its registration's channel open, and a WaitFor on
// it waiting, until it is let go. No time passes.
func TestWaitFor_RegistrationDoneAfterTheHandlersInitialAdds(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a"), pod("b"), pod("c"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind}))
			gate := make(chan struct{})
			openGate := sync.OnceFunc(func() { close(gate) })
			var handled []string
			reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(obj any, _ bool) {
				<-gate
				handled = append(handled, obj.(*api.Pod).Name)
			}}, HandlerOptions{Name: "slow"})
			require.NoError(t, err)
			require.False(t, IsDone(inf.HasSyncedChecker()), "not before Run")
			require.False(t, IsDone(reg.HasSyncedChecker()))

			start := time.Now()
			logger := testLogger(t, "")
			informerSynced := goWait(func() bool { return WaitFor(t.Context(), logger, "the informer", inf.HasSyncedChecker()) })
			handlerSynced := goWait(func() bool {
				return WaitFor(t.Context(), logger, "the informer and its handler", inf.HasSyncedChecker(), reg.HasSyncedChecker())
			})
			runInformer(t, inf)
			t.Cleanup(openGate)
			synctest.Wait()

			r := <-informerSynced
			require.True(t, r.ok)
			t.Logf("informer: synced (the cache holds %d pods); the handler has handled %d adds, %d pending", len(inf.GetStore().ListKeys()), len(handled), reg.Pending())
			require.True(t, inf.HasSynced())
			require.False(t, reg.HasSynced())
			require.False(t, IsDone(reg.HasSyncedChecker()), "the handler is blocked on its first add")
			select {
			case <-handlerSynced:
				t.Fatal("WaitFor returned while the handler had initial adds pending")
			default:
			}

			t.Log("handler: let go")
			openGate()
			synctest.Wait()
			r = <-handlerSynced
			t.Logf("WaitFor: the registration is done after %d adds, %v after Run", len(handled), r.at.Sub(start))
			require.True(t, r.ok)
			require.Equal(t, []string{"a", "b", "c"}, handled)
			require.True(t, reg.HasSynced())
			require.Zero(t, r.at.Sub(start))

			t.Log("handler: a second, added after the informer synced, is done once it has handled the replay")
			reg2, err := inf.AddEventHandler(&recorder{})
			require.NoError(t, err)
			require.True(t, WaitFor(t.Context(), logger, "the late handler", reg2.HasSyncedChecker()))
			require.Equal(t, 0, reg2.Pending())
		})
	})
}

// When the context ends first, WaitFor reports false, and its last log line
// names what was not done (sorted) and why the context ended.
func TestWaitFor_ContextEndsReportsWhatWasNotDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		logger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&logs, nil), testLogger(t, "").Handler()))
		done := newTestChecker("pods", true)
		services := newTestChecker("services", false)
		configMaps := newTestChecker("configmaps", false)

		ctx, cancel := context.WithCancelCause(t.Context())
		result := goWait(func() bool { return WaitFor(ctx, logger, "caches", done, services, configMaps) })
		synctest.Wait()
		t.Log("controller (played by the test): gives up waiting")
		cancel(errors.New("shutting down"))
		r := <-result
		t.Logf("WaitFor: returned %v", r.ok)
		require.False(t, r.ok)
		require.Contains(t, logs.String(), `msg="Done waiting" for=caches instance=pods`)
		require.Contains(t, logs.String(), `msg="Timed out waiting" for=caches cause="shutting down" instances="[configmaps services]"`)

		require.True(t, WaitFor(ctx, logger, "", done), "already done: true, even with the context ended")
		require.True(t, WaitFor(t.Context(), nil, ""), "nothing to wait for")
	})
}
