package fakeapiserver

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAPI, just enough for kubectl.
//
// Before kubectl create/replace/apply sends an object it validates it
// (--validate=strict is the default). It first reads /openapi/v3 to learn
// whether the server validates fields itself: if the PATCH operation for
// the object's kind lists the fieldValidation query parameter, kubectl
// skips its own schema check and sends ?fieldValidation=Strict. Without an
// OpenAPI document kubectl refuses with "failed to download openapi".
//
// So the server publishes, per group/version, a minimal OpenAPI 3 document:
// the create, update and patch operations of each resource, tagged with
// x-kubernetes-group-version-kind and the fieldValidation parameter, and no
// schemas. The server accepts fieldValidation=Strict but, having no
// schemas, cannot reject unknown fields as the real server does (see
// docs/fakeapiserver.md).

func gvPath(gv string) string {
	if strings.Contains(gv, "/") {
		return "apis/" + gv
	}
	return "api/" + gv
}

// openAPIDocument is the OpenAPI 3 document of one group/version.
func openAPIDocument(rows []*resource, gv string) []byte {
	paths := map[string]any{}
	param := func(name string) map[string]any {
		return map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}}
	}
	for _, r := range rows {
		if r.GroupVersion() != gv {
			continue
		}
		gvk := map[string]any{"group": r.Group, "version": r.Version, "kind": r.Kind}
		op := func(action string) map[string]any {
			return map[string]any{
				"operationId":                     action + r.Kind,
				"x-kubernetes-action":             action,
				"x-kubernetes-group-version-kind": gvk,
				"parameters":                      []any{param("dryRun"), param("fieldManager"), param("fieldValidation")},
				"responses":                       map[string]any{"200": map[string]any{"description": "OK"}},
			}
		}
		collection := "/" + gvPath(gv) + "/" + r.Name
		if r.Namespaced {
			collection = "/" + gvPath(gv) + "/namespaces/{namespace}/" + r.Name
		}
		paths[collection] = map[string]any{"post": op("post")}
		paths[collection+"/{name}"] = map[string]any{"put": op("put"), "patch": op("patch")}
		if r.HasStatus {
			paths[collection+"/{name}/status"] = map[string]any{"put": op("put"), "patch": op("patch")}
		}
	}
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]any{"title": "Kubernetes (kinformer fakeapiserver)", "version": ServerVersion["gitVersion"]},
		"paths":      paths,
		"components": map[string]any{"schemas": map[string]any{}},
	}
	b, _ := json.Marshal(doc)
	return b
}

// serveOpenAPI answers /openapi/v3 (the index) and /openapi/v3/<gv>.
// /openapi/v2 is not served: kubectl only falls back to it when v3 is
// missing.
func (s *Server) serveOpenAPI(w http.ResponseWriter, req *http.Request) {
	path := strings.TrimSuffix(req.URL.Path, "/")
	rows := s.servedResources()
	if path == "/openapi/v3" {
		index := map[string]any{}
		for _, gv := range groupVersions(rows) {
			sum := sha256.Sum256(openAPIDocument(rows, gv))
			index[gvPath(gv)] = map[string]any{"serverRelativeURL": fmt.Sprintf("/openapi/v3/%s?hash=%X", gvPath(gv), sum[:16])}
		}
		b, _ := json.Marshal(map[string]any{"paths": index})
		s.writeJSON(w, req, http.StatusOK, b)
		return
	}
	for _, gv := range groupVersions(rows) {
		if path == "/openapi/v3/"+gvPath(gv) {
			s.writeJSON(w, req, http.StatusOK, openAPIDocument(rows, gv))
			return
		}
	}
	s.writeStatus(w, req, errUnknownResource())
}
