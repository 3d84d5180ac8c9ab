package informer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// These tests run the whole informer (Reflector, queue, HandleDeltas,
// processor, listeners) in memory against fakeLW inside a synctest bubble:
// synctest.Wait() returns once every goroutine is blocked, that is, once
// every notification that can be delivered has been.

// HandleDeltas applied by hand to a DeltaFIFO: what each delta type does to
// the cache and which notification each handler gets.
// Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), steps 3-6;
// client-go's processDeltas.
func TestInformer_HandleDeltasByDeltaType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(time.Unix(0, 0))
		// The articles' informer: the DeltaFIFO's per-object delta types.
		s := NewSharedIndexInformerWithOptions(nil, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Pipeline: Articles, ResyncPeriod: time.Second, Clock: clk})).(*sharedIndexInformer)
		resyncing, notResyncing := &recorder{}, &recorder{}
		_, err := s.AddEventHandler(resyncing) // the default period: 1 s
		require.NoError(t, err)
		_, err = s.AddEventHandlerWithResyncPeriod(notResyncing, 0)
		require.NoError(t, err)
		s.processor.start()
		defer s.processor.stop()

		q := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{KnownObjects: s.indexer, EmitDeltaTypeReplaced: true, Tracer: s.tracer})
		at := func(p *api.Pod, rv string) *api.Pod { p.ResourceVersion = rv; return p }
		steps := []struct {
			name          string
			do            func()
			want          []string // what the resyncing handler gets
			wantNoResync  []string // what the other gets, if different
			wantCached    []string
			sameForOthers bool
		}{{
			name: "the first Replace is the initial list: adds with isInInitialList",
			do:   func() { require.NoError(t, q.Replace([]api.Object{at(pod("a"), "1"), at(pod("b"), "2")}, "2")) },
			want: []string{"add default/a@1 initial", "add default/b@2 initial"}, sameForOthers: true,
			wantCached: []string{"default/a@1", "default/b@2"},
		}, {
			name: "Updated: update with the cached object as old",
			do:   func() { require.NoError(t, q.Update(at(pod("a"), "3"))) },
			want: []string{"update default/a@1->default/a@3"}, sameForOthers: true,
			wantCached: []string{"default/a@3", "default/b@2"},
		}, {
			name: "Added for a cached key is an update (the key decides, not the delta type)",
			do: func() {
				require.NoError(t, q.Add(at(pod("c"), "4")))
				require.NoError(t, q.Add(at(pod("c"), "5")))
			},
			want: []string{"add default/c@4", "update default/c@4->default/c@5"}, sameForOthers: true,
			wantCached: []string{"default/a@3", "default/b@2", "default/c@5"},
		}, {
			name: "a relist: b is gone (tombstone); unchanged a and c are same-version updates, i.e. resyncs, sent to nobody due",
			do:   func() { require.NoError(t, q.Replace([]api.Object{at(pod("a"), "3"), at(pod("c"), "5")}, "6")) },
			want: []string{"delete tombstone(default/b@2)"}, sameForOthers: true,
			wantCached: []string{"default/a@3", "default/c@5"},
		}, {
			name: "Sync (a resync): update with old == new, only to handlers due for a resync",
			do: func() {
				clk.Step(time.Second)
				require.True(t, s.processor.shouldResync())
				require.NoError(t, q.Resync())
			},
			want:         []string{"update default/a@3->default/a@3", "update default/c@5->default/c@5"},
			wantNoResync: nil,
			wantCached:   []string{"default/a@3", "default/c@5"},
		}, {
			name: "Deleted: delete with the object's last state",
			do:   func() { require.NoError(t, q.Delete(at(pod("a"), "7"))) },
			want: []string{"delete default/a@7"}, sameForOthers: true,
			wantCached: []string{"default/c@5"},
		}}
		for _, step := range steps {
			before, beforeOther := resyncing.Len(), notResyncing.Len()
			step.do()
			for q.Len() > 0 {
				_, err := q.Pop(s.HandleDeltas)
				require.NoError(t, err, step.name)
			}
			synctest.Wait()
			require.ElementsMatch(t, step.want, resyncing.Events()[before:], step.name)
			wantOther := step.wantNoResync
			if step.sameForOthers {
				wantOther = step.want
			}
			require.ElementsMatch(t, wantOther, notResyncing.Events()[beforeOther:], step.name)
			require.Equal(t, step.wantCached, cachedKeys(s.GetStore()), step.name)
		}
	})
}

