package fakeapiserver

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// Messages and Status details of the low-severity classes of
// testdata/kube-apiserver-1.36/15-differential-seed1.txt: the real server
// and the fake agreed on code and reason, not on the words (or on how many
// causes the details list). Each case sends the recorded request (or a
// variant of the same mistake on another resource) and expects the real
// server's answer.

// Messages the validation helpers word; the regexes as apimachinery prints them.
const (
	labelValueMsg = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	namePartMsg   = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	subdomainMsg  = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	dnsLabelMsg   = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	findKindType  = `struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`
)

const (
	dtNS      = "/api/v1/namespaces/dt"
	dtCMs     = dtNS + "/configmaps"
	dtPods    = dtNS + "/pods"
	dtRSs     = "/apis/apps/v1/namespaces/dt/replicasets"
	mergeJSON = string(MergePatchType)
	smpJSON   = string(StrategicMergePatchType)
	jsonPatch = string(JSONPatchType)
)

// seedDifferential creates what the cases work on: namespaces dt and dt-x;
// in dt configmap c1, pod p1, replicaset r1, and replicaset r2 being
// deleted (held by a finalizer).
func (e *env) seedDifferential() {
	e.t.Helper()
	for _, c := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"metadata":{"name":"dt"}}`},
		{"/api/v1/namespaces", `{"metadata":{"name":"dt-x"}}`},
		{dtCMs, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1","labels":{"app":"db"}},"data":{"k1":"v1","k2":"line1\nline2"}}`},
		{dtPods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"app":"db"}},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}`},
		{dtRSs, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r1","labels":{"app":"db"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}}}`},
		{dtRSs, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r2","finalizers":["example.com/hold"]},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}}}`},
	} {
		r := e.do(http.MethodPost, c.path, c.body)
		require.Equal(e.t, http.StatusCreated, r.code, "%s: %s", c.path, r.body)
	}
	r := e.do(http.MethodDelete, dtRSs+"/r2", "")
	require.Equal(e.t, http.StatusOK, r.code, "%s", r.body)
}

// objectMeta reads an object's uid and resourceVersion.
func (e *env) objectMeta(path string) (uid, rv string) {
	e.t.Helper()
	var o struct {
		Metadata api.ObjectMeta `json:"metadata"`
	}
	r := e.get(path)
	require.Equal(e.t, http.StatusOK, r.code, "%s", r.body)
	r.decode(e.t, &o)
	return string(o.Metadata.UID), o.Metadata.ResourceVersion
}

