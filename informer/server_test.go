package informer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// These tests run informers against the in-process fake API server over
// real HTTP, and break things with its fault injection.

// What was there before the informer started reaches every handler as
// adds with isInInitialList, in list order; later creations are plain
// adds. Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), step 7:
// the handler receives the complete list as ADDED notifications, so it never
// has to care about the List/Watch split.
func TestInformer_InitialListArrivesAsAdds(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		e := newServerEnv(t, fakeapiserver.Options{})
		a, b := e.create(pod("a")), e.create(pod("b"))
		elsewhere := pod("elsewhere")
		elsewhere.Namespace = "kube-system" // not in the informer's namespace
		e.create(elsewhere)

		inf := e.podInformer(kind, nil)
		rec := &recorder{}
		reg, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		runInformer(t, inf)
		require.True(t, WaitForCacheSync(t.Context(), reg.HasSynced))
		require.Equal(t, []string{"add " + describe(a) + " initial", "add " + describe(b) + " initial"}, rec.Events())

		c := e.create(pod("c"))
		e.eventually(func() bool { return rec.Len() == 3 })
		require.Equal(t, "add "+describe(c), rec.Events()[2])
		e.eventually(func() bool { return inf.LastSyncResourceVersion() == c.GetResourceVersion() }, "the version moves just after the queue add")
		require.Equal(t, 1, e.lists("pods"))
		if queueKindsSubtest(t) == todaySubtest {
			// Today's informer: the streaming list went on as the watch.
			require.Equal(t, 0, e.watches("pods"))
			require.Equal(t, 1, e.srv.RequestCount("watch", "pods"))
			require.Equal(t, 0, e.srv.RequestCount("list", "pods"))
		} else {
			require.Equal(t, 1, e.srv.RequestCount("list", "pods"))
			require.Equal(t, 1, e.srv.RequestCount("watch", "pods"))
		}
	})
}

