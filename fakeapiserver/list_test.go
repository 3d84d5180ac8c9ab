package fakeapiserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// listNames lists path and returns the item names and the list metadata.
func (e *env) listNames(path string) ([]string, api.ListMeta) {
	e.t.Helper()
	r := e.get(path)
	require.Equal(e.t, http.StatusOK, r.code, "GET %s: %s", path, r.body)
	var l api.PodList
	r.decode(e.t, &l)
	names := []string{}
	for _, p := range l.Items {
		names = append(names, p.Name)
	}
	return names, l.ListMeta
}

// Article: 如何高效掌控K8s资源变化 (王成), the List half of ListAndWatch;
// article 004 lists /api/v1/namespaces/default/pods with curl.
func TestList_NamespacedAndAcrossNamespaces(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "web-0", nil)
	e.createPod("default", "web-1", nil)
	e.createPod("kube-system", "dns", nil)

	r := e.get("/api/v1/namespaces/default/pods")
	require.Equal(t, http.StatusOK, r.code)
	var l api.PodList
	r.decode(t, &l)
	require.Equal(t, "PodList", l.Kind)
	require.Equal(t, "v1", l.APIVersion)
	require.Equal(t, e.srv.ResourceVersion(), l.ResourceVersion, "a list carries the server's current resourceVersion")
	require.Len(t, l.Items, 2)
	require.Equal(t, "web-0", l.Items[0].Name)
	// As 03-list-pods.txt: the list says what its items are; the items
	// themselves carry no kind or apiVersion (a client fills them in).
	require.Empty(t, l.Items[0].Kind)
	require.Empty(t, l.Items[0].APIVersion)
	require.Contains(t, string(r.body), `"items":[{"metadata":{"name":"web-0","namespace":"default",`)

	names, _ := e.listNames("/api/v1/pods")
	require.Equal(t, []string{"web-0", "web-1", "dns"}, names, "across namespaces, in key order: namespace, then name")
}

func TestList_SelectorsAsTheRealServer(t *testing.T) {
	// The same pods and queries as the repository's testdata/kube-apiserver-1.36/06-selectors.txt.
	e := newEnv(t, Options{})
	ns := "realk8s-samples"
	_, err := e.srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}})
	require.NoError(t, err)
	for _, p := range []struct{ name, app string }{{"demo-a", "demo"}, {"demo-b", "demo"}, {"demo-c", "other"}, {"demo-d", "demo"}} {
		e.createPod(ns, p.name, map[string]string{"app": p.app})
	}
	base := "/api/v1/namespaces/" + ns + "/pods?"
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"labelSelector=app%3Ddemo", []string{"demo-a", "demo-b", "demo-d"}},
		{"labelSelector=app%21%3Ddemo", []string{"demo-c"}},
		{"labelSelector=app+in+(demo,other)", []string{"demo-a", "demo-b", "demo-c", "demo-d"}},
		{"labelSelector=app+notin+(demo)", []string{"demo-c"}},
		{"labelSelector=app", []string{"demo-a", "demo-b", "demo-c", "demo-d"}},
		{"labelSelector=%21app", []string{}},
		{"fieldSelector=metadata.name%3Ddemo-b", []string{"demo-b"}},
		{"fieldSelector=status.phase%3DPending", []string{"demo-a", "demo-b", "demo-c", "demo-d"}},
		{"fieldSelector=spec.nodeName%3D", []string{"demo-a", "demo-b", "demo-c", "demo-d"}},
		{"fieldSelector=metadata.name%3Ddemo-b,metadata.namespace%3D" + ns, []string{"demo-b"}},
		{"fieldSelector=metadata.name%21%3Ddemo-b&labelSelector=app%3Ddemo", []string{"demo-a", "demo-d"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			names, _ := e.listNames(base + tc.query)
			require.Equal(t, tc.want, names)
		})
	}

	r := e.get(base + "fieldSelector=spec.containers.name%3Dc")
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Equal(t, "field label not supported: spec.containers.name", r.status(t).Message)

	r = e.get(base + "labelSelector=%3D%3D%3D")
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Contains(t, r.status(t).Message, "found '==', expected: !, identifier, or 'end of string'")
}

