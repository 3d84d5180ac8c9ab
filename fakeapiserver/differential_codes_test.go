package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// The classes of testdata/kube-apiserver-1.36/15-differential-seed1.txt
// whose code, reason or body the fake now answers as the real server: each
// case sends the recorded request (or its sibling on another resource) and
// checks the real answer. Message wording classes are elsewhere
// (TestDifferential_Messages).

// diffFixture is a server holding what the recorded requests act on: in
// namespace "dt", pod p2 bound to node-1, configmap c1, replicaset r3.
func diffFixture(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, Options{})
	for _, c := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"metadata":{"name":"dt"}}`},
		{"/api/v1/namespaces/dt/pods", `{"metadata":{"name":"p2","labels":{"app":"cache"}},"spec":{"nodeName":"node-1","containers":[{"name":"c0","image":"nginx:latest"}]}}`},
		{"/api/v1/namespaces/dt/configmaps", `{"metadata":{"name":"c1"},"data":{"k1":"v1"}}`},
		{"/apis/apps/v1/namespaces/dt/replicasets", `{"metadata":{"name":"r3"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c0","image":"busybox"}]}}}}`},
	} {
		r := e.do(http.MethodPost, c.path, c.body)
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	}
	return e
}

// diffCase is one recorded request and the real server's answer.
type diffCase struct {
	class   string // the recording's class, and the resource when it matters
	method  string
	path    string
	body    string
	headers []string
	code    int
	reason  api.StatusReason // of a failure
	message string           // of a failure; "" for a success
	check   func(t *testing.T, r response)
}

func (c diffCase) run(t *testing.T, e *env) {
	t.Helper()
	headers := c.headers
	if c.body != "" && len(headers) == 0 {
		headers = []string{"Content-Type", "application/json"}
	}
	r := e.do(c.method, c.path, c.body, headers...)
	t.Logf("%s %s %s\n-> %d %s", c.method, c.path, c.body, r.code, r.body)
	require.Equal(t, c.code, r.code, "%s", r.body)
	if c.message != "" {
		st := r.status(t)
		require.Equal(t, int32(c.code), st.Code)
		require.Equal(t, c.reason, st.Reason)
		require.Equal(t, c.message, st.Message)
	}
	if c.check != nil {
		c.check(t, r)
	}
}