// A delete the client missed while its watch was down (the server's
// history was compacted meanwhile, so it cannot catch up from its last
// resourceVersion) comes out of the relist as OnDelete of a
// DeletedFinalStateUnknown holding the last state the cache knew.
// Article: "informer" notes §3, the closing question (can list/watch lose
// events?); kubernetes#112354 and longhorn#1900 (handlers must unwrap it).
func TestInformer_TombstoneWhenDeleteMissedDuringOutage(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		tr, traceRec := traced(t)
		e := newServerEnv(t, fakeapiserver.Options{Tracer: tr})
		e.expectWarnings() // the 410 after the outage
		e.create(pod("a"))
		e.create(pod("b"))
		inf := e.podInformer(kind, nil)
		rec := &recorder{}
		var mu sync.Mutex
		var deleted []*api.Pod
		_, err := inf.AddEventHandlerWithOptions(rec, HandlerOptions{Name: "A"})
		require.NoError(t, err)
		reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			// The unwrap every DeleteFunc needs.
			if tombstone, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			mu.Lock()
			deleted = append(deleted, obj.(*api.Pod))
			mu.Unlock()
		}}, HandlerOptions{Name: "B"})
		require.NoError(t, err)
		t.Log("handlers: A records every notification; B is a DeleteFunc that unwraps tombstones")
		runInformer(t, inf)
		// Synced, and watching: DropEvents hides events from the watches
		// open when they happen, so a watch opened later would still replay
		// the DELETED from the server's history.
		e.eventually(func() bool { return reg.HasSynced() && e.srv.OpenWatches("pods") == 1 })

		// b is deleted; the client sees the graceful-deletion MODIFIED but
		// the DELETED is lost to it.
		t.Log("server: deleting default/b while its DELETED event is dropped (the client sees only the MODIFIED)")
		e.srv.DropEvents(func(ev fakeapiserver.Event) bool { return ev.Type == api.Deleted && ev.Name == "b" })
		_, err = e.srv.Delete("pods", "default", "b")
		require.NoError(t, err)
		var lastSeen api.Object
		e.eventually(func() bool {
			lastSeen, _, _ = inf.GetStore().GetByKey("default/b")
			return lastSeen != nil && lastSeen.GetDeletionTimestamp() != nil
		})
		e.srv.DropEvents(nil)

		// The outage: the watch breaks, and the history it would resume
		// from is compacted away. The watch gets 410 Expired; the relist
		// no longer has b.
		t.Log("server: the outage: compacting the history and closing the watch, so the client cannot resume")
		e.srv.CompactHistory()
		e.srv.CloseWatches()
		e.eventually(func() bool {
			_, exists, _ := inf.GetStore().GetByKey("default/b")
			return !exists
		})
		t.Logf("informer: the relist has no default/b: the cache now holds %v", cachedKeys(inf.GetStore()))

		// Handlers run on their own goroutines: wait for A to have handled
		// the tombstone before reading what it recorded.
		lastEvent := func() string { events := rec.Events(); return events[len(events)-1] }
		e.eventually(func() bool { return lastEvent() == "delete tombstone("+describe(lastSeen)+")" })
		require.Equal(t, "delete tombstone("+describe(lastSeen)+")", lastEvent())
		e.eventually(func() bool { mu.Lock(); defer mu.Unlock(); return len(deleted) == 1 })
		mu.Lock()
		require.Equal(t, "b", deleted[0].Name, "the tombstone carries the last state the cache knew")
		mu.Unlock()
		require.Equal(t, 2, e.lists("pods"), "one relist")
		require.Equal(t, e.serverKeys("pods", "default"), cachedKeys(inf.GetStore()))

		// What the trace shows: the compaction, the tombstone the relist
		// queued for b, and each handler's OnDelete of it.
		require.NotEmpty(t, eventsOf(traceRec, trace.StageServer, "history compacted"))
		tombstones := eventsOf(traceRec, trace.StageDeltaFIFO, "tombstone queued")
		if in136Subtest(t) {
			// client-go: AtomicFIFO (1.36). The relist was one ReplacedAll
			// item; the informer found b gone when it applied it.
			require.Empty(t, tombstones)
			replaces := eventsOf(traceRec, trace.StageInformer, "cache replace")
			require.Len(t, replaces, 2, "the initial list and the relist")
			require.Equal(t, "7", replaces[1].Get(trace.KeyRV))
		} else {
			require.Len(t, tombstones, 1)
			require.Equal(t, "default/b", tombstones[0].Key())
		}
		var handlers []string
		for _, ev := range eventsOf(traceRec, trace.StageInformer, "OnDelete (final state unknown)") {
			require.Equal(t, "default/b", ev.Key())
			handlers = append(handlers, ev.Get(trace.KeyHandler))
		}
		require.ElementsMatch(t, []string{"A", "B"}, handlers)
	})
}

// An informer with a label selector: an object whose labels stop matching
// is deleted from the cache (the server sends DELETED to a filtered watch),
// one that starts matching is added. A FilteringResourceEventHandler on an
// unfiltered informer makes the same transitions on the client side.
func TestInformer_SelectorTransitionDeletes(t *testing.T) {
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		e := newServerEnv(t, fakeapiserver.Options{})
		a := e.create(pod("a", "app=web"))
		e.create(pod("b", "app=db"))

		filtered := e.podInformer(kind, func(o *listwatch.ListOptions) { o.LabelSelector = "app=web" })
		serverSide := &recorder{}
		_, err := filtered.AddEventHandler(serverSide)
		require.NoError(t, err)
		unfiltered := e.podInformer(kind, nil)
		clientSide := &recorder{}
		_, err = unfiltered.AddEventHandler(FilteringResourceEventHandler{
			FilterFunc: func(obj any) bool { return obj.(*api.Pod).Labels["app"] == "web" },
			Handler:    clientSide,
		})
		require.NoError(t, err)
		runInformer(t, filtered)
		runInformer(t, unfiltered)
		require.True(t, WaitForCacheSync(t.Context(), filtered.HasSynced, unfiltered.HasSynced))
		require.Equal(t, []string{describe(a)}, cachedKeys(filtered.GetStore()))

		a2 := e.update(pod("a", "app=db"))  // leaves the selector
		b2 := e.update(pod("b", "app=web")) // enters it
		e.eventually(func() bool { return serverSide.Len() == 3 && clientSide.Len() == 3 })
		require.Equal(t, []string{"add " + describe(a) + " initial", "delete default/a@" + a2.GetResourceVersion(), "add " + describe(b2)}, serverSide.Events())
		require.Equal(t, []string{"add " + describe(a) + " initial", "delete " + describe(a), "add " + describe(b2)}, clientSide.Events(),
			"client-side, the delete carries the last accepted state")
		require.Equal(t, []string{describe(b2)}, cachedKeys(filtered.GetStore()))
	})
}

