package api

import (
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// realPod is the pod kube-apiserver 1.36 answered a create with
// (testdata/kube-apiserver-1.36/02-create-pod.txt at the repository root,
// kept whole in listwatch/testdata): managedFields, tolerations and
// defaults the typed Pod does not declare.
func realPod(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile("../listwatch/testdata/pod.json")
	require.NoError(t, err)
	return raw
}

// Decoding and encoding again loses nothing the server sent, down to the
// managedFields and the tolerations; the typed Pod, by contrast, keeps only
// what it declares.
func TestUnstructured_RoundTripLosesNothing(t *testing.T) {
	for _, file := range []string{"../listwatch/testdata/pod.json", "testdata/pod-from-apiserver.json"} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var u Unstructured
		require.NoError(t, json.Unmarshal(raw, &u))
		out, err := json.Marshal(&u)
		require.NoError(t, err)
		require.JSONEq(t, string(raw), string(out), file)

		// And through a deep copy.
		out, err = json.Marshal(u.DeepCopy())
		require.NoError(t, err)
		require.JSONEq(t, string(raw), string(out), file)
	}

	var p Pod
	raw := realPod(t)
	require.NoError(t, json.Unmarshal(raw, &p))
	typed, err := json.Marshal(&p)
	require.NoError(t, err)
	require.NotContains(t, string(typed), "managedFields", "the typed Pod drops what it does not declare")
}

// The accessors read what the server sent.
func TestUnstructured_Accessors(t *testing.T) {
	var u Unstructured
	require.NoError(t, json.Unmarshal(realPod(t), &u))

	require.Equal(t, "Pod", u.GetObjectKind().Kind)
	require.Equal(t, "v1", u.GetAPIVersion())
	require.Equal(t, "demo-d", u.GetName())
	require.Equal(t, "realk8s-samples", u.GetNamespace())
	require.Equal(t, "a6051856-6dde-4e82-83f3-376db6e14af5", u.GetUID())
	require.Equal(t, "46223", u.GetResourceVersion())
	require.Equal(t, int64(1), u.GetGeneration())
	require.Equal(t, time.Date(2026, 11, 22, 4, 28, 23, 0, time.UTC), u.GetCreationTimestamp().UTC())
	require.Nil(t, u.GetDeletionTimestamp())
	require.Equal(t, map[string]string{"app": "demo"}, u.GetLabels())
	require.Nil(t, u.GetOwnerReferences())

	phase, found, err := NestedString(u.Object, "status", "phase")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "Pending", phase)
	grace, found, err := NestedInt64(u.Object, "spec", "terminationGracePeriodSeconds")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, int64(30), grace)
	links, found, err := NestedBool(u.Object, "spec", "enableServiceLinks")
	require.NoError(t, err)
	require.True(t, found && links)
	labels, found, err := NestedStringMap(u.Object, "metadata", "labels")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, map[string]string{"app": "demo"}, labels)
	tolerations, found, err := NestedSlice(u.Object, "spec", "tolerations")
	require.NoError(t, err)
	require.True(t, found)
	require.Len(t, tolerations, 2)
	spec, found, err := NestedMap(u.Object, "spec")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "ClusterFirst", spec["dnsPolicy"])

	_, found, err = NestedString(u.Object, "spec", "nodeName")
	require.NoError(t, err)
	require.False(t, found, "a missing field is not found, not an error")
	_, _, err = NestedString(u.Object, "spec", "containers", "name")
	require.ErrorContains(t, err, ".spec.containers is []interface {}, not an object")
	_, _, err = NestedInt64(u.Object, "status", "phase")
	require.Error(t, err)
}

// Owner references, finalizers and the deletion fields are read too.
func TestUnstructured_OwnerReferencesAndDeletion(t *testing.T) {
	u, err := NewUnstructured(map[string]any{
		"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{
			"name": "web-0", "namespace": "default",
			"deletionTimestamp": "2026-11-22T05:00:00Z", "deletionGracePeriodSeconds": json.Number("30"),
			"finalizers": []any{"example.com/keep"},
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
				"uid": "u-1", "controller": true}},
		},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"example.com/keep"}, u.GetFinalizers())
	require.Equal(t, time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC), u.GetDeletionTimestamp().UTC())
	require.Equal(t, int64(30), *u.GetObjectMeta().DeletionGracePeriodSeconds)
	require.Equal(t, "web", GetControllerOf(u).Name)
}

