package fastdecode

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
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

// The interner stays bounded: once full it starts over, and what it handed
// out before stays valid.
func TestInterner_Bounded(t *testing.T) {
	in := newInterner()
	first := in.intern(fmt.Sprint("v", 0))
	for i := range internMaxEntries * 3 {
		s := fmt.Sprint("v", i)
		require.Equal(t, s, in.intern(s))
		require.LessOrEqual(t, in.n.Load(), int64(internMaxEntries))
	}
	require.Equal(t, "v0", first)
	long := string(make([]byte, internMaxLen+1))
	require.Equal(t, long, in.intern(long))
	require.Equal(t, "", in.intern(""))
}

// Concurrent decoders agree on one copy (run with -race).
func TestInterner_Concurrent(t *testing.T) {
	in := newInterner()
	var wg sync.WaitGroup
	got := make([]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				s := in.intern(fmt.Sprint("k", i%50))
				if i%50 == 7 {
					got[g] = s
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range got {
		require.Equal(t, "k7", s)
		require.Equal(t, unsafe.StringData(got[0]), unsafe.StringData(s))
	}
}
