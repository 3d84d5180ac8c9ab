package informer

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/trace"
)

// cmAt is a ConfigMap key ("namespace/name") at resourceVersion rv.
func cmAt(key, rv string) *api.ConfigMap {
	ns, name, _ := indexer.SplitMetaNamespaceKey(key)
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// The lab sees the cache after every write: its objects by key with their
// versions, each index's values and keys, and the version the store last
// recorded. A ReplacedAll is one write: its per-key events show the cache
// after that write, as "cache replace" does.
func TestInformer_InspectShowsCacheAndIndices(t *testing.T) {
	lab, tr := labtest.New(t)
	tr = tr.Stage(trace.StageInformer)
	idx := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	nothing := func(notification) {}

	t.Log("queue (played by the test): a added in default, b in kube-system; then a relist found a gone (a tombstone)")
	require.NoError(t, processDeltas(idx, deltafifo.Deltas{{Type: deltafifo.Added, Object: cmAt("default/a", "1")}}, true, tr, nothing))
	require.NoError(t, processDeltas(idx, deltafifo.Deltas{{Type: deltafifo.Added, Object: cmAt("kube-system/b", "2")}}, true, tr, nothing))
	require.Equal(t, CacheState{
		Objects: []CachedObject{{Key: "default/a", RV: "1"}, {Key: "kube-system/b", RV: "2"}},
		Indices: map[string]map[string][]string{indexer.NamespaceIndex: {"default": {"default/a"}, "kube-system": {"kube-system/b"}}},
		SyncRV:  "2",
	}, labtest.Last[CacheState](lab, "cache add"))
	tomb := deltafifo.DeletedFinalStateUnknown{Key: "default/a", Obj: cmAt("default/a", "1")}
	require.NoError(t, processDeltas(idx, deltafifo.Deltas{{Type: deltafifo.Deleted, Object: tomb}}, false, tr, nothing))
	gone := labtest.Last[CacheState](lab, "cache delete (tombstone: final state unknown)")
	require.Equal(t, []CachedObject{{Key: "kube-system/b", RV: "2"}}, gone.Objects)
	require.Equal(t, map[string][]string{"kube-system": {"kube-system/b"}}, gone.Indices[indexer.NamespaceIndex], "a value with no key left leaves the index")

	t.Log("queue: a ReplacedAll at rv 9 of c alone; a bookmark at 12; a batch that adds d and updates c")
	require.NoError(t, processDeltas(idx, deltafifo.Deltas{{Type: deltafifo.ReplacedAll,
		Object: deltafifo.ReplacedAllInfo{ResourceVersion: "9", Objects: []api.Object{cmAt("default/c", "8")}}}}, false, tr, nothing))
	replaced := labtest.Last[CacheState](lab, "cache replace")
	require.Equal(t, []CachedObject{{Key: "default/c", RV: "8"}}, replaced.Objects)
	require.Equal(t, "9", replaced.SyncRV, "the list's version, not its newest object's")
	require.Equal(t, replaced, labtest.Last[CacheState](lab, "cache add"), "c's own event after the one write shows that write")
	require.Equal(t, replaced, labtest.Last[CacheState](lab, "cache delete (tombstone: final state unknown)"))

	require.NoError(t, processDeltas(idx, deltafifo.Deltas{{Type: deltafifo.Bookmark, Object: deltafifo.BookmarkInfo{ResourceVersion: "12"}}}, false, tr, nothing))
	require.Equal(t, "12", labtest.Last[CacheState](lab, "store bookmark").SyncRV)

	require.NoError(t, processDeltasInBatch(idx, deltafifo.DeletionHandlingMetaNamespaceKeyFunc, []deltafifo.Delta{
		{Type: deltafifo.Added, Object: cmAt("default/d", "13")}, {Type: deltafifo.Updated, Object: cmAt("default/c", "14")},
	}, false, tr, func([]notification) {}))
	require.Equal(t, []CachedObject{{Key: "default/c", RV: "14"}, {Key: "default/d", RV: "13"}},
		labtest.Last[CacheState](lab, "cache transaction").Objects)

	require.Len(t, labtest.States[CacheState](lab, "cache add")[0].Objects, 1, "an earlier state is a copy: later writes left it as it was")
}

// The lab sees each listener's pending notifications: those given to it
// and not yet handed to its handler, oldest first, without the one the
// handler is handling. The notifications live in the pop goroutine's ring,
// which nobody else may read; the listener keeps a copy for the lab, and
// this test checks that copy against what the handler is given, event by
// event.
func TestProcessorListener_InspectShowsPendingNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab, tr := labtest.New(t)
		gate := make(chan struct{})
		var delivered []string
		h := ResourceEventHandlerFuncs{
			AddFunc:    func(obj any, _ bool) { <-gate; delivered = append(delivered, "add "+describe(obj)) },
			UpdateFunc: func(_, obj any) { <-gate; delivered = append(delivered, "update "+describe(obj)) },
			DeleteFunc: func(obj any) { <-gate; delivered = append(delivered, "delete "+describe(obj)) },
		}
		l := newProcessListener(h, 0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		l.name = "slow"
		l.setTracer(tr.Stage(trace.StageInformer))
		done := make(chan struct{})
		go func() { l.pop(); done <- struct{}{} }()
		go func() { l.run(); done <- struct{}{} }()

		t.Log("informer: a added; the handler takes it and blocks; then a updated, b added, a deleted")
		l.add(addNotification{newObj: cmAt("default/a", "1")})
		synctest.Wait()
		require.Empty(t, labtest.Last[ListenerState](lab, "OnAdd").Pending, "the one in the handler's hands is not pending")
		l.add(updateNotification{oldObj: cmAt("default/a", "1"), newObj: cmAt("default/a", "2")})
		l.add(addNotification{newObj: cmAt("default/b", "3")})
		l.add(deleteNotification{oldObj: cmAt("default/a", "4")})
		synctest.Wait()
		require.Equal(t, []PendingNotification{
			{Type: "update", Key: "default/a", RV: "2"}, {Type: "add", Key: "default/b", RV: "3"}, {Type: "delete", Key: "default/a", RV: "4"},
		}, labtest.Last[ListenerState](lab, "notify").Pending)

		t.Log("handler: unblocked")
		close(gate)
		synctest.Wait()
		require.Equal(t, []string{"add default/a@1", "update default/a@2", "add default/b@3", "delete default/a@4"}, delivered)

		// Replay the events against a model of the listener: notify adds
		// at the back, the handler's method takes from the front, and
		// after each event the state is the model.
		var model []PendingNotification
		handled := 0
		for _, e := range lab.Events() {
			if e.What == "notify" {
				model = append(model, PendingNotification{Type: e.Get(trace.KeyType), Key: e.Key(), RV: e.RV()})
			} else {
				require.NotEmpty(t, model, "%s: handed out more than was given", e)
				require.Equal(t, fmt.Sprintf("%s %s@%s", model[0].Type, model[0].Key, model[0].RV), delivered[handled],
					"%s: the handler is given the oldest pending one", e)
				model, handled = model[1:], handled+1
			}
			got := e.State.Value.(ListenerState).Pending
			if len(model) == 0 {
				require.Empty(t, got, "after %s", e)
			} else {
				require.Equal(t, model, got, "after %s", e)
			}
		}
		require.Equal(t, len(delivered), handled)

		l.stop()
		<-done
		<-done
	})
}