// forSubtest is e reporting to t, so a failing case fails its own subtest.
func (e *env) forSubtest(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// invalidDetails checks a 422's details: kind, group, name and the one cause.
func invalidDetails(kind, group, name string, cause api.StatusCause) func(*testing.T, response) {
	return func(t *testing.T, r response) {
		d := r.status(t).Details
		require.NotNil(t, d)
		require.Equal(t, kind, d.Kind)
		require.Equal(t, group, d.Group)
		require.Equal(t, name, d.Name)
		require.Equal(t, []api.StatusCause{cause}, d.Causes)
	}
}

func TestDifferential_Codes(t *testing.T) {
	e := diffFixture(t)
	const (
		rvAbc        = `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
		continueTok  = "eyJydiI6NSwic3RhcnQiOiIvcDBcdTAwMDAiLCJ2IjoibWV0YS5rOHMuaW8vdjEifQ"
		continueMsg  = `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`
		jsonPatch422 = "the server rejected our request due to an error in our request"
		mergePatch   = "application/merge-patch+json"
		jsonPatchCT  = "application/json-patch+json"
		smp          = "application/strategic-merge-patch+json"
	)
	continueCause := api.StatusCause{Type: api.CauseTypeFieldValueForbidden, Field: "resourceVersionMatch",
		Message: "Forbidden: resourceVersionMatch is forbidden when continue is provided"}
	cases := []diffCase{
		// 15-differential: watch-invalid/continue-on-watch [configmaps,replicasets]
		{class: "watch-invalid/continue-on-watch replicasets", method: http.MethodGet,
			path: "/apis/apps/v1/namespaces/dt/replicasets?watch=true&continue=" + continueTok + "&timeoutSeconds=2",
			code: 422, reason: api.StatusReasonInvalid, message: continueMsg,
			check: invalidDetails("ListOptions", "meta.k8s.io", "", continueCause)},
		{class: "watch-invalid/continue-on-watch configmaps", method: http.MethodGet,
			path: "/api/v1/namespaces/dt/configmaps?watch=true&continue=" + continueTok,
			code: 422, reason: api.StatusReasonInvalid, message: continueMsg},
		// 15-differential: get/existing-rv-invalid [pods,replicasets]
		{class: "get/existing-rv-invalid replicasets", method: http.MethodGet,
			path: "/apis/apps/v1/namespaces/dt/replicasets/r3?resourceVersion=abc", code: 500, message: rvAbc},
		{class: "get/existing-rv-invalid pods", method: http.MethodGet,
			path: "/api/v1/namespaces/dt/pods/p2?resourceVersion=abc", code: 500, message: rvAbc},
		// 15-differential: get/missing-rv-invalid [configmaps]
		{class: "get/missing-rv-invalid", method: http.MethodGet,
			path: "/api/v1/namespaces/dt/configmaps/c3?resourceVersion=abc", code: 500, message: rvAbc},
		// 15-differential: watch-invalid/rv-invalid [replicasets]
		{class: "watch-invalid/rv-invalid", method: http.MethodGet,
			path: "/apis/apps/v1/namespaces/dt/replicasets?watch=true&resourceVersion=abc&timeoutSeconds=2", code: 500, message: rvAbc},
		// A list stays 400 (13-gone-410-and-too-large.txt, "resourceVersion=abc -> 400").
		{class: "list at resourceVersion=abc (13-gone)", method: http.MethodGet,
			path: "/api/v1/namespaces/dt/pods?resourceVersion=abc", code: 400, reason: api.StatusReasonBadRequest,
			message: "invalid resource version: " + rvAbc},
		// 15-differential: create-invalid/json-null [configmaps,namespaces,replicasets]
		// (the message's "name or generateName is required" is
		// create-invalid/name-missing's wording, pinned with the messages).
		{class: "create-invalid/json-null namespaces", method: http.MethodPost, path: "/api/v1/namespaces", body: "null",
			code: 422, check: func(t *testing.T, r response) {
				st := r.status(t)
				require.Equal(t, api.StatusReasonInvalid, st.Reason)
				require.True(t, strings.HasPrefix(st.Message, `Namespace "" is invalid: metadata.name: Required value`), st.Message)
				require.Equal(t, "Namespace", st.Details.Kind)
				require.Equal(t, "metadata.name", st.Details.Causes[0].Field)
				require.Equal(t, api.CauseTypeFieldValueRequired, st.Details.Causes[0].Type)
			}},
		{class: "create-invalid/json-null replicasets", method: http.MethodPost, path: "/apis/apps/v1/namespaces/dt/replicasets", body: "null",
			code: 422, check: func(t *testing.T, r response) {
				require.True(t, strings.HasPrefix(r.status(t).Message, `ReplicaSet.apps "" is invalid: `), "%s", r.body)
			}},
		// The same body on PUT: an empty object, whose name is not the URL's.
		{class: "create-invalid/json-null, on PUT", method: http.MethodPut, path: "/api/v1/namespaces/dt/configmaps/c1", body: "null",
			code: 400, reason: api.StatusReasonBadRequest, message: "the name of the object () does not match the name on the URL (c1)"},
		// 15-differential: create-invalid/resourceversion-set [pods,replicasets]
		{class: "create-invalid/resourceversion-set pods", method: http.MethodPost, path: "/api/v1/namespaces/dt/pods",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p0","resourceVersion":"12"},"spec":{"containers":[{"image":"example.com/team/app:v2","name":"c0"}]}}`,
			code: 500, message: "resourceVersion should not be set on objects to be created"},
		{class: "create-invalid/resourceversion-set replicasets", method: http.MethodPost, path: "/apis/apps/v1/namespaces/dt/replicasets",
			body: `{"metadata":{"name":"r9","resourceVersion":"7"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			code: 500, message: "resourceVersion should not be set on objects to be created"},
		// A dry run never reaches the storage's check.
		{class: "create-invalid/resourceversion-set, dry run", method: http.MethodPost, path: "/api/v1/namespaces/dt/configmaps?dryRun=All",
			body: `{"metadata":{"name":"c9","resourceVersion":"12"}}`, code: 201},
		// 15-differential: patch-invalid/name-change [pods,replicasets]
		{class: "patch-invalid/name-change pods", method: http.MethodPatch, path: "/api/v1/namespaces/dt/pods/p2",
			body: `{"metadata":{"name":"renamed"}}`, headers: []string{"Content-Type", mergePatch},
			code: 400, reason: api.StatusReasonBadRequest, message: "the name of the object (renamed) does not match the name on the URL (p2)"},
		{class: "patch-invalid/name-change replicasets", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/dt/replicasets/r3",
			body: `[{"op":"replace","path":"/metadata/name","value":"other"}]`, headers: []string{"Content-Type", jsonPatchCT},
			code: 400, reason: api.StatusReasonBadRequest, message: "the name of the object (other) does not match the name on the URL (r3)"},
		// 15-differential: patch-invalid/namespace-change [replicasets]
		{class: "patch-invalid/namespace-change", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/dt/replicasets/r3",
			body: `{"metadata":{"namespace":"default"}}`, headers: []string{"Content-Type", mergePatch},
			code: 400, reason: api.StatusReasonBadRequest, message: "the namespace of the provided object does not match the namespace sent on the request"},
		{class: "patch-invalid/namespace-change, strategic", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1",
			body: `{"metadata":{"namespace":"default"}}`, headers: []string{"Content-Type", smp},
			code: 400, reason: api.StatusReasonBadRequest, message: "the namespace of the provided object does not match the namespace sent on the request"},
		// 15-differential: patch-invalid/smp-bogus-directive [configmaps,pods]
		{class: "patch-invalid/smp-bogus-directive pods", method: http.MethodPatch, path: "/api/v1/namespaces/dt/pods/p2",
			body: `{"metadata":{"labels":{"$patch":"bogus"}}}`, headers: []string{"Content-Type", smp},
			code: 500, message: "unknown patch type: bogus in map: map[$patch:bogus]"},
		{class: "patch-invalid/smp-bogus-directive configmaps, beside a field", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1",
			body: `{"data":{"k2":"v","$patch":"bogus"}}`, headers: []string{"Content-Type", smp},
			code: 500, message: "unknown patch type: bogus in map: map[$patch:bogus k2:v]"},
		{class: "patch-invalid/smp-bogus-directive, in a list", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/dt/replicasets/r3",
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"c0","$patch":"bogus"}]}}}}`, headers: []string{"Content-Type", smp},
			code: 500, message: "unknown patch type: bogus in map: map[$patch:bogus name:c0]"},
		// A JSON patch add, replace or test without a "value" member is 422
		// on the real server (reported from a comparison; the wording is
		// inferred: that of every other refused JSON patch operation).
		{class: "patch-json add without value", method: http.MethodPatch, path: "/api/v1/namespaces/dt/pods/p2",
			body: `[{"op":"add","path":"/metadata/labels/x"}]`, headers: []string{"Content-Type", jsonPatchCT},
			code: 422, reason: api.StatusReasonInvalid, message: jsonPatch422},
		{class: "patch-json replace without value", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1",
			body: `[{"op":"replace","path":"/data/k1"}]`, headers: []string{"Content-Type", jsonPatchCT},
			code: 422, reason: api.StatusReasonInvalid, message: jsonPatch422},
		{class: "patch-json test without value", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1",
			body: `[{"op":"test","path":"/data/k1"}]`, headers: []string{"Content-Type", jsonPatchCT},
			code: 422, reason: api.StatusReasonInvalid, message: jsonPatch422},
		// 15-differential: patch-invalid/apply-patch-no-field-manager [configmaps]
		{class: "patch-invalid/apply-patch-no-field-manager", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"}}`, headers: []string{"Content-Type", "application/apply-patch+yaml"},
			code: 422, reason: api.StatusReasonInvalid, message: `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
			check: invalidDetails("PatchOptions", "meta.k8s.io", "", api.StatusCause{Type: api.CauseTypeFieldValueRequired,
				Field: "fieldManager", Message: "Required value: is required for apply patch"})},
		// With a fieldManager, server-side apply is still not modelled: 415.
		{class: "apply patch with a fieldManager", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1?fieldManager=me",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"}}`, headers: []string{"Content-Type", "application/apply-patch+yaml"},
			code: 415},
		// 15-differential: list-invalid/limit-negative [configmaps,namespaces,pods,replicasets]
		{class: "list-invalid/limit-negative", method: http.MethodGet, path: "/apis/apps/v1/namespaces/dt/replicasets?limit=-1",
			code: 200, check: func(t *testing.T, r response) {
				var l api.ReplicaSetList
				r.decode(t, &l)
				require.Len(t, l.Items, 1)
				require.Empty(t, l.Continue)
			}},
		{class: "list-invalid/limit-negative namespaces", method: http.MethodGet, path: "/api/v1/namespaces?limit=-5", code: 200},
		// 15-differential: deletecollection/all-namespaces-not-allowed
		// [configmaps,replicasets] and deletecollection/not-allowed [namespaces]
		{class: "deletecollection/all-namespaces-not-allowed", method: http.MethodDelete,
			path: "/apis/apps/v1/replicasets?labelSelector=dseq%3Ddt%2Cnever%3Dmatch&dryRun=All",
			code: 405, reason: api.StatusReasonMethodNotAllowed, message: "the server does not allow this method on the requested resource"},
		{class: "deletecollection/not-allowed", method: http.MethodDelete, path: "/api/v1/namespaces?labelSelector=never%3Dmatch&dryRun=All",
			code: 405, reason: api.StatusReasonMethodNotAllowed, message: "the server does not allow this method on the requested resource"},
	}
	for _, c := range cases {
		t.Run(c.class, func(t *testing.T) { c.run(t, e.forSubtest(t)) })
	}
}

