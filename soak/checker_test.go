package soak

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
)

func cm(name, rv string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// The checker's rules: versions only go up; a delete may carry the last
// version (a tombstone's, or a DELETED's own newer one); its view is the
// last word on each object.
func TestChecker_FlagsEveryStepBackInTime(t *testing.T) {
	c := newChecker()
	c.OnAdd(cm("a", "5"), true)
	c.OnUpdate(cm("a", "5"), cm("a", "7"))
	c.OnAdd(cm("b", "6"), false)
	c.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "ns/b", Obj: cm("b", "6")})
	require.Equal(t, map[string]string{"ns/a": "7"}, c.view())
	violations, events, tombstones := c.report()
	require.Empty(t, violations)
	require.Equal(t, 4, events)
	require.Equal(t, 1, tombstones)

	c.OnUpdate(cm("a", "7"), cm("a", "7")) // the same version again: not an update
	c.OnUpdate(cm("a", "7"), cm("a", "6")) // back in time
	c.OnDelete(cm("a", "3"))               // a delete older than what was seen
	violations, _, _ = c.report()
	require.Equal(t, []string{"ns/a: rv 7 after rv 7", "ns/a: rv 6 after rv 7", "ns/a: delete at rv 3 after rv 7"}, violations)
}
