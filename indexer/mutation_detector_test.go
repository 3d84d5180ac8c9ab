package indexer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A handler that changes an object it read from the cache is caught, and the
// error names the object and shows what changed.
func TestCacheMutationDetector_CatchesMutation(t *testing.T) {
	idx := newTestIndexer(t)
	det := NewCacheMutationDetector("pods")
	for _, p := range []string{"a", "b"} {
		obj := pod("default", p, "1", "app", "web")
		require.NoError(t, idx.Add(obj))
		det.AddObject(obj) // what the informer does for every object it caches
	}
	require.NoError(t, det.CompareObjects())

	cached, _, _ := idx.GetByKey("default/b")
	cached.GetLabels()["app"] = "hacked" // the bug under test

	err := det.CompareObjects()
	require.ErrorContains(t, err, "pods: cache mutation detected")
	require.ErrorContains(t, err, `"default/b" was mutated`)
	require.ErrorContains(t, err, `"hacked"`)
	require.NotContains(t, err.Error(), `"default/a"`)
}

// Storing a changed copy, the right way to change an object, is not a
// mutation: the detector watches the objects, not the keys.
func TestCacheMutationDetector_StoringACopyIsNotMutation(t *testing.T) {
	idx := newTestIndexer(t)
	det := NewCacheMutationDetector("pods")
	obj := pod("default", "a", "1", "app", "web")
	require.NoError(t, idx.Add(obj))
	det.AddObject(obj)

	changed := obj.DeepCopy()
	changed.Labels["app"] = "api"
	changed.ResourceVersion = "2"
	require.NoError(t, idx.Update(changed))
	det.AddObject(changed)
	det.AddObject(nil) // ignored

	require.NoError(t, det.CompareObjects())
}