// Each handler gets resyncs at its own period; the Reflector's timer ticks
// at the smallest, even when that is smaller than the informer's default
// (here the default is 30 s and one handler asks for 10 s: without the
// lowered check period it would get a resync only every 30 s).
// Article: "Kubernetes 源码阅读 - Informer", Resync 机制是什么; client-go#529
// (resync updates have old == new).
func TestInformer_ResyncPerHandlerPeriod(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			clk := clock.NewFakeClock(time.Unix(0, 0))
			lw := newFakeLW(pod("a"), pod("b"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{ResyncPeriod: 30 * time.Second, Clock: clk, Queue: kind}))
			every10s, every30s, never := &recorder{}, &recorder{}, &recorder{}
			_, err := inf.AddEventHandler(every30s) // the informer's default
			require.NoError(t, err)
			_, err = inf.AddEventHandlerWithResyncPeriod(every10s, 10*time.Second)
			require.NoError(t, err)
			_, err = inf.AddEventHandlerWithResyncPeriod(never, 0)
			require.NoError(t, err)
			runInformer(t, inf)
			synctest.Wait()

			for range 6 { // one minute of resync ticks
				clk.Step(10 * time.Second)
				synctest.Wait()
			}
			resyncs := func(r *recorder) (n int) {
				for _, e := range r.Events() {
					if e == "update default/a@1->default/a@1" || e == "update default/b@2->default/b@2" {
						n++
					}
				}
				return n
			}
			require.Equal(t, 6*2, resyncs(every10s), "every 10 s, two pods")
			require.Equal(t, 2*2, resyncs(every30s), "every 30 s, two pods")
			require.Equal(t, 0, resyncs(never))
			require.Equal(t, 1, lw.Lists(), "a resync replays the cache; it never lists again")
		})
	})
}

// The resync check period is the smallest handler period, with client-go's
// rules: at least 1 s; lowered by handlers added before Run; fixed after.
func TestInformer_ResyncCheckPeriodIsSmallestHandlerPeriod(t *testing.T) {
	tests := []struct {
		name            string
		informerPeriod  time.Duration
		before          []time.Duration // handlers added before Run
		after           []time.Duration // handlers added after Run
		wantCheck       time.Duration
		wantListenerPer []time.Duration // effective period of each handler, before then after
	}{
		{"informer default only", 30 * time.Second, []time.Duration{30 * time.Second}, nil, 30 * time.Second, []time.Duration{30 * time.Second}},
		{"a smaller handler period lowers the check period", 30 * time.Second, []time.Duration{30 * time.Second, 5 * time.Second}, nil, 5 * time.Second, []time.Duration{30 * time.Second, 5 * time.Second}},
		{"under a second is raised to a second", 30 * time.Second, []time.Duration{100 * time.Millisecond}, nil, time.Second, []time.Duration{time.Second}},
		{"after Run a smaller period is raised to the check period", 30 * time.Second, nil, []time.Duration{5 * time.Second}, 30 * time.Second, []time.Duration{30 * time.Second}},
		{"after Run a larger period is kept", 10 * time.Second, nil, []time.Duration{time.Minute}, 10 * time.Second, []time.Duration{time.Minute}},
		{"an informer without resync gives no handler a resync", 0, []time.Duration{5 * time.Second}, []time.Duration{time.Second}, 0, []time.Duration{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inf := NewSharedIndexInformerWithOptions(newFakeLW(), &api.Pod{}, testOptions(t, SharedIndexInformerOptions{ResyncPeriod: tt.informerPeriod, Logger: expectedLogs(t)})).(*sharedIndexInformer)
				var regs []ResourceEventHandlerRegistration
				for _, p := range tt.before {
					reg, err := inf.AddEventHandlerWithResyncPeriod(&recorder{}, p)
					require.NoError(t, err)
					regs = append(regs, reg)
				}
				runInformer(t, inf)
				synctest.Wait()
				for _, p := range tt.after {
					reg, err := inf.AddEventHandlerWithResyncPeriod(&recorder{}, p)
					require.NoError(t, err)
					regs = append(regs, reg)
				}
				// Read under the lock, assert after: a failing require must not
				// leave the lock held (the informer's cleanup would hang on it).
				inf.startedLock.Lock()
				check := inf.resyncCheckPeriod
				inf.startedLock.Unlock()
				var periods []time.Duration
				for _, reg := range regs {
					periods = append(periods, reg.(*processorListener).resyncPeriod) // fixed at registration
				}
				require.Equal(t, tt.wantCheck, check)
				require.Equal(t, tt.wantListenerPer, periods)
			})
		})
	}
}

