package reflector

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// bookmarkStore is a recordingStore that also takes the two optional
// hooks: "Bookmark 5" (ReflectorBookmarkStore) and "UpdateResourceVersion 5"
// (ResourceVersionUpdater).
type bookmarkStore struct{ recordingStore }

func (s *bookmarkStore) Bookmark(rv string) error {
	s.record("Bookmark " + rv)
	return nil
}

func (s *bookmarkStore) UpdateResourceVersion(rv string) {
	s.record("UpdateResourceVersion " + rv)
}

var (
	_ ReflectorBookmarkStore = (*bookmarkStore)(nil)
	_ ResourceVersionUpdater = (*bookmarkStore)(nil)
)

// A bookmark reaches a store that asks for it (ReflectorBookmarkStore, as
// client-go 1.36's RealFIFO does to queue it as a Bookmark delta, KEP-5647),
// so the cache can learn which server version it has reached even when
// nothing it holds changes: here a ConfigMap moves the server's version, and
// the pod watch's next bookmark carries it. A store that follows the version
// (ResourceVersionUpdater) sees every event's and every bookmark's version,
// after the store write. A list's version reaches the store as Replace's
// argument, in both kinds of list; the initial-events-end bookmark of a
// streaming list is that version, not a Bookmark.
func TestReflector_BookmarkReachesTheStore(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "paged list"
		if streaming {
			name = "streaming list"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{BookmarkInterval: time.Minute})
			store := &bookmarkStore{}
			a := e.createPod("a")
			listRV := e.srv.ResourceVersion()
			e.opts.UseWatchList = streaming
			r := runOn(t, e.lw, store, e.opts)

			replace := fmt.Sprintf("Replace [%s] @%s", nameRV(a), listRV)
			store.waitFor(t, replace)
			require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2), "the server's watch timeout and bookmark ticker")

			_, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default"}})
			require.NoError(t, err)
			moved := e.srv.ResourceVersion()
			story(t, "a ConfigMap moves the server to %s; the pod watch has nothing to send", moved)
			story(t, "a minute passes: the server's bookmark tick")
			e.clock.Step(time.Minute)
			store.waitFor(t, "UpdateResourceVersion "+moved)
			waitForSynced(t, r, moved)

			b := e.createPod("b")
			store.waitFor(t, "UpdateResourceVersion "+b.ResourceVersion)

			require.Equal(t, []string{
				replace,
				"Bookmark " + moved, "UpdateResourceVersion " + moved,
				"Add " + nameRV(b), "UpdateResourceVersion " + b.ResourceVersion,
			}, store.Calls())
		})
	}
}
