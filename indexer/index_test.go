package indexer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byApp is an index by the "app" label.
const byApp = "app"

func newTestIndexer(t testing.TB) Indexer {
	return told(t, NewIndexer(MetaNamespaceKeyFunc, Indexers{
		NamespaceIndex: MetaNamespaceIndexFunc,
		byApp:          LabelIndexFunc("app"),
	}))
}

func sortedKeys(t *testing.T, idx Indexer, indexName, value string) []string {
	t.Helper()
	keys, err := idx.IndexKeys(indexName, value)
	require.NoError(t, err)
	sort.Strings(keys)
	return keys
}

// byFinalizer is a multi-valued IndexFunc: one value per finalizer.
func byFinalizer(obj api.Object) ([]string, error) { return obj.GetFinalizers(), nil }

func withFinalizers(name string, f ...string) *api.Pod {
	p := pod("default", name, "1")
	p.Finalizers = f
	return p
}

var errNoApp = errors.New("no app label")

// strictAppIndexFunc indexes by the app label and fails without one.
func strictAppIndexFunc(obj api.Object) ([]string, error) {
	app, ok := obj.GetLabels()["app"]
	if !ok {
		return nil, errNoApp
	}
	return []string{app}, nil
}

func keysOf(objs []api.Object) []string {
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		k, _ := MetaNamespaceKeyFunc(o)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// requireIndicesConsistent recomputes every index from the stored objects
// and requires the indexer's indices to match exactly: the invariant of the
// package doc. It also catches empty sets left behind, since an empty set
// would show up as a value in ListIndexFuncValues.
func requireIndicesConsistent(t *testing.T, idx Indexer) {
	t.Helper()
	for name, fn := range idx.GetIndexers() {
		want := map[string][]string{}
		for _, obj := range idx.List() {
			key, err := MetaNamespaceKeyFunc(obj)
			require.NoError(t, err)
			values, err := fn(obj)
			require.NoError(t, err)
			for _, v := range values {
				want[v] = append(want[v], key)
			}
		}
		got := map[string][]string{}
		for _, v := range idx.ListIndexFuncValues(name) {
			got[v] = sortedKeys(t, idx, name, v)
			require.NotEmpty(t, got[v], "index %q keeps an empty set for value %q", name, v)
		}
		for _, keys := range want {
			sort.Strings(keys)
		}
		require.Equal(t, want, got, "index %q", name)
	}
}

// Article: "informer" notes §2.2 (index functions registered up front build
// indices as objects are added; lookups go by index value).
func TestIndexer_ByIndexAndIndexKeys(t *testing.T) {
	idx := newTestIndexer(t)
	require.NoError(t, idx.Add(pod("default", "web-0", "1", "app", "web")))
	require.NoError(t, idx.Add(pod("default", "web-1", "1", "app", "web")))
	require.NoError(t, idx.Add(pod("default", "db-0", "1", "app", "db")))
	require.NoError(t, idx.Add(pod("prod", "web-0", "1", "app", "web")))
	require.NoError(t, idx.Add(pod("prod", "loner", "1")))

	require.Equal(t, []string{"default/db-0", "default/web-0", "default/web-1"}, sortedKeys(t, idx, NamespaceIndex, "default"))
	require.Equal(t, []string{"default/web-0", "default/web-1", "prod/web-0"}, sortedKeys(t, idx, byApp, "web"))
	require.Empty(t, sortedKeys(t, idx, byApp, "nothing"))

	objs, err := idx.ByIndex(NamespaceIndex, "prod")
	require.NoError(t, err)
	require.Equal(t, []string{"prod/loner", "prod/web-0"}, keysOf(objs))

	values := idx.ListIndexFuncValues(byApp)
	sort.Strings(values)
	require.Equal(t, []string{"db", "web"}, values, "an object without the label is not indexed")

	// Index: every object sharing an index value with the given one.
	objs, err = idx.Index(byApp, pod("elsewhere", "probe", "", "app", "db"))
	require.NoError(t, err)
	require.Equal(t, []string{"default/db-0"}, keysOf(objs))

	requireIndicesConsistent(t, idx)
}

// The classic indexer bug: on Update, adding the new object's values but not
// removing the old object's. The relabelled Pod must leave app=a.
// Article: "informer" notes §2.2.
func TestIndexer_UpdateMovesIndexEntries(t *testing.T) {
	idx := newTestIndexer(t)
	require.NoError(t, idx.Add(pod("default", "p", "1", "app", "a")))
	require.NoError(t, idx.Add(pod("default", "q", "1", "app", "a")))

	require.NoError(t, idx.Update(pod("default", "p", "2", "app", "b")))

	require.Equal(t, []string{"default/q"}, sortedKeys(t, idx, byApp, "a"))
	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, byApp, "b"))
	objs, err := idx.ByIndex(byApp, "b")
	require.NoError(t, err)
	require.Equal(t, "2", objs[0].GetResourceVersion(), "the index points at the new object")

	// Losing the label removes the object from the index altogether.
	require.NoError(t, idx.Update(pod("default", "p", "3")))
	require.Empty(t, sortedKeys(t, idx, byApp, "b"))
	requireIndicesConsistent(t, idx)
}

