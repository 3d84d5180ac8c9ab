package fakeapiserver

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// Answers checked against kube-apiserver 1.36: each case names the
// recording (testdata/kube-apiserver-1.36/) or the source function its
// answer comes from.

// Field selectors: which fields each resource supports, the words of the
// 400, and the value a defaulted field has.
func TestRealServer_FieldSelectors(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "plain", nil)
	host := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"host"},"spec":{"hostNetwork":true,"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, "/api/v1/namespaces/default/pods", host).code)

	ok := []struct {
		name, selector string
		want           []string
		source         string
	}{
		{"unset hostNetwork counts as false", "spec.hostNetwork=false", []string{"plain"}, "pkg/registry/core/pod strategy ToSelectableFields: no SecurityContext -> \"false\""},
		{"hostNetwork true", "spec.hostNetwork=true", []string{"host"}, "ToSelectableFields"},
		{"defaulted restartPolicy", "spec.restartPolicy=Always", []string{"host", "plain"}, "ToSelectableFields over the defaulted pod"},
		{"defaulted schedulerName", "spec.schedulerName=default-scheduler", []string{"host", "plain"}, "ToSelectableFields over the defaulted pod"},
		{"initial phase", "status.phase=Pending", []string{"host", "plain"}, "06-selectors.txt ?fieldSelector=status.phase%3DPending"},
		{"empty nodeName", "spec.nodeName=", []string{"plain"}, "06-selectors.txt ?fieldSelector=spec.nodeName%3D"},
		{"legacy spec.host is spec.nodeName", "spec.host=n1", []string{"host"}, "pkg/apis/core/v1 conversion: case \"spec.host\": return \"spec.nodeName\""},
		{"status.podIPs is accepted", "status.podIPs=", []string{"host", "plain"}, "pkg/apis/core/v1 Pod field label conversion"},
		{"serviceAccountName unset (no admission)", "spec.serviceAccountName=", []string{"host", "plain"}, "ToSelectableFields"},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			names, _ := e.listNames("/api/v1/namespaces/default/pods?fieldSelector=" + url.QueryEscape(c.selector))
			require.Equal(t, c.want, names, "source: %s", c.source)
		})
	}

	refused := []struct {
		path, selector, message, source string
	}{
		{"/api/v1/namespaces/default/pods", "spec.containers.name=c", "field label not supported: spec.containers.name", "06-selectors.txt"},
		{"/apis/apps/v1/namespaces/default/replicasets", "status.replicas=1",
			`"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`,
			"apps/v1 registers no ReplicaSet field-label conversion: runtime.DefaultMetaV1FieldSelectorConversion"},
		{"/api/v1/namespaces/default/configmaps", "data.x=1",
			`"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`,
			"runtime.DefaultMetaV1FieldSelectorConversion"},
		{"/api/v1/namespaces", "metadata.namespace=x", "field label not supported: metadata.namespace",
			"pkg/apis/core/v1 AddFieldLabelConversionsForNamespace (status.phase, metadata.name)"},
	}
	for _, c := range refused {
		t.Run("refused "+c.selector, func(t *testing.T) {
			r := e.get(c.path + "?fieldSelector=" + url.QueryEscape(c.selector))
			require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
			st := r.status(t)
			require.Equal(t, "BadRequest", string(st.Reason))
			require.Equal(t, c.message, st.Message, "source: %s", c.source)
		})
	}
	// A ReplicaSet list by name or namespace still works.
	names, _ := e.listNames("/apis/apps/v1/namespaces/default/replicasets?fieldSelector=metadata.name%3Dx")
	require.Empty(t, names)
}

