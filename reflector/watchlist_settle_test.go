package reflector

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/listwatch"
)

// objectName.compare orders names exactly as their key strings order, the
// order an API server sends a streaming list in, without making the keys:
// a namespace that is another's prefix ("team" and "team-a") included.
func TestObjectName_ComparesAsKeys(t *testing.T) {
	var names []objectName
	for _, ns := range []string{"a", "a-b", "ab", "a0", "kube", "kube-system", "team", "team-a"} {
		for _, n := range []string{"x", "x-1", "x.2", "y"} {
			names = append(names, objectName{ns, n})
		}
	}
	key := func(n objectName) string { return n.namespace + "/" + n.name }
	for _, a := range names {
		for _, b := range names {
			require.Equal(t, cmp.Compare(key(a), key(b)), a.compare(b), "%s against %s", key(a), key(b))
		}
	}
	require.Equal(t, -1, objectName{"", "a"}.compare(objectName{"", "b"}), "cluster-scoped: by name")
}

// A streaming list that repeats a key, out of the key order an API server
// keeps, is settled by key as client-go's temporary store would hold it:
// the key once, where it was first added, with its last object.
func TestReflector_StreamingListOutOfOrderIsSettledByKey(t *testing.T) {
	end := &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "9",
		Annotations: map[string]string{api.InitialEventsAnnotationKey: "true"}}}
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: pod("b", "2")},
		listwatch.Event{Type: api.Added, Object: pod("a", "3")},
		listwatch.Event{Type: api.Added, Object: pod("b", "4")},
		listwatch.Event{Type: api.Added, Object: pod("c", "5")},
		listwatch.Event{Type: api.Bookmark, Object: end},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return nil, errors.New("no list expected")
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store := &recordingStore{}
	runOn(t, lw, store, Options{UseWatchList: true, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: (&errorLog{}).add})
	store.waitFor(t, "Replace [b@4 a@3 c@5] @9")
}

// settle is what the temporary store holds, on every order of events:
// each key's last object unless it was deleted, where it was first added.
// And a stream in key order, all ADDED, needs no settling: settle gives
// it back as it came.
func TestSettle_AsTheTemporaryStore(t *testing.T) {
	ev := func(spec string) (api.Object, bool) { // "a@1", or "-a@1" for a DELETED
		del := strings.HasPrefix(spec, "-")
		name, rv, _ := strings.Cut(strings.TrimPrefix(spec, "-"), "@")
		return pod(name, rv), del
	}
	for _, c := range []struct{ events, want string }{
		{"a@1 b@2 c@3", "a@1 b@2 c@3"},
		{"a@1 b@2 a@3", "a@3 b@2"},
		{"a@1 -a@2 b@3 a@4", "a@4 b@3"},
		{"-a@1 b@2 a@3", "b@2 a@3"},
		{"a@1 b@2 -b@3", "a@1"},
		{"c@1 b@2 a@3", "c@1 b@2 a@3"},
	} {
		var objs []api.Object
		var deleted []bool
		for _, spec := range strings.Fields(c.events) {
			o, del := ev(spec)
			objs, deleted = append(objs, o), append(deleted, del)
		}
		var got []string
		for _, o := range settle(objs, deleted) {
			got = append(got, o.GetName()+"@"+o.GetResourceVersion())
		}
		require.Equal(t, c.want, strings.Join(got, " "), c.events)
	}
}