// Inspecting off costs nothing: a cache write and a listener's notify and
// handle traced to a consumer that does not inspect allocate what they did
// before the lab existed, and the listener keeps no mirror.
func TestInformer_InspectOffAddsNothing(t *testing.T) {
	on := trace.New(trace.Func(func(trace.Event) {})).Stage(trace.StageInformer)
	inspect := trace.New(trace.Inspect(func(trace.Event) {})).Stage(trace.StageInformer)
	obj := cmAt("default/a", "1")
	write := func(tr *trace.Tracer) float64 {
		idx := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
		require.NoError(t, idx.Add(obj))
		ds := deltafifo.Deltas{{Type: deltafifo.Updated, Object: obj}}
		return testing.AllocsPerRun(100, func() { _ = processDeltas(idx, ds, false, tr, func(notification) {}) })
	}
	notify := func(tr *trace.Tracer) float64 {
		handled := make(chan struct{})
		l := newProcessListener(ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { handled <- struct{}{} }},
			0, time.Now(), newTestChecker("informer", true), testLogger(t, ""))
		l.setTracer(tr)
		require.Equal(t, tr.Inspecting(), l.mirror != nil, "a mirror only when inspecting")
		go l.pop()
		go l.run()
		defer l.stop()
		n := updateNotification{oldObj: obj, newObj: obj}
		return testing.AllocsPerRun(100, func() { l.add(n); <-handled })
	}
	off, notInspecting, inspecting := write(nil), write(on), write(inspect)
	t.Logf("cache update: %v allocations untraced, %v traced, %v inspected", off, notInspecting, inspecting)
	require.Equal(t, 5.0, off, "untraced: as before the lab")
	require.Equal(t, 7.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)

	off, notInspecting, inspecting = notify(nil), notify(on), notify(inspect)
	t.Logf("notify and handle: %v allocations untraced, %v traced, %v inspected", off, notInspecting, inspecting)
	require.Equal(t, 1.0, off, "untraced: as before the lab")
	require.Equal(t, 5.0, notInspecting, "traced, not inspected: as before the lab")
	require.Greater(t, inspecting, notInspecting)
}
