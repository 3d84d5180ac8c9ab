package fakeapiserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"runtime"
	"slices"
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
	"major": "1", "minor": "36", "emulationMajor": "1", "emulationMinor": "36",
	"minCompatibilityMajor": "1", "minCompatibilityMinor": "35", "gitVersion": "v1.36.0-kinformer",
	"gitCommit": "kinformer", "gitTreeState": "clean", "buildDate": "2026-11-22T00:00:00Z",
	"goVersion": runtime.Version(), "compiler": runtime.Compiler, "platform": runtime.GOOS + "/" + runtime.GOARCH,
}

// versionKeys is the order the real server writes /version's fields in;
// keys of ServerVersion not named here follow, sorted.
var versionKeys = []string{"major", "minor", "emulationMajor", "emulationMinor", "minCompatibilityMajor",
	"minCompatibilityMinor", "gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"}

func (s *Server) serveVersion(w http.ResponseWriter, req *http.Request) {
	keys := slices.Sorted(maps.Keys(ServerVersion))
	slices.SortStableFunc(keys, func(a, b string) int {
		return cmp.Compare(orderIn(versionKeys, a), orderIn(versionKeys, b))
	})
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(&buf, k)
		buf.WriteByte(':')
		writeString(&buf, ServerVersion[k])
	}
	buf.WriteByte('}')
	s.writeJSON(w, req, http.StatusOK, buf.Bytes())
}

// orderIn is the position of k in order, or len(order) if it is not there.
func orderIn(order []string, k string) int {
	if i := slices.Index(order, k); i >= 0 {
		return i
	}
	return len(order)
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

// apiVersions, apiResourceList and apiGroupList are the discovery
// documents, their fields in the real server's order.
type apiVersions struct {
	Kind                       string          `json:"kind"`
	Versions                   []string        `json:"versions"`
	ServerAddressByClientCIDRs []serverAddress `json:"serverAddressByClientCIDRs"`
}

type serverAddress struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion,omitempty"` // the real server sets it for named groups only
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []apiGroup `json:"groups"`
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
	rows := s.servedResources()
	var body any
	switch {
	case path == "/api":
		body = apiVersions{Kind: "APIVersions", Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []serverAddress{{ClientCIDR: "0.0.0.0/0", ServerAddress: req.Host}}}
	case path == "/apis":
		var groups []apiGroup
		for _, gv := range groupVersions(rows) {
			if g, v, ok := strings.Cut(gv, "/"); ok {
				groups = append(groups, apiGroup{Name: g, Versions: []groupVersion{{gv, v}}, PreferredVersion: groupVersion{gv, v}})
			}
		}
		body = apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: groups}
	case strings.HasPrefix(path, "/openapi/"):
		s.serveOpenAPI(w, req)
		return true
	case path == "/api/v1":
		body = resourceList(rows, "v1")
	case strings.HasPrefix(path, "/apis/"):
		rest := strings.TrimPrefix(path, "/apis/")
		switch parts := strings.Split(rest, "/"); len(parts) {
		case 1:
			body = groupDocument(rows, parts[0])
		case 2:
			body = resourceList(rows, rest)
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

func groupDocument(rows []*resource, group string) any {
	for _, gv := range groupVersions(rows) {
		if g, v, ok := strings.Cut(gv, "/"); ok && g == group {
			return apiGroup{Kind: "APIGroup", APIVersion: "v1", Name: g, Versions: []groupVersion{{gv, v}}, PreferredVersion: groupVersion{gv, v}}
		}
	}
	return nil
}

// resourceList is the APIResourceList of one group/version, or nil.
func resourceList(rows []*resource, gv string) any {
	var resources []apiResource
	for _, r := range rows {
		if r.GroupVersion() != gv {
			continue
		}
		resources = append(resources, apiResource{Name: r.Name, SingularName: r.Singular, Namespaced: r.Namespaced,
			Kind: r.Kind, Verbs: r.verbs(), ShortNames: r.ShortNames, Categories: r.Categories})
		if r.HasFinalize {
			resources = append(resources, apiResource{Name: r.Name + "/finalize", Namespaced: r.Namespaced,
				Kind: r.Kind, Verbs: []string{"update"}})
		}
		if r.HasStatus {
			resources = append(resources, apiResource{Name: r.Name + "/status", Namespaced: r.Namespaced,
				Kind: r.Kind, Verbs: []string{"get", "patch", "update"}})
		}
	}
	if resources == nil {
		return nil
	}
	list := apiResourceList{Kind: "APIResourceList", GroupVersion: gv, Resources: resources}
	if strings.Contains(gv, "/") {
		list.APIVersion = "v1"
	}
	return list
}
