package replicaset

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// hop is one expected trace event on an object's path.
type hop struct {
	stage, what string
	match       func(trace.Event) bool // more conditions, or nil
}

func (h hop) String() string { return h.stage + ": " + h.what }

// followInOrder finds the hops in events, in order (other events may come
// between), and returns the matched events; it fails the test at the
// first hop it cannot find.
func followInOrder(t *testing.T, events []trace.Event, hops []hop) []trace.Event {
	t.Helper()
	var path []trace.Event
	i := 0
	for _, h := range hops {
		for ; i < len(events); i++ {
			e := events[i]
			if e.Stage == h.stage && e.What == h.what && (h.match == nil || h.match(e)) {
				break
			}
		}
		require.Less(t, i, len(events), "no %q after %v", h, path)
		path = append(path, events[i])
		i++
	}
	return path
}

// One pod's deletion, followed through every stage of the pipeline by its
// key and resourceVersion, and then its owner's key through the work queue
// to the worker: the diagram of every article, as trace events in order.
//
// Article: "Kubernetes-Informer" (smartkeyerror) §2, and "Kubernetes
// Controller 实现机制深度解析" (赵化冰, 2023-03-09; 004), "Informer 机制":
// steps 1-7 from the API server to the worker.
func TestTrace_FollowOnePodThroughEveryStage(t *testing.T) {
	rec := trace.NewRecorder()
	tr := rec.Tracer()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: tr})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: tr})
	require.NoError(t, err)
	// The articles' informer: the hops below are their diagram's (a list,
	// the DeltaFIFO, one delta at a time).
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Pipeline: informer.Articles, Tracer: tr, Logger: quiet})
	ctrl, err := NewReplicaSetController(Options{Client: client, Factory: factory, Logger: quiet, Tracer: tr})
	require.NoError(t, err)
	_, err = srv.Create(newReplicaSet("web", 1))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
		factory.Shutdown()
	}()

	webPods := func() []api.Object {
		pods, _, err := srv.List("pods", "default")
		require.NoError(t, err)
		return pods
	}
	require.Eventually(t, func() bool { return len(webPods()) == 1 }, deadline, 5*time.Millisecond, "the controller creates web's pod")
	victim := webPods()[0]
	podKey := "default/" + victim.GetName()

	t.Logf("story: deleting pod %s; following it through every stage", podKey)
	_, err = srv.Delete("pods", "default", victim.GetName())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		pods := webPods()
		return len(pods) == 1 && pods[0].GetName() != victim.GetName()
	}, deadline, 5*time.Millisecond, "the controller replaces the deleted pod")
	require.Eventually(t, func() bool { // every reconcile begun has ended, and none is queued
		begun, ended := 0, 0
		for _, e := range rec.ForKey("default/web") {
			switch {
			case e.Stage == trace.StageController && e.What == "reconcile":
				begun++
			case e.Stage == trace.StageController && e.What == "reconciled":
				ended++
			}
		}
		return begun > 0 && begun == ended && ctrl.queue.Len() == 0
	}, deadline, 5*time.Millisecond)

	events := rec.Events()
	// The DELETED event's resourceVersion: the server's commit says it.
	commit := followInOrder(t, events, []hop{{trace.StageServer, "commit", func(e trace.Event) bool {
		return e.Key() == podKey && e.Get(trace.KeyType) == "DELETED"
	}}})[0]
	rv := commit.RV()
	sameVersion := func(e trace.Event) bool { return e.Key() == podKey && e.RV() == rv }
	path := followInOrder(t, events, []hop{
		{trace.StageServer, "commit", sameVersion},
		{trace.StageServer, "frame sent", sameVersion},
		{trace.StageListWatch, "frame decoded", sameVersion},
		{trace.StageReflector, "watch event", sameVersion},
		{trace.StageDeltaFIFO, "delta queued", sameVersion},
		{trace.StageDeltaFIFO, "pop", sameVersion},
		{trace.StageInformer, "cache delete", sameVersion},
		{trace.StageInformer, "notify", sameVersion},
		{trace.StageInformer, "OnDelete", sameVersion},
		{trace.StageController, "enqueue", func(e trace.Event) bool { return e.Key() == "default/web" && e.Get("from") == podKey }},
		{trace.StageWorkQueue, "get", func(e trace.Event) bool { return e.Key() == "default/web" }},
		{trace.StageController, "reconcile", func(e trace.Event) bool { return e.Key() == "default/web" }},
		{trace.StageController, "reconciled", func(e trace.Event) bool { return e.Key() == "default/web" }},
	})
	for i, e := range path {
		t.Logf("hop %2d  %s", i+1, e)
	}
	// The replacement was created after the deletion was committed (on
	// the MODIFIED that marked the pod, or on the DELETED).
	created := followInOrder(t, events, []hop{
		{trace.StageServer, "commit", sameVersion},
		{trace.StageController, "pod created", func(e trace.Event) bool { return e.Get("owner") == "default/web" }},
	})[1]
	t.Logf("and then %s", created)
	require.True(t, strings.HasPrefix(created.Key(), "default/web-"), fmt.Sprint(created))
}
