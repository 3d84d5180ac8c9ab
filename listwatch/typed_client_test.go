package listwatch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// Create, Get, Update (with optimistic concurrency), UpdateStatus, the
// three patch types and Delete, through HTTP against the fake server.
func TestTypedClientReadsAndWrites(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	ctx := context.Background()
	cms := For[*api.ConfigMap](e.client, ConfigMaps)

	created, err := cms.Create(ctx, "", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default"},
		Data: map[string]string{"k": "v1"}})
	require.NoError(t, err)
	assert.NotEmpty(t, created.UID, "the server fills in uid")
	assert.NotEmpty(t, created.ResourceVersion)
	assert.Equal(t, "ConfigMap", created.Kind)

	got, err := cms.Get(ctx, "default", "cfg")
	require.NoError(t, err)
	assert.Equal(t, created.ResourceVersion, got.ResourceVersion)
	assert.Equal(t, "v1", got.Data["k"])

	got.Data["k"] = "v2"
	updated, err := cms.Update(ctx, "default", got)
	require.NoError(t, err)
	assert.NotEqual(t, got.ResourceVersion, updated.ResourceVersion, "every write gets a new resourceVersion")

	got.Data["k"] = "lost update"
	_, err = cms.Update(ctx, "default", got) // got's resourceVersion is stale now
	assert.True(t, IsConflict(err), "%v", err)

	for _, p := range []struct {
		pt   PatchType
		data string
		want string
	}{
		{MergePatchType, `{"data":{"k":"merged"}}`, "merged"},
		{StrategicMergePatchType, `{"data":{"k":"strategic"}}`, "strategic"},
		{JSONPatchType, `[{"op":"replace","path":"/data/k","value":"json-patched"}]`, "json-patched"},
	} {
		patched, err := cms.Patch(ctx, "default", "cfg", p.pt, []byte(p.data))
		require.NoError(t, err, p.pt)
		assert.Equal(t, p.want, patched.Data["k"], p.pt)
	}

	current, err := cms.Get(ctx, "default", "cfg")
	require.NoError(t, err)
	err = cms.Delete(ctx, "default", "cfg", DeleteOptions{Preconditions: &Preconditions{UID: ptr("not-the-uid")}})
	assert.True(t, IsConflict(err), "a UID precondition that does not hold: %v", err)
	require.NoError(t, cms.Delete(ctx, "default", "cfg", DeleteOptions{Preconditions: &Preconditions{
		UID: ptr(current.UID), ResourceVersion: ptr(current.ResourceVersion)}}))
	_, err = cms.Get(ctx, "default", "cfg")
	assert.True(t, IsNotFound(err), "%v", err)
}

// UpdateStatus goes to the /status subresource: it changes the status
// (and, as on the real server, labels and annotations) but never the spec;
// Update ignores status changes.
func TestTypedClientUpdateStatus(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	ctx := context.Background()
	pods := For[*api.Pod](e.client, Pods)
	p, err := pods.Create(ctx, "default", pod("", "web-0", nil))
	require.NoError(t, err)
	assert.Equal(t, "default", p.Namespace)
	assert.Equal(t, api.PodPending, p.Status.Phase)

	p.Status.Phase = api.PodRunning
	p.Labels = map[string]string{"set": "by-status"}
	p.Spec.NodeName = "ignored-by-status"
	p, err = pods.UpdateStatus(ctx, "", p)
	require.NoError(t, err)
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	assert.Equal(t, map[string]string{"set": "by-status"}, p.Labels, "the pod status strategy keeps only the spec")
	assert.Empty(t, p.Spec.NodeName, "the status subresource never changes the spec")

	p.Status.Phase = api.PodFailed
	p, err = pods.Update(ctx, "", p)
	require.NoError(t, err)
	assert.Equal(t, api.PodRunning, p.Status.Phase, "the main resource ignores status")
}

// Create fills in kind and apiVersion on a copy: the caller's object is
// not touched.
func TestTypedClientCreateDoesNotChangeCallersObject(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	mine := pod("default", "mine", nil)
	_, err := For[*api.Pod](e.client, Pods).Create(context.Background(), "", mine)
	require.NoError(t, err)
	assert.Empty(t, mine.Kind)
	assert.Empty(t, mine.ResourceVersion)
}

// For with a resource whose objects are not T reports it on every call
// instead of panicking.
func TestForWithMismatchedResource(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	wrong := For[*api.Pod](e.client, ConfigMaps)
	_, err := wrong.List(context.Background(), "default", ListOptions{})
	require.ErrorContains(t, err, "For[*api.Pod] was given resource configmaps, whose objects are *api.ConfigMap")
	_, err = wrong.Get(context.Background(), "default", "x")
	require.Error(t, err)
	_, err = wrong.Watch(context.Background(), "default", ListOptions{})
	require.Error(t, err)
	require.Error(t, wrong.Delete(context.Background(), "default", "x", DeleteOptions{}))

	noNew := For[*api.Pod](e.client, Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true})
	_, err = noNew.List(context.Background(), "default", ListOptions{})
	require.ErrorContains(t, err, "has no New function")
	_, err = NewFilteredListWatchFromClient(e.client, Resource{Resource: "pods"}, "", nil).Watch(context.Background(), ListOptions{})
	require.ErrorContains(t, err, "has no New function")
}

// A typed watch of a named-group resource delivers its type.
func TestTypedClientWatchReplicaSets(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	rss := For[*api.ReplicaSet](e.client, ReplicaSets)
	w, err := rss.Watch(context.Background(), "default", ListOptions{ResourceVersion: e.srv.ResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()
	_, err = rss.Create(context.Background(), "default", &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web"},
		Spec: api.ReplicaSetSpec{
			Replicas: ptr(int32(2)),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	})
	require.NoError(t, err)
	ev := next(t, w)
	assert.Equal(t, api.Added, ev.Type)
	rs, ok := ev.Object.(*api.ReplicaSet)
	require.True(t, ok, "%T", ev.Object)
	assert.Equal(t, int32(2), *rs.Spec.Replicas)
	assert.Equal(t, "apps/v1", rs.APIVersion)
}
