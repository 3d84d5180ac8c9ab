package api

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// A pod exactly as kube-apiserver 1.36 answered a create
// (the repository's testdata/kube-apiserver-1.36/02-create-pod.txt) decodes into
// Pod with every field this package declares.
func TestPod_DecodesRealAPIServerJSON(t *testing.T) {
	raw, err := os.ReadFile("testdata/pod-from-apiserver.json")
	require.NoError(t, err)
	var p Pod
	require.NoError(t, json.Unmarshal(raw, &p))

	require.Equal(t, "Pod", p.Kind)
	require.Equal(t, "v1", p.APIVersion)
	require.Equal(t, "demo-d", p.GetName())
	require.Equal(t, "realk8s-samples", p.GetNamespace())
	require.Equal(t, "46223", p.GetResourceVersion())
	require.Equal(t, int64(1), p.GetGeneration())
	require.Equal(t, time.Date(2026, 11, 22, 4, 28, 23, 0, time.UTC), p.GetCreationTimestamp().UTC())
	require.Equal(t, map[string]string{"app": "demo"}, p.GetLabels())
	require.Equal(t, []Container{{Name: "c", Image: "busybox"}}, p.Spec.Containers)
	require.Equal(t, RestartPolicyAlways, p.Spec.RestartPolicy)
	require.Equal(t, PodPending, p.Status.Phase)
}

// JSON names are spelled as Kubernetes spells them, and zero timestamps are
// left out rather than written as "0001-01-01".
func TestObjects_EncodeWithKubernetesFieldNames(t *testing.T) {
	three := int32(3)
	rs := &ReplicaSet{
		TypeMeta:   TypeMeta{Kind: "ReplicaSet", APIVersion: "apps/v1"},
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default", GenerateName: "web-"},
		Spec: ReplicaSetSpec{
			Replicas: &three,
			Selector: &LabelSelector{
				MatchLabels:      map[string]string{"app": "web"},
				MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"a"}}},
			},
			Template: PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: PodSpec{Containers: []Container{{Name: "c", Image: "nginx"}}}},
		},
		Status: ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1, ObservedGeneration: 4},
	}
	got, err := json.Marshal(rs)
	require.NoError(t, err)
	want := `{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web","generateName":"web-","namespace":"default"},` +
		`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a"]}]},` +
		`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}},` +
		`"status":{"replicas":2,"readyReplicas":1,"observedGeneration":4}}`
	require.JSONEq(t, want, string(got))

	ts := NewTime(time.Date(2026, 11, 22, 4, 28, 23, 500, time.FixedZone("x", 3600)))
	b, err := json.Marshal(ts)
	require.NoError(t, err)
	require.Equal(t, `"2026-11-22T03:28:23Z"`, string(b))
}

// DeepCopy shares no memory: changing the copy leaves the original alone.
// This is the property the "don't mutate what the cache gives you" rule
// relies on: copy, then change.
func TestDeepCopy_SharesNothing(t *testing.T) {
	yes := true
	grace := int64(30)
	ts := Now()
	orig := &Pod{
		ObjectMeta: ObjectMeta{
			Name: "p", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"x": "y"},
			Finalizers: []string{"f"}, DeletionTimestamp: &ts, DeletionGracePeriodSeconds: &grace,
			OwnerReferences: []OwnerReference{{Kind: "ReplicaSet", Name: "rs", Controller: &yes}},
		},
		Spec:   PodSpec{Containers: []Container{{Name: "c", Image: "i"}}},
		Status: PodStatus{Conditions: []PodCondition{{Type: PodReady, Status: ConditionTrue}}},
	}
	before := orig.DeepCopy()
	c := orig.DeepCopyObject().(*Pod)
	require.Empty(t, cmp.Diff(orig, c))

	c.Labels["a"] = "changed"
	c.Annotations["x"] = "changed"
	c.Finalizers[0] = "changed"
	c.DeletionTimestamp.Time = c.DeletionTimestamp.Add(time.Hour)
	*c.DeletionGracePeriodSeconds = 0
	*c.OwnerReferences[0].Controller = false
	c.Spec.Containers[0].Image = "changed"
	c.Status.Conditions[0].Status = ConditionFalse
	require.Empty(t, cmp.Diff(before, orig), "changing the copy changed the original")
	require.Equal(t, "rs", GetControllerOf(orig).Name)
	require.Nil(t, GetControllerOf(c))

	rs := &ReplicaSet{Spec: ReplicaSetSpec{Selector: &LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
	rc := rs.DeepCopy()
	rc.Spec.Selector.MatchLabels["a"] = "c"
	require.Equal(t, "b", rs.Spec.Selector.MatchLabels["a"])

	cm := &ConfigMap{Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {1}}}
	cc := cm.DeepCopy()
	cc.Data["k"] = "w"
	cc.BinaryData["b"][0] = 2
	require.Equal(t, "v", cm.Data["k"])
	require.Equal(t, byte(1), cm.BinaryData["b"][0])

	ns := &Namespace{Spec: NamespaceSpec{Finalizers: []string{"kubernetes"}}}
	nc := ns.DeepCopy()
	nc.Spec.Finalizers[0] = "x"
	require.Equal(t, "kubernetes", ns.Spec.Finalizers[0])
}

// A list decodes straight into typed items, and its metadata says where to
// resume: the list's resourceVersion and the continue token.
func TestList_Decodes(t *testing.T) {
	raw := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"46223","continue":"abc","remainingItemCount":2},"items":[{"metadata":{"name":"demo-a"}},{"metadata":{"name":"demo-b"}}]}`
	var l PodList
	require.NoError(t, json.Unmarshal([]byte(raw), &l))
	require.Equal(t, "46223", l.ResourceVersion)
	require.Equal(t, "abc", l.Continue)
	require.Equal(t, int64(2), *l.RemainingItemCount)
	require.Len(t, l.Items, 2)
	require.Equal(t, "demo-b", l.Items[1].GetName())
}

// A Status decodes from the server's error body and reads as an error.
func TestStatus_IsAnError(t *testing.T) {
	raw := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"no-such-pod\" not found","reason":"NotFound","details":{"name":"no-such-pod","kind":"pods"},"code":404}`
	var s Status
	require.NoError(t, json.Unmarshal([]byte(raw), &s))
	var err error = &s
	require.EqualError(t, err, `pods "no-such-pod" not found`)
	require.Equal(t, StatusReasonNotFound, s.Reason)
	require.Equal(t, int32(404), s.Code)
	require.Equal(t, "pods", s.Details.Kind)
}