// With a multi-valued IndexFunc an Update moves the key value by value: it
// stays under the values the new object keeps, leaves the ones it lost and
// joins the new ones. (The fast path for an unchanged single value must not
// swallow this case.)
func TestIndexer_UpdateMovesMultiValuedIndexEntries(t *testing.T) {
	idx := told(t, NewIndexer(nil, Indexers{"finalizer": byFinalizer}))
	require.NoError(t, idx.Add(withFinalizers("p", "x", "y")))

	require.NoError(t, idx.Update(withFinalizers("p", "x", "z")))

	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, "finalizer", "x"))
	require.Empty(t, sortedKeys(t, idx, "finalizer", "y"), "the value the object lost")
	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, "finalizer", "z"))
	requireIndicesConsistent(t, idx)
}

func TestIndexer_DeleteRemovesIndexEntries(t *testing.T) {
	idx := newTestIndexer(t)
	require.NoError(t, idx.Add(pod("default", "p", "1", "app", "a")))
	require.NoError(t, idx.Add(pod("default", "q", "1", "app", "a")))

	require.NoError(t, idx.Delete(pod("default", "p", "1")))

	require.Equal(t, []string{"default/q"}, sortedKeys(t, idx, byApp, "a"))
	require.Equal(t, []string{"default/q"}, sortedKeys(t, idx, NamespaceIndex, "default"))
	requireIndicesConsistent(t, idx)
}

// An index value nobody has any more is removed, not kept with an empty set
// (kubernetes#84959: an index over short-lived values grew without bound).
func TestIndexer_EmptyIndexSetsAreDeleted(t *testing.T) {
	idx := newTestIndexer(t)
	t.Log("indexer: 100 updates of default/p, each with a new app label value; the log shows the first 3 and the last")
	for i := range 100 {
		p := pod("default", "p", fmt.Sprint(i), "app", fmt.Sprintf("v%d", i))
		if i < 3 || i == 99 {
			require.NoError(t, idx.Update(p))
		} else {
			require.NoError(t, idx.(toldIndexer).Indexer.Update(p)) // the same indexer, untold
		}
	}
	require.Equal(t, []string{"v99"}, idx.ListIndexFuncValues(byApp), "only the current value remains")

	require.NoError(t, idx.Delete(pod("default", "p", "")))
	require.Empty(t, idx.ListIndexFuncValues(byApp))
	require.Empty(t, idx.ListIndexFuncValues(NamespaceIndex))
}

// Replace (the Reflector's relist, applied to the cache) throws away the old
// content and its index entries and indexes the new list from scratch.
// Article: "如何高效掌控K8s资源变化" by 王成 (syncWith → Replace).
func TestIndexer_ReplaceRebuildsIndices(t *testing.T) {
	idx := newTestIndexer(t)
	require.NoError(t, idx.Add(pod("default", "gone", "1", "app", "old")))
	require.NoError(t, idx.Add(pod("default", "kept", "1", "app", "old")))

	require.NoError(t, idx.Replace([]api.Object{
		pod("default", "kept", "7", "app", "new"),
		pod("prod", "fresh", "7", "app", "new"),
	}, "7"))

	require.Equal(t, []string{"new"}, idx.ListIndexFuncValues(byApp))
	require.Equal(t, []string{"default/kept", "prod/fresh"}, sortedKeys(t, idx, byApp, "new"))
	require.Equal(t, []string{"default/kept"}, sortedKeys(t, idx, NamespaceIndex, "default"))
	requireIndicesConsistent(t, idx)
}

