package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
)

// Discovery: how kubectl learns which resources exist (kubectl
// api-resources prints it), built from the registry. Only the classic
// documents are served; a client asking for aggregated discovery
// (Accept: ...;as=APIGroupDiscoveryList) gets the classic one, which
// kubectl accepts.

// ServerVersion is what /version reports: the Kubernetes release whose API
// this server imitates.
var ServerVersion = map[string]string{
	"major": "1", "minor": "36", "gitVersion": "v1.36.0-kinformer",
	"gitCommit": "kinformer", "gitTreeState": "clean", "buildDate": "2026-11-22T00:00:00Z",
	"goVersion": runtime.Version(), "compiler": runtime.Compiler, "platform": runtime.GOOS + "/" + runtime.GOARCH,
}

func (s *Server) serveVersion(w http.ResponseWriter, req *http.Request) {
	b, _ := json.Marshal(ServerVersion)
	s.writeJSON(w, req, http.StatusOK, b)
}

func (s *Server) serveHealth(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if s.isClosed() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("[-]shutdown failed: the server is shutting down\n"))
		return
	}
	if _, verbose := req.URL.Query()["verbose"]; verbose {
		_, _ = w.Write([]byte("[+]ping ok\n[+]log ok\n[+]etcd ok (in memory)\n" + strings.TrimPrefix(req.URL.Path, "/") + " check passed\n"))
		return
	}
	_, _ = w.Write([]byte("ok"))
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

// serveDiscovery answers the discovery documents; it reports whether the
// path was one of them.
func (s *Server) serveDiscovery(w http.ResponseWriter, req *http.Request) bool {
	path := strings.TrimSuffix(req.URL.Path, "/")
	var body any
	switch {
	case path == "/api":
		body = map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []any{map[string]any{"clientCIDR": "0.0.0.0/0", "serverAddress": req.Host}}}
	case path == "/apis":
		var groups []apiGroup
		for _, gv := range groupVersions() {
			if g, v, ok := strings.Cut(gv, "/"); ok {
				groups = append(groups, apiGroup{Name: g, Versions: []groupVersion{{gv, v}}, PreferredVersion: groupVersion{gv, v}})
			}
		}
		body = map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
	case strings.HasPrefix(path, "/openapi/"):
		s.serveOpenAPI(w, req)
		return true
	case path == "/api/v1":
		body = resourceList("v1")
	case strings.HasPrefix(path, "/apis/"):
		rest := strings.TrimPrefix(path, "/apis/")
		switch parts := strings.Split(rest, "/"); len(parts) {
		case 1:
			body = groupDocument(parts[0])
		case 2:
			body = resourceList(rest)
		default:
			return false
		}
		if body == nil {
			s.writeStatus(w, req, errUnknownResource())
			return true
		}
	default:
		return false
	}
	if req.Method != http.MethodGet {
		s.writeStatus(w, req, errMethodNotAllowed(req.Method))
		return true
	}
	b, _ := json.Marshal(body)
	s.writeJSON(w, req, http.StatusOK, b)
	return true
}

func groupDocument(group string) any {
	for _, gv := range groupVersions() {
		if g, v, ok := strings.Cut(gv, "/"); ok && g == group {
			return apiGroup{Kind: "APIGroup", APIVersion: "v1", Name: g, Versions: []groupVersion{{gv, v}}, PreferredVersion: groupVersion{gv, v}}
		}
	}
	return nil
}

// resourceList is the APIResourceList of one group/version, or nil.
func resourceList(gv string) any {
	var resources []apiResource
	for _, r := range registry {
		if r.GroupVersion() != gv {
			continue
		}
		verbs := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
		resources = append(resources, apiResource{Name: r.Name, SingularName: r.Singular, Namespaced: r.Namespaced,
			Kind: r.Kind, Verbs: verbs, ShortNames: r.ShortNames, Categories: r.Categories})
		if r.HasStatus {
			resources = append(resources, apiResource{Name: r.Name + "/status", Namespaced: r.Namespaced,
				Kind: r.Kind, Verbs: []string{"get", "patch", "update"}})
		}
	}
	if resources == nil {
		return nil
	}
	return map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": resources}
}
