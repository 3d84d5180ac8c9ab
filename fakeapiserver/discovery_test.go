package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Discovery is how kubectl learns what resources exist (kubectl
// api-resources prints it); compare 01-discovery.txt.
func TestDiscovery_Documents(t *testing.T) {
	e := newEnv(t, Options{})
	// Field order as the real server writes them (01-discovery.txt).
	host := strings.TrimPrefix(e.http.URL, "http://")
	require.Equal(t, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"`+host+`"}]}`, string(e.get("/api").body))
	require.True(t, strings.HasPrefix(string(e.get("/api/v1").body), `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":`))
	require.True(t, strings.HasPrefix(string(e.get("/apis/apps/v1").body), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[`))
	require.True(t, strings.HasPrefix(string(e.get("/version").body), `{"major":"1","minor":"36","emulationMajor":"1","emulationMinor":"36","minCompatibilityMajor":"1","minCompatibilityMinor":"35","gitVersion":`))

	var versions struct {
		Kind     string   `json:"kind"`
		Versions []string `json:"versions"`
	}
	e.get("/api").decode(t, &versions)
	require.Equal(t, "APIVersions", versions.Kind)
	require.Equal(t, []string{"v1"}, versions.Versions)

	type resource struct {
		Name       string   `json:"name"`
		Namespaced bool     `json:"namespaced"`
		Kind       string   `json:"kind"`
		Verbs      []string `json:"verbs"`
		ShortNames []string `json:"shortNames"`
	}
	var core struct {
		Kind         string     `json:"kind"`
		GroupVersion string     `json:"groupVersion"`
		Resources    []resource `json:"resources"`
	}
	e.get("/api/v1").decode(t, &core)
	require.Equal(t, "APIResourceList", core.Kind)
	names := map[string]resource{}
	for _, r := range core.Resources {
		names[r.Name] = r
	}
	require.Equal(t, []string{"po"}, names["pods"].ShortNames)
	require.True(t, names["pods"].Namespaced)
	require.False(t, names["namespaces"].Namespaced)
	require.Equal(t, []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, names["configmaps"].Verbs)
	require.Equal(t, []string{"create", "delete", "get", "list", "patch", "update", "watch"}, names["namespaces"].Verbs, "as 01-discovery.txt: no deletecollection")
	require.Equal(t, []string{"get", "patch", "update"}, names["pods/status"].Verbs)

	var groups struct {
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	e.get("/apis").decode(t, &groups)
	require.Equal(t, "apps", groups.Groups[0].Name)
	require.Equal(t, http.StatusOK, e.get("/apis/apps").code)
	e.get("/apis/apps/v1").decode(t, &core)
	require.Equal(t, "apps/v1", core.GroupVersion)
	require.Equal(t, "replicasets", core.Resources[0].Name)

	require.Equal(t, http.StatusNotFound, e.get("/apis/batch/v1").code)
	require.Equal(t, http.StatusNotFound, e.get("/apis/batch").code)
	require.Equal(t, http.StatusNotFound, e.get("/openapi/v2").code)

	var v map[string]string
	e.get("/version").decode(t, &v)
	require.Equal(t, "1", v["major"])
	require.Equal(t, "36", v["minor"])

	r := e.get("/readyz")
	require.Equal(t, "ok", string(r.body))
	require.Contains(t, string(e.get("/healthz?verbose").body), "[+]ping ok")
}

// kubectl create -f validates before it sends: it reads /openapi/v3 to see
// whether the server validates fields itself (the PATCH operation of the
// kind lists fieldValidation). Without that document kubectl refuses with
// "failed to download openapi".
func TestOpenAPI_TellsKubectlTheServerValidates(t *testing.T) {
	e := newEnv(t, Options{})
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	e.get("/openapi/v3").decode(t, &index)
	require.Contains(t, index.Paths, "api/v1")
	require.Contains(t, index.Paths, "apis/apps/v1")

	var doc struct {
		Paths map[string]map[string]struct {
			GVK        map[string]string `json:"x-kubernetes-group-version-kind"`
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	e.get(index.Paths["apis/apps/v1"].URL).decode(t, &doc)
	patch := doc.Paths["/apis/apps/v1/namespaces/{namespace}/replicasets/{name}"]["patch"]
	require.Equal(t, map[string]string{"group": "apps", "version": "v1", "kind": "ReplicaSet"}, patch.GVK)
	var params []string
	for _, p := range patch.Parameters {
		if p.In == "query" {
			params = append(params, p.Name)
		}
	}
	require.Contains(t, params, "fieldValidation")
	require.Equal(t, http.StatusNotFound, e.get("/openapi/v3/apis/batch/v1").code)
}