// Index with a multi-valued IndexFunc returns every object sharing at least
// one value, each once.
func TestIndexer_IndexReturnsObjectsSharingAnyValue(t *testing.T) {
	idx := told(t, NewIndexer(nil, Indexers{"finalizer": byFinalizer}))
	require.NoError(t, idx.Add(withFinalizers("a", "x", "y")))
	require.NoError(t, idx.Add(withFinalizers("b", "y")))
	require.NoError(t, idx.Add(withFinalizers("c", "z")))

	objs, err := idx.Index("finalizer", withFinalizers("probe", "x", "y"))
	require.NoError(t, err)
	require.Equal(t, []string{"default/a", "default/b"}, keysOf(objs))
	requireIndicesConsistent(t, idx)
}

// AddIndexers on a store that already holds objects indexes them at once.
// client-go of the articles refused once the informer had started; client-go
// HEAD and kinformer back-fill.
func TestIndexer_AddIndexersIndexesExistingObjects(t *testing.T) {
	idx := told(t, NewIndexer(nil, nil))
	require.NoError(t, idx.Add(pod("default", "web-0", "1", "app", "web")))
	require.NoError(t, idx.Add(pod("prod", "web-0", "1", "app", "web")))

	require.NoError(t, idx.AddIndexers(Indexers{byApp: LabelIndexFunc("app"), NamespaceIndex: MetaNamespaceIndexFunc}))

	require.Equal(t, []string{"default/web-0", "prod/web-0"}, sortedKeys(t, idx, byApp, "web"))
	require.Equal(t, []string{"prod/web-0"}, sortedKeys(t, idx, NamespaceIndex, "prod"))
	// Later writes keep the new index current too.
	require.NoError(t, idx.Update(pod("prod", "web-0", "2", "app", "api")))
	require.Equal(t, []string{"default/web-0"}, sortedKeys(t, idx, byApp, "web"))
	requireIndicesConsistent(t, idx)
}

func TestIndexer_AddIndexersRejectsTakenNameOrNilFunc(t *testing.T) {
	idx := newTestIndexer(t)
	require.ErrorContains(t, idx.AddIndexers(Indexers{NamespaceIndex: MetaNamespaceIndexFunc}), `index "namespace" already exists`)
	require.ErrorContains(t, idx.AddIndexers(Indexers{"x": nil}), "nil IndexFunc")
	require.Len(t, idx.GetIndexers(), 2)
}

func TestIndexer_GetIndexersReturnsCopy(t *testing.T) {
	idx := newTestIndexer(t)
	idx.GetIndexers()["sneaky"] = MetaNamespaceIndexFunc
	require.Len(t, idx.GetIndexers(), 2)
	t.Logf("indexer: a caller added \"sneaky\" to the map GetIndexers returned; the indexer still has %d indices", len(idx.GetIndexers()))
}