// 15-differential: update-status/pod-nominated-node, and its follow-ons
// get/existing-rv-older and list-paging/namespaced (the fake had stored it).
func TestDifferential_NominatedNodeOnBoundPod(t *testing.T) {
	e := diffFixture(t)
	var pod map[string]any
	e.get("/api/v1/namespaces/dt/pods/p2").decode(t, &pod)
	pod["status"].(map[string]any)["nominatedNodeName"] = "node-2"
	body, err := json.Marshal(pod)
	require.NoError(t, err)
	diffCase{class: "update-status/pod-nominated-node", method: http.MethodPut, path: "/api/v1/namespaces/dt/pods/p2/status",
		body: string(body), code: 422, reason: api.StatusReasonInvalid,
		message: `Pod "p2" is invalid: status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node`,
		check: invalidDetails("Pod", "", "p2", api.StatusCause{Type: api.CauseTypeFieldValueForbidden, Field: "status.nominatedNodeName",
			Message: "Forbidden: may not be set on pods that are already bound to a node"}),
	}.run(t, e)
	require.NotContains(t, string(e.get("/api/v1/namespaces/dt/pods/p2").body), "nominatedNodeName")
	r := e.do(http.MethodPatch, "/api/v1/namespaces/dt/pods/p2/status", `{"status":{"nominatedNodeName":"node-3"}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "a patch of /status too: %s", r.body)
}

// 15-differential: create-invalid/pod-grace-negative [pods]: stored as 1.
func TestDifferential_PodGraceNegative(t *testing.T) {
	e := diffFixture(t)
	diffCase{class: "create-invalid/pod-grace-negative", method: http.MethodPost, path: "/api/v1/namespaces/dt/pods",
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p5"},"spec":{"containers":[{"image":"nginx:latest","name":"c0"}],"terminationGracePeriodSeconds":-5}}`,
		code: 201, check: func(t *testing.T, r response) {
			var p map[string]any
			r.decode(t, &p)
			require.Equal(t, 1.0, p["spec"].(map[string]any)["terminationGracePeriodSeconds"])
		}}.run(t, e)
}