// A handler added after Run first gets an add (isInInitialList) for every
// cached object, then the live changes. Article: "informer" notes §2.6
// (observer registration at any time); client-go's late-handler replay.
func TestInformer_LateHandlerReplay(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a"), pod("b"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind}))
			runInformer(t, inf)
			synctest.Wait()
			lw.Modify(pod("a", "v=2"))
			synctest.Wait()

			late := &recorder{}
			reg, err := inf.AddEventHandler(late)
			require.NoError(t, err)
			synctest.Wait()
			require.ElementsMatch(t, []string{"add default/a@3 initial", "add default/b@2 initial"}, late.Events(),
				"the replay is the cache as it is now, not the history")
			require.True(t, reg.HasSynced())

			lw.Add(pod("c"))
			synctest.Wait()
			require.Equal(t, "add default/c@4", late.Events()[2], "then the live changes, not initial")
		})
	})
}

// A removed handler gets nothing more; the others carry on. Removing twice
// is fine; a foreign handle is an error.
func TestInformer_RemoveEventHandler(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind}))
			removed, kept, neverRun := &recorder{}, &recorder{}, &recorder{}
			regRemoved, err := inf.AddEventHandler(removed)
			require.NoError(t, err)
			_, err = inf.AddEventHandler(kept)
			require.NoError(t, err)
			regNeverRun, err := inf.AddEventHandler(neverRun)
			require.NoError(t, err)
			require.NoError(t, inf.RemoveEventHandler(regNeverRun), "removing before Run")

			runInformer(t, inf)
			synctest.Wait()
			require.Equal(t, []string{"add default/a@1 initial"}, removed.Events())

			require.NoError(t, inf.RemoveEventHandler(regRemoved))
			lw.Add(pod("b"))
			synctest.Wait()
			require.Equal(t, []string{"add default/a@1 initial"}, removed.Events(), "nothing after removal")
			require.Equal(t, []string{"add default/a@1 initial", "add default/b@2"}, kept.Events())
			require.Empty(t, neverRun.Events())

			require.NoError(t, inf.RemoveEventHandler(regRemoved), "removing twice is not an error")
			require.ErrorContains(t, inf.RemoveEventHandler(foreignRegistration{}), "not a registration returned by AddEventHandler")
		})
	})
}

type foreignRegistration struct{}

func (foreignRegistration) HasSynced() bool               { return true }
func (foreignRegistration) HasSyncedChecker() DoneChecker { return nil }
func (foreignRegistration) Pending() int                  { return 0 }

// A handler that blocks holds up neither the informer (its cache keeps up)
// nor the other handlers; its backlog waits in its own buffer, visible as
// Pending. Article: "informer" notes §2.7 (an unbounded queue per handler);
// client-go#1326 (how many notifications are pending?).
func TestInformer_SlowHandlerDoesNotBlockOthers(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			const n = 500
			first, last := "default/p000", fmt.Sprintf("default/p%03d", n-1)
			// 500 pods make thousands of events: the log follows the first,
			// the second and the last; the Recorder keeps them all.
			rec := trace.NewRecorder()
			lw := newFakeLW()
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind,
				Tracer: trace.Tee(traceKeys(t, first, "default/p001", last), rec.Tracer())}))
			gate := make(chan struct{})
			slow := &recorder{}
			openGate := sync.OnceFunc(func() { close(gate) })
			regSlow, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(obj any, initial bool) {
				<-gate
				slow.OnAdd(obj, initial)
			}}, HandlerOptions{Name: "slow"})
			require.NoError(t, err)
			fast := &recorder{}
			regFast, err := inf.AddEventHandlerWithOptions(fast, HandlerOptions{Name: "fast"})
			require.NoError(t, err)
			t.Log("handlers: slow blocks in its first OnAdd until the test opens a gate; fast returns at once")
			runInformer(t, inf)
			t.Cleanup(openGate) // runs before the informer's stop: a failed check must not leave the handler blocked

			t.Logf("server (fakeLW, played by the test): creating %d pods; the log follows %s, default/p001 and %s", n, first, last)
			for i := range n {
				lw.Add(pod(fmt.Sprintf("p%03d", i)))
			}
			synctest.Wait()
			t.Logf("informer: cache holds %d pods; fast: %d handled, %d pending; slow: %d handled, %d pending",
				len(inf.GetStore().List()), fast.Len(), regFast.Pending(), slow.Len(), regSlow.Pending())
			require.Len(t, inf.GetStore().List(), n, "the cache is up to date")
			require.Equal(t, n, fast.Len(), "the fast handler got everything")
			require.Equal(t, 0, regFast.Pending())
			require.Equal(t, 0, slow.Len(), "the slow handler is stuck on its first notification")
			require.Equal(t, n, regSlow.Pending(), "its backlog: one in progress, the rest buffered")
			notifySlow := eventsOf(rec, trace.StageInformer, "notify")
			notifySlow = slices.DeleteFunc(notifySlow, func(e trace.Event) bool { return e.Get(trace.KeyHandler) != "slow" })
			require.Len(t, notifySlow, n, "the informer notified slow of every pod without waiting for it")
			require.Equal(t, last, notifySlow[n-1].Key())
			require.Equal(t, strconv.Itoa(n), notifySlow[n-1].Get("pending"), "the trace shows slow's backlog growing to %d", n)

			t.Log("handlers: opening slow's gate")
			openGate()
			synctest.Wait()
			require.Equal(t, fast.Events(), slow.Events(), "the slow handler catches up, in the same order")
			require.Equal(t, 0, regSlow.Pending())
			t.Logf("informer: slow caught up: %d handled, %d pending", slow.Len(), regSlow.Pending())
		})
	})
}