// A declared metadata field of the wrong JSON type is an error, as it is
// for the typed types.
func TestUnstructured_RejectsWrongTypes(t *testing.T) {
	for _, body := range []string{
		`null`, `[]`, `{"kind":1}`, `{"metadata":[]}`, `{"metadata":{"name":1}}`,
		`{"metadata":{"labels":{"a":1}}}`, `{"metadata":{"generation":"x"}}`,
		`{"metadata":{"creationTimestamp":"yesterday"}}`, `{"metadata":{"ownerReferences":[{"name":2}]}}`,
	} {
		var u Unstructured
		require.Error(t, json.Unmarshal([]byte(body), &u), body)
	}
}

// The invariant: setters write both the view and Object; changes through
// GetObjectMeta/GetObjectKind reach Object on MarshalJSON, DeepCopy and
// UnstructuredContent, touching only the fields that changed, so
// managedFields survives.
func TestUnstructured_ChangesReachTheMap(t *testing.T) {
	var u Unstructured
	require.NoError(t, json.Unmarshal(realPod(t), &u))

	u.SetResourceVersion("50000")
	rv, _, _ := NestedString(u.Object, "metadata", "resourceVersion")
	require.Equal(t, "50000", rv, "SetResourceVersion writes the map at once")
	require.Equal(t, "50000", u.GetResourceVersion())

	u.GetObjectMeta().Labels = map[string]string{"app": "demo", "tier": "web"}
	u.GetObjectMeta().Finalizers = []string{"example.com/f"}
	u.GetObjectKind().APIVersion = "v1"
	stale, _, _ := NestedStringMap(u.Object, "metadata", "labels")
	require.Equal(t, map[string]string{"app": "demo"}, stale, "a change through the pointer waits for a merge")

	var out map[string]any
	b, err := json.Marshal(&u)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &out))
	require.Equal(t, map[string]any{"app": "demo", "tier": "web"}, out["metadata"].(map[string]any)["labels"])
	require.Equal(t, []any{"example.com/f"}, out["metadata"].(map[string]any)["finalizers"])
	require.Contains(t, out["metadata"], "managedFields", "undeclared metadata is never dropped")
	require.Equal(t, "2026-11-22T04:28:23Z", out["metadata"].(map[string]any)["creationTimestamp"])

	stale, _, _ = NestedStringMap(u.Object, "metadata", "labels")
	require.Equal(t, map[string]string{"app": "demo"}, stale, "MarshalJSON does not write u")

	c := u.DeepCopy()
	labels, _, _ := NestedStringMap(c.Object, "metadata", "labels")
	require.Equal(t, map[string]string{"app": "demo", "tier": "web"}, labels, "a deep copy has the changes merged")

	content := u.UnstructuredContent()
	labels, _, _ = NestedStringMap(content, "metadata", "labels")
	require.Equal(t, map[string]string{"app": "demo", "tier": "web"}, labels)

	// Removing through the pointer removes from the map.
	u.GetObjectMeta().Labels = nil
	b, err = json.Marshal(&u)
	require.NoError(t, err)
	require.NotContains(t, string(b), `"labels"`)

	// After editing Object directly, SetUnstructuredContent re-reads the view.
	require.NoError(t, SetNestedField(u.Object, "renamed", "metadata", "name"))
	require.NoError(t, u.SetUnstructuredContent(u.Object))
	require.Equal(t, "renamed", u.GetName())
}

// A deep copy shares nothing: changing it leaves the original alone.
func TestUnstructured_DeepCopySharesNothing(t *testing.T) {
	var u Unstructured
	require.NoError(t, json.Unmarshal(realPod(t), &u))
	before, err := json.Marshal(&u)
	require.NoError(t, err)

	c := u.DeepCopyObject().(*Unstructured)
	c.SetLabels(map[string]string{"x": "y"})
	c.GetObjectMeta().Annotations = map[string]string{"a": "b"}
	require.NoError(t, SetNestedField(c.Object, "Running", "status", "phase"))
	tol := c.Object["spec"].(map[string]any)["tolerations"].([]any)
	tol[0].(map[string]any)["key"] = "changed"
	_, err = json.Marshal(c)
	require.NoError(t, err)

	after, err := json.Marshal(&u)
	require.NoError(t, err)
	require.JSONEq(t, string(before), string(after))
	require.Equal(t, map[string]string{"app": "demo"}, u.GetLabels())
}

// Reading (MarshalJSON, DeepCopy, accessors) never writes: many readers of
// a cached object, even one with pending changes, do not race (go test -race).
func TestUnstructured_ConcurrentReads(t *testing.T) {
	var u Unstructured
	require.NoError(t, json.Unmarshal(realPod(t), &u))
	u.GetObjectMeta().Labels = map[string]string{"pending": "change"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			_, err := json.Marshal(&u)
			require.NoError(t, err)
			_ = u.DeepCopy()
			_ = u.GetLabels()
		})
	}
	wg.Wait()
}

