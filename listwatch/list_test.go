package listwatch

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// seedPods creates pods in two namespaces with labels and phases to select on.
func seedPods(t *testing.T, e *env) {
	t.Helper()
	e.create(t, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "other"}})
	e.create(t, pod("default", "web-0", map[string]string{"app": "web", "tier": "front"}))
	e.create(t, pod("default", "web-1", map[string]string{"app": "web"}))
	e.create(t, pod("default", "db-0", map[string]string{"app": "db"}))
	e.create(t, pod("other", "web-0", map[string]string{"app": "web"}))
	got, err := e.srv.Get("pods", "default", "web-1")
	require.NoError(t, err)
	running := got.(*api.Pod)
	running.Status.Phase = api.PodRunning
	_, err = e.srv.UpdateStatus(running)
	require.NoError(t, err)
}

// Article: Kubernetes Controller 实现机制深度解析 (赵化冰), "K8s HTTP API 的 List Watch 机制":
// GET /api/v1/namespaces/default/pods lists one namespace; the list carries
// the resourceVersion to watch from.
func TestListOneNamespaceAndAllNamespaces(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	seedPods(t, e)
	pods := For[*api.Pod](e.client, Pods)
	ctx := context.Background()

	list, err := pods.List(ctx, "default", ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"db-0", "web-0", "web-1"}, names(list.Items))
	assert.Equal(t, e.srv.ResourceVersion(), list.ResourceVersion, "the list's resourceVersion is the server's current one")
	assert.Equal(t, "PodList", list.Kind)
	assert.Equal(t, "Pod", list.Items[0].Kind, "list items carry their kind")
	assert.Equal(t, "v1", list.Items[0].APIVersion)

	all, err := pods.List(ctx, api.NamespaceAll, ListOptions{})
	require.NoError(t, err)
	assert.Len(t, all.Items, 4)
}

func TestListLabelAndFieldSelectors(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	seedPods(t, e)
	pods := For[*api.Pod](e.client, Pods)
	tests := []struct {
		name      string
		namespace string
		opts      ListOptions
		want      []string
	}{
		{"label equality", "default", ListOptions{LabelSelector: "app=web"}, []string{"web-0", "web-1"}},
		{"label inequality", "default", ListOptions{LabelSelector: "app!=web"}, []string{"db-0"}},
		{"label set-based in", "default", ListOptions{LabelSelector: "app in (db,cache)"}, []string{"db-0"}},
		{"label exists", "default", ListOptions{LabelSelector: "tier"}, []string{"web-0"}},
		{"label does not exist", "default", ListOptions{LabelSelector: "!tier,app=web"}, []string{"web-1"}},
		{"field metadata.name across namespaces", "", ListOptions{FieldSelector: "metadata.name=web-0"}, []string{"web-0", "web-0"}},
		{"field metadata.namespace", "", ListOptions{FieldSelector: "metadata.namespace=other"}, []string{"web-0"}},
		{"field status.phase", "default", ListOptions{FieldSelector: "status.phase=Running"}, []string{"web-1"}},
		{"label and field together", "default", ListOptions{LabelSelector: "app=web", FieldSelector: "status.phase!=Running"}, []string{"web-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := pods.List(context.Background(), tt.namespace, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(list.Items))
		})
	}
}

// The resourceVersion rules of a list (client-go notes §6b): "" is the
// most recent state, "0" any state, "N" not older than N, and N with
// resourceVersionMatch=Exact exactly the state at N, which 410s once
// compacted away.
func TestListResourceVersionSemantics(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	pods := For[*api.Pod](e.client, Pods)
	ctx := context.Background()
	e.create(t, pod("default", "a", nil))
	before := e.srv.ResourceVersion()
	e.create(t, pod("default", "b", nil))

	latest, err := pods.List(ctx, "default", ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names(latest.Items))

	anyState, err := pods.List(ctx, "default", ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names(anyState.Items))

	notOlder, err := pods.List(ctx, "default", ListOptions{ResourceVersion: before, ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names(notOlder.Items), "not older than: the newest state qualifies")

	exact, err := pods.List(ctx, "default", ListOptions{ResourceVersion: before, ResourceVersionMatch: ResourceVersionMatchExact})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names(exact.Items), "exact: the state as it was at that version")
	assert.Equal(t, before, exact.ResourceVersion)

	e.srv.CompactHistory()
	_, err = pods.List(ctx, "default", ListOptions{ResourceVersion: before, ResourceVersionMatch: ResourceVersionMatchExact})
	require.Error(t, err)
	assert.True(t, IsResourceExpired(err), "an exact list older than the history is 410 Expired: %v", err)

	_, err = pods.List(ctx, "default", ListOptions{ResourceVersionMatch: ResourceVersionMatchExact})
	assert.True(t, IsInvalid(err), "resourceVersionMatch without resourceVersion is 422: %v", err)
}