// Paging reads one consistent snapshot: what changes between pages does not
// show up in later pages. This is what lets a reflector page through a big
// list (client-go's pager) and still get a state that existed at one
// resourceVersion.
func TestList_PagesThroughOneSnapshot(t *testing.T) {
	e := newEnv(t, Options{})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		e.createPod("default", n, nil)
	}
	names, meta := e.listNames("/api/v1/namespaces/default/pods?limit=2")
	require.Equal(t, []string{"a", "b"}, names)
	require.NotEmpty(t, meta.Continue)
	require.Equal(t, int64(3), *meta.RemainingItemCount)

	raw, err := base64.RawURLEncoding.DecodeString(meta.Continue)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%s,"start":"/b\u0000"}`, meta.ResourceVersion), string(raw),
		"the token has the real server's shape")

	// The world moves on between pages.
	_, err = e.srv.Delete("pods", "default", "c")
	require.NoError(t, err)
	e.createPod("default", "bb", nil)
	e.createPod("default", "z", nil)

	names2, meta2 := e.listNames("/api/v1/namespaces/default/pods?limit=2&continue=" + url.QueryEscape(meta.Continue))
	require.Equal(t, []string{"c", "d"}, names2, "page 2 comes from the first page's snapshot: c still there, bb not yet")
	require.Equal(t, meta.ResourceVersion, meta2.ResourceVersion, "every page reports the snapshot's resourceVersion")
	names3, meta3 := e.listNames("/api/v1/namespaces/default/pods?limit=2&continue=" + url.QueryEscape(meta2.Continue))
	require.Equal(t, []string{"e"}, names3)
	require.Empty(t, meta3.Continue, "the last page has no continue token")
}

func TestList_ExpiredContinueIs410WithFreshToken(t *testing.T) {
	e := newEnv(t, Options{History: 3})
	for _, n := range []string{"a", "b", "c"} {
		e.createPod("default", n, nil)
	}
	_, meta := e.listNames("/api/v1/namespaces/default/pods?limit=1")
	for i := range 5 {
		e.createPod("default", fmt.Sprintf("new-%d", i), nil) // pushes the snapshot out of history
	}
	r := e.get("/api/v1/namespaces/default/pods?limit=1&continue=" + url.QueryEscape(meta.Continue))
	require.Equal(t, http.StatusGone, r.code)
	st := r.status(t)
	require.Equal(t, api.StatusReasonExpired, st.Reason)
	require.Contains(t, st.Message, "The provided continue parameter is too old")
	require.NotEmpty(t, st.Continue, "the 410 carries a token to carry on inconsistently")
	raw, err := base64.RawURLEncoding.DecodeString(st.Continue)
	require.NoError(t, err)
	require.JSONEq(t, `{"v":"meta.k8s.io/v1","rv":-1,"start":"a\u0000"}`, string(raw), "the real server's fresh token has no leading slash")
	require.Equal(t, `{"kind":"Status","apiVersion":"v1","metadata":{"continue":"`+st.Continue+`"},"status":"Failure","message":"`+st.Message+`","reason":"Expired","code":410}`, string(r.body),
		"byte for byte as 13-gone-410-and-too-large.txt")

	names, _ := e.listNames("/api/v1/namespaces/default/pods?limit=100&continue=" + url.QueryEscape(st.Continue))
	require.Equal(t, []string{"b", "c", "new-0", "new-1", "new-2", "new-3", "new-4"}, names, "the fresh token lists the current state after a")
}

func TestList_InvalidContinueIs400(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.get("/api/v1/namespaces/default/pods?limit=2&continue=garbage")
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Contains(t, r.status(t).Message, "invalid continue token: continue key is not valid")

	r = e.get("/api/v1/namespaces/default/pods?limit=2&continue=" + base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"/../x"}`)))
	require.Equal(t, http.StatusBadRequest, r.code)
}

