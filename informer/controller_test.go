package informer

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// controller.Run starts the Reflector (which fills the queue) and the
// processLoop (which drains it into Process); cancelling ctx closes the
// queue, which ends the processLoop. Article: "Kubernetes 源码阅读 -
// Informer", controller.Run; article 004 steps 1-3.
func TestController_RunFeedsProcessFromTheReflector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := trace.ForTest(t)
		lw := newFakeLW(pod("a"), pod("b")).tracing(tr)
		cache := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
		var popped []string
		c := New(Config{
			Queue:         deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{KnownObjects: cache, EmitDeltaTypeReplaced: true, Tracer: tr}),
			ListerWatcher: lw,
			ExpectedType:  &api.Pod{},
			Process: func(d deltafifo.Deltas, isInInitialList bool) error {
				for _, delta := range d {
					popped = append(popped, string(delta.Type)+" "+describe(delta.Object))
				}
				return processDeltas(cache, d, isInInitialList, tr.Stage(trace.StageInformer), func(notification) {})
			},
			Logger: testLogger(t, ""),
			Tracer: tr,
		})
		require.False(t, c.HasSynced())
		require.Empty(t, c.LastSyncResourceVersion())
		stop := runInformer(t, c)
		synctest.Wait()
		require.True(t, c.HasSynced())
		require.Equal(t, "2", c.LastSyncResourceVersion())

		t.Log("server (fakeLW, played by the test): modifying default/a")
		lw.Modify(pod("a", "v=2"))
		synctest.Wait()
		require.Equal(t, []string{"Replaced default/a@1", "Replaced default/b@2", "Updated default/a@3"}, popped)
		require.Equal(t, "3", c.LastSyncResourceVersion())
		stop()
	})
}

// A Process error is logged and the item dropped, not retried: client-go's
// ErrRequeue, which put it back, was removed in 1.33. The loop goes on.
func TestController_ProcessErrorIsLoggedNotRequeued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		tr := trace.ForTest(t)
		lw := newFakeLW(pod("bad"), pod("good")).tracing(tr)
		calls := map[string]int{}
		c := New(Config{
			Queue:         deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: tr}),
			Tracer:        tr,
			ListerWatcher: lw,
			Process: func(d deltafifo.Deltas, _ bool) error {
				name := d.Newest().Object.(*api.Pod).Name
				calls[name]++
				if name == "bad" {
					return errors.New("cannot process bad")
				}
				return nil
			},
			Logger: slog.New(slog.NewMultiHandler(slog.NewTextHandler(&logs, nil), expectedLogs(t).Handler())),
		})
		t.Log("informer (played by the test): Process fails for default/bad")
		runInformer(t, c)
		synctest.Wait()
		require.Equal(t, map[string]int{"bad": 1, "good": 1}, calls)
		require.Contains(t, logs.String(), "cannot process bad")
	})
}

// Once ctx ends the processLoop pops nothing more: what is still queued is
// dropped, not handed to Process (client-go's processLoop checks its stop
// channel before every Pop). Cancelling an informer with a large backlog
// therefore stops it promptly instead of running every handler through the
// backlog first.
func TestController_StopsPoppingOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := trace.ForTest(t)
		lw := newFakeLW(pod("a"), pod("b"), pod("c")).tracing(tr)
		inProcess, release := make(chan struct{}), make(chan struct{})
		var processed []string
		c := New(Config{
			Queue:         deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: tr}),
			Tracer:        tr,
			Logger:        testLogger(t, ""),
			ListerWatcher: lw,
			Process: func(d deltafifo.Deltas, _ bool) error {
				processed = append(processed, d.Newest().Object.(*api.Pod).Name)
				if len(processed) == 1 {
					close(inProcess)
					<-release // hold the first item while ctx ends
				}
				return nil
			},
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.Run(ctx) }()
		<-inProcess
		t.Log("informer (played by the test): Process holds default/a; cancelling the context")
		cancel() // happens before the first Process call returns
		close(release)
		<-done
		t.Logf("informer: processed %v; the rest was still queued when the context ended", processed)
		require.Equal(t, []string{"a"}, processed, "b and c were still queued when ctx ended")
	})
}