// An IndexFunc that fails makes the write fail with its error and change
// nothing: not the object, not any index. (client-go panics here.)
func TestIndexer_IndexFuncErrorLeavesStoreUnchanged(t *testing.T) {
	errBad, strict := errNoApp, strictAppIndexFunc
	newIdx := func(t *testing.T) Indexer {
		// Namespace sorts before "strict", so a half-done write would show
		// up in the namespace index.
		idx := told(t, NewIndexer(nil, Indexers{NamespaceIndex: MetaNamespaceIndexFunc, "strict": strict}))
		require.NoError(t, idx.Add(pod("default", "p", "1", "app", "a")))
		return idx
	}

	t.Run("Add", func(t *testing.T) {
		idx := newIdx(t)
		err := idx.Add(pod("prod", "q", "1"))
		require.ErrorIs(t, err, errBad)
		require.ErrorContains(t, err, `cannot store "prod/q": index "strict"`)
		require.Equal(t, []string{"default/p"}, idx.ListKeys())
		require.Equal(t, []string{"default"}, idx.ListIndexFuncValues(NamespaceIndex))
	})
	t.Run("Update", func(t *testing.T) {
		idx := newIdx(t)
		require.ErrorIs(t, idx.Update(pod("default", "p", "2")), errBad)
		got, _, _ := idx.GetByKey("default/p")
		require.Equal(t, "1", got.GetResourceVersion())
		require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, "strict", "a"))
	})
	t.Run("Replace", func(t *testing.T) {
		idx := newIdx(t)
		require.ErrorIs(t, idx.Replace([]api.Object{pod("prod", "x", "2", "app", "b"), pod("prod", "y", "2")}, "2"), errBad)
		require.Equal(t, []string{"default/p"}, idx.ListKeys())
		requireIndicesConsistent(t, idx)
	})
	t.Run("AddIndexers", func(t *testing.T) {
		idx := told(t, NewIndexer(nil, nil))
		require.NoError(t, idx.Add(pod("default", "unlabelled", "1")))
		require.ErrorIs(t, idx.AddIndexers(Indexers{"strict": strict}), errBad)
		require.Empty(t, idx.GetIndexers())
	})
}

// If the IndexFunc fails on the stored (old) object, which only happens when
// someone mutated it in the cache or the function is not deterministic, its
// old values are unknown: Update and Delete drop the key from every value of
// that index, so no stale entry survives.
func TestIndexer_OldObjectIndexErrorDropsKeyEverywhere(t *testing.T) {
	idx := told(t, NewIndexer(nil, Indexers{"strict": strictAppIndexFunc}))
	require.NoError(t, idx.Add(pod("default", "p", "1", "app", "a")))
	cached, _, _ := idx.GetByKey("default/p")
	delete(cached.GetLabels(), "app") // forbidden: the stored object no longer indexes

	require.NoError(t, idx.Update(pod("default", "p", "2", "app", "b")))
	require.Empty(t, sortedKeys(t, idx, "strict", "a"), "the stale entry under app=a is gone")
	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, "strict", "b"))

	cached, _, _ = idx.GetByKey("default/p")
	delete(cached.GetLabels(), "app")
	require.NoError(t, idx.Delete(pod("default", "p", "")))
	require.Empty(t, idx.ListIndexFuncValues("strict"), "Delete drops it too")
}

func TestIndexer_UnknownIndexIsAnError(t *testing.T) {
	idx := newTestIndexer(t)
	_, err := idx.ByIndex("nope", "x")
	require.ErrorContains(t, err, `index "nope" does not exist`)
	t.Logf("indexer: ByIndex(nope, x): %v", err)
	_, err = idx.IndexKeys("nope", "x")
	require.ErrorContains(t, err, `index "nope" does not exist`)
	_, err = idx.Index("nope", pod("default", "p", "1"))
	require.ErrorContains(t, err, `index "nope" does not exist`)
	_, err = idx.Index(NamespaceIndex, nil)
	require.ErrorContains(t, err, "nil object")
	t.Logf("indexer: Index(namespace, nil): %v", err)
	require.Empty(t, idx.ListIndexFuncValues("nope"))
}

func TestLabelIndexFunc(t *testing.T) {
	fn := LabelIndexFunc("app")
	got, err := fn(pod("default", "p", "1", "app", "web", "tier", "front"))
	require.NoError(t, err)
	require.Equal(t, []string{"web"}, got)
	t.Logf("indexer: LabelIndexFunc(app) of a pod labelled app=web,tier=front: %v", got)
	got, err = fn(pod("default", "p", "1", "tier", "front"))
	require.NoError(t, err)
	require.Empty(t, got)
	t.Logf("indexer: LabelIndexFunc(app) of a pod labelled tier=front: %v (not indexed)", got)
}