func TestDifferential_Messages(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedDifferential()
	badVersionToken := base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v9","rv":5,"start":"p0\u0000"}`))

	type tc struct {
		class, method, path, body, ctype string
		code                             int
		reason                           api.StatusReason
		message                          string // exact; "" when messageRe or patched say
		messageRe                        string // a regexp the whole message matches
		// patched is a patch's result as the 422 quotes it ({uid} and {rv}
		// stand for the patched object's), and detail the decoder's error
		// after it: the message is ` "" is invalid: patch: Invalid value:
		// <patched, quoted>: <detail>`.
		patched, detail string
		causes          int    // how many causes the details list (0: not checked)
		kind, group     string // details (checked when kind is set)
	}
	cases := []tc{
		// 15-differential: create-invalid/dry-run-bogus
		{class: "create-invalid/dry-run-bogus", method: "POST", path: dtCMs + "?dryRun=Bogus",
			body: `{"metadata":{"name":"c9"}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`,
			causes:  1, kind: "CreateOptions", group: "meta.k8s.io"},
		{class: "create-invalid/dry-run-bogus (namespaces, two values)", method: "POST", path: "/api/v1/namespaces?dryRun=All&dryRun=Bogus",
			body: `{"metadata":{"name":"n9"}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","Bogus"]: supported values: "All"`, causes: 1},
		// 15-differential: delete/body-dry-run-bogus
		{class: "delete/body-dry-run-bogus", method: "DELETE", path: dtCMs + "/c1",
			body: `{"apiVersion":"v1","dryRun":["Bogus"],"kind":"DeleteOptions"}`, code: 422, reason: api.StatusReasonInvalid,
			message: `DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`,
			causes:  1, kind: "DeleteOptions", group: "meta.k8s.io"},

		// 15-differential: create-invalid/apiversion-wrong
		{class: "create-invalid/apiversion-wrong", method: "POST", path: dtPods,
			body: `{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"p0"},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `Pod in version "v1" cannot be handled as a Pod: no kind "Pod" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{class: "create-invalid/apiversion-wrong (replicasets)", method: "POST", path: dtRSs,
			body: `{"apiVersion":"v1","kind":"ReplicaSet","metadata":{"name":"r0"}}`, code: 400, reason: api.StatusReasonBadRequest,
			message: `ReplicaSet in version "v1" cannot be handled as a ReplicaSet: no kind "ReplicaSet" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		// 15-differential: create-invalid/kind-wrong
		{class: "create-invalid/kind-wrong", method: "POST", path: dtPods,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p2"},"spec":{"containers":[{"image":"example.com/team/app:v2","name":"c0"}]}}`,
			code: 400, reason: api.StatusReasonBadRequest,
			message: `ConfigMap in version "v1" cannot be handled as a Pod: converting (v1.ConfigMap) to (core.Pod): unknown conversion`},
		{class: "create-invalid/kind-wrong (replicasets, another apps/v1 kind)", method: "POST", path: dtRSs,
			body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"r0"}}`, code: 400, reason: api.StatusReasonBadRequest,
			message: `Deployment in version "v1" cannot be handled as a ReplicaSet: converting (v1.Deployment) to (apps.ReplicaSet): unknown conversion`},
		// 15-differential: update/kind-wrong
		{class: "update/kind-wrong", method: "PUT", path: dtRSs + "/r1",
			body: `{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"r1"}}`, code: 400, reason: api.StatusReasonBadRequest,
			message: `ConfigMap in version "v1" cannot be handled as a ReplicaSet: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{class: "update/kind-wrong (namespaces)", method: "PUT", path: "/api/v1/namespaces/dt-x",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dt-x"}}`, code: 400, reason: api.StatusReasonBadRequest,
			message: `Pod in version "v1" cannot be handled as a Namespace: converting (v1.Pod) to (core.Namespace): unknown conversion`},

		// 15-differential: create-invalid/empty-body
		{class: "create-invalid/empty-body", method: "POST", path: dtCMs, ctype: "application/json", code: 400, reason: api.StatusReasonBadRequest,
			message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{class: "create-invalid/empty-body (a long malformed body is cut at 30 bytes)", method: "POST", path: dtPods,
			body: `{"apiVersion":"v1","kind":"Pod","metadata":`, code: 400, reason: api.StatusReasonBadRequest,
			message: `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Pod ...)`},
		// 15-differential: create-invalid/json-array
		{class: "create-invalid/json-array", method: "POST", path: dtPods, body: `[]`, code: 400, reason: api.StatusReasonBadRequest,
			message: `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ` + findKindType + ` (5b5d)`},
		{class: "create-invalid/json-array (a string, namespaces)", method: "POST", path: "/api/v1/namespaces", body: `"x"`, code: 400, reason: api.StatusReasonBadRequest,
			message: `the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ` + findKindType + ` (227822)`},

		// 15-differential: create-invalid/name-missing
		{class: "create-invalid/name-missing", method: "POST", path: dtCMs,
			body: `{"apiVersion":"v1","data":{"k1":"v1"},"kind":"ConfigMap","metadata":{"labels":{"app":"db"}}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`, causes: 1, kind: "ConfigMap"},
		{class: "create-invalid/name-missing (namespaces)", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"labels":{"app":"db"}}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `Namespace "" is invalid: metadata.name: Required value: name or generateName is required`, causes: 1},
		// 15-differential: create-invalid/generate-name-invalid
		{class: "create-invalid/generate-name-invalid", method: "POST", path: dtCMs,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"Bad_"}}`, code: 422, reason: api.StatusReasonInvalid,
			messageRe: `^ConfigMap "Bad_[a-z0-9]{5}" is invalid: \[metadata\.generateName: Invalid value: "Bad_": ` + regexp.QuoteMeta(subdomainMsg) +
				`, metadata\.name: Invalid value: "Bad_[a-z0-9]{5}": ` + regexp.QuoteMeta(subdomainMsg) + `\]$`, causes: 2},
		{class: "create-invalid/generate-name-invalid (namespaces: a DNS label, trailing dash masked)", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"generateName":"Bad-"}}`, code: 422, reason: api.StatusReasonInvalid,
			messageRe: `^Namespace "Bad-[a-z0-9]{5}" is invalid: \[metadata\.generateName: Invalid value: "Bad-": ` + regexp.QuoteMeta(dnsLabelMsg) +
				`, metadata\.name: Invalid value: "Bad-[a-z0-9]{5}": ` + regexp.QuoteMeta(dnsLabelMsg) + `\]$`, causes: 2},
		// 15-differential: create-invalid/finalizer-invalid
		{class: "create-invalid/finalizer-invalid", method: "POST", path: dtCMs,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"finalizers":["bad finalizer!"],"name":"c3"}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `ConfigMap "c3" is invalid: [metadata.finalizers: Invalid value: "bad finalizer!": ` + namePartMsg +
				`, metadata.finalizers[0]: Invalid value: "bad finalizer!": name is neither a standard finalizer name nor is it fully qualified]`, causes: 2},
		{class: "create-invalid/finalizer-invalid (pods, no domain)", method: "POST", path: dtPods,
			body: `{"metadata":{"finalizers":["example.com/ok","hold"],"name":"p3"},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}`, code: 422, reason: api.StatusReasonInvalid,
			message: `Pod "p3" is invalid: metadata.finalizers[1]: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified`, causes: 1},

		// 15-differential: list-invalid/timeout-invalid
		{class: "list-invalid/timeout-invalid", method: "GET", path: dtPods + "?timeoutSeconds=soon", code: 400, reason: api.StatusReasonBadRequest,
			message: `strconv.ParseInt: parsing "soon": invalid syntax`},
		// 15-differential: watch-invalid/timeout-invalid
		{class: "watch-invalid/timeout-invalid", method: "GET", path: dtCMs + "?watch=true&timeoutSeconds=soon", code: 400, reason: api.StatusReasonBadRequest,
			message: `strconv.ParseInt: parsing "soon": invalid syntax`},
		// 15-differential: list-invalid/limit-not-a-number
		{class: "list-invalid/limit-not-a-number", method: "GET", path: dtRSs + "?limit=ten", code: 400, reason: api.StatusReasonBadRequest,
			message: `strconv.ParseInt: parsing "ten": invalid syntax`},
		// 15-differential: delete/grace-invalid
		{class: "delete/grace-invalid", method: "DELETE", path: "/api/v1/namespaces/dt-x?gracePeriodSeconds=soon&dryRun=All", code: 400, reason: api.StatusReasonBadRequest,
			message: `strconv.ParseInt: parsing "soon": invalid syntax`},
		// 15-differential: list-invalid/continue-bad-version
		{class: "list-invalid/continue-bad-version", method: "GET", path: "/api/v1/configmaps?continue=" + badVersionToken, code: 400, reason: api.StatusReasonBadRequest,
			message: `invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v9`},
		// 15-differential: delete/body-malformed
		{class: "delete/body-malformed", method: "DELETE", path: dtRSs + "/r1", body: `{"kind":"DeleteOptions",`, code: 400, reason: api.StatusReasonBadRequest,
			message: `couldn't get version/kind; json parse error: unexpected end of JSON input`},
		{class: "delete/body-malformed (an array)", method: "DELETE", path: dtCMs + "/c1", body: `[]`, code: 400, reason: api.StatusReasonBadRequest,
			message: `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ` + findKindType},

		// 15-differential: patch-invalid/content-type-json
		{class: "patch-invalid/content-type-json", method: "PATCH", path: "/api/v1/namespaces/dt-x", body: `{"metadata":{"labels":{"a":"b"}}}`,
			ctype: "application/json", code: 415, reason: api.StatusReasonUnsupportedMediaType, message: `415: Unsupported Media Type`},
		// 15-differential: patch-invalid/content-type-text
		{class: "patch-invalid/content-type-text", method: "PATCH", path: dtCMs + "/c1", body: `{"metadata":{"labels":{"a":"b"}}}`,
			ctype: "text/plain", code: 415, reason: api.StatusReasonUnsupportedMediaType, message: `415: Unsupported Media Type`},
		// 15-differential: create-invalid/content-type-text
		{class: "create-invalid/content-type-text", method: "POST", path: dtRSs, body: `{"metadata":{"name":"r0"}}`,
			ctype: "text/plain", code: 415, reason: api.StatusReasonUnsupportedMediaType,
			message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`},
		// 15-differential: deletecollection/all-namespaces-not-allowed
		{class: "deletecollection/all-namespaces-not-allowed", method: "DELETE", path: "/apis/apps/v1/replicasets?labelSelector=never%3Dmatch&dryRun=All",
			code: 405, reason: api.StatusReasonMethodNotAllowed, message: `the server does not allow this method on the requested resource`},
		// 15-differential: deletecollection/not-allowed
		{class: "deletecollection/not-allowed", method: "DELETE", path: "/api/v1/namespaces?labelSelector=never%3Dmatch&dryRun=All",
			code: 405, reason: api.StatusReasonMethodNotAllowed, message: `the server does not allow this method on the requested resource`},

		// 15-differential: patch-invalid/malformed-smp
		{class: "patch-invalid/malformed-smp", method: "PATCH", path: dtCMs + "/c1", body: `{"metadata":{`, ctype: smpJSON,
			code: 400, reason: api.StatusReasonBadRequest, message: `unexpected end of JSON input`},
		// 15-differential: patch-invalid/merge-null-body
		{class: "patch-invalid/merge-null-body", method: "PATCH", path: dtPods + "/p1", body: `null`, ctype: mergeJSON,
			code: 400, reason: api.StatusReasonBadRequest, message: `Invalid JSON Patch`},
		// 15-differential: patch-invalid/json-patch-not-array
		{class: "patch-invalid/json-patch-not-array", method: "PATCH", path: dtPods + "/p1", body: `{"op":"add","path":"/metadata/labels/x","value":"y"}`, ctype: jsonPatch,
			code: 400, reason: api.StatusReasonBadRequest, message: `error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`},
		// 15-differential: patch-invalid/malformed-json-patch
		{class: "patch-invalid/malformed-json-patch", method: "PATCH", path: dtCMs + "/c1", body: `[{"op":`, ctype: jsonPatch,
			code: 400, reason: api.StatusReasonBadRequest, message: `error decoding patch: unexpected end of JSON input`},
		// 15-differential: patch-invalid/malformed-merge
		{class: "patch-invalid/malformed-merge", method: "PATCH", path: dtRSs + "/r1", body: `{"metadata":`, ctype: mergeJSON,
			code: 400, reason: api.StatusReasonBadRequest, message: `error decoding patch: unexpected end of JSON input`},
		{class: "patch-invalid/malformed-merge (an array)", method: "PATCH", path: dtPods + "/p1", body: `["a"]`, ctype: mergeJSON,
			code: 400, reason: api.StatusReasonBadRequest, message: `error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}`},

		// 15-differential: patch-invalid/deletion-timestamp-set (real lists the cause twice: rest.BeforeUpdate's
		// ValidateObjectMetaAccessorUpdate, then the namespace's ValidateObjectMetaUpdate; the message says it once)
		{class: "patch-invalid/deletion-timestamp-set", method: "PATCH", path: "/api/v1/namespaces/dt-x", body: `{"metadata":{"deletionTimestamp":"2030-01-01T00:00:00Z"}}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Namespace "dt-x" is invalid: metadata.deletionTimestamp: Invalid value: "2030-01-01T00:00:00Z": field is immutable`, causes: 2, kind: "Namespace"},
		// 15-differential: patch-invalid/uid-change (the same cause twice, as the real server lists it; see above)
		{class: "patch-invalid/uid-change", method: "PATCH", path: "/api/v1/namespaces/dt-x", body: `{"metadata":{"uid":"99999999-0000-0000-0000-000000000001"}}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Namespace "dt-x" is invalid: metadata.uid: Invalid value: "99999999-0000-0000-0000-000000000001": field is immutable`, causes: 2},
		{class: "patch-invalid/uid-change (pods)", method: "PATCH", path: dtPods + "/p1", body: `{"metadata":{"uid":"99999999-0000-0000-0000-000000000001"}}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Pod "p1" is invalid: metadata.uid: Invalid value: "99999999-0000-0000-0000-000000000001": field is immutable`, causes: 2},
		// 15-differential: patch-strategic/finalizer-add-other
		{class: "patch-strategic/finalizer-add-other", method: "PATCH", path: dtRSs + "/r2", body: `{"metadata":{"finalizers":["example.com/other"]}}`, ctype: smpJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `ReplicaSet.apps "r2" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/other"}`,
			causes:  2, kind: "ReplicaSet", group: "apps"},
		// 15-differential: update/label-invalid (four causes: rest.BeforeUpdate's two metadata checks, then
		// ValidatePodUpdate's ValidateObjectMetaUpdate and ValidateObjectMeta; one message)
		{class: "update/label-invalid", method: "PUT", path: dtPods + "/p1",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"app":"bad value!"}},"spec":{"containers":[{"name":"c0","image":"nginx"}]}}`,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Pod "p1" is invalid: metadata.labels: Invalid value: "bad value!": ` + labelValueMsg, causes: 4, kind: "Pod"},
		// 15-differential: patch-invalid/label-invalid-smp
		{class: "patch-invalid/label-invalid-smp", method: "PATCH", path: dtPods + "/p1", body: `{"metadata":{"labels":{"bad key!":"x"}}}`, ctype: smpJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Pod "p1" is invalid: metadata.labels: Invalid value: "bad key!": ` + namePartMsg, causes: 4},
		{class: "patch-invalid/label-invalid-smp (namespaces)", method: "PATCH", path: "/api/v1/namespaces/dt-x", body: `{"metadata":{"labels":{"bad key!":"x"}}}`, ctype: smpJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `Namespace "dt-x" is invalid: metadata.labels: Invalid value: "bad key!": ` + namePartMsg, causes: 4},
		// 15-differential: patch-invalid/label-invalid-merge
		{class: "patch-invalid/label-invalid-merge", method: "PATCH", path: dtRSs + "/r1", body: `{"metadata":{"labels":{"app":"bad value!"}}}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			message: `ReplicaSet.apps "r1" is invalid: metadata.labels: Invalid value: "bad value!": ` + labelValueMsg, causes: 4},

		// 15-differential: patch-invalid/kind-change: the result's top level is sorted, its untouched
		// metadata in the struct order; the decoder converts to the ConfigMap and cannot.
		{class: "patch-invalid/kind-change", method: "PATCH", path: dtCMs + "/c1", body: `{"kind":"Pod"}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			patched: `{"apiVersion":"v1","data":{"k1":"v1","k2":"line1\nline2"},"kind":"Pod","metadata":{"name":"c1","namespace":"dt","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-22T04:00:00Z","labels":{"app":"db"}}}`,
			detail:  `converting (v1.Pod) to (core.ConfigMap): unknown conversion`, causes: 1},
		// 15-differential: patch-invalid/apiversion-change
		{class: "patch-invalid/apiversion-change", method: "PATCH", path: dtCMs + "/c1", body: `{"apiVersion":"apps/v1"}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			patched: `{"apiVersion":"apps/v1","data":{"k1":"v1","k2":"line1\nline2"},"kind":"ConfigMap","metadata":{"name":"c1","namespace":"dt","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-22T04:00:00Z","labels":{"app":"db"}}}`,
			detail:  `no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"`},
		// 15-differential: patch-invalid/labels-wrong-type: the metadata the patch merged into is sorted
		{class: "patch-invalid/labels-wrong-type", method: "PATCH", path: dtCMs + "/c1", body: `{"metadata":{"labels":"x"}}`, ctype: mergeJSON,
			code: 422, reason: api.StatusReasonInvalid,
			patched: `{"apiVersion":"v1","data":{"k1":"v1","k2":"line1\nline2"},"kind":"ConfigMap","metadata":{"creationTimestamp":"2026-11-22T04:00:00Z","labels":"x","name":"c1","namespace":"dt","resourceVersion":"{rv}","uid":"{uid}"}}`,
			detail:  `json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string`},
		// 15-differential: patch-json/rs-replicas-string: spec walked through (sorted), the rest as stored
		{class: "patch-json/rs-replicas-string", method: "PATCH", path: dtRSs + "/r1", body: `[{"op":"replace","path":"/spec/replicas","value":"two"}]`, ctype: jsonPatch,
			code: 422, reason: api.StatusReasonInvalid,
			patched: `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r1","namespace":"dt","uid":"{uid}","resourceVersion":"{rv}","generation":1,"creationTimestamp":"2026-11-22T04:00:00Z","labels":{"app":"db"}},` +
				`"spec":{"replicas":"two","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c0","image":"nginx","imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},` +
				`"status":{"replicas":0}}`,
			detail: `json: cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32`},
	}
	for _, c := range cases {
		t.Run(c.class, func(t *testing.T) {
			var headers []string
			if c.ctype != "" {
				headers = []string{"Content-Type", c.ctype}
			}
			want := c.message
			if c.patched != "" {
				uid, rv := e.objectMeta(c.path)
				patched := strings.NewReplacer("{uid}", uid, "{rv}", rv).Replace(c.patched)
				want = ` "" is invalid: patch: Invalid value: ` + strconv.Quote(patched) + ": " + c.detail
			}
			r := e.do(c.method, c.path, c.body, headers...)
			t.Logf("%s %s %s\n→ %d %s", c.method, c.path, c.body, r.code, r.body)
			require.Equal(t, c.code, r.code, "%s", r.body)
			st := r.status(t)
			require.Equal(t, c.reason, st.Reason)
			if c.messageRe != "" {
				require.Regexp(t, c.messageRe, st.Message)
			} else {
				require.Equal(t, want, st.Message)
			}
			if c.causes > 0 {
				require.NotNil(t, st.Details)
				require.Len(t, st.Details.Causes, c.causes, "%s", r.body)
			}
			if c.kind != "" {
				require.Equal(t, c.kind, st.Details.Kind)
				require.Equal(t, c.group, st.Details.Group)
			}
		})
	}
}