// NewIndexerInformer: an informer for one consumer, handler called directly.
// Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), the workqueue
// example's cache.NewIndexerInformer.
func TestNewIndexerInformer_CacheAndHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeLW(pod("a")).tracing(trace.ForTest(t))
		rec := &recorder{}
		t.Log("NewIndexerInformer has no Tracer option: the story is the server's side and what the handler got")
		store, ctrl := NewIndexerInformer(lw, &api.Pod{}, 0, rec, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
		runInformer(t, ctrl)
		synctest.Wait()
		require.True(t, ctrl.HasSynced())
		lw.Add(pod("b"))
		lw.Delete(pod("a"))
		synctest.Wait()
		for _, ev := range rec.Events() {
			t.Logf("handler: %s", ev)
		}
		require.Equal(t, []string{"add default/a@1 initial", "add default/b@2", "delete default/a@3"}, rec.Events())
		require.Equal(t, []string{"default/b@2"}, cachedKeys(store))
		keys, err := store.IndexKeys(indexer.NamespaceIndex, "default")
		require.NoError(t, err)
		require.Equal(t, []string{"default/b"}, keys)
	})
}

// NewInformer's resync: every cached object comes back as an update with
// old == new, once per period.
func TestNewInformer_Resync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(time.Unix(0, 0))
		lw := newFakeLW(pod("a")).tracing(trace.ForTest(t))
		rec := &recorder{}
		t.Log("NewInformer has no Tracer option: the story is the server's side and what the handler got")
		store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
		ctrl := newInformer(lw, &api.Pod{}, time.Minute, rec, store, clk) // NewInformer with a fake clock
		runInformer(t, ctrl)
		synctest.Wait()
		t.Log("clock: one resync period (1m) passes")
		clk.Step(time.Minute)
		synctest.Wait()
		for _, ev := range rec.Events() {
			t.Logf("handler: %s", ev)
		}
		require.Equal(t, []string{"add default/a@1 initial", "update default/a@1->default/a@1"}, rec.Events())
	})
}

// WaitForCacheSync returns true once every function says synced, false if
// the context ends first.
func TestWaitForCacheSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		require.True(t, WaitForCacheSync(t.Context()), "nothing to wait for")

		synced := make(chan struct{})
		isSynced := func() bool {
			select {
			case <-synced:
				return true
			default:
				return false
			}
		}
		result := make(chan bool)
		go func() { result <- WaitForCacheSync(t.Context(), func() bool { return true }, isSynced) }()
		synctest.Wait()
		select {
		case <-result:
			t.Fatal("returned before synced")
		default:
		}
		t.Log("informer: WaitForCacheSync waits while one of its two HasSynced is false")
		close(synced)
		require.True(t, <-result)
		t.Log("informer: both synced: WaitForCacheSync returned true")

		ctx, cancel := context.WithCancel(t.Context())
		go func() { result <- WaitForCacheSync(ctx, func() bool { return false }) }()
		cancel()
		require.False(t, <-result)
		t.Log("informer: never synced, context cancelled: WaitForCacheSync returned false")
	})
}

// The page size in the controller's Config reaches the Reflector it builds
// ("Kubernetes 源码阅读 - Informer", 启动 Controller: controller.Run builds
// the Reflector with the Config's WatchListPageSize).
func TestController_WatchListPageSizeReachesTheReflector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := trace.ForTest(t)
		fake := newFakeLW(pod("a"), pod("b")).tracing(tr)
		var limits []int64
		lw := &listwatch.ListWatch{
			ListFunc: func(ctx context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
				limits = append(limits, opts.Limit)
				return fake.List(ctx, opts)
			},
			WatchFunc: fake.Watch,
		}
		c := New(Config{
			Queue:             deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: tr}),
			ListerWatcher:     lw,
			Process:           func(deltafifo.Deltas, bool) error { return nil },
			WatchListPageSize: 1,
			Logger:            testLogger(t, ""),
			Tracer:            tr,
		})
		stop := runInformer(t, c)
		synctest.Wait()
		require.True(t, c.HasSynced())
		require.Equal(t, []int64{1}, limits[:1], "the first list asks for pages of 1")
		trace.Checkf(t, "Config.WatchListPageSize 1: the Reflector's list asked for limit=%d", limits[0])
		stop()
	})
}
