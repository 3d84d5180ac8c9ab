package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

const (
	ctxDeadline = 10 * time.Second
	tick        = 5 * time.Millisecond
)

// The Accept headers client-go's metadata client sends.
const (
	acceptPartialList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json"
	acceptPartial     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"
)

type partialObj struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   api.ObjectMeta `json:"metadata"`
	Spec       any            `json:"spec"`
}

func TestPartialObjectMetadata(t *testing.T) {
	e := newEnv(t, Options{})
	e.createWidgetCRD()
	e.createPod("default", "p1", map[string]string{"app": "web"})
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("w1", "s")).code)

	for _, c := range []struct{ name, collection, object string }{
		{"built-in kind", "/api/v1/namespaces/default/pods", "p1"},
		{"custom resource", widgetsPath, "w1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var list struct {
				Kind       string          `json:"kind"`
				APIVersion string          `json:"apiVersion"`
				Metadata   json.RawMessage `json:"metadata"`
				Items      []partialObj    `json:"items"`
			}
			r := e.do(http.MethodGet, c.collection+"?limit=1", "", "Accept", acceptPartialList)
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			r.decode(t, &list)
			require.Equal(t, "PartialObjectMetadataList", list.Kind)
			require.Equal(t, "meta.k8s.io/v1", list.APIVersion)
			require.Contains(t, string(list.Metadata), `"resourceVersion"`)
			require.Len(t, list.Items, 1)
			item := list.Items[0]
			require.Equal(t, "PartialObjectMetadata", item.Kind)
			require.Equal(t, "meta.k8s.io/v1", item.APIVersion)
			require.Equal(t, c.object, item.Metadata.Name)
			require.NotEmpty(t, item.Metadata.UID)
			require.NotEmpty(t, item.Metadata.Labels)
			require.Nil(t, item.Spec)

			var one partialObj
			r = e.do(http.MethodGet, c.collection+"/"+c.object, "", "Accept", acceptPartial)
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			r.decode(t, &one)
			require.Equal(t, "PartialObjectMetadata", one.Kind)
			require.Equal(t, item.Metadata.ResourceVersion, one.Metadata.ResourceVersion)
			require.Nil(t, one.Spec)

			// The other form does not fit: 406, as the real transformObject.
			r = e.do(http.MethodGet, c.collection, "", "Accept", acceptPartial)
			require.Equal(t, http.StatusNotAcceptable, r.code, "%s", r.body)
			require.Contains(t, r.status(t).Message, "you requested PartialObjectMetadata, but the requested object is a list")
			r = e.do(http.MethodGet, c.collection+"/"+c.object, "", "Accept", acceptPartialList)
			require.Equal(t, http.StatusNotAcceptable, r.code, "%s", r.body)

			ws := e.watch(c.collection+"?watch=true&allowWatchBookmarks=true&resourceVersion="+one.Metadata.ResourceVersion, "Accept", acceptPartial)
			r = e.do(http.MethodPatch, c.collection+"/"+c.object, `{"metadata":{"labels":{"new":"yes"}}}`, "Content-Type", "application/merge-patch+json")
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			f := ws.next()
			require.Equal(t, api.Modified, f.Type)
			var ev partialObj
			require.NoError(t, json.Unmarshal(f.Object, &ev))
			require.Equal(t, "PartialObjectMetadata", ev.Kind)
			require.Equal(t, "yes", ev.Metadata.Labels["new"])
			require.Nil(t, ev.Spec)

			e.clock.Step(time.Minute) // a bookmark, transformed too
			f = ws.next()
			require.Equal(t, api.EventType("BOOKMARK"), f.Type)
			require.NoError(t, json.Unmarshal(f.Object, &ev))
			require.Equal(t, "PartialObjectMetadata", ev.Kind)
			require.Equal(t, "meta.k8s.io/v1", ev.APIVersion)
		})
	}
}