// Article: informer notes §1.2 (chunks) and client-go notes §6d: limit and
// continue page through ONE snapshot: writes between pages do not show,
// and every page carries the first page's resourceVersion.
func TestListPagingThroughConsistentSnapshot(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	pods := For[*api.Pod](e.client, Pods)
	ctx := context.Background()
	for _, n := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.create(t, pod("default", n, nil))
	}

	first, err := pods.List(ctx, "default", ListOptions{Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, first.Continue)
	require.NotNil(t, first.RemainingItemCount)
	assert.Equal(t, int64(3), *first.RemainingItemCount)
	seen := names(first.Items)

	// Change the world between pages.
	e.create(t, pod("default", "p6", nil))
	_, err = e.srv.Delete("pods", "default", "p4")
	require.NoError(t, err)

	token := first.Continue
	for token != "" {
		page, err := pods.List(ctx, "default", ListOptions{Limit: 2, Continue: token})
		require.NoError(t, err)
		assert.Equal(t, first.ResourceVersion, page.ResourceVersion, "every page is the same snapshot")
		seen = append(seen, names(page.Items)...)
		token = page.Continue
	}
	assert.Equal(t, []string{"p1", "p2", "p3", "p4", "p5"}, seen, "the snapshot of the first page: p4 still there, no p6")
}

// An expired continue token is 410 Expired: the pager (in the reflector)
// then falls back to a full list.
func TestListExpiredContinueToken(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	pods := For[*api.Pod](e.client, Pods)
	for _, n := range []string{"p1", "p2", "p3"} {
		e.create(t, pod("default", n, nil))
	}
	first, err := pods.List(context.Background(), "default", ListOptions{Limit: 1})
	require.NoError(t, err)
	e.create(t, pod("default", "p4", nil))
	e.srv.CompactHistory()

	_, err = pods.List(context.Background(), "default", ListOptions{Limit: 1, Continue: first.Continue})
	require.Error(t, err)
	assert.True(t, IsResourceExpired(err), "%v", err)
	assert.Equal(t, api.StatusReasonExpired, ReasonForError(err))
}

// A resourceVersion the server has not reached: it waits (3 s on its
// clock) and answers 504 with cause ResourceVersionTooLarge and
// Retry-After 1. The reflector relists from "" on it.
func TestListTooLargeResourceVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	pods := For[*api.Pod](e.client, Pods)
	errc := make(chan error, 1)
	go func() {
		_, err := pods.List(context.Background(), "default",
			ListOptions{ResourceVersion: "999999", ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
		errc <- err
	}()
	e.blockUntilWaiters(t, 1) // the server is waiting for version 999999
	e.clock.Step(fakeapiserverTooLargeWait)

	err := <-errc
	require.Error(t, err)
	assert.True(t, IsTooLargeResourceVersion(err), "%v", err)
	assert.True(t, IsTimeout(err))
	after, ok := RetryAfter(err)
	assert.True(t, ok)
	assert.Equal(t, int64(1), int64(after.Seconds()))
}

// fakeapiserverTooLargeWait is the fake server's default wait, as the real
// server's (reference 13-gone-410-and-too-large.txt: "waits ~3s").
const fakeapiserverTooLargeWait = 3 * time.Second

// The untyped List a Reflector uses decodes items as r.New makes them.
func TestListWatchListDecodesItemsAsResourceType(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	seedPods(t, e)
	lw := NewFilteredListWatchFromClient(e.client, Pods, "default", func(o *ListOptions) { o.LabelSelector = "app=web" })

	list, err := lw.List(context.Background(), ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	for _, obj := range list.Items {
		p, ok := obj.(*api.Pod)
		require.True(t, ok, "items are *api.Pod, got %T", obj)
		assert.Equal(t, "web", p.Labels["app"], "the modifier's selector was applied")
		assert.Equal(t, "Pod", p.Kind)
		assert.NotEmpty(t, p.ResourceVersion)
	}
	assert.Equal(t, e.srv.ResourceVersion(), list.ResourceVersion)

	byName := NewListWatchFromClient(e.client, Pods, "", "metadata.name=db-0")
	list, err = byName.List(context.Background(), ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"db-0"}, names(list.Items))
}

func TestListNamedGroupAndClusterScopedResources(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.create(t, &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	})
	rss, err := For[*api.ReplicaSet](e.client, ReplicaSets).List(context.Background(), "default", ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"web"}, names(rss.Items))
	assert.Equal(t, "apps/v1", rss.Items[0].APIVersion)

	nss, err := For[*api.Namespace](e.client, Namespaces).List(context.Background(), "ignored-for-cluster-scope", ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"default", "kube-public", "kube-system"}, names(nss.Items))
}
