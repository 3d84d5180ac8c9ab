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