// Which state a list reads, by resourceVersion (the "Resource versions"
// section of the Kubernetes API concepts page).
func TestList_ResourceVersionSemantics(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "a", nil)
	_, at := e.listNames("/api/v1/namespaces/default/pods")
	e.createPod("default", "b", nil)

	for _, tc := range []struct {
		name  string
		query string
		want  []string
	}{
		{"unset reads the most recent state", "", []string{"a", "b"}},
		{"0 reads any state (here the most recent)", "?resourceVersion=0", []string{"a", "b"}},
		{"N without limit is not-older-than N", "?resourceVersion=" + at.ResourceVersion, []string{"a", "b"}},
		{"N with NotOlderThan is the same", "?resourceVersionMatch=NotOlderThan&resourceVersion=" + at.ResourceVersion, []string{"a", "b"}},
		{"N with Exact reads the state at N", "?resourceVersionMatch=Exact&resourceVersion=" + at.ResourceVersion, []string{"a"}},
		{"N with a limit is exact", "?limit=10&resourceVersion=" + at.ResourceVersion, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, meta := e.listNames("/api/v1/namespaces/default/pods" + tc.query)
			require.Equal(t, tc.want, names)
			if strings.Contains(tc.query, "Exact") || strings.Contains(tc.query, "limit") {
				require.Equal(t, at.ResourceVersion, meta.ResourceVersion)
			}
		})
	}

	t.Run("an exact version older than history is 410", func(t *testing.T) {
		e.srv.CompactHistory()
		r := e.get("/api/v1/namespaces/default/pods?resourceVersionMatch=Exact&resourceVersion=" + at.ResourceVersion)
		require.Equal(t, http.StatusGone, r.code)
		st := r.status(t)
		require.Equal(t, api.StatusReasonExpired, st.Reason)
		require.Equal(t, "The resourceVersion for the provided list is too old.", st.Message)
	})
}

// A version the server has not reached yet waits (3 s on the real server),
// then answers 504 with cause ResourceVersionTooLarge: the answer a
// reflector treats like 410 (relist from the most recent version).
func TestList_TooLargeResourceVersionWaitsThen504(t *testing.T) {
	e := newEnv(t, Options{})
	done := make(chan response, 1)
	go func() { done <- e.get("/api/v1/namespaces/default/pods?resourceVersion=999999999") }()
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.clock.Step(3 * time.Second)
	r := <-done
	require.Equal(t, http.StatusGatewayTimeout, r.code)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	st := r.status(t)
	require.Equal(t, api.StatusReasonTimeout, st.Reason)
	require.Equal(t, fmt.Sprintf("Timeout: Too large resource version: 999999999, current: %s", e.srv.ResourceVersion()), st.Message)
	require.Equal(t, api.CauseTypeResourceVersionTooLarge, st.Details.Causes[0].Type)

	// Reached while waiting: answered normally.
	next := e.srv.store.Rev() + 1
	go func() { done <- e.get(fmt.Sprintf("/api/v1/namespaces/default/pods?resourceVersion=%d", next)) }()
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.createPod("default", "late", nil)
	require.Equal(t, http.StatusOK, (<-done).code)
}

func TestList_OptionValidation(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		query   string
		code    int
		message string
	}{
		{"resourceVersionMatch=NotOlderThan", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"resourceVersion=abc", 400, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"resourceVersion=0&resourceVersionMatch=Exact", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"resourceVersion=1&resourceVersionMatch=Sometimes", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""`},
		{"sendInitialEvents=true", 422, `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
		{"limit=2&continue=abc&resourceVersion=5", 400, "specifying resource version is not allowed when using continue"},
		{"limit=x", 400, `strconv.ParseInt: parsing "x": invalid syntax`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := e.get("/api/v1/namespaces/default/pods?" + tc.query)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			require.Equal(t, tc.message, r.status(t).Message)
		})
	}
	// Byte for byte as 13-gone-410-and-too-large.txt: the message names the
	// qualified kind, details the kind and group apart, the causes the field.
	r := e.get("/api/v1/namespaces/default/pods?resourceVersionMatch=NotOlderThan")
	require.Equal(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"}]},"code":422}`, string(r.body))
}