// Numbers beyond float64's 53 bits survive (json.Number).
func TestUnstructured_KeepsLargeIntegers(t *testing.T) {
	in := `{"kind":"Thing","apiVersion":"example.com/v1","metadata":{"name":"a","generation":9007199254740993},"spec":{"n":9007199254740993,"f":1.5}}`
	var u Unstructured
	require.NoError(t, json.Unmarshal([]byte(in), &u))
	require.Equal(t, int64(9007199254740993), u.GetGeneration())
	n, _, err := NestedInt64(u.Object, "spec", "n")
	require.NoError(t, err)
	require.Equal(t, int64(9007199254740993), n)
	out, err := json.Marshal(&u)
	require.NoError(t, err)
	require.JSONEq(t, in, string(out))
}

// SetNestedField creates the objects on the way; RemoveNestedField removes.
func TestNestedField_SetAndRemove(t *testing.T) {
	obj := map[string]any{}
	require.NoError(t, SetNestedField(obj, "v", "a", "b", "c"))
	s, found, err := NestedString(obj, "a", "b", "c")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "v", s)
	require.Error(t, SetNestedField(obj, "w", "a", "b", "c", "d"), "c is a string, not an object")
	require.NoError(t, RemoveNestedField(obj, "a", "b", "c"))
	_, found, _ = NestedString(obj, "a", "b", "c")
	require.False(t, found)
	require.NoError(t, RemoveNestedField(obj, "missing", "x"))
}

// PartialObjectMetadata decodes the server's metadata-only answer and
// drops what it does not declare.
func TestPartialObjectMetadata_Decodes(t *testing.T) {
	in := `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"demo-d","namespace":"realk8s-samples",` +
		`"resourceVersion":"46223","labels":{"app":"demo"},"managedFields":[{"manager":"m"}]}}`
	var p PartialObjectMetadata
	require.NoError(t, json.Unmarshal([]byte(in), &p))
	require.Equal(t, "PartialObjectMetadata", p.GetObjectKind().Kind)
	require.Equal(t, "meta.k8s.io/v1", p.APIVersion)
	require.Equal(t, "demo-d", p.GetName())
	require.Equal(t, map[string]string{"app": "demo"}, p.GetLabels())

	c := p.DeepCopyObject().(*PartialObjectMetadata)
	c.Labels["app"] = "changed"
	require.Equal(t, "demo", p.Labels["app"], "a deep copy shares nothing")

	// A full object decodes as well (a server that ignored the as= parameter).
	var full PartialObjectMetadata
	require.NoError(t, json.Unmarshal(realPod(t), &full))
	require.Equal(t, "Pod", full.Kind)
	require.Equal(t, "demo-d", full.Name)
}

// An Unstructured built as a literal reads its Object, and encodes it
// unchanged: the empty view of a never-decoded object is not merged in.
func TestUnstructured_Literal(t *testing.T) {
	u := &Unstructured{Object: map[string]any{"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{"name": "web-0", "labels": map[string]any{"app": "web"}}}}
	require.Equal(t, "web-0", u.GetName())
	require.Equal(t, "Pod", u.GetKind())
	require.Equal(t, map[string]string{"app": "web"}, u.GetLabels())
	b, err := json.Marshal(u)
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0","labels":{"app":"web"}}}`, string(b))
	c := u.DeepCopy()
	require.Equal(t, "web-0", c.GetName())

	// The first GetObjectMeta builds the view; changes through it are merged.
	u.GetObjectMeta().Namespace = "default"
	b, err = json.Marshal(u)
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0","namespace":"default","labels":{"app":"web"}}}`, string(b))

	// Setters on a literal keep what was there.
	v := &Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}}
	v.SetResourceVersion("5")
	require.Equal(t, "a", v.GetName())
	b, err = json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"metadata":{"name":"a","resourceVersion":"5"}}`, string(b))
}

// A literal with a declared field of the wrong type keeps it as it is when
// other fields change through the view.
func TestUnstructured_LiteralWithWrongTypeKeepsIt(t *testing.T) {
	u := &Unstructured{Object: map[string]any{"metadata": map[string]any{"name": json.Number("5")}}}
	u.GetObjectMeta().Namespace = "default"
	b, err := json.Marshal(u)
	require.NoError(t, err)
	require.JSONEq(t, `{"metadata":{"name":5,"namespace":"default"}}`, string(b))
}
