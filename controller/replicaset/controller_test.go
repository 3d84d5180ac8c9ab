package replicaset

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

// Scaling a ReplicaSet from 0 to 3 creates 3 pods made from its template,
// each controlled by it, and the status reports them for the new
// generation.
func TestReplicaSetController_ScaleUp(t *testing.T) {
	e := start(t, envConfig{})
	rs := e.createRS("web", 0)
	e.eventually(func() bool { return e.converged("web", 0) }, "the status of the new ReplicaSet is written")

	e.scale("web", 3)
	e.eventually(func() bool { return e.converged("web", 3) && e.ctrl.Stats().PodsCreated >= 3 }, "3 pods and status.replicas 3")

	yes := true
	for _, pod := range e.pods("web") {
		assert.True(t, strings.HasPrefix(pod.Name, "web-"), pod.Name)
		assert.Equal(t, "web-", pod.GenerateName)
		assert.Equal(t, map[string]string{"app": "web"}, pod.Labels)
		assert.Equal(t, rs.Spec.Template.Spec.Containers, pod.Spec.Containers)
		assert.Equal(t, []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: rs.UID,
			Controller: &yes, BlockOwnerDeletion: &yes}}, pod.OwnerReferences)
	}
	got := e.rs("web")
	assert.Equal(t, api.ReplicaSetStatus{Replicas: 3, ObservedGeneration: 2}, got.Status)
	assert.Equal(t, int64(3), e.ctrl.Stats().PodsCreated)
	assert.Zero(t, e.ctrl.Stats().PodsDeleted)
}

// Scaling down deletes the pods that matter least first: a not-ready pod
// before a ready one, a newer pod before an older one. The status counts
// the ready pods.
func TestReplicaSetController_ScaleDown_DeletesNotReadyAndNewestFirst(t *testing.T) {
	serverClock := clock.NewFakeClock(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)) // creationTimestamps
	e := start(t, envConfig{server: fakeapiserver.Options{Clock: serverClock}})
	e.createRS("web", 2)
	e.eventually(func() bool { return e.converged("web", 2) }, "2 pods")
	older := e.pods("web")

	serverClock.Step(time.Minute)
	e.scale("web", 3)
	e.eventually(func() bool { return e.converged("web", 3) }, "3 pods")
	newest := e.pods("web")[2]
	require.NotContains(t, names(older), newest.Name)
	require.True(t, newest.CreationTimestamp.After(older[1].CreationTimestamp.Time))

	// older[0] and newest become ready; older[1] stays Pending.
	e.setReady(older[0].Name)
	e.setReady(newest.Name)
	e.eventually(func() bool { return e.rs("web").Status.ReadyReplicas == 2 }, "status.readyReplicas 2")
	assert.Equal(t, int32(2), e.rs("web").Status.AvailableReplicas)

	e.scale("web", 1)
	e.eventually(func() bool { return e.converged("web", 1) && e.ctrl.Stats().PodsDeleted >= 2 }, "1 pod")
	assert.Equal(t, []string{older[0].Name}, names(e.pods("web")),
		"the not-ready pod and the newest ready pod were deleted; the oldest ready pod stays")
	assert.Equal(t, int64(2), e.ctrl.Stats().PodsDeleted)
	assert.Equal(t, int32(1), e.rs("web").Status.ReadyReplicas)
}

// Article 000's example: when a pod is deleted, the ReplicaSet controller
// creates a new one to keep the number of pods.
func TestReplicaSetController_RecreatesDeletedPods(t *testing.T) {
	e := start(t, envConfig{})
	e.createRS("web", 3)
	e.eventually(func() bool { return e.converged("web", 3) }, "3 pods")
	victims := e.pods("web")[:2]
	for _, p := range victims {
		_, err := e.srv.Delete("pods", api.NamespaceDefault, p.Name)
		require.NoError(t, err)
	}
	e.eventually(func() bool {
		pods := names(e.pods("web"))
		return len(pods) == 3 && !containsAny(pods, names(victims)) && e.ctrl.Stats().PodsCreated >= 5
	}, "2 new pods replace the deleted ones")
	assert.Equal(t, int64(5), e.ctrl.Stats().PodsCreated)
}

func containsAny(list, some []string) bool {
	for _, s := range some {
		for _, l := range list {
			if l == s {
				return true
			}
		}
	}
	return false
}

// A pod delete the watch never delivered reaches the handler after the
// next relist as a deltafifo.DeletedFinalStateUnknown: the handler unwraps
// it, queues the pod's ReplicaSet, and the pod is replaced.
func TestReplicaSetController_TombstoneOfMissedPodDeleteIsHandled(t *testing.T) {
	e := start(t, envConfig{})
	var tombstones atomic.Int32
	_, err := e.factory.InformerFor(listwatch.Pods).AddEventHandler(informer.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if _, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
				tombstones.Add(1)
			}
		},
	})
	require.NoError(t, err)
	e.createRS("web", 1)
	e.eventually(func() bool { return e.converged("web", 1) }, "1 pod")
	victim := e.pods("web")[0]
	victimKey := api.NamespaceDefault + "/" + victim.Name

	// The pod's MODIFIED (deletionTimestamp) and DELETED never reach the
	// informer; history is compacted, so the Reflector must relist.
	e.srv.DropEvents(func(ev fakeapiserver.Event) bool { return ev.Resource == "pods" && ev.Name == victim.Name })
	_, err = e.srv.Delete("pods", api.NamespaceDefault, victim.Name)
	require.NoError(t, err)
	e.srv.DropEvents(nil)
	e.srv.CompactHistory()
	e.srv.CloseWatches()

	e.eventually(func() bool {
		pods := e.pods("web")
		return len(pods) == 1 && pods[0].Name != victim.Name
	}, "the missed delete is found by the relist and the pod replaced")
	assert.Equal(t, int32(1), tombstones.Load(), "the informer delivered a tombstone")
	fromVictim := 0
	for _, ev := range e.story.find("enqueue", "default/web") {
		if ev.Get("from") == victimKey {
			fromVictim++
		}
	}
	assert.Equal(t, 2, fromVictim, "the victim's add and its tombstone each queued the ReplicaSet")
}

// Run returns nil once its context ends, after the workers have drained
// the queue; a second Run is refused. (TestMain checks that no goroutine
// is left.)
func TestReplicaSetController_RunStopsCleanly(t *testing.T) {
	e := start(t, envConfig{})
	e.createRS("web", 2)
	e.eventually(func() bool { return e.converged("web", 2) }, "2 pods")
	err := e.ctrl.Run(context.Background())
	require.ErrorContains(t, err, "Run called twice")
	// The env's cleanup cancels Run's context and requires it to return nil.
}

// Run gives up with the context's error if the caches never sync (here:
// the factory was never started).
func TestReplicaSetController_RunFailsIfCachesNeverSync(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	require.NoError(t, err)
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{})
	c, err := NewReplicaSetController(Options{Client: client, Factory: factory, Logger: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = c.Run(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "caches did not sync")
}
