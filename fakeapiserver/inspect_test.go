package fakeapiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/labtest"
	"github.com/kinformer/kinformer/trace"
)

// The lab sees every open watch with the frames the server has for it and
// has not written yet, oldest first: a streaming list's initial events as
// the watch opens; each change as it is committed (the fan-out queued it);
// a frame gone as its "frame sent" is reported. A frame the writer holds
// while a watch delay runs is still pending: it is not written. A watch
// that ended leaves the map.
func TestServer_InspectShowsPendingFramesPerWatch(t *testing.T) {
	lab, tr := labtest.New(t)
	e := newEnv(t, Options{WatchBuffer: 3, Tracer: tr})
	a := e.createPod("default", "a", nil)

	t.Log("client: a streaming list of the pods in default")
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	require.Len(t, ws.nextN(2), 2, "ADDED a, then the initial-events-end bookmark")
	require.Equal(t, WatchesState{Watches: map[string]WatchState{
		"1": {Resource: "pods", Pending: []PendingFrame{{Type: "ADDED", Key: "default/a", RV: a.ResourceVersion}}},
	}}, labtest.Last[WatchesState](lab, "watch opened"), "the initial event, not written yet")
	require.Equal(t, WatchesState{Watches: map[string]WatchState{"1": {Resource: "pods", Pending: []PendingFrame{}}}},
		labtest.Last[WatchesState](lab, "frame sent"), "sent as it is reported")
	labtest.Last[WatchesState](lab, "bookmark sent (initial-events-end)")

	t.Log("server: every frame now waits 1s before it is written; b and c are created")
	e.srv.SetWatchDelay(time.Second)
	b := e.createPod("default", "b", nil)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 3), "the writer waits on its delay with b in hand")
	c := e.createPod("default", "c", nil)
	require.Equal(t, []PendingFrame{{Type: "ADDED", Key: "default/b", RV: b.ResourceVersion}, {Type: "ADDED", Key: "default/c", RV: c.ResourceVersion}},
		labtest.Last[WatchesState](lab, "commit").Watches["1"].Pending, "b in the writer's hands is still pending")

	e.clock.Step(time.Second)
	require.Equal(t, "ADDED b@"+b.ResourceVersion, ws.next().summary(t))
	require.Equal(t, []PendingFrame{{Type: "ADDED", Key: "default/c", RV: c.ResourceVersion}},
		labtest.Last[WatchesState](lab, "frame sent").Watches["1"].Pending)

	t.Log("client: goes away")
	ws.close()
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 5*time.Second, time.Millisecond)
	require.Empty(t, labtest.Last[WatchesState](lab, "watch closed").Watches, "a watch that ended leaves the map")

	t.Log("client: a watch that reads too slowly: its buffer holds 3")
	slow := e.watch("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=3600&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.createPod("default", "p0", nil)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2), "the writer waits on its delay with p0 in hand")
	for i := 1; i <= 4; i++ {
		e.createPod("default", fmt.Sprintf("p%d", i), nil) // p1..p3 fill the buffer, p4 overflows it
	}
	cut := labtest.Last[WatchesState](lab, "watch cut off").Watches["2"]
	require.Len(t, cut.Pending, 4, "cut off, it still has p0 to p3 to send")
	e.srv.SetWatchDelay(0)
	e.clock.Step(time.Second)
	require.Len(t, append([]frame{slow.next()}, slow.ended()...), 4)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 5*time.Second, time.Millisecond)
	require.Empty(t, labtest.Last[WatchesState](lab, "watch closed").Watches)
}

// Inspecting off costs nothing: a server traced to a consumer that does
// not inspect keeps no copy of what its watches have queued, and its
// events carry no state.
func TestServer_InspectOffKeepsNoCopy(t *testing.T) {
	rec := trace.NewRecorder()
	e := newEnv(t, Options{Tracer: rec.Tracer()})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	p := e.createPod("default", "a", nil)
	require.Equal(t, "ADDED a@"+p.ResourceVersion, ws.next().summary(t))
	for _, ev := range rec.Events() {
		require.Nil(t, ev.State, "%s", ev)
	}
}
