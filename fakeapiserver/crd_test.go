package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.demo.kinformer.io"},
 "spec":{"group":"demo.kinformer.io","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"],"categories":["all"]},
  "versions":[{"name":"v1","served":true,"storage":true,
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
   "subresources":{"status":{}},
   "additionalPrinterColumns":[{"name":"Size","type":"string","jsonPath":".spec.size"},{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}]}]}}`

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
const widgetsPath = "/apis/demo.kinformer.io/v1/namespaces/default/widgets"

func widget(name, size string) string {
	return `{"apiVersion":"demo.kinformer.io/v1","kind":"Widget","metadata":{"name":"` + name + `","labels":{"size":"` + size + `"}},"spec":{"size":"` + size + `","replicas":2},"status":{"ready":true}}`
}

func (e *env) createWidgetCRD() {
	e.t.Helper()
	r := e.do(http.MethodPost, crdPath, widgetCRD)
	require.Equal(e.t, http.StatusCreated, r.code, "%s", r.body)
}

type widgetObj struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   api.ObjectMeta  `json:"metadata"`
	Spec       map[string]any  `json:"spec"`
	Status     map[string]any  `json:"status"`
	Raw        json.RawMessage `json:"-"`
}

func TestCRD_ServesTheCustomResource(t *testing.T) {
	e := newEnv(t, Options{})
	require.Equal(t, http.StatusNotFound, e.get(widgetsPath).code, "not served before the CRD exists")
	e.createWidgetCRD()

	var crd struct {
		Metadata api.ObjectMeta `json:"metadata"`
		Status   struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
			Accepted   map[string]any                  `json:"acceptedNames"`
			Stored     []string                        `json:"storedVersions"`
		} `json:"status"`
	}
	e.get(crdPath+"/widgets.demo.kinformer.io").decode(t, &crd)
	require.Equal(t, int64(1), crd.Metadata.Generation)
	require.Len(t, crd.Status.Conditions, 2)
	for _, c := range crd.Status.Conditions {
		require.Equal(t, "True", c.Status, c.Type)
	}
	require.Equal(t, "widgets", crd.Status.Accepted["plural"])
	require.Equal(t, []string{"v1"}, crd.Status.Stored)

	t.Run("discovery", func(t *testing.T) {
		require.Contains(t, string(e.get("/apis").body), `"name":"demo.kinformer.io"`)
		require.Contains(t, string(e.get("/apis/demo.kinformer.io").body), `"groupVersion":"demo.kinformer.io/v1"`)
		var list apiResourceList
		e.get("/apis/demo.kinformer.io/v1").decode(t, &list)
		require.Len(t, list.Resources, 2)
		require.Equal(t, apiResource{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget",
			Verbs: standardVerbs, ShortNames: []string{"wd"}, Categories: []string{"all"}}, list.Resources[0])
		require.Equal(t, "widgets/status", list.Resources[1].Name)
		require.Contains(t, string(e.get("/openapi/v3").body), "apis/demo.kinformer.io/v1")
		require.Contains(t, string(e.get("/openapi/v3/apis/demo.kinformer.io/v1").body), "fieldValidation")
		require.Contains(t, string(e.get("/apis/apiextensions.k8s.io/v1").body), `"name":"customresourcedefinitions"`)
	})

	ws := e.watch(widgetsPath + "?watch=true&resourceVersion=" + e.srv.ResourceVersion())

	var w widgetObj
	t.Run("create drops status, sets generation", func(t *testing.T) {
		r := e.do(http.MethodPost, widgetsPath, widget("w1", "small"))
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
		r.decode(t, &w)
		require.Equal(t, "demo.kinformer.io/v1", w.APIVersion)
		require.Equal(t, int64(1), w.Metadata.Generation)
		require.Nil(t, w.Status, "create cannot set status when /status exists")
		require.Equal(t, "ADDED w1@"+w.Metadata.ResourceVersion, ws.next().summary(t))
	})

	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		generation                            int64
		check                                 func(t *testing.T, o widgetObj)
	}{
		{"merge patch of spec bumps generation", http.MethodPatch, "/w1", "application/merge-patch+json", `{"spec":{"size":"large"}}`, 200, 2,
			func(t *testing.T, o widgetObj) { require.Equal(t, "large", o.Spec["size"]) }},
		{"label change does not", http.MethodPatch, "/w1", "application/merge-patch+json", `{"metadata":{"labels":{"size":"large"}}}`, 200, 2, nil},
		{"a new top-level field does", http.MethodPatch, "/w1", "application/json-patch+json", `[{"op":"add","path":"/extra","value":1}]`, 200, 3, nil},
		{"main resource ignores status", http.MethodPatch, "/w1", "application/merge-patch+json", `{"status":{"ready":true}}`, 200, 3,
			func(t *testing.T, o widgetObj) { require.Nil(t, o.Status) }},
		{"status subresource sets status only", http.MethodPatch, "/w1/status", "application/merge-patch+json", `{"status":{"ready":true},"spec":{"size":"tiny"},"metadata":{"labels":{"x":"y"}}}`, 200, 3,
			func(t *testing.T, o widgetObj) {
				require.Equal(t, true, o.Status["ready"])
				require.Equal(t, "large", o.Spec["size"])
				require.NotContains(t, o.Metadata.Labels, "x")
			}},
		{"strategic merge patch is 415", http.MethodPatch, "/w1", "application/strategic-merge-patch+json", `{"spec":{"size":"x"}}`, 415, 0, nil},
		{"wrong kind is 400", http.MethodPost, "", "application/json", `{"apiVersion":"demo.kinformer.io/v1","kind":"Gadget","metadata":{"name":"g"}}`, 400, 0, nil},
		{"bad name is 422", http.MethodPost, "", "application/json", `{"apiVersion":"demo.kinformer.io/v1","kind":"Widget","metadata":{"name":"Bad_Name"}}`, 422, 0, nil},
		{"root must be an object", http.MethodPost, "", "application/json", `[1]`, 400, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, e.http.URL+widgetsPath+c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", c.contentType)
			r := e.send(req)
			require.Equal(t, c.code, r.code, "%s", r.body)
			if c.code != 200 {
				if c.code == 415 {
					require.Contains(t, string(r.body), "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
				}
				return
			}
			var o widgetObj
			r.decode(t, &o)
			require.Equal(t, c.generation, o.Metadata.Generation)
			if c.check != nil {
				c.check(t, o)
			}
		})
	}

	t.Run("list, selectors, paging, table", func(t *testing.T) {
		require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("w2", "small")).code)
		require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("w3", "small")).code)
		var list struct {
			Kind       string
			APIVersion string
			Metadata   api.ListMeta
			Items      []widgetObj
		}
		e.get(widgetsPath+"?labelSelector=size%3Dsmall").decode(t, &list)
		require.Equal(t, "WidgetList", list.Kind)
		require.Len(t, list.Items, 2)
		e.get("/apis/demo.kinformer.io/v1/widgets?fieldSelector=metadata.name%3Dw3").decode(t, &list)
		require.Len(t, list.Items, 1)
		require.Equal(t, http.StatusBadRequest, e.get(widgetsPath+"?fieldSelector=spec.size%3Dsmall").code)
		e.get(widgetsPath+"?limit=1").decode(t, &list)
		require.Len(t, list.Items, 1)
		require.NotEmpty(t, list.Metadata.Continue)

		r := e.do(http.MethodGet, widgetsPath, "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		require.Equal(t, http.StatusOK, r.code)
		var table struct {
			Columns []struct{ Name string } `json:"columnDefinitions"`
			Rows    []struct{ Cells []any } `json:"rows"`
		}
		r.decode(t, &table)
		require.Equal(t, "Name Size Replicas", table.Columns[0].Name+" "+table.Columns[1].Name+" "+table.Columns[2].Name)
		require.Equal(t, []any{"w1", "large", float64(2)}, table.Rows[0].Cells)
	})

	t.Run("delete", func(t *testing.T) {
		r := e.do(http.MethodDelete, widgetsPath+"/w2", "")
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		require.Equal(t, http.StatusNotFound, e.get(widgetsPath+"/w2").code)
	})

	// The watch saw every change in order.
	var types []string
	for range 8 { // 3 patches that changed something + status + w2, w3 added + w2 deleted + ...
		f := ws.next()
		types = append(types, string(f.Type)+" "+f.meta(t).Name)
		if f.Type == api.Deleted {
			break
		}
	}
	require.Equal(t, []string{"MODIFIED w1", "MODIFIED w1", "MODIFIED w1", "MODIFIED w1", "ADDED w2", "ADDED w3", "DELETED w2"}, types)
}

func TestCRD_DeleteRemovesObjectsAndEndsWatches(t *testing.T) {
	e := newEnv(t, Options{})
	e.createWidgetCRD()
	for _, n := range []string{"a", "b"} {
		require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget(n, "s")).code)
	}
	ws := e.watch(widgetsPath + "?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("widgets") == 1 }, ctxDeadline, tick)

	r := e.do(http.MethodDelete, crdPath+"/widgets.demo.kinformer.io", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	rest := ws.ended()
	var got []string
	for _, f := range rest {
		got = append(got, string(f.Type)+" "+f.meta(t).Name)
	}
	require.Equal(t, []string{"DELETED a", "DELETED b"}, got)
	require.Equal(t, http.StatusNotFound, e.get(widgetsPath).code)
	require.Equal(t, http.StatusNotFound, e.get("/apis/demo.kinformer.io/v1").code)
	require.NotContains(t, string(e.get("/apis").body), "demo.kinformer.io")

	// Created again, it starts empty.
	e.createWidgetCRD()
	var list struct{ Items []any }
	e.get(widgetsPath).decode(t, &list)
	require.Empty(t, list.Items)
}

func TestCRD_Validation(t *testing.T) {
	e := newEnv(t, Options{})
	cases := []struct {
		name, from, to, message string
	}{
		{"name must be plural.group", `"name":"widgets.demo.kinformer.io"`, `"name":"gadgets.demo.kinformer.io"`,
			`metadata.name: Invalid value: "gadgets.demo.kinformer.io": must be spec.names.plural+"."+spec.group`},
		{"group needs a dot", `"group":"demo.kinformer.io"`, `"group":"demo"`, `spec.group: Invalid value: "demo": should be a domain with at least one dot`},
		{"one storage version", `"storage":true`, `"storage":false`, "must have exactly one version marked as storage version"},
		{"schema required", `"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},`, ``,
			"spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"},
		{"root must be object", `"openAPIV3Schema":{"type":"object"`, `"openAPIV3Schema":{"type":"string"`,
			`spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root`},
		{"scope", `"scope":"Namespaced"`, `"scope":"Global"`, `spec.scope: Unsupported value: "Global"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := strings.Replace(widgetCRD, c.from, c.to, 1)
			require.NotEqual(t, widgetCRD, body)
			r := e.do(http.MethodPost, crdPath, body)
			require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
			st := r.status(t)
			require.Contains(t, st.Message, c.message)
			require.Contains(t, st.Message, `CustomResourceDefinition.apiextensions.k8s.io`)
		})
	}
	t.Run("group is immutable", func(t *testing.T) {
		e.createWidgetCRD()
		r := e.do(http.MethodPatch, crdPath+"/widgets.demo.kinformer.io", `{"spec":{"scope":"Cluster"}}`, "Content-Type", "application/merge-patch+json")
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
		require.Contains(t, string(r.body), "spec.scope: Invalid value: \\\"Cluster\\\": field is immutable")
	})
}

func TestCRD_ChangeRebuildsTheRow(t *testing.T) {
	e := newEnv(t, Options{})
	e.createWidgetCRD()
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("a", "s")).code)
	ws := e.watch(widgetsPath + "?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("widgets") == 1 }, ctxDeadline, tick)
	r := e.do(http.MethodPatch, crdPath+"/widgets.demo.kinformer.io", `{"spec":{"names":{"shortNames":["wd","wdg"]}}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Empty(t, ws.ended(), "the watch ends, as the real server's does when its CRD changes")
	require.Contains(t, string(e.get("/apis/demo.kinformer.io/v1").body), `"wdg"`)
	require.Equal(t, http.StatusOK, e.get(widgetsPath+"/a").code, "the objects stay")
	var crd struct {
		Status struct {
			Accepted struct{ ShortNames []string } `json:"acceptedNames"`
		} `json:"status"`
	}
	r.decode(t, &crd)
	require.Equal(t, []string{"wd", "wdg"}, crd.Status.Accepted.ShortNames)
}

func TestCRD_SurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e := newEnvIn(t, dir, Options{})
	e.createWidgetCRD()
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("kept", "s")).code)
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, widgetsPath, widget("gone", "s")).code)
	require.Equal(t, http.StatusOK, e.do(http.MethodDelete, widgetsPath+"/gone", "").code)
	require.NoError(t, e.srv.RestartStore())
	require.Empty(t, e.srv.Recovery().Truncated)
	require.Equal(t, http.StatusOK, e.get(widgetsPath+"/kept").code)
	require.Equal(t, http.StatusNotFound, e.get(widgetsPath+"/gone").code)

	// A deleted CRD's objects are logged as deleted before it: replay is clean.
	require.Equal(t, http.StatusOK, e.do(http.MethodDelete, crdPath+"/widgets.demo.kinformer.io", "").code)
	require.NoError(t, e.srv.RestartStore())
	require.Empty(t, e.srv.Recovery().Truncated)
	require.Equal(t, http.StatusNotFound, e.get(widgetsPath).code)
}