// kubectl get asks for a Table and prints the server's columns.
func TestList_TableForKubectl(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "web-0", nil)
	e.clock.Step(90 * time.Second)
	r := e.do(http.MethodGet, "/api/v1/namespaces/default/pods", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
	require.Equal(t, http.StatusOK, r.code)
	var table struct {
		Kind    string `json:"kind"`
		Columns []struct {
			Name     string `json:"name"`
			Priority int    `json:"priority"`
		} `json:"columnDefinitions"`
		Rows []struct {
			Cells  []any `json:"cells"`
			Object struct {
				Kind     string         `json:"kind"`
				Metadata api.ObjectMeta `json:"metadata"`
			} `json:"object"`
		} `json:"rows"`
	}
	r.decode(t, &table)
	require.Equal(t, "Table", table.Kind)
	require.Equal(t, "Name", table.Columns[0].Name)
	require.Equal(t, []any{"web-0", "0/1", "Pending", "0", "90s", "<none>", "<none>", "<none>", "<none>"}, table.Rows[0].Cells)
	require.Contains(t, string(r.body), `"0/1","Pending","0","90s","\u003cnone\u003e"`, "escaped as Go's encoding/json does, like 04-list-table.txt")
	require.Equal(t, "PartialObjectMetadata", table.Rows[0].Object.Kind)
	require.Equal(t, "web-0", table.Rows[0].Object.Metadata.Name)

	r = e.do(http.MethodGet, "/api/v1/namespaces/default/pods", "", "Accept", "application/vnd.kubernetes.protobuf")
	require.Equal(t, http.StatusNotAcceptable, r.code)
	require.Contains(t, r.status(t).Message, "JSON only")
}

func TestGet_ObjectAndErrors(t *testing.T) {
	e := newEnv(t, Options{})
	created := e.createPod("default", "web-0", nil)

	r := e.get("/api/v1/namespaces/default/pods/web-0")
	require.Equal(t, http.StatusOK, r.code)
	var p api.Pod
	r.decode(t, &p)
	require.Equal(t, created.UID, p.UID)
	require.Equal(t, created.ResourceVersion, p.ResourceVersion)

	for _, tc := range []struct {
		path string
		body string
	}{
		{"/api/v1/namespaces/default/pods/no-such-pod", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"no-such-pod\" not found","reason":"NotFound","details":{"name":"no-such-pod","kind":"pods"},"code":404}`},
		{"/api/v1/namespaces/no-such-ns/pods/x", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}`},
		{"/api/v1/namespaces/default/foos", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
		{"/apis/apps/v1/namespaces/default/replicasets/web", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"replicasets.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"replicasets"},"code":404}`},
		{"/api/v1/pods/web-0", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
		{"/api/v1/namespaces//pods", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(tc.path)
			require.Equal(t, http.StatusNotFound, r.code)
			require.JSONEq(t, tc.body, string(r.body))
			// Byte for byte as the real server writes it, field order included.
			require.Equal(t, tc.body, string(r.body))
		})
	}
}

// The real server pretty-prints for curl, which is what article 004's curl
// output shows; Go clients get compact JSON.
func TestResponses_PrettyForCurlCompactOtherwise(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "web-0", nil)
	curl := e.do(http.MethodGet, "/api/v1/namespaces/default/pods/web-0", "", "User-Agent", "curl/8.5.0")
	require.True(t, strings.HasPrefix(string(curl.body), "{\n  \"kind\": \"Pod\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"web-0\""), "%s", curl.body)
	goClient := e.do(http.MethodGet, "/api/v1/namespaces/default/pods/web-0", "", "User-Agent", "kinformer/0")
	require.True(t, strings.HasPrefix(string(goClient.body), `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0","namespace":"default","uid":`), "%s", goClient.body)
	require.True(t, json.Valid(goClient.body))
}

// Paging across namespaces walks keys in order (namespace, then name) and
// each page picks up after the last key served.
func TestList_PagesAcrossNamespacesInKeyOrder(t *testing.T) {
	e := newEnv(t, Options{})
	_, err := e.srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "default-x"}}) // "default-x/" sorts before "default/": '-' < '/'

	require.NoError(t, err)
	e.createPod("kube-system", "a", nil)
	e.createPod("default", "b", nil)
	e.createPod("default-x", "a", nil)
	e.createPod("default", "a", nil)
	var got []string
	path := "/api/v1/pods?limit=1"
	for {
		names, meta := e.listNames(path)
		got = append(got, names...)
		if meta.Continue == "" {
			break
		}
		if len(got) == 1 {
			require.Equal(t, int64(3), *meta.RemainingItemCount)
		}
		path = "/api/v1/pods?limit=1&continue=" + url.QueryEscape(meta.Continue)
	}
	require.Equal(t, []string{"a", "a", "b", "a"}, got, "default-x/a, default/a, default/b, kube-system/a: byte order of the keys, as etcd's")
	names, _ := e.listNames("/api/v1/namespaces/default/pods?limit=5")
	require.Equal(t, []string{"a", "b"}, names, "a namespace's range stops before default-x")
}