// The informer is eventually consistent: after random creates, updates and
// deletes interleaved with dropped watches, outages that lose events, and
// compactions, the cache equals the server's list, and every handler has
// seen each object's versions in increasing order, its view ending equal to
// the server's too (docs/faq.md: can events be lost). "informer" notes §3 设计总结
// (the closing question: can list/watch lose events, and does it matter?).
//
// The writes run at full speed beside the informer, but each outage starts
// only once the informer has caught up with the server over a live watch, so
// that the outage really hides events from it: every outage that ends with a
// compaction must then cost a relist, whatever the scheduling.
//
// CI runs 400 operations; `make chaos` runs many more (KINFORMER_CHAOS_OPS).
func TestInformer_EventuallyConsistentUnderFaults(t *testing.T) {
	ops := 400
	if v := os.Getenv("KINFORMER_CHAOS_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "KINFORMER_CHAOS_OPS")
		ops = n
	}
	queueKinds(t, func(t *testing.T, kind QueueKind) {
		// 400 operations make tens of thousands of events: the log shows the
		// server's faults and the Reflector's and informer's answers to
		// them (relists, tombstones), not every object's every hop.
		e := newServerEnv(t, fakeapiserver.Options{History: 40, Tracer: faultStory(t)})
		lw := e.listWatch(listwatch.ConfigMaps, nil)
		inf := NewSharedIndexInformerWithOptions(lw, &api.ConfigMap{}, testOptions(t, SharedIndexInformerOptions{Queue: kind, Clock: e.clock,
			Tracer: e.tracer, Logger: expectedLogs(t)}))
		early := newOrderChecker()
		_, err := inf.AddEventHandler(early)
		require.NoError(t, err)
		runInformer(t, inf)
		handlers := []*orderChecker{early}
		e.eventually(func() bool { return inf.HasSynced() && e.srv.OpenWatches("configmaps") == 1 }, "synced and watching")
		// Only configmaps are written, so once the Reflector's version is the
		// server's, the informer has had every event, the latest ones over
		// the watch it has open now.
		caughtUp := func() bool { return inf.LastSyncResourceVersion() == e.srv.ResourceVersion() }

		rnd := rand.New(rand.NewPCG(6, uint64(kind)))
		live := map[string]bool{}
		compactions := 0
		for op := range ops {
			e.randomWrite(rnd, live, 25, op)
			switch op % 50 {
			case 10: // a dropped watch: resumes from its last resourceVersion
				e.srv.CloseWatches()
			case 20: // an outage begins: the client misses every event
				e.eventually(caughtUp, "caught up before outage at op %d", op)
				e.srv.DropEvents(func(fakeapiserver.Event) bool { return true })
			case 30: // it ends with the watch broken, sometimes after a compaction
				e.srv.DropEvents(nil)
				if rnd.IntN(2) == 0 {
					e.srv.CompactHistory()
					compactions++
				}
				e.srv.CloseWatches()
			case 40:
				e.clock.Step(2 * time.Second) // let a Reflector waiting out a backoff go on
			}
			if op == 200 { // a handler that joins half way
				late := newOrderChecker()
				_, err := inf.AddEventHandler(late)
				require.NoError(t, err)
				handlers = append(handlers, late)
			}
		}

		want := e.serverKeys("configmaps", "default")
		e.eventually(func() bool {
			if !slices.Equal(want, cachedKeys(inf.GetStore())) {
				return false
			}
			for _, h := range handlers {
				if !slices.Equal(want, h.view()) {
					return false
				}
			}
			return true
		}, "the cache and every handler's view end equal to the server's list")
		for i, h := range handlers {
			require.Empty(t, h.violations(), "handler %d saw versions out of order", i)
		}
		relists := e.lists("configmaps") - 1
		t.Logf("%d compactions, %d relists, %d watches, %d tombstones, %d notifications to the first handler",
			compactions, relists, e.watches("configmaps"), early.tombstones, early.notifications)
		require.Positive(t, compactions)
		require.GreaterOrEqual(t, relists, compactions, "every outage ending in a compaction forced a relist")
		require.Positive(t, early.tombstones, "and some deletes were only learnt from a relist")
	})
}