// 15-differential: list-paging/all-namespaces (classes 42 and 43 of the
// recording, not a difference of the fake's paging): the real server's
// page carried a continue token because keys followed its last item (the
// cluster's kube-system pods, which match no test selector), and the next
// page was empty. The fake pages the same way, keys matching or not; it
// only has no system pods. With one after the page, its answer is the real
// one.
func TestDifferential_ListPagingAllNamespaces(t *testing.T) {
	e := newEnv(t, Options{})
	for _, ns := range []string{"dt-5", "dt-6"} {
		r := e.do(http.MethodPost, "/api/v1/namespaces", `{"metadata":{"name":"`+ns+`"}}`)
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	}
	for _, name := range []string{"p1", "p5"} {
		e.createPod("dt-5", name, map[string]string{"dseq": "dt-5"})
	}
	const page = "/api/v1/pods?labelSelector=dseq%3Ddt-5&limit=2"

	names, meta := e.listNames(page)
	require.Equal(t, []string{"p1", "p5"}, names)
	require.Empty(t, meta.Continue, "nothing follows dt-5/p5: no continue token")

	e.createPod("kube-system", "etcd", map[string]string{"component": "etcd"})
	names, meta = e.listNames(page)
	require.Equal(t, []string{"p1", "p5"}, names)
	require.NotEmpty(t, meta.Continue, "a key follows the page, matching or not: a continue token")
	tok, st := decodeContinue(meta.Continue)
	require.Nil(t, st)
	require.Equal(t, "/dt-5/p5\x00", tok.Start)

	names, meta = e.listNames(page + "&continue=" + meta.Continue)
	require.Empty(t, names)
	require.Empty(t, meta.Continue)
}