// The informer's HasSynced means "the cache holds the initial list"; a
// registration's HasSynced means "and this handler has handled it".
// kubernetes#113763: controllers that waited on the informer's HasSynced
// started workers while their handlers had not yet queued every object.
func TestInformer_HandlerHasSyncedVsInformerHasSynced(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a"), pod("b"), pod("c"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind}))
			gate := make(chan struct{})
			openGate := sync.OnceFunc(func() { close(gate) })
			regSlow, err := inf.AddEventHandler(ResourceEventHandlerFuncs{AddFunc: func(any, bool) { <-gate }})
			require.NoError(t, err)
			regFast, err := inf.AddEventHandler(&recorder{})
			require.NoError(t, err)
			require.False(t, inf.HasSynced(), "not before Run")
			require.False(t, regFast.HasSynced())

			runInformer(t, inf)
			t.Cleanup(openGate)
			synctest.Wait()
			require.True(t, inf.HasSynced(), "the cache holds the initial list")
			require.True(t, regFast.HasSynced(), "this handler has handled it")
			require.False(t, regSlow.HasSynced(), "this one has not: it is blocked on its first add")
			require.Equal(t, 3, regSlow.Pending())
			trace.Checkf(t, "informer.HasSynced()=%v (the cache holds the list); the fast handler's registration HasSynced()=%v; the blocked one's HasSynced()=%v, %d adds pending",
				inf.HasSynced(), regFast.HasSynced(), regSlow.HasSynced(), regSlow.Pending())

			openGate()
			synctest.Wait()
			require.True(t, regSlow.HasSynced())
			trace.Checkf(t, "released, the slow handler's HasSynced()=%v", regSlow.HasSynced())
		})
	})
}

// A handler that panics is recovered and logged; it keeps getting later
// notifications, the other handlers are unaffected, and it still syncs.
func TestInformer_PanickingHandlerIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		logger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&logs, nil), expectedLogs(t).Handler()))
		lw := newFakeLW(pod("good-1"), pod("bad"), pod("good-2"))
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Logger: logger}))
		handled := &recorder{}
		regPanicky, err := inf.AddEventHandler(ResourceEventHandlerFuncs{AddFunc: func(obj any, initial bool) {
			if obj.(*api.Pod).Name == "bad" {
				panic("cannot handle bad")
			}
			handled.OnAdd(obj, initial)
		}})
		require.NoError(t, err)
		other := &recorder{}
		_, err = inf.AddEventHandler(other)
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()

		require.Equal(t, []string{"add default/good-1@1 initial", "add default/good-2@3 initial"}, handled.Events())
		require.Len(t, other.Events(), 3)
		require.True(t, regPanicky.HasSynced(), "a panicking initial add still counts as handled")
		require.Contains(t, logs.String(), "event handler panicked")
		require.Contains(t, logs.String(), "cannot handle bad")

		lw.Add(pod("good-3"))
		synctest.Wait()
		require.Equal(t, "add default/good-3@4", handled.Events()[2], "the handler keeps getting notifications")
	})
}

