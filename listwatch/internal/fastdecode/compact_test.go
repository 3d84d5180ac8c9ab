package fastdecode

import (
	"encoding/json"
	"os"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// decodePod decodes b as encoding/json does (no compaction): the
// reference Compact must not depart from.
func decodePod(t *testing.T, b []byte) *api.Pod {
	t.Helper()
	p := &api.Pod{}
	require.NoError(t, json.Unmarshal(b, p))
	return p
}

// compactedPod decodes b and compacts it, as the fast path does.
func compactedPod(t *testing.T, b []byte) *api.Pod {
	t.Helper()
	p := decodePod(t, b)
	Compact(p)
	return p
}

// The pod fixtures: two of package api's, and the pod listwatch's
// benchmarks decode.
const (
	podRunning       = "../../../api/testdata/pod-running.json"
	podFromAPIServer = "../../../api/testdata/pod-from-apiserver.json"
	podPending       = "../../testdata/pod.json"
	benchPod         = "../../../bench/testdata/pod.json" // the pipeline benchmarks' pod (a template: its placeholders stay)
)

var podFixtures = []string{podRunning, podFromAPIServer, podPending}

// Compaction keeps every value the type holds: the compacted pod equals the
// plain decode field by field, re-marshals to the same bytes, and survives
// another round trip unchanged.
func TestCompact_RoundTrips(t *testing.T) {
	for _, file := range podFixtures {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			require.NoError(t, err)
			want := decodePod(t, raw)
			got := compactedPod(t, raw)
			require.Empty(t, cmp.Diff(want, got))

			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			gotJSON, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, string(wantJSON), string(gotJSON))

			again := compactedPod(t, gotJSON)
			require.Empty(t, cmp.Diff(got, again))
		})
	}
}

// PartialObjectMetadata: the same values as the plain decode, interned.
func TestCompact_PartialObjectMetadata(t *testing.T) {
	raw, err := os.ReadFile(podRunning)
	require.NoError(t, err)
	var want, got, other api.PartialObjectMetadata
	require.NoError(t, json.Unmarshal(raw, &want))
	require.NoError(t, json.Unmarshal(raw, &got))
	require.NoError(t, json.Unmarshal(raw, &other))
	Compact(&got)
	Compact(&other)
	require.Empty(t, cmp.Diff(want, got))
	require.Equal(t, unsafe.StringData(got.Labels["app"]), unsafe.StringData(other.Labels["app"]))
}

// Edge cases: empty and missing slices and maps keep their nil-ness, and a
// zero pod stays zero.
func TestCompact_EdgeCases(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"metadata":{"labels":{},"annotations":{},"finalizers":[],"ownerReferences":[]},"spec":{"containers":[]},"status":{"conditions":[]}}`,
		`{"metadata":{"name":"a","labels":{"x":""}},"spec":{"containers":null}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":false}]}}`,
	} {
		want := decodePod(t, []byte(in))
		got := compactedPod(t, []byte(in))
		require.Empty(t, cmp.Diff(want, got), in)
		require.Equal(t, want.Labels == nil, got.Labels == nil, in)
		require.Equal(t, want.Finalizers == nil, got.Finalizers == nil, in)
		require.Equal(t, want.Spec.Containers == nil, got.Spec.Containers == nil, in)
		require.Equal(t, want.Status.Conditions == nil, got.Status.Conditions == nil, in)
	}
	var zero api.Pod
	Compact(&zero)
	require.Empty(t, cmp.Diff(api.Pod{}, zero))

	// Decoding alone leaves the slack: what compaction is there to remove.
	p := decodePod(t, []byte(`{"status":{"conditions":[{"type":"a"},{"type":"b"},{"type":"c"}]}}`))
	require.Greater(t, cap(p.Status.Conditions), 3)
	Compact(p)
	require.Equal(t, 3, cap(p.Status.Conditions))
}

// What compaction is for: no spare capacity, and the strings pods repeat
// stored once.
func TestCompact_SharesRepeatedStrings(t *testing.T) {
	bodies := realisticPods(t, podRunning, 2)
	a, b := compactedPod(t, bodies[0]), compactedPod(t, bodies[1])
	require.NotEqual(t, a.Name, b.Name)

	require.Equal(t, len(a.Status.Conditions), cap(a.Status.Conditions))
	require.Equal(t, len(a.Spec.Containers), cap(a.Spec.Containers))
	require.Equal(t, len(a.OwnerReferences), cap(a.OwnerReferences))

	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	require.True(t, same(a.Namespace, b.Namespace))
	require.True(t, same(a.Labels["app.kubernetes.io/name"], b.Labels["app.kubernetes.io/name"]))
	for k := range a.Labels {
		for k2 := range b.Labels {
			if k == k2 {
				require.True(t, same(k, k2), k)
			}
		}
	}
	require.True(t, same(a.Annotations["prometheus.io/port"], b.Annotations["prometheus.io/port"]))
	require.True(t, same(a.OwnerReferences[0].UID, b.OwnerReferences[0].UID))
	require.True(t, same(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image))
	require.True(t, same(string(a.Status.Conditions[0].Type), string(b.Status.Conditions[0].Type)))
	// Unique per pod: left alone.
	require.False(t, same(a.UID, b.UID))
}
