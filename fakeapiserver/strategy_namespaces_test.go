package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

const qualifiedNameRegexMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

// getNamespace reads a namespace as stored.
func getNamespace(t *testing.T, e *env, name string) *api.Namespace {
	t.Helper()
	r := e.get("/api/v1/namespaces/" + name)
	require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
	var ns api.Namespace
	r.decode(t, &ns)
	return &ns
}

func namespaceFinalizers(t *testing.T, e *env, name string) []string {
	t.Helper()
	return getNamespace(t, e, name).Spec.Finalizers
}

// TestRealServer_NamespaceCreateFinalizers: namespaceStrategy.PrepareForCreate
// adds "kubernetes"; ValidateNamespace checks each name (validateFinalizerName)
// on the list's path.
func TestRealServer_NamespaceCreateFinalizers(t *testing.T) {
	cases := []struct {
		name       string
		finalizers string
		code       int
		msg        string
		want       []string
	}{
		{name: "none: kubernetes added", finalizers: `null`, code: 201, want: []string{"kubernetes"}},
		{name: "qualified: kubernetes appended", finalizers: `["example.com/x"]`, code: 201,
			want: []string{"example.com/x", "kubernetes"}},
		{name: "standard names", finalizers: `["orphan","foregroundDeletion","kubernetes"]`, code: 201,
			want: []string{"orphan", "foregroundDeletion", "kubernetes"}},
		{
			// validateKubeFinalizerName.
			name: "unqualified non-standard", finalizers: `["foo"]`, code: 422,
			msg: `Namespace "ns1" is invalid: spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`,
		},
		{
			// apimachinery ValidateFinalizerName (IsQualifiedName), then
			// validateKubeFinalizerName.
			name: "not a qualified name", finalizers: `["a b"]`, code: 422,
			msg: `Namespace "ns1" is invalid: [spec.finalizers: Invalid value: "a b": ` + qualifiedNameRegexMsg +
				`, spec.finalizers: Invalid value: "a b": name is neither a standard finalizer name nor is it fully qualified]`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			r := e.do(http.MethodPost, "/api/v1/namespaces",
				`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"},"spec":{"finalizers":`+tc.finalizers+`}}`)
			require.Equal(t, tc.code, r.code, "body: %s", r.body)
			if tc.code != 201 {
				st := r.status(t)
				require.Equal(t, api.StatusReasonInvalid, st.Reason)
				require.Equal(t, tc.msg, st.Message)
				return
			}
			require.Equal(t, tc.want, namespaceFinalizers(t, e, "ns1"))
		})
	}
}

// TestRealServer_NamespaceStatus: ValidateNamespaceStatusUpdate. The phase
// is Active without a deletionTimestamp and Terminating with one; the field
// is "status.Phase", capital P.
func TestRealServer_NamespaceStatus(t *testing.T) {
	cases := []struct {
		name     string
		deleting bool
		phase    string
		code     int
		msg      string
		want     string
	}{
		{name: "active stays active", phase: `"Active"`, code: 200, want: "Active"},
		{name: "empty phase defaults to Active", phase: `""`, code: 200, want: "Active"},
		{name: "terminating without deletionTimestamp", phase: `"Terminating"`, code: 422,
			msg: `Namespace "ns1" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if ` + "`deletionTimestamp`" + ` is empty`},
		{name: "unknown phase", phase: `"Paused"`, code: 422,
			msg: `Namespace "ns1" is invalid: status.Phase: Invalid value: "Paused": may only be 'Active' if ` + "`deletionTimestamp`" + ` is empty`},
		{name: "active while deleting", deleting: true, phase: `"Active"`, code: 422,
			msg: `Namespace "ns1" is invalid: status.Phase: Invalid value: "Active": may only be 'Terminating' if ` + "`deletionTimestamp`" + ` is not empty`},
		{name: "terminating while deleting", deleting: true, phase: `"Terminating"`, code: 200, want: "Terminating"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			r := e.do(http.MethodPost, "/api/v1/namespaces",
				`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1","finalizers":["example.com/hold"]}}`)
			require.Equal(t, http.StatusCreated, r.code, "body: %s", r.body)
			if tc.deleting {
				// A metadata finalizer keeps the namespace, marked.
				r = e.do(http.MethodDelete, "/api/v1/namespaces/ns1", "")
				require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
				require.NotNil(t, getNamespace(t, e, "ns1").DeletionTimestamp)
			}
			r = e.do(http.MethodPatch, "/api/v1/namespaces/ns1/status", `{"status":{"phase":`+tc.phase+`}}`,
				"Content-Type", "application/merge-patch+json")
			require.Equal(t, tc.code, r.code, "body: %s", r.body)
			if tc.code != 200 {
				st := r.status(t)
				require.Equal(t, api.StatusReasonInvalid, st.Reason)
				require.Equal(t, tc.msg, st.Message)
				return
			}
			ns := getNamespace(t, e, "ns1")
			require.Equal(t, tc.want, string(ns.Status.Phase))
			require.Equal(t, []string{"kubernetes"}, ns.Spec.Finalizers, "a /status write keeps the spec")
		})
	}
}

