package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// YAML request bodies, as 15-differential-seed1.txt recorded the real
// server taking them (class 55, create-invalid/content-type-yaml: real 201,
// fake 415): a create or update sent with Content-Type: application/yaml is
// converted to JSON and read as a JSON body; the answer stays JSON.
func TestDifferential_YAMLBodies(t *testing.T) {
	e := newEnv(t, Options{})
	const ns = "dt-hkjf6-5"
	const yamlType = "application/yaml"

	for _, tc := range []struct {
		name, method, path, ctype, body string
		code                            int
		reason                          api.StatusReason
		message                         string
		want                            map[string]string // field path (dotted) -> JSON of the stored value
	}{
		// 15-differential: create-invalid/content-type-yaml (a manifest as kubectl users write it).
		{name: "namespace from YAML", method: http.MethodPost, path: "/api/v1/namespaces", ctype: yamlType,
			body: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n  labels:\n    team: a  # owner\n",
			code: 201, want: map[string]string{"kind": `"Namespace"`, "metadata.name": `"` + ns + `"`, "metadata.labels": `{"kubernetes.io/metadata.name":"` + ns + `","team":"a"}`}},
		// 15-differential: create-invalid/content-type-yaml (the recorded request: JSON sent as YAML).
		{name: "recorded configmap", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: `{"apiVersion":"v1","binaryData":{"bin":"AAEC"},"data":{"k1":"v1","k2":"line1\nline2"},"kind":"ConfigMap","metadata":{"annotations":{"example.com/note":"{\"json\":true}"},"labels":{"app":"cache","dseq":"dt-hkjf6-5"},"name":"c5"}}`,
			code: 201, want: map[string]string{"binaryData": `{"bin":"AAEC"}`, "data": `{"k1":"v1","k2":"line1\nline2"}`,
				"metadata.annotations": `{"example.com/note":"{\"json\":true}"}`, "metadata.labels": `{"app":"cache","dseq":"dt-hkjf6-5"}`}},
		// 15-differential: create-invalid/content-type-yaml (block scalars, media type parameters ignored).
		{name: "configmap with files", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: "application/yaml; charset=utf-8",
			body: "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: files\ndata:\n  app.conf: |\n    a=1\n    b=2\n  motd: >-\n    hello\n    world\n  quoted: 'yes'\n",
			code: 201, want: map[string]string{"data": `{"app.conf":"a=1\nb=2\n","motd":"hello world","quoted":"yes"}`}},
		// 15-differential: create-invalid/content-type-yaml (sequences of mappings, numbers).
		{name: "pod from YAML", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/pods", ctype: yamlType,
			body: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p0\n  labels: {app: web}\nspec:\n  containers:\n  - name: c0\n    image: nginx:1.25\n    args: [\"--port\", \"8080\"]\n    ports:\n    - containerPort: 8080\n      protocol: TCP\n    env:\n    - name: MODE\n      value: \"on\"\n",
			code: 201, want: map[string]string{"metadata.labels": `{"app":"web"}`, "spec.containers.0.image": `"nginx:1.25"`,
				"spec.containers.0.args": `["--port","8080"]`, "spec.containers.0.ports": `[{"containerPort":8080,"protocol":"TCP"}]`,
				"spec.containers.0.env": `[{"name":"MODE","value":"on"}]`}},
		// 15-differential: create-invalid/content-type-yaml (apps/v1, indented sequences, an anchor).
		{name: "replicaset from YAML", method: http.MethodPost, path: "/apis/apps/v1/namespaces/" + ns + "/replicasets", ctype: yamlType,
			body: "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: r0\nspec:\n  replicas: 2\n  selector:\n    matchLabels: &sel\n      app: db\n  template:\n    metadata:\n      labels: *sel\n    spec:\n      containers:\n        - name: c0\n          image: example.com/team/app:v2\n",
			code: 201, want: map[string]string{"spec.replicas": `2`, "spec.selector": `{"matchLabels":{"app":"db"}}`,
				"spec.template.metadata.labels": `{"app":"db"}`, "spec.template.spec.containers.0.name": `"c0"`}},
		// 15-differential: create-invalid/content-type-yaml (update: PUT takes YAML too).
		{name: "update from YAML", method: http.MethodPut, path: "/api/v1/namespaces/" + ns + "/configmaps/c5", ctype: yamlType,
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c5\ndata:\n  k1: changed\n",
			code: 200, want: map[string]string{"data": `{"k1":"changed"}`}},
		// 15-differential: create-invalid/content-type-yaml (only the first document is read, as go-yaml reads it).
		{name: "first document only", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: second\n",
			code: 201, want: map[string]string{"metadata.name": `"first"`}},
		// 15-differential: create-invalid/content-type-yaml (a key given twice: the last wins without Strict).
		{name: "duplicate key", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  k: a\n  k: b\n",
			code: 201, want: map[string]string{"data": `{"k":"b"}`}},
		// 15-differential: create-invalid/content-type-yaml (and with Strict, go-yaml's strict error).
		{name: "duplicate key, strict", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps?fieldValidation=Strict", ctype: yamlType,
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup2\ndata:\n  k: a\n  k: b\n",
			code: 400, reason: api.StatusReasonBadRequest,
			message: "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"k\" already set in map"},
		// 15-differential: create-invalid/content-type-yaml (malformed YAML: 400 naming the line).
		{name: "malformed", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: "metadata:\n  name: x\n   labels: y\n", code: 400, reason: api.StatusReasonBadRequest,
			message: "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context (6d657461646174613a0a20206e616d653a20780a2020206c6162656c733a ...)"},
		// 15-differential: create-invalid/content-type-yaml (YAML 1.1: "yes" is a boolean, which a string field refuses).
		{name: "yes is a boolean", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  enabled: yes\n", code: 400, reason: api.StatusReasonBadRequest,
			message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string`},
		// 15-differential: create-invalid/content-type-text (other YAML media types stay 415).
		{name: "text/yaml", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: "text/yaml",
			body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n", code: 415, reason: api.StatusReasonUnsupportedMediaType},
		// 15-differential: create-invalid/content-type-yaml (a YAML body over 3 MiB is 413, as a JSON one).
		{name: "too large", method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps", ctype: yamlType,
			body: "data:\n  k: " + strings.Repeat("x", maxBodyBytes), code: 413, reason: api.StatusReasonRequestEntityTooLarge,
			message: "Request entity too large: limit is 3145728"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.body, "Content-Type", tc.ctype)
			t.Logf("%s %s (%s) -> %d %.300s", tc.method, tc.path, tc.ctype, r.code, r.body)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			require.Equal(t, "application/json", r.header.Get("Content-Type"))
			if tc.code >= 400 {
				st := r.status(t)
				require.Equal(t, tc.reason, st.Reason)
				if tc.message != "" {
					require.Equal(t, tc.message, st.Message)
				}
				return
			}
			var obj map[string]any
			r.decode(t, &obj)
			for path, want := range tc.want {
				require.JSONEq(t, want, jsonAt(t, obj, path), "field %s of %s", path, r.body)
			}
		})
	}

	// The second document of "first document only" was never read.
	require.Equal(t, http.StatusNotFound, e.get("/api/v1/namespaces/"+ns+"/configmaps/second").code)

	// 15-differential: create-invalid/content-type-yaml (a DELETE's DeleteOptions may be YAML too).
	r := e.do(http.MethodDelete, "/api/v1/namespaces/"+ns+"/configmaps/dup", "apiVersion: v1\nkind: DeleteOptions\ndryRun: [All]\n",
		"Content-Type", yamlType)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/"+ns+"/configmaps/dup").code, "a dry run deletes nothing")
	r = e.do(http.MethodDelete, "/api/v1/namespaces/"+ns+"/configmaps/dup", "dryRun: [All\n", "Content-Type", yamlType)
	require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
	require.Equal(t, "the body of the request is not valid DeleteOptions: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
		r.status(t).Message)
}

// jsonAt is the JSON of the value at a dotted path (numbers index arrays).
func jsonAt(t *testing.T, obj map[string]any, path string) string {
	t.Helper()
	var v any = obj
	for _, part := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			i := 0
			for _, d := range part {
				i = i*10 + int(d-'0')
			}
			require.Less(t, i, len(c), "path %s", path)
			v = c[i]
		default:
			t.Fatalf("path %s: %T at %q", path, v, part)
		}
	}
	return string(encodeObject(v))
}