// lockedBuffer is a bytes.Buffer safe for the logger's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The Transform option rewrites objects before they are cached; a transform that
// blanks resourceVersion turns every update into a "resync" that handlers
// without a resync period never see (falcosecurity/k8s-metacollector#188).
func TestInformer_Transform(t *testing.T) {
	annotated := func(name string) *api.Pod {
		p := pod(name)
		p.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", 1000)}
		return p
	}
	t.Run("the cache and the handlers get the transformed object", func(t *testing.T) {
		queueKinds(t, func(t *testing.T, kind QueueKind) {
			synctest.Test(t, func(t *testing.T) {
				lw := newFakeLW(annotated("a"))
				inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind,
					Transform: func(obj api.Object) (api.Object, error) {
						p := obj.(*api.Pod).DeepCopy()
						p.Annotations = nil
						return p, nil
					}}))
				var got []*api.Pod
				var mu sync.Mutex
				_, err := inf.AddEventHandler(ResourceEventHandlerFuncs{
					AddFunc:    func(obj any, _ bool) { mu.Lock(); got = append(got, obj.(*api.Pod)); mu.Unlock() },
					UpdateFunc: func(_, obj any) { mu.Lock(); got = append(got, obj.(*api.Pod)); mu.Unlock() },
				})
				require.NoError(t, err)
				runInformer(t, inf)
				synctest.Wait()

				lw.Modify(annotated("a"))
				synctest.Wait()
				cached, exists, err := inf.GetStore().GetByKey("default/a")
				require.NoError(t, err)
				require.True(t, exists)
				require.Nil(t, cached.GetAnnotations())
				require.Equal(t, "2", cached.GetResourceVersion())
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, got, 2)
				for _, p := range got {
					require.Nil(t, p.Annotations)
				}
			})
		})
	})
	t.Run("blanking resourceVersion makes real updates look like resyncs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a", "v=1"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, SharedIndexInformerOptions{
				Transform: func(obj api.Object) (api.Object, error) {
					p := obj.(*api.Pod).DeepCopy()
					p.ResourceVersion = "" // DON'T: see the Transform option's doc
					return p, nil
				}})
			rec := &recorder{}
			_, err := inf.AddEventHandler(rec)
			require.NoError(t, err)
			runInformer(t, inf)
			synctest.Wait()

			lw.Modify(pod("a", "v=2"))
			synctest.Wait()
			cached, _, _ := inf.GetStore().GetByKey("default/a")
			require.Equal(t, "2", cached.GetLabels()["v"], "the cache has the update")
			require.Equal(t, []string{"add default/a@ initial"}, rec.Events(),
				"but old and new both have resourceVersion \"\", so the update was taken for a resync and the handler never saw it")
		})
	})
}

// The watch error handler is an option of the informer, as it is of the
// Reflector: the informer hands it to the Reflector it builds, which calls it
// for every failed list (and watch) before it backs off and tries again.
func TestInformer_WatchErrorHandlerOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeLW(pod("a")).tracing(trace.ForTest(t))
		failures := 1
		lw := &listwatch.ListWatch{
			ListFunc: func(ctx context.Context, opts listwatch.ListOptions) (*listwatch.ObjectList, error) {
				if failures > 0 {
					failures--
					return nil, errors.New("apiserver down")
				}
				return fake.List(ctx, opts)
			},
			WatchFunc: fake.Watch,
		}
		var seen []string
		clk := clock.NewFakeClock(time.Unix(0, 0))
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{
			Clock: clk,
			WatchErrorHandler: func(_ *reflector.Reflector, err error) {
				t.Logf("watch error handler: %v", err)
				seen = append(seen, err.Error())
			},
		}))
		runInformer(t, inf)
		synctest.Wait()
		require.Len(t, seen, 1, "the first list failed")
		t.Log("clock: 2s pass, the Reflector's backoff (at most 1.6s) with them")
		clk.Step(2 * time.Second)
		synctest.Wait()
		require.Len(t, seen, 1)
		require.Contains(t, seen[0], "apiserver down")
		require.True(t, inf.HasSynced(), "the second list succeeded")
	})
}

// Run stops everything when its context ends: the Reflector, the
// processLoop and every listener (the leak check in TestMain and the
// synctest bubble both fail if a goroutine is left). A stopped informer
// refuses new handlers and a second Run.
func TestInformer_StopsOnCancel(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeLW(pod("a"))
			inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Queue: kind, Logger: expectedLogs(t)}))
			_, err := inf.AddEventHandler(&recorder{})
			require.NoError(t, err)
			require.NoError(t, inf.SetWatchErrorHandler(nil))
			stop := runInformer(t, inf)
			synctest.Wait()
			require.False(t, inf.IsStopped())
			require.Equal(t, "1", inf.LastSyncResourceVersion())
			require.ErrorContains(t, inf.SetWatchErrorHandler(nil), "already started")

			stop()
			require.True(t, inf.IsStopped())
			_, err = inf.AddEventHandler(&recorder{})
			require.ErrorContains(t, err, "the informer has stopped")
			require.ErrorContains(t, inf.AddIndexers(nil), "stopped")

			ran := make(chan struct{})
			go func() { inf.Run(context.Background()); close(ran) }()
			<-ran // a second Run returns at once
		})
	})
}