// Paging: at resourceVersion "0" the watch cache answers everything and
// ignores limit (apiserver cacher shouldDelegateList: hasLimit only when
// resourceVersion != "0"; GetList sets no continue); a page from etcd ends
// with a continue token whenever keys remain, matching or not.
func TestRealServer_Paging(t *testing.T) {
	e := newEnv(t, Options{})
	for _, n := range []string{"a", "b", "c", "d"} {
		labels := map[string]string{"app": "other"}
		if n == "a" || n == "b" {
			labels = map[string]string{"app": "demo"}
		}
		e.createPod("default", n, labels)
	}
	cases := []struct {
		name, query  string
		want         []string
		wantContinue bool
	}{
		{"rv 0 ignores limit", "limit=1&resourceVersion=0", []string{"a", "b", "c", "d"}, false},
		{"rv 0 NotOlderThan ignores limit", "limit=1&resourceVersion=0&resourceVersionMatch=NotOlderThan", []string{"a", "b", "c", "d"}, false},
		{"no rv pages", "limit=3", []string{"a", "b", "c"}, true},
		{"non-matching keys left still continue", "limit=2&labelSelector=app%3Ddemo", []string{"a", "b"}, true},
		{"last key served: no continue", "limit=4", []string{"a", "b", "c", "d"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			names, meta := e.listNames("/api/v1/namespaces/default/pods?" + c.query)
			require.Equal(t, c.want, names)
			require.Equal(t, c.wantContinue, meta.Continue != "", "continue %q", meta.Continue)
			if c.wantContinue && c.query == "limit=2&labelSelector=app%3Ddemo" {
				next, meta2 := e.listNames("/api/v1/namespaces/default/pods?limit=2&labelSelector=app%3Ddemo&continue=" + url.QueryEscape(meta.Continue))
				require.Empty(t, next, "the next page is empty")
				require.Empty(t, meta2.Continue)
				require.Nil(t, meta.RemainingItemCount, "no count with a selector")
			}
		})
	}
}

// Watch options: a negative timeoutSeconds ends the stream after one ERROR
// frame (the request's context has expired before the watch cache serves
// it); continue is refused, with or without resourceVersionMatch
// (15-differential: watch-invalid/timeout-negative, continue-on-watch; the
// classes themselves are pinned in differential_codes_test.go).
func TestRealServer_WatchOptions(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "a", nil)

	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=-1")
	rest := ws.ended()
	require.Len(t, rest, 1, "one frame, then the end")
	require.Equal(t, "ERROR", string(rest[0].Type))

	r := e.get("/api/v1/namespaces/default/pods?timeoutSeconds=-1")
	require.Equal(t, http.StatusOK, r.code, "a list ignores it: %s", r.body)

	for _, q := range []string{"continue=abc&timeoutSeconds=1", "continue=abc&resourceVersionMatch=NotOlderThan&sendInitialEvents=true"} {
		r = e.get("/api/v1/namespaces/default/pods?watch=true&" + q)
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
		require.Equal(t, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`, r.status(t).Message)
	}
}

// Invalid write options are 422 Invalid on the options kind
// (apimachinery's ValidateCreateOptions / ValidateUpdateOptions /
// ValidatePatchOptions, via ValidateDryRun and ValidateFieldValidation); a
// malformed resourceVersion on a list stays 400 (13-gone-410-and-too-large.txt,
// "resourceVersion=abc -> 400").
func TestRealServer_OptionErrors(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "demo-a", nil)
	const put = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"demo-a"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
	cases := []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		message                  string
	}{
		{"create dryRun", http.MethodPost, "/api/v1/namespaces/default/pods?dryRun=Bogus", podJSON, nil, 422,
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`},
		{"create fieldValidation", http.MethodPost, "/api/v1/namespaces/default/pods?fieldValidation=Bogus", podJSON, nil, 422,
			`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`},
		{"create both", http.MethodPost, "/api/v1/namespaces/default/pods?dryRun=All&dryRun=x&fieldValidation=Bogus", podJSON, nil, 422,
			`CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: ["All","x"]: supported values: "All", fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"]`},
		{"update dryRun", http.MethodPut, "/api/v1/namespaces/default/pods/demo-a?dryRun=Bogus", put, nil, 422,
			`UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`},
		{"patch fieldValidation", http.MethodPatch, "/api/v1/namespaces/default/pods/demo-a?fieldValidation=Bogus", `{}`,
			[]string{"Content-Type", "application/merge-patch+json"}, 422,
			`PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`},
		{"list resourceVersion=abc", http.MethodGet, "/api/v1/namespaces/default/pods?resourceVersion=abc", "", nil, 400,
			`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.method, c.path, c.body, c.headers...)
			require.Equal(t, c.code, r.code, "%s", r.body)
			st := r.status(t)
			require.Equal(t, c.message, st.Message)
			if c.code == 422 {
				require.Equal(t, "Invalid", string(st.Reason))
				require.Equal(t, "meta.k8s.io", st.Details.Group)
			}
		})
	}
}