// The owner index: which Pods does ReplicaSet uid-rs control?
func TestControllerUIDIndexFunc(t *testing.T) {
	yes, no := true, false
	owned := func(name string, refs ...api.OwnerReference) *api.Pod {
		p := pod("default", name, "1")
		p.OwnerReferences = refs
		return p
	}
	idx := told(t, NewIndexer(nil, Indexers{ControllerUIDIndex: ControllerUIDIndexFunc}))
	require.NoError(t, idx.Add(owned("web-1", api.OwnerReference{Kind: "ReplicaSet", Name: "web", UID: "uid-rs", Controller: &yes})))
	require.NoError(t, idx.Add(owned("web-2", api.OwnerReference{Kind: "ReplicaSet", Name: "web", UID: "uid-rs", Controller: &yes})))
	require.NoError(t, idx.Add(owned("adopted", api.OwnerReference{Kind: "ReplicaSet", Name: "web", UID: "uid-rs", Controller: &no})))
	require.NoError(t, idx.Add(owned("orphan")))

	objs, err := idx.ByIndex(ControllerUIDIndex, "uid-rs")
	require.NoError(t, err)
	require.Equal(t, []string{"default/web-1", "default/web-2"}, keysOf(objs), "only owner references marked controller count")
	require.Equal(t, []string{"uid-rs"}, idx.ListIndexFuncValues(ControllerUIDIndex))
}

// What goes wrong when someone mutates a cached object: the indices were
// computed from the object as it was, so they now lie, and writing the same
// pointer back cannot repair them (old and new values are computed from the
// same, already changed, object). This is why the rule exists.
func TestIndexer_MutatingCachedObjectCorruptsIndex(t *testing.T) {
	idx := newTestIndexer(t)
	require.NoError(t, idx.Add(pod("default", "p", "1", "app", "a")))

	cached, _, _ := idx.GetByKey("default/p")
	cached.GetLabels()["app"] = "b" // forbidden: mutating what the cache gave us
	require.NoError(t, idx.Update(cached))

	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx, byApp, "a"), "the index still files p under app=a")
	require.Empty(t, sortedKeys(t, idx, byApp, "b"), "and cannot find it under app=b")

	// The right way: copy, change the copy, store the copy.
	idx2 := newTestIndexer(t)
	require.NoError(t, idx2.Add(pod("default", "p", "1", "app", "a")))
	cached, _, _ = idx2.GetByKey("default/p")
	changed := cached.DeepCopyObject()
	changed.GetLabels()["app"] = "b"
	require.NoError(t, idx2.Update(changed))
	require.Equal(t, []string{"default/p"}, sortedKeys(t, idx2, byApp, "b"))
	requireIndicesConsistent(t, idx2)
}

// Writers and readers at once, under -race: every index stays consistent.
func TestIndexer_ConcurrentWritersAndReaders(t *testing.T) {
	// 800 concurrent writes: not told one by one; the end state is.
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc, byApp: LabelIndexFunc("app")})
	t.Logf("indexer: %d writers update and delete %d pods each while 2 readers query the app index", 4, 200)
	const writers, perWriter = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				name := fmt.Sprintf("p%d", i%20)
				ns := fmt.Sprintf("ns%d", w)
				switch i % 3 {
				case 0, 1:
					assert.NoError(t, idx.Update(pod(ns, name, fmt.Sprint(i), "app", fmt.Sprintf("a%d", i%5))))
				case 2:
					assert.NoError(t, idx.Delete(pod(ns, name, "")))
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range perWriter {
				objs, err := idx.ByIndex(byApp, "a1")
				assert.NoError(t, err)
				for _, o := range objs {
					assert.Equal(t, "a1", o.GetLabels()["app"], "ByIndex returned an object that no longer has the value")
				}
				_ = idx.ListIndexFuncValues(NamespaceIndex)
				_ = idx.List()
			}
		})
	}
	wg.Wait()
	require.NotEmpty(t, idx.ListKeys())
	requireIndicesConsistent(t, idx)
	t.Logf("indexer: afterwards %d objects, app index values %v, every index consistent with the objects",
		len(idx.ListKeys()), slices.Sorted(slices.Values(idx.ListIndexFuncValues(byApp))))
}
