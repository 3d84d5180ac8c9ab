package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Whatever a client sends, the server answers with JSON (an object or a
// Status) and a 2xx or 4xx code: never a panic, never a 5xx but etcd's
// "request is too large" (see limits.go). And whatever it accepted, every
// typed LIST still decodes into its Go type: no write can leave an object
// an informer cannot read.
func FuzzRequestBody(f *testing.F) {
	f.Add("POST", "/api/v1/namespaces/default/pods", "application/json", []byte(podJSON))
	f.Add("PUT", "/api/v1/namespaces/default/pods/seed-0", "application/json", []byte(`{"metadata":{"name":"seed-0"},"spec":{"containers":[{"name":"c","image":"i"}]}}`))
	f.Add("PUT", "/api/v1/namespaces/default/pods/seed-0/status", "application/json", []byte(`{"metadata":{"name":"seed-0"},"status":{"phase":"Running"}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/json-patch+json", []byte(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/strategic-merge-patch+json", []byte(`{"spec":{"containers":[{"name":"app","image":"x"}]}}`))
	f.Add("POST", "/apis/apps/v1/namespaces/default/replicasets", "application/json", []byte(`{"metadata":{"name":"rs"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In","values":["b"]}]},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`))
	f.Add("DELETE", "/api/v1/namespaces/default/pods/seed-1", "application/json", []byte(`{"preconditions":{"uid":"x"}}`))
	f.Add("POST", "/api/v1/namespaces", "application/json", []byte(`{"metadata":{"name":"team"}}`))
	f.Add("POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"metadata":{"name":"c","labels":{"a":1}},"data":{"k":"v"}}`))
	f.Add("POST", "/api/v1/namespaces/default/pods", "", []byte(`{"metadata":{"name":"x","finalizers":"nope"},"spec":{"containers":"nope"}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/merge-patch+json", []byte(`{"spec":{"nodeName":5}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0/status", "application/strategic-merge-patch+json", []byte(`{"status":{"phase":7}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/json-patch+json", []byte(`[{"op":"copy","from":"/spec","path":"/metadata/labels"}]`))
	f.Add("PUT", "/api/v1/namespaces/default/pods/seed-0", "application/json", []byte(`{"metadata":{"name":"seed-0","annotations":{"a":1}},"spec":{"containers":[{"name":"c","image":"i"}]}}`))
	// Field validation and the differential's answers (differential_codes_test.go).
	f.Add("POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", []byte(`{"metadata":{"name":"x","bogus":1,"labels":{"a":"1","a":"2"}},"kind":"Pod","kind":"Pod"}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0?fieldValidation=Strict", "application/merge-patch+json", []byte(`{"bogus":{"a":1,"a":2}}`))
	f.Add("PATCH", "/api/v1/namespaces/default/pods/seed-0", "application/strategic-merge-patch+json", []byte(`{"metadata":{"labels":{"$patch":1.5}}}`))
	f.Add("DELETE", "/api/v1/namespaces/default/configmaps/c?dryRun=All", "", []byte(nil))
	f.Add("POST", "/api/v1/namespaces/default/configmaps", "application/yaml", []byte("metadata:\n  name: y\ndata:\n  k: |\n    v\n  n: no\n"))
	f.Add("PUT", "/api/v1/namespaces/default/pods/seed-0", "application/yaml", []byte("metadata: {name: seed-0}\nspec:\n  containers:\n  - name: c\n    image: i\n"))
	f.Fuzz(func(t *testing.T, method, path, contentType string, body []byte) {
		if len(path) == 0 || path[0] != '/' {
			return
		}
		srv := New(Options{})
		defer srv.Close()
		if err := srv.SeedPods("default", 2); err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(method, "http://localhost"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		if q := req.URL.Query(); q.Has("watch") || req.URL.Path != path || bytes.Contains([]byte(path), []byte("/watch")) {
			return // a watch would stream; the URL must be what the fuzzer asked
		}
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 && !realServer500(rec.Body.String()) {
			t.Fatalf("%s %s answered %d: %s", method, path, rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct == "application/json" && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s answered invalid JSON: %s", method, path, rec.Body)
		}
		requireListsDecode(t, srv)
	})
}

// realServer500 says whether a 500 is one the real server gives for a
// client's mistake too (its storage's or a library's plain error, passed
// through unconverted), rather than a failure of the fake.
func realServer500(body string) bool {
	for _, msg := range []string{
		`"message":"etcdserver: request is too large"`,                           // limits.go
		`"message":"resourceVersion should not be set on objects to be created"`, // a create's resourceVersion
		`"message":"unknown patch type: `,                                        // a strategic merge patch's $patch
		`"message":"resourceVersion: Invalid value: `,                            // a get's malformed resourceVersion
		`"message":"strconv.ParseUint: parsing `,                                 // an update's malformed metadata.resourceVersion
	} {
		if strings.Contains(body, msg) {
			return true
		}
	}
	return false
}

// requireListsDecode lists every resource through HTTP and decodes each
// item into its Go type, as a reflector would.
func requireListsDecode(t *testing.T, srv *Server) {
	t.Helper()
	for _, r := range builtinResources {
		path := "/api/" + r.Version + "/" + r.Name
		if r.Group != "" {
			path = "/apis/" + r.Group + "/" + r.Version + "/" + r.Name
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("list %s answered %d: %s", path, rec.Code, rec.Body)
		}
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatalf("list %s: %v", path, err)
		}
		for _, item := range list.Items {
			if err := json.Unmarshal(item, r.New()); err != nil {
				t.Fatalf("list %s: an item does not decode into a %s: %v\n%s", path, r.Kind, err, item)
			}
		}
	}
}
