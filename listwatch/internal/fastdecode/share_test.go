package fastdecode

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// sameMap reports whether x and y are one map, not only equal ones.
func sameMap(x, y map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&x)) == *(*unsafe.Pointer)(unsafe.Pointer(&y))
}

// sameArray reports whether x and y are one array (both non-empty).
func sameArray[T any](x, y []T) bool {
	return len(x) > 0 && unsafe.SliceData(x) == unsafe.SliceData(y)
}

// decodeEach decodes bodies with one Decoder, for a read-only cache or not.
func decodeEach(t *testing.T, bodies [][]byte, shared bool) []*api.Pod {
	t.Helper()
	var d Decoder
	pods := make([]*api.Pod, len(bodies))
	for i, b := range bodies {
		pods[i] = &api.Pod{}
		require.NoError(t, d.Value(b, pods[i], shared))
	}
	return pods
}

// For a read-only cache, two pods of one ReplicaSet share their labels,
// annotations, owner references and containers, not their conditions (in
// a real cluster each pod's differ by their times); otherwise they share
// only strings. Either way each pod holds exactly what encoding/json
// decodes.
func TestShare_OnlyForACache(t *testing.T) {
	bodies := realisticPods(t, podRunning, 2)
	for _, shared := range []bool{true, false} {
		pods := decodeEach(t, bodies, shared)
		for i, p := range pods {
			require.Empty(t, cmp.Diff(decodePod(t, bodies[i]), p), "shared=%v", shared)
		}
		a, b := pods[0], pods[1]
		require.Equal(t, shared, sameMap(a.Labels, b.Labels), "labels, shared=%v", shared)
		require.Equal(t, shared, sameMap(a.Annotations, b.Annotations), "annotations, shared=%v", shared)
		require.Equal(t, shared, sameArray(a.OwnerReferences, b.OwnerReferences), "owners, shared=%v", shared)
		require.Equal(t, shared, sameArray(a.Spec.Containers, b.Spec.Containers), "containers, shared=%v", shared)
		require.False(t, sameArray(a.Status.Conditions, b.Status.Conditions), "conditions are never shared")
		require.True(t, same(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image), "strings are always shared")
		require.False(t, same(a.UID, b.UID))
	}
	t.Log("for a cache: labels, annotations, owners and containers shared; otherwise strings only; conditions never")
}

// Only an equal value is shared: a pod with other labels, another owner
// or another image gets its own, and a labels object that repeats a key,
// or a map bigger than sharedMapMaxBytes, is decoded as encoding/json
// decodes it and held for no one.
func TestShare_OnlyEqualValues(t *testing.T) {
	bodies := realisticPods(t, podRunning, 2)
	other := strings.NewReplacer(`"app.kubernetes.io/version":"1.27.3"`, `"app.kubernetes.io/version":"1.27.4"`,
		`"kind":"ReplicaSet"`, `"kind":"StatefulSet"`, `"image":"`, `"image":"mirror/`).Replace(string(bodies[1]))
	require.NotEqual(t, string(bodies[1]), other)
	pods := decodeEach(t, [][]byte{bodies[0], []byte(other)}, true)
	a, b := pods[0], pods[1]
	require.Empty(t, cmp.Diff(decodePod(t, []byte(other)), b))
	require.False(t, sameMap(a.Labels, b.Labels))
	require.False(t, sameArray(a.OwnerReferences, b.OwnerReferences))
	require.False(t, sameArray(a.Spec.Containers, b.Spec.Containers))

	twice := `{"metadata":{"labels":{"a":"1","b":"2","a":"3"}}}`
	pods = decodeEach(t, [][]byte{[]byte(twice), []byte(twice)}, true)
	require.Equal(t, map[string]string{"a": "3", "b": "2"}, pods[0].Labels)
	require.False(t, sameMap(pods[0].Labels, pods[1].Labels), "a key given twice: not held")

	// A map too big for a slot to keep alive is its object's own.
	big := `{"metadata":{"annotations":{"config":"` + strings.Repeat("x", sharedMapMaxBytes) + `"}}}`
	pods = decodeEach(t, [][]byte{[]byte(big), []byte(big)}, true)
	require.Len(t, pods[1].Annotations["config"], sharedMapMaxBytes)
	require.False(t, sameMap(pods[0].Annotations, pods[1].Annotations), "over sharedMapMaxBytes: not held")
}

// Owner references and containers decoded in the room, for a cache or
// not, keep every value and their nil-ness (the conditions' own cases are
// TestRoom_SameValuesAsAPlainDecode's).
func TestShare_ListsKeepTheirValues(t *testing.T) {
	bodies := []string{
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":true}]},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b"}]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":false}]},"spec":{"containers":[{"name":"a","image":"i"}]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u"}]}}`,
		`{"metadata":{"ownerReferences":[]},"spec":{"containers":[]}}`,
		`{"metadata":{"ownerReferences":null},"spec":{"containers":null}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":true}]},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b"}]}}`,
	}
	for _, shared := range []bool{true, false} {
		var d Decoder
		var got []*api.Pod
		for _, b := range bodies {
			p := &api.Pod{}
			require.NoError(t, d.Value([]byte(b), p, shared))
			got = append(got, p)
		}
		for i, b := range bodies {
			want := decodePod(t, []byte(b))
			require.Empty(t, cmp.Diff(want, got[i]), "%s (shared=%v)", b, shared)
			require.Equal(t, want.OwnerReferences == nil, got[i].OwnerReferences == nil, b)
			require.Equal(t, want.Spec.Containers == nil, got[i].Spec.Containers == nil, b)
		}
		require.Equal(t, shared, sameArray(got[0].OwnerReferences, got[5].OwnerReferences))
		require.False(t, sameArray(got[0].OwnerReferences, got[1].OwnerReferences), "controller true and false differ")
	}
}

// What decoding for a cache leaves: a pod of a ReplicaSet already seen
// costs the pod, its conditions and the strings no other pod has (name,
// uid, resourceVersion) and their boolean owner flags: a third of the
// allocations of onepass alone, which allocates every string and list.
func TestShare_AllocatesLittle(t *testing.T) {
	bodies := realisticPods(t, podRunning, 200)
	var d Decoder
	for _, b := range bodies[:100] { // the ReplicaSet's values, shared
		require.NoError(t, d.Value(b, &api.Pod{}, true))
	}
	i := 100
	forCache := testing.AllocsPerRun(98, func() {
		_ = d.Value(bodies[i], &api.Pod{}, true)
		i++
	})
	alone := testing.AllocsPerRun(100, func() { _ = onepass.Unmarshal(bodies[0], &api.Pod{}) })
	require.Less(t, forCache*3, alone, "allocations per pod: %v for a cache, %v onepass alone", forCache, alone)
	t.Logf("allocations per pod: %v decoded for a cache, %v by onepass alone", forCache, alone)
}

// Decoders on several goroutines, for a cache, share through the same
// tables and each pod holds what encoding/json decodes (run with -race).
func TestShare_ConcurrentDecoders(t *testing.T) {
	bodies := realisticPods(t, podRunning, 400)
	got := make([]*api.Pod, len(bodies))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var d Decoder
			for i := g; i < len(bodies); i += 4 {
				p := &api.Pod{}
				if d.Value(bodies[i], p, true) == nil {
					got[i] = p
				}
			}
		})
	}
	wg.Wait()
	for i, b := range bodies {
		want := &api.Pod{}
		require.NoError(t, json.Unmarshal(b, want))
		require.Empty(t, cmp.Diff(want, got[i]))
	}
}
