package listwatch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// A DynamicResource lists and watches into *api.Unstructured, keeping the
// fields the typed Pod does not declare (the server's defaults dnsPolicy,
// schedulerName, qosClass), and labels list items with their kind.
func TestDynamicResource_ListAndWatchKeepEverything(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.create(t, pod("default", "web-0", map[string]string{"app": "web"}))
	r := DynamicResource("", "v1", "pods", "Pod", true)
	lw := NewFilteredListWatchFromClient(e.client, r, "default", nil)

	list, err := lw.List(t.Context(), ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	u := list.Items[0].(*api.Unstructured)
	require.Equal(t, "web-0", u.GetName())
	require.Equal(t, "Pod", u.GetObjectKind().Kind, "an item without a kind gets the resource's")
	require.Equal(t, "Pod", u.Object["kind"], "and so does its map")
	require.Equal(t, "v1", u.Object["apiVersion"])
	dns, found, err := nestedString(u, "spec", "dnsPolicy")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "ClusterFirst", dns)

	w, err := lw.Watch(t.Context(), ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	e.create(t, pod("default", "web-1", nil))
	ev := next(t, w)
	require.Equal(t, api.Added, ev.Type)
	u = ev.Object.(*api.Unstructured)
	require.Equal(t, "web-1", u.GetName())
	qos, _, err := nestedString(u, "status", "qosClass")
	require.NoError(t, err)
	require.Equal(t, "BestEffort", qos)

	// The typed client works with it as well, reading and writing.
	pods := For[*api.Unstructured](e.client, r)
	got, err := pods.Get(t.Context(), "default", "web-1")
	require.NoError(t, err)
	require.Equal(t, u.GetUID(), got.GetUID())
	created, err := pods.Create(t.Context(), "default", &api.Unstructured{Object: map[string]any{ // no kind: set on a copy
		"metadata": map[string]any{"name": "web-2"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}},
			"hostname": "h2"}, // a field the typed Pod does not declare
	}})
	require.NoError(t, err)
	hostname, _, err := nestedString(created, "spec", "hostname")
	require.NoError(t, err)
	require.Equal(t, "h2", hostname)
	require.Equal(t, "Pod", created.GetKind())
}

// nestedString is api.NestedString on u's Object.
func nestedString(u *api.Unstructured, path ...string) (string, bool, error) {
	return api.NestedString(u.Object, path...)
}

// realPartialServer answers as kube-apiserver does to the metadata
// client's Accept headers (checked here) and records them.
type realPartialServer struct {
	mu      sync.Mutex
	accepts map[string]string // "list", "watch", "get" -> Accept
}

func (s *realPartialServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	verb := "get"
	if req.URL.Path == "/api/v1/namespaces/default/pods" {
		verb = "list"
		if req.URL.Query().Get("watch") == "true" {
			verb = "watch"
		}
	}
	s.mu.Lock()
	s.accepts[verb] = req.Header.Get("Accept")
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch verb {
	case "list":
		// The real server labels each item; the second one here has no
		// kind, to show what fills it in.
		_, _ = io.WriteString(w, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10"},"items":[`+
			`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-0","namespace":"default","resourceVersion":"9","labels":{"app":"web"},"managedFields":[{"manager":"m"}]}},`+
			`{"metadata":{"name":"web-1","namespace":"default","resourceVersion":"10"}}]}`)
	case "watch":
		_, _ = io.WriteString(w, `{"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-2","namespace":"default","resourceVersion":"11"}}}`+"\n")
	default:
		_, _ = io.WriteString(w, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-0","namespace":"default","resourceVersion":"9"}}`)
	}
}

// MetadataOnly sends client-go's metadata Accept headers and keeps the
// answer's kind. Checked against a handler answering as kube-apiserver 1.36
// does (the fake server's answers are checked in the informer tests).
func TestMetadataOnly_AcceptHeadersAndKinds(t *testing.T) {
	s := &realPartialServer{accepts: map[string]string{}}
	hs := httptest.NewServer(s)
	defer hs.Close()
	c, err := NewClient(Config{Server: hs.URL})
	require.NoError(t, err)
	r := MetadataOnly(Pods)
	lw := NewFilteredListWatchFromClient(c, r, "default", nil)

	list, err := lw.List(t.Context(), ListOptions{})
	require.NoError(t, err)
	require.Equal(t, "10", list.ResourceVersion)
	require.Len(t, list.Items, 2)
	for _, obj := range list.Items {
		p := obj.(*api.PartialObjectMetadata)
		require.Equal(t, api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}, p.TypeMeta, p.Name)
	}
	require.Equal(t, map[string]string{"app": "web"}, list.Items[0].GetLabels())

	w, err := lw.Watch(t.Context(), ListOptions{ResourceVersion: "10"})
	require.NoError(t, err)
	ev := next(t, w)
	require.Equal(t, "web-2", ev.Object.GetName())
	require.Equal(t, "PartialObjectMetadata", ev.Object.GetObjectKind().Kind)
	requireClosed(t, w)

	pods := For[*api.PartialObjectMetadata](c, r)
	got, err := pods.Get(t.Context(), "default", "web-0")
	require.NoError(t, err)
	require.Equal(t, "PartialObjectMetadata", got.Kind)

	s.mu.Lock()
	defer s.mu.Unlock()
	require.Equal(t, map[string]string{
		"list":  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json",
		"watch": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
		"get":   "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
	}, s.accepts)

	// A body of metadata only is not an object: create and update are refused
	// before anything is sent.
	_, err = pods.Create(context.Background(), "default", &api.PartialObjectMetadata{ObjectMeta: api.ObjectMeta{Name: "x"}})
	require.ErrorContains(t, err, "metadata-only")
	_, err = pods.Update(context.Background(), "default", got)
	require.ErrorContains(t, err, "metadata-only")
}

// A typed resource still sends plain application/json.
func TestAccept_PlainForTypedResources(t *testing.T) {
	rq := &request{verb: "list", resource: Pods}
	require.Equal(t, "application/json", rq.accept())
	rq.resource = DynamicResource("example.com", "v1", "widgets", "Widget", true)
	require.Equal(t, "application/json", rq.accept())
}