// 15-differential: watch-invalid/timeout-negative [pods]: HTTP 200, one
// ERROR frame with a 500 InternalError, then the end.
func TestDifferential_WatchTimeoutNegative(t *testing.T) {
	e := diffFixture(t)
	for _, path := range []string{
		"/api/v1/namespaces/dt/pods?watch=true&timeoutSeconds=-1",
		"/api/v1/namespaces/dt/configmaps?watch=true&timeoutSeconds=-30&resourceVersion=0",
	} {
		ws := e.watch(path)
		require.Equal(t, http.StatusOK, ws.resp.StatusCode)
		frames := ws.ended()
		require.Len(t, frames, 1, "%s", path)
		t.Logf("GET %s\n-> %s", path, frames[0].raw)
		require.Equal(t, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"context deadline exceeded","reason":"InternalError","code":500}}`+"\n", frames[0].raw)
	}
}

// 15-differential: watch-invalid/rv-ancient [pods,configmaps],
// list-rv/namespaced-rv-ancient-exact [configmaps,pods] and
// list-rv/cluster-rv-ancient-exact [namespaces]: versions older than the
// server's start are compacted.
func TestDifferential_AncientResourceVersion(t *testing.T) {
	e := diffFixture(t)
	for _, path := range []string{
		"/api/v1/namespaces/dt/pods?resourceVersion=1&resourceVersionMatch=Exact",
		"/api/v1/namespaces/dt/configmaps?resourceVersion=2&resourceVersionMatch=Exact",
		"/api/v1/namespaces?labelSelector=dseq%3Ddt&resourceVersion=1&resourceVersionMatch=Exact",
	} {
		diffCase{class: "list-rv/*-rv-ancient-exact", method: http.MethodGet, path: path,
			code: 410, reason: api.StatusReasonExpired, message: "The resourceVersion for the provided list is too old."}.run(t, e)
	}
	for _, path := range []string{
		"/api/v1/namespaces/dt/pods?watch=true&resourceVersion=2&timeoutSeconds=2",
		"/api/v1/namespaces/dt/configmaps?watch=true&resourceVersion=1&timeoutSeconds=2",
	} {
		frames := e.watch(path).ended()
		require.Len(t, frames, 1, "%s", path)
		require.Equal(t, "ERROR", string(frames[0].Type))
		var st api.Status
		require.NoError(t, json.Unmarshal(frames[0].Object, &st))
		require.Equal(t, int32(410), st.Code)
		require.Equal(t, api.StatusReasonExpired, st.Reason)
		require.Regexp(t, `^too old resource version: \d \(\d+\)$`, st.Message)
	}
	// The version the server started at is still served.
	start := "3" // default, kube-system, kube-public
	r := e.get("/api/v1/namespaces?resourceVersion=" + start + "&resourceVersionMatch=Exact")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
}

// 15-differential: delete/existing, existing-dry-run, existing-grace-0,
// existing-grace-negative, existing-precondition-uid-ok,
// existing-precondition-rv-ok, existing-body-dry-run and
// existing-query-dry-run-with-body [configmaps,replicasets]: a DELETE that
// removes an object (or, dry run, would) of a resource that does not return
// deleted objects answers a Status of status Success naming it. Pods,
// namespaces and objects that stay (finalizers) answer the object.
func TestDifferential_DeleteAnswersStatus(t *testing.T) {
	e := diffFixture(t)
	uidOf := func(path string) string {
		var o api.ObjectMeta
		var obj struct {
			Metadata *api.ObjectMeta `json:"metadata"`
		}
		obj.Metadata = &o
		e.get(path).decode(t, &obj)
		return o.UID
	}
	status := func(group, kind, name, uid string) string {
		d := map[string]string{"name": name, "kind": kind, "uid": uid}
		if group != "" {
			d["group"] = group
		}
		b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success", "details": d})
		return string(b)
	}
	for _, c := range []struct {
		class, create, path, query, body string
		group, resource                  string
		gone                             bool // the dry run leaves it
	}{
		{class: "delete/existing configmaps", create: "/api/v1/namespaces/dt/configmaps", path: "/api/v1/namespaces/dt/configmaps/", resource: "configmaps", gone: true},
		{class: "delete/existing replicasets", create: "/apis/apps/v1/namespaces/dt/replicasets", path: "/apis/apps/v1/namespaces/dt/replicasets/", group: "apps", resource: "replicasets", gone: true},
		{class: "delete/existing-dry-run configmaps", create: "/api/v1/namespaces/dt/configmaps", path: "/api/v1/namespaces/dt/configmaps/", query: "?dryRun=All", resource: "configmaps"},
		{class: "delete/existing-dry-run replicasets", create: "/apis/apps/v1/namespaces/dt/replicasets", path: "/apis/apps/v1/namespaces/dt/replicasets/", query: "?dryRun=All", group: "apps", resource: "replicasets"},
		{class: "delete/existing-grace-0", create: "/api/v1/namespaces/dt/configmaps", path: "/api/v1/namespaces/dt/configmaps/", query: "?gracePeriodSeconds=0", resource: "configmaps", gone: true},
		{class: "delete/existing-grace-negative", create: "/apis/apps/v1/namespaces/dt/replicasets", path: "/apis/apps/v1/namespaces/dt/replicasets/", query: "?gracePeriodSeconds=-1", group: "apps", resource: "replicasets", gone: true},
		{class: "delete/existing-body-dry-run", create: "/api/v1/namespaces/dt/configmaps", path: "/api/v1/namespaces/dt/configmaps/",
			body: `{"apiVersion":"v1","dryRun":["All"],"gracePeriodSeconds":0,"kind":"DeleteOptions"}`, resource: "configmaps"},
		{class: "delete/existing-query-dry-run-with-body", create: "/apis/apps/v1/namespaces/dt/replicasets", path: "/apis/apps/v1/namespaces/dt/replicasets/",
			query: "?dryRun=All", body: `{"apiVersion":"v1","gracePeriodSeconds":0,"kind":"DeleteOptions"}`, group: "apps", resource: "replicasets", gone: true},
		{class: "delete/existing-precondition-uid-ok", create: "/api/v1/namespaces/dt/configmaps", path: "/api/v1/namespaces/dt/configmaps/",
			body: `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"UID"}}`, resource: "configmaps", gone: true},
		{class: "delete/existing-precondition-rv-ok", create: "/apis/apps/v1/namespaces/dt/replicasets", path: "/apis/apps/v1/namespaces/dt/replicasets/",
			body: `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"RV"}}`, group: "apps", resource: "replicasets", gone: true},
	} {
		t.Run(c.class, func(t *testing.T) {
			e := e.forSubtest(t)
			obj := `{"metadata":{"name":"x"},"data":{"k":"v"}}`
			if c.resource == "replicasets" {
				obj = `{"metadata":{"name":"x"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
			}
			cr := e.do(http.MethodPost, c.create, obj)
			require.Equal(t, http.StatusCreated, cr.code, "%s", cr.body)
			var created struct{ Metadata api.ObjectMeta }
			cr.decode(t, &created)
			body := strings.ReplaceAll(strings.ReplaceAll(c.body, "UID", created.Metadata.UID), "RV", created.Metadata.ResourceVersion)
			r := e.do(http.MethodDelete, c.path+"x"+c.query, body)
			t.Logf("DELETE %sx%s %s\n-> %d %s", c.path, c.query, body, r.code, r.body)
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			require.JSONEq(t, status(c.group, c.resource, "x", created.Metadata.UID), string(r.body))
			left := e.get(c.path + "x").code
			if c.gone {
				require.Equal(t, http.StatusNotFound, left)
			} else {
				require.Equal(t, http.StatusOK, left)
				require.Equal(t, http.StatusOK, e.do(http.MethodDelete, c.path+"x", "").code)
			}
		})
	}

	// Those that return the object: a pod (graceful), a namespace, and an
	// object that stays because of its finalizers.
	r := e.do(http.MethodDelete, "/api/v1/namespaces/dt/pods/p2", "")
	require.Equal(t, http.StatusOK, r.code)
	require.Contains(t, string(r.body), `"kind":"Pod"`)
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, "/api/v1/namespaces/dt/configmaps", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`).code)
	r = e.do(http.MethodDelete, "/api/v1/namespaces/dt/configmaps/held?dryRun=All", "")
	require.Contains(t, string(r.body), `"kind":"ConfigMap"`, "a dry run of a held object: the object")
	r = e.do(http.MethodDelete, "/api/v1/namespaces/dt/configmaps/held", "")
	require.Contains(t, string(r.body), `"deletionTimestamp"`, "held: the marked object")
	require.NotEmpty(t, uidOf("/api/v1/namespaces/dt/configmaps/held"))
	r = e.do(http.MethodDelete, "/api/v1/namespaces/dt", "")
	require.Contains(t, string(r.body), `"kind":"Namespace"`)
}

// 15-differential: create-invalid/unknown-field-strict [configmaps,pods,replicasets],
// duplicate-field-strict [configmaps,pods,replicasets],
// unknown-metadata-field-strict [configmaps,pods,replicasets] and
// create-invalid/unknown-field [configmaps,pods] (no fieldValidation: Warn,
// the field is dropped).
func TestDifferential_FieldValidation(t *testing.T) {
	e := diffFixture(t)
	const strict = "?fieldValidation=Strict"
	cases := []diffCase{
		{class: "create-invalid/unknown-field-strict configmaps", method: http.MethodPost, path: "/api/v1/namespaces/dt/configmaps" + strict,
			body: `{"apiVersion":"v1","bogusField":1,"data":{"k1":"v1"},"kind":"ConfigMap","metadata":{"name":"c0"}}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogusField"`},
		{class: "create-invalid/unknown-metadata-field-strict replicasets", method: http.MethodPost, path: "/apis/apps/v1/namespaces/dt/replicasets" + strict,
			body: `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"bogus":"x","name":"r4"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"busybox","name":"c0"}]}}}}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `ReplicaSet in version "v1" cannot be handled as a ReplicaSet: strict decoding error: unknown field "metadata.bogus"`},
		{class: "create-invalid/duplicate-field-strict pods", method: http.MethodPost, path: "/api/v1/namespaces/dt/pods" + strict,
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"containers":[{"image":"nginx:latest","name":"c0"}]},"kind":"Pod"}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "kind"`},
		{class: "several at once, in the order met", method: http.MethodPost, path: "/api/v1/namespaces/dt/pods" + strict,
			body: `{"metadata":{"name":"p1","labels":{"a":"1","a":"2"},"ownerReferences":[{"name":"o","x":1}]},"spec":{"containers":[{"name":"c0","image":"i","name":"c1"}]},"status":{},"zz":{"a":1,"a":2}}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.labels.a", ` +
				`unknown field "metadata.ownerReferences[0].x", duplicate field "spec.containers[0].name", unknown field "zz"`},
		{class: "unknown-field-strict on PUT", method: http.MethodPut, path: "/api/v1/namespaces/dt/configmaps/c1" + strict,
			body: `{"metadata":{"name":"c1"},"data":{"k1":"v2"},"status":{}}`, code: 400, reason: api.StatusReasonBadRequest,
			message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "status"`},
		{class: "unknown-field-strict on a merge patch", method: http.MethodPatch, path: "/api/v1/namespaces/dt/configmaps/c1" + strict,
			body: `{"bogus":1}`, headers: []string{"Content-Type", "application/merge-patch+json"}, code: 422,
			check: func(t *testing.T, r response) {
				st := r.status(t)
				require.Equal(t, api.StatusReasonInvalid, st.Reason)
				require.Equal(t, "patch", st.Details.Causes[0].Field)
				require.True(t, strings.HasSuffix(st.Message, `: strict decoding error: unknown field "bogus"`), st.Message)
			}},
		// create-invalid/unknown-field: accepted, the field dropped; deeper
		// unknown fields (which the fake cannot tell from real ones) kept.
		{class: "create-invalid/unknown-field configmaps", method: http.MethodPost, path: "/api/v1/namespaces/dt/configmaps",
			body: `{"apiVersion":"v1","bogusField":1,"data":{"k1":"v1"},"kind":"ConfigMap","metadata":{"name":"c2","bogus":"x"}}`,
			code: 201, check: func(t *testing.T, r response) {
				require.NotContains(t, string(r.body), "bogus")
				require.NotContains(t, string(e.get("/api/v1/namespaces/dt/configmaps/c2").body), "bogus")
			}},
		{class: "create-invalid/unknown-field pods, Ignore", method: http.MethodPost, path: "/api/v1/namespaces/dt/pods?fieldValidation=Ignore",
			body: `{"metadata":{"name":"p7"},"bogusField":1,"spec":{"containers":[{"name":"c0","image":"i","futureField":2}]}}`,
			code: 201, check: func(t *testing.T, r response) {
				require.NotContains(t, string(r.body), "bogusField")
				require.Contains(t, string(r.body), `"futureField":2`)
			}},
		{class: "unknown field through a patch, Warn", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/dt/replicasets/r3",
			body: `{"bogus":1,"metadata":{"bogus":2}}`, headers: []string{"Content-Type", "application/merge-patch+json"},
			code: 200, check: func(t *testing.T, r response) { require.NotContains(t, string(r.body), "bogus") }},
	}
	for _, c := range cases {
		t.Run(c.class, func(t *testing.T) { c.run(t, e.forSubtest(t)) })
	}
}
