package reflector

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// The streaming list (client-go's default since 1.35): one watch with
// sendInitialEvents=true both fills the store (Replace at the bookmark's
// version) and goes on delivering changes; no list request at all. What
// follows a streaming list that fails, rule by rule, is
// TestReflector_StreamingListFallsBackAsClientGoDoes.
func TestReflector_StreamingList(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	a, b := e.createPod("a"), e.createPod("b")
	listRV := e.srv.ResourceVersion()
	e.opts.UseWatchList = true
	r := e.run()
	e.store.waitFor(t, fmt.Sprintf("Replace [a@%s b@%s] @%s", a.ResourceVersion, b.ResourceVersion, listRV))
	c := e.createPod("c")
	e.store.waitFor(t, "Add c@"+c.ResourceVersion)
	require.Empty(t, e.lw.Lists())
	watches := e.lw.Watches()
	require.Len(t, watches, 1, "the same watch carries on after the initial events")
	require.True(t, *watches[0].SendInitialEvents)
	require.Equal(t, "NotOlderThan", watches[0].ResourceVersionMatch)
	require.Equal(t, "", watches[0].ResourceVersion)
	waitForSynced(t, r, c.ResourceVersion)
}

// The initial events of a streaming list are collected as client-go's
// temporary store collects them (by key, a later event replacing an earlier
// one, a DELETED removing it) until the bookmark annotated
// k8s.io/initial-events-end; an ordinary bookmark before it changes
// nothing. The same watch then goes on.
func TestReflector_StreamingListCollectsInitialEventsUntilEndBookmark(t *testing.T) {
	end := &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "11",
		Annotations: map[string]string{api.InitialEventsAnnotationKey: "true"}}}
	w := newFakeWatch(
		listwatch.Event{Type: api.Added, Object: pod("a", "2")},
		listwatch.Event{Type: api.Bookmark, Object: &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "3"}}},
		listwatch.Event{Type: api.Added, Object: pod("b", "4")},
		listwatch.Event{Type: api.Modified, Object: pod("a", "5")},
		listwatch.Event{Type: api.Added, Object: pod("c", "6")},
		listwatch.Event{Type: api.Deleted, Object: pod("c", "7")},
		listwatch.Event{Type: api.Added, Object: pod("c", "8")},
		listwatch.Event{Type: api.Added, Object: pod("e", "9")},
		listwatch.Event{Type: api.Deleted, Object: pod("e", "10")},
		listwatch.Event{Type: api.Bookmark, Object: end},
		listwatch.Event{Type: api.Added, Object: pod("d", "12")},
	)
	lw := &listwatch.ListWatch{
		ListFunc: func(context.Context, listwatch.ListOptions) (*listwatch.ObjectList, error) {
			return nil, errors.New("no list expected")
		},
		WatchFunc: func(context.Context, listwatch.ListOptions) (listwatch.Watch, error) { return w, nil },
	}
	store := &recordingStore{}
	r := runOn(t, lw, store, Options{UseWatchList: true, Clock: clock.NewFakeClock(epoch), WatchErrorHandler: (&errorLog{}).add})
	store.waitFor(t, "Add d@12")
	require.Equal(t, []string{"Replace [a@5 b@4 c@8] @11", "Add d@12"}, store.Calls())
	waitForSynced(t, r, "12")
}
