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
		det.AddObject(obj) // the test records what it puts into the cache
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

// The diff in the error is a line diff of the object's JSON: only the lines
// that changed, "-" as added and "+" as it is now.
func TestCacheMutationDetector_DiffShowsOnlyTheChangedLines(t *testing.T) {
	det := NewCacheMutationDetector("pods")
	obj := pod("default", "a", "1", "app", "web")
	det.AddObject(obj)
	obj.Labels["app"] = "hacked"

	err := det.CompareObjects()
	require.Error(t, err)
	t.Logf("the detector's error:\n%v", err)
	require.Contains(t, err.Error(), "-      \"app\": \"web\"\n+      \"app\": \"hacked\"\n")
	require.NotContains(t, err.Error(), "resourceVersion", "unchanged lines are left out")
}

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want string
	}{
		{nil, nil, ""},
		{[]string{"x"}, []string{"x"}, ""},
		{[]string{"x"}, nil, "-x\n"},
		{nil, []string{"y"}, "+y\n"},
		{[]string{"a", "b", "c"}, []string{"a", "B", "c", "d"}, "-b\n+B\n+d\n"},
	} {
		require.Equal(t, tc.want, lineDiff(tc.a, tc.b), "lineDiff(%q, %q)", tc.a, tc.b)
	}
}
