package listwatch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// Paths as the real API lays them out (client-go notes §6a).
func TestResourcePath(t *testing.T) {
	tests := []struct {
		r                    Resource
		namespace, name, sub string
		want                 string
	}{
		{Pods, "", "", "", "/api/v1/pods"},
		{Pods, "default", "", "", "/api/v1/namespaces/default/pods"},
		{Pods, "default", "web-0", "", "/api/v1/namespaces/default/pods/web-0"},
		{Pods, "default", "web-0", "status", "/api/v1/namespaces/default/pods/web-0/status"},
		{ConfigMaps, "kube-system", "cfg", "", "/api/v1/namespaces/kube-system/configmaps/cfg"},
		{Namespaces, "", "", "", "/api/v1/namespaces"},
		{Namespaces, "ignored", "kube-system", "", "/api/v1/namespaces/kube-system"},
		{Namespaces, "", "kube-system", "status", "/api/v1/namespaces/kube-system/status"},
		{ReplicaSets, "", "", "", "/apis/apps/v1/replicasets"},
		{ReplicaSets, "default", "web", "status", "/apis/apps/v1/namespaces/default/replicasets/web/status"},
		{Pods, "default", "a b/c", "", "/api/v1/namespaces/default/pods/a%20b%2Fc"},
	}
	for _, tt := range tests {
		got := tt.r.Path(tt.namespace, tt.name, tt.sub)
		t.Logf("listwatch: %s namespace=%q name=%q sub=%q -> %s", tt.r, tt.namespace, tt.name, tt.sub, got)
		assert.Equal(t, tt.want, got)
	}
	assert.Equal(t, "v1", Pods.GroupVersion())
	assert.Equal(t, "apps/v1", ReplicaSets.GroupVersion())
	assert.Equal(t, "replicasets.apps", ReplicaSets.String())
	assert.Equal(t, "pods", Pods.GroupResource())
}

// Each predefined resource makes objects of its Go type.
func TestPredefinedResourcesMakeTheirTypes(t *testing.T) {
	assert.IsType(t, &api.Pod{}, Pods.New())
	assert.IsType(t, &api.ConfigMap{}, ConfigMaps.New())
	assert.IsType(t, &api.Namespace{}, Namespaces.New())
	assert.IsType(t, &api.ReplicaSet{}, ReplicaSets.New())
	assert.False(t, Namespaces.Namespaced)
}

// The request a client sends: the path under the server's own prefix
// (e.g. a Rancher proxy URL), the query the options encode to, and the
// headers.
func TestClientRequestShape(t *testing.T) {
	requests := make(chan *http.Request, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests <- r
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`))
	}))
	defer hs.Close()
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL + "/k8s/clusters/c-1/", BearerToken: "secret", UserAgent: "test-agent"})
	require.NoError(t, err)

	_, err = For[*api.Pod](c, Pods).List(context.Background(), "a b", ListOptions{
		LabelSelector: "app in (web,db)", FieldSelector: "status.phase=Running", ResourceVersion: "5",
		ResourceVersionMatch: ResourceVersionMatchNotOlderThan, Limit: 500, TimeoutSeconds: ptr(int64(30)),
	})
	require.NoError(t, err)
	got := <-requests
	t.Logf("server (hand-made): got %s %s?%s Authorization=%q User-Agent=%q", got.Method, got.URL.EscapedPath(), got.URL.RawQuery,
		got.Header.Get("Authorization"), got.UserAgent())
	assert.Equal(t, "/k8s/clusters/c-1/api/v1/namespaces/a%20b/pods", got.URL.EscapedPath())
	assert.Equal(t, "fieldSelector=status.phase%3DRunning&labelSelector=app+in+%28web%2Cdb%29&limit=500&resourceVersion=5&resourceVersionMatch=NotOlderThan&timeoutSeconds=30",
		got.URL.RawQuery)
	assert.Equal(t, "Bearer secret", got.Header.Get("Authorization"))
	assert.Equal(t, "test-agent", got.UserAgent())
	assert.Equal(t, "application/json", got.Header.Get("Accept"))
}

// Watch options: watch=true always, bookmarks and initial events when asked.
func TestListOptionsQuery(t *testing.T) {
	for _, o := range []ListOptions{{}, {AllowWatchBookmarks: true, SendInitialEvents: ptr(true), ResourceVersionMatch: "NotOlderThan", Continue: "tok"}} {
		t.Logf("listwatch: %+v -> list ?%s, watch ?%s", o, o.query(false).Encode(), o.query(true).Encode())
	}
	assert.Equal(t, "", ListOptions{}.query(false).Encode())
	assert.Equal(t, "watch=true", ListOptions{}.query(true).Encode())
	assert.Equal(t, "allowWatchBookmarks=true&continue=tok&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true",
		ListOptions{AllowWatchBookmarks: true, SendInitialEvents: ptr(true), ResourceVersionMatch: "NotOlderThan", Continue: "tok"}.query(true).Encode())
	assert.Equal(t, "sendInitialEvents=false", ListOptions{SendInitialEvents: ptr(false)}.query(false).Encode())
}

// Delete sends its options as a DeleteOptions body (reference
// 09-update-patch-delete.txt); without options, no body.
func TestDeleteSendsOptionsBody(t *testing.T) {
	bodies := make(chan string, 2)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + string(b)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`))
	}))
	defer hs.Close()
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL})
	require.NoError(t, err)
	pods := For[*api.Pod](c, Pods)

	require.NoError(t, pods.Delete(context.Background(), "default", "web-0", DeleteOptions{}))
	body := <-bodies
	t.Logf("server (hand-made): got %s", body)
	assert.Equal(t, "DELETE /api/v1/namespaces/default/pods/web-0  ", body)
	require.NoError(t, pods.Delete(context.Background(), "default", "web-0", DeleteOptions{
		GracePeriodSeconds: ptr(int64(0)), Preconditions: &Preconditions{UID: ptr("u-1")}}))
	body = <-bodies
	t.Logf("server (hand-made): got %s", body)
	assert.Equal(t, `DELETE /api/v1/namespaces/default/pods/web-0 application/json {"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":"u-1"}}`, body)
}
