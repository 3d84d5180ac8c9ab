package informer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/stretchr/testify/require"
)

// A learner who presses "drop", then "reset", "compact" and "close
// watches" in any order, with writes in between, must see the informer
// relist and end up with the server's state, never a cache that says it
// is synced to the newest version while holding an older one. Each order
// is run with a write after every step, and the informer is let catch up
// (or stall on a deaf watch) before the next step, so the interleaving the
// soak found under load (a write reaching a still-open watch after the
// hole) happens every time. The check is the soak's: once the informer's
// LastSyncResourceVersion is the server's, its cache must equal the list.
// Article: "informer" notes §3 设计总结 (can list/watch lose events?).
func TestInformer_NoFaultOrderLeavesAStaleCache(t *testing.T) {
	steps := map[string]func(s *fakeapiserver.Server){
		"reset":         func(s *fakeapiserver.Server) { s.ResetFaults() },
		"compact":       func(s *fakeapiserver.Server) { s.CompactHistory() },
		"close-watches": func(s *fakeapiserver.Server) { s.CloseWatches() },
	}
	orders := [][]string{
		{"reset", "compact", "close-watches"},
		{"reset", "close-watches", "compact"},
		{"compact", "reset", "close-watches"},
		{"compact", "close-watches", "reset"},
		{"close-watches", "reset", "compact"},
		{"close-watches", "compact", "reset"},
	}
	for _, order := range orders {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			queueKinds(t, func(t *testing.T, kind QueueKind) {
				e := newServerEnv(t, fakeapiserver.Options{})
				e.expectWarnings() // the 410s
				for i := range 4 {
					e.create(configMap(fmt.Sprintf("cm-%d", i), "0"))
				}
				lw := e.listWatch(listwatch.ConfigMaps, nil)
				inf := NewSharedIndexInformerWithOptions(lw, &api.ConfigMap{}, testOptions(t, SharedIndexInformerOptions{Queue: kind, Clock: e.clock,
					Tracer: e.tracer, Logger: e.logger}))
				runInformer(t, inf)
				caughtUp := func() bool { return inf.LastSyncResourceVersion() == e.srv.ResourceVersion() }
				e.eventually(func() bool { return inf.HasSynced() && caughtUp() && e.srv.OpenWatches("configmaps") == 1 }, "synced and watching")

				t.Log("test: drop every event; cm-0 is updated and the open watch misses it")
				e.srv.DropEvents(func(fakeapiserver.Event) bool { return true })
				e.update(configMap("cm-0", "hidden"))
				for i, step := range order {
					t.Logf("test: %s, then a write to cm-%d", step, i+1)
					steps[step](e.srv)
					e.update(configMap(fmt.Sprintf("cm-%d", i+1), "after-"+step))
					// Let the write arrive if it can, or the watch stall.
					e.eventually(func() bool { return caughtUp() || e.srv.DeafWatches("configmaps") > 0 }, "after %s", step)
				}

				// LastSyncResourceVersion moves when the Reflector has queued
				// a list or an event, a moment before the queue's deltas reach
				// the cache: wait for both. A cache left stale by a hole never
				// gets there, and the wait fails.
				want := e.serverKeys("configmaps", "default")
				e.eventually(func() bool { return caughtUp() && slices.Equal(want, cachedKeys(inf.GetStore())) },
					"synced to the server's rv %s, the cache must come to hold what the server holds", e.srv.ResourceVersion())
				require.GreaterOrEqual(t, e.lists("configmaps"), 2, "it relisted")
				t.Logf("informer: synced to rv %s after %d lists; cache %v", inf.LastSyncResourceVersion(),
					e.lists("configmaps"), cachedKeys(inf.GetStore()))
				require.True(t, slices.Contains(cachedKeys(inf.GetStore()), describe(mustGet(t, e.srv, "cm-0"))))
			})
		})
	}
}

func configMap(name, v string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"v": v}}
}

func mustGet(t *testing.T, s *fakeapiserver.Server, name string) api.Object {
	t.Helper()
	o, err := s.Get("configmaps", "default", name)
	require.NoError(t, err)
	return o
}
