package deltafifo

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
)

// parseKey and String are inverses, odd keys included.
func TestQKey_RoundTrips(t *testing.T) {
	for _, key := range []string{"", "a", "ns/a", "ns/a/b", "/a", "a/", "/", "//", "ns//a"} {
		k := parseKey(key)
		require.Equal(t, key, k.String(), "%q", key)
		require.Equal(t, k, parseKey(k.String()), "%q", key)
	}
}

// The allocation-free key of an object is always the one its key string
// parses to, so an object and its tombstone (keyed by the string) meet in
// the queue, whatever the names hold.
func TestQKey_FastPathAgreesWithKeyString(t *testing.T) {
	keyers := map[string]keyer{
		"default":          newKeyer(nil),
		"explicit":         newKeyer(indexer.MetaNamespaceKeyFunc),
		"deletionHandling": newKeyer(DeletionHandlingMetaNamespaceKeyFunc),
		"custom":           newKeyer(func(obj any) (string, error) { return indexer.MetaNamespaceKeyFunc(obj) }),
	}
	require.True(t, keyers["default"].metaNamespace)
	require.True(t, keyers["explicit"].metaNamespace)
	require.True(t, keyers["deletionHandling"].metaNamespace)
	require.False(t, keyers["custom"].metaNamespace)
	for name, k := range keyers {
		for _, m := range []api.ObjectMeta{
			{Namespace: "ns", Name: "a"},
			{Name: "a"},
			{Name: "a/b"},
			{Name: "/a"},
			{Namespace: "n/s", Name: "a"},
			{Namespace: "ns", Name: "a/b"},
			{Namespace: "ns", Name: "/a"},
		} {
			obj := &api.ConfigMap{ObjectMeta: m}
			s, err := k.keyOf(obj)
			require.NoError(t, err)
			q, err := k.qkeyOf(obj)
			require.NoError(t, err)
			require.Equal(t, parseKey(s), q, "%s: %+v", name, m)
			require.Equal(t, s, q.String(), "%s: %+v", name, m)
			tomb, err := k.qkeyOf(DeletedFinalStateUnknown{Key: s, Obj: obj})
			require.NoError(t, err)
			require.Equal(t, q, tomb)
		}
		_, err := k.qkeyOf(&api.ConfigMap{})
		require.Error(t, err, name)
		_, err = k.qkeyOf((*api.ConfigMap)(nil))
		require.Error(t, err, name)
	}
}

// An object whose name holds a slash and its tombstone are one key: Replace
// finds it gone, and a queued Delete is collapsed with the tombstone.
func TestDeltaFIFO_OddKeysMeetTheirTombstones(t *testing.T) {
	f := newDeltaFIFO(t, DeltaFIFOOptions{})
	odd := cm("a/b", "1")
	odd.Namespace, odd.Name = "", "a/b" // cluster-scoped, a slash in the name
	require.NoError(t, f.Add(odd))
	require.NoError(t, f.Replace(nil, "2"))
	require.Equal(t, []string{"a/b"}, f.ListKeys())
	d, ok, err := f.GetByKey("a/b")
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, d, 2)
	require.Equal(t, Deleted, d[1].Type)
	got, ok, err := f.Get(odd)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, d, got)
}