// TestRealServer_NamespaceFinalizers: namespaceStrategy.PrepareForUpdate
// keeps spec.finalizers on an update or patch of the namespace (so a patch
// of them alone is a no-op: same resourceVersion); only /finalize changes
// them, checked by ValidateNamespaceFinalizeUpdate at each index.
func TestRealServer_NamespaceFinalize(t *testing.T) {
	const nsPath = "/api/v1/namespaces/ns1"
	setup := func(t *testing.T) (*env, string) {
		e := newEnv(t, Options{})
		r := e.do(http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}`)
		require.Equal(t, http.StatusCreated, r.code, "body: %s", r.body)
		return e, getNamespace(t, e, "ns1").ResourceVersion
	}

	t.Run("patch of finalizers is a no-op", func(t *testing.T) {
		e, rv := setup(t)
		for _, body := range []string{`{"spec":{"finalizers":[]}}`, `{"spec":{"finalizers":["example.com/x"]}}`, `{"spec":null}`} {
			r := e.do(http.MethodPatch, nsPath, body, "Content-Type", "application/merge-patch+json")
			require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
			var ns api.Namespace
			r.decode(t, &ns)
			require.Equal(t, rv, ns.ResourceVersion, "patch %s", body)
			require.Equal(t, []string{"kubernetes"}, ns.Spec.Finalizers, "patch %s", body)
		}
	})

	t.Run("update keeps finalizers and changes labels", func(t *testing.T) {
		e, rv := setup(t)
		r := e.do(http.MethodPut, nsPath, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1","labels":{"a":"b"}},"spec":{"finalizers":["foo"]}}`)
		require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
		ns := getNamespace(t, e, "ns1")
		require.NotEqual(t, rv, ns.ResourceVersion)
		require.Equal(t, "b", ns.Labels["a"])
		require.Equal(t, []string{"kubernetes"}, ns.Spec.Finalizers)
	})

	cases := []struct {
		name       string
		finalizers string
		code       int
		msg        string
		want       []string
	}{
		{name: "remove all", finalizers: `[]`, code: 200},
		{name: "replace with a qualified name", finalizers: `["example.com/x"]`, code: 200, want: []string{"example.com/x"}},
		{
			// ValidateNamespaceFinalizeUpdate: validateFinalizerName at
			// spec.finalizers[i].
			name: "unqualified non-standard", finalizers: `["kubernetes","foo"]`, code: 422,
			msg: `Namespace "ns1" is invalid: spec.finalizers[1]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`,
		},
		{
			name: "not a qualified name", finalizers: `["a b"]`, code: 422,
			msg: `Namespace "ns1" is invalid: [spec.finalizers[0]: Invalid value: "a b": ` + qualifiedNameRegexMsg +
				`, spec.finalizers[0]: Invalid value: "a b": name is neither a standard finalizer name nor is it fully qualified]`,
		},
	}
	for _, tc := range cases {
		t.Run("finalize "+tc.name, func(t *testing.T) {
			e, rv := setup(t)
			r := e.do(http.MethodPut, nsPath+"/finalize",
				`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"},"spec":{"finalizers":`+tc.finalizers+`},"status":{"phase":"Terminating"}}`)
			require.Equal(t, tc.code, r.code, "body: %s", r.body)
			if tc.code != 200 {
				st := r.status(t)
				require.Equal(t, api.StatusReasonInvalid, st.Reason)
				require.Equal(t, tc.msg, st.Message)
				require.Equal(t, rv, getNamespace(t, e, "ns1").ResourceVersion)
				return
			}
			ns := getNamespace(t, e, "ns1")
			require.NotEqual(t, rv, ns.ResourceVersion)
			require.Equal(t, tc.want, namespaceFinalizers(t, e, "ns1"))
			require.Equal(t, "Active", string(ns.Status.Phase), "/finalize keeps the status")
			// An update after /finalize keeps what /finalize left.
			r = e.do(http.MethodPatch, nsPath, `{"metadata":{"labels":{"a":"b"}}}`, "Content-Type", "application/merge-patch+json")
			require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
			require.Equal(t, tc.want, namespaceFinalizers(t, e, "ns1"))
		})
	}
}
