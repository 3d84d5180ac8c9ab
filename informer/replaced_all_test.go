package informer

import (
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/stretchr/testify/require"
)

// replacedAll runs processReplacedAll on store and returns what it
// notified, as "OnAdd default/a@1 (initial)", in order.
func replacedAll(t *testing.T, store indexer.Store, rv string, objs ...api.Object) ([]string, error) {
	t.Helper()
	var told []string
	err := processReplacedAll(store, deltafifo.ReplacedAllInfo{ResourceVersion: rv, Objects: objs}, true, nil, func(n notification) {
		key, objRV := notificationKeyRV(n)
		s := handlerMethod(n) + " " + key + "@" + objRV
		if a, ok := n.(addNotification); ok && a.isInInitialList {
			s += " (initial)"
		}
		told = append(told, s)
	})
	return told, err
}

// A ReplacedAll into an empty cache (the first list) has nothing to
// compare: it looks nothing up, and tells an add for every listed object,
// in list order, once the cache holds them all. Into a cache that holds
// objects, it tells a tombstone delete for each cached key the list lacks,
// an update for each it has, and an add for each new one.
func TestProcessReplacedAll_EmptyCacheTakesTheListAsAdds(t *testing.T) {
	store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
	told, err := replacedAll(t, store, "9", cmAt("default/b", "2"), cmAt("default/a", "1"))
	require.NoError(t, err)
	t.Logf("first list [b a] into an empty cache: %v", told)
	require.Equal(t, []string{"OnAdd default/b@2 (initial)", "OnAdd default/a@1 (initial)"}, told)
	require.ElementsMatch(t, []string{"default/a", "default/b"}, store.ListKeys())
	require.Equal(t, "9", store.LastStoreSyncResourceVersion())

	told, err = replacedAll(t, store, "12", cmAt("default/c", "11"), cmAt("default/a", "10"))
	require.NoError(t, err)
	t.Logf("relist [c a] into the cache [a b]: %v", told)
	require.Equal(t, []string{"OnDelete (final state unknown) default/b@2", "OnAdd default/c@11 (initial)", "OnUpdate default/a@10"}, told)
	require.ElementsMatch(t, []string{"default/a", "default/c"}, store.ListKeys())
}

// A list with an object that has no key fails the whole ReplacedAll, into
// an empty cache as into a full one: the cache keeps what it held and
// nobody is told anything.
func TestProcessReplacedAll_AnUnkeyableObjectChangesNothing(t *testing.T) {
	for _, cached := range [][]api.Object{nil, {cmAt("default/a", "1")}} {
		store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
		for _, obj := range cached {
			require.NoError(t, store.Add(obj))
		}
		told, err := replacedAll(t, store, "9", cmAt("default/b", "2"), &api.ConfigMap{})
		t.Logf("cache of %d, a list with a nameless object: %v", len(cached), err)
		require.Error(t, err)
		require.Empty(t, told)
		require.Len(t, store.ListKeys(), len(cached), "the cache as it was")
	}
}

// lookupCounter is a cache that counts what a relist reads from it besides
// the writes: ListKeys, and GetByKey of single keys.
type lookupCounter struct {
	indexer.Indexer
	listKeys, gets int
}

func (c *lookupCounter) ListKeys() []string { c.listKeys++; return c.Indexer.ListKeys() }
func (c *lookupCounter) GetByKey(key string) (api.Object, bool, error) {
	c.gets++
	return c.Indexer.GetByKey(key)
}

// An informer nobody listens to (kept for its cache and listers) makes no
// notifications (HandleDeltas gives processReplacedAll a nil notify), so a
// relist into a full cache works out nothing: no cached keys listed, no old
// object read. It only replaces the cache. With a listener the same relist
// reads both, to tell updates and deletions apart.
func TestProcessReplacedAll_NobodyListensNothingIsWorkedOut(t *testing.T) {
	for _, listening := range []bool{false, true} {
		store := &lookupCounter{Indexer: indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)}
		require.NoError(t, store.Add(cmAt("default/a", "1")))
		require.NoError(t, store.Add(cmAt("default/b", "2")))
		var notify func(notification)
		told := 0
		if listening {
			notify = func(notification) { told++ }
		}
		info := deltafifo.ReplacedAllInfo{ResourceVersion: "9", Objects: []api.Object{cmAt("default/c", "8"), cmAt("default/a", "7")}}
		require.NoError(t, processReplacedAll(store, info, false, nil, notify))
		t.Logf("informer: relist [c a] into the cache [a b], listening=%v: %d ListKeys, %d GetByKey, %d notifications",
			listening, store.listKeys, store.gets, told)
		require.ElementsMatch(t, []string{"default/a", "default/c"}, store.Indexer.ListKeys(), "the cache is the list either way")
		require.Equal(t, "9", store.LastStoreSyncResourceVersion())
		if listening {
			require.Equal(t, 3, told, "delete b, add c, update a")
			require.Positive(t, store.listKeys)
			require.Positive(t, store.gets)
			continue
		}
		require.Zero(t, store.listKeys, "nobody to tell of deletions: the cached keys are not listed")
		require.Zero(t, store.gets, "nobody to tell of updates: no old object is read")
	}
}

// HandleDeltas of an informer without handlers writes its cache as one
// with handlers does, and works out nothing for the notifications it does
// not make: a relist into its full cache lists no cached keys. Once a
// handler is registered, the same relist does. (The informer is untraced:
// a traced one notifies as it writes, listeners or not, and never takes
// this path.)
func TestHandleDeltas_NobodyListensTheCacheIsWrittenAndNothingWorkedOut(t *testing.T) {
	untraced := SharedIndexInformerOptions{Logger: testLogger(t, "")}
	inf := NewSharedIndexInformerWithOptions(newFakeLW(), &api.ConfigMap{}, untraced).(*sharedIndexInformer)
	cache := &lookupCounter{Indexer: inf.indexer}
	inf.indexer = cache
	relist := func(rv string, objs ...api.Object) deltafifo.Deltas {
		return deltafifo.Deltas{{Type: deltafifo.ReplacedAll, Object: deltafifo.ReplacedAllInfo{ResourceVersion: rv, Objects: objs}}}
	}
	require.NoError(t, inf.HandleDeltas(relist("5", cmAt("default/a", "4"), cmAt("default/b", "5")), true))
	require.NoError(t, inf.HandleDeltas(relist("7", cmAt("default/a", "6"), cmAt("default/b", "5")), false))
	t.Logf("informer: no handlers; after two relists the cache holds %v; the cached keys were listed %d times",
		cachedKeys(inf.GetStore()), cache.listKeys)
	require.Equal(t, []string{"default/a@6", "default/b@5"}, cachedKeys(inf.GetStore()))
	require.Zero(t, cache.listKeys, "nobody to tell of deletions: the relist did not list the cached keys")

	_, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
	require.NoError(t, err)
	inf.processor.start() // the listener takes what it is given (Run would start it)
	t.Cleanup(inf.processor.stop)
	require.NoError(t, inf.HandleDeltas(relist("9", cmAt("default/a", "8")), false))
	t.Logf("informer: with a handler, a relist without b: the cached keys listed %d time(s), to find b gone", cache.listKeys)
	require.Equal(t, 1, cache.listKeys)
	require.Equal(t, []string{"default/a@8"}, cachedKeys(inf.GetStore()))
}