// orderChecker is a handler that keeps its own view of the objects, built
// only from its notifications, and writes down every notification that
// breaks the informer's ordering promise:
//
//   - an add is for a key it does not have;
//   - an update's old object is the one it has, and its new version is
//     newer (no resyncs run in these tests);
//   - a delete is for a key it has, with a newer version (a DELETED event)
//     or, for a tombstone, the version it has.
type orderChecker struct {
	mu                        sync.Mutex
	objs                      map[string]api.Object
	broken                    []string
	notifications, tombstones int
}

func newOrderChecker() *orderChecker { return &orderChecker{objs: map[string]api.Object{}} }

func rvOf(o api.Object) int {
	n, _ := strconv.Atoi(o.GetResourceVersion())
	return n
}

func (c *orderChecker) OnAdd(obj any, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notifications++
	o := obj.(api.Object)
	key := describeKey(o)
	if _, exists := c.objs[key]; exists {
		c.broken = append(c.broken, "add of a known key "+describe(o))
	}
	c.objs[key] = o
}

func (c *orderChecker) OnUpdate(oldObj, newObj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notifications++
	old, cur := oldObj.(api.Object), newObj.(api.Object)
	key := describeKey(cur)
	had, exists := c.objs[key]
	switch {
	case !exists:
		c.broken = append(c.broken, "update of an unknown key "+describe(cur))
	case rvOf(old) != rvOf(had):
		c.broken = append(c.broken, fmt.Sprintf("update from %s but the handler had %s", describe(old), describe(had)))
	case rvOf(cur) <= rvOf(had):
		c.broken = append(c.broken, fmt.Sprintf("update to %s is not newer than %s", describe(cur), describe(had)))
	}
	c.objs[key] = cur
}

func (c *orderChecker) OnDelete(obj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notifications++
	var key string
	rv, tombstone := 0, false
	switch o := obj.(type) {
	case deltafifo.DeletedFinalStateUnknown:
		key, tombstone = o.Key, true
		c.tombstones++
		if o.Obj != nil {
			rv = rvOf(o.Obj)
		}
	case api.Object:
		key, rv = describeKey(o), rvOf(o)
	}
	had, exists := c.objs[key]
	switch {
	case !exists:
		c.broken = append(c.broken, "delete of an unknown key "+describe(obj))
	case tombstone && rv != 0 && rv != rvOf(had):
		c.broken = append(c.broken, fmt.Sprintf("tombstone %s but the handler had %s", describe(obj), describe(had)))
	case !tombstone && rv <= rvOf(had):
		c.broken = append(c.broken, fmt.Sprintf("delete at %s is not newer than %s", describe(obj), describe(had)))
	}
	delete(c.objs, key)
}

func (c *orderChecker) view() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, o := range c.objs {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return out
}

func (c *orderChecker) violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.broken...)
}

func describeKey(o api.Object) string { return o.GetNamespace() + "/" + o.GetName() }
