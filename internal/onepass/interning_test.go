package onepass

import (
	"os"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/kinformer/kinformer/api"
)

// testInterner holds one copy of every string and string map it is given,
// as simply as an Interner can: plain maps, no bound.
type testInterner struct {
	strs map[string]string
	maps map[string]map[string]string // by their entries, sorted and joined
}

func newTestInterner() *testInterner {
	return &testInterner{strs: map[string]string{}, maps: map[string]map[string]string{}}
}

func (in *testInterner) String(b []byte) string {
	if s, ok := in.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	in.strs[s] = s
	return s
}

func (in *testInterner) StringMap(kv []string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	entries := make([]string, 0, len(m))
	for k, v := range m {
		entries = append(entries, k+"\x00"+v)
	}
	sort.Strings(entries)
	id := strings.Join(entries, "\x00")
	if held, ok := in.maps[id]; ok {
		return held
	}
	in.maps[id] = m
	return m
}

// TestDecoder_StoresWhatTheInternerGives: two pods decoded by a Decoder
// with the same Interner share the strings and the labels map their JSON
// repeats (the same bytes in memory, not only equal values), while values
// the JSON does not repeat stay their own. sameAsEncodingJSON holds the
// decoded values to encoding/json's on every seed and fuzzed input.
func TestDecoder_StoresWhatTheInternerGives(t *testing.T) {
	data, err := os.ReadFile("../../bench/testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(string(data), "__NAME__", "web-2", 1)
	dec := &Decoder{Interner: newTestInterner()}
	var a, b api.Pod
	if err := dec.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if err := dec.Unmarshal([]byte(other), &b); err != nil {
		t.Fatal(err)
	}
	same := func(what, x, y string) {
		t.Helper()
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are not one string", what, x, y)
		}
	}
	same("namespace", a.Namespace, b.Namespace)
	same("image", a.Spec.Containers[0].Image, b.Spec.Containers[0].Image)
	same("owner uid", a.OwnerReferences[0].UID, b.OwnerReferences[0].UID)
	same("condition type", string(a.Status.Conditions[2].Type), string(b.Status.Conditions[2].Type))
	if a.Name == b.Name {
		t.Errorf("names %q and %q should differ", a.Name, b.Name)
	}
	if len(a.Labels) != 3 || !sameMap(a.Labels, b.Labels) {
		t.Errorf("labels %v and %v are not one map", a.Labels, b.Labels)
	}
	t.Logf("namespace, image, owner, condition types and the labels map are shared; names %q and %q are not", a.Name, b.Name)
}

// sameMap reports whether x and y are the same map (not just equal).
func sameMap(x, y map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&x)) == *(*unsafe.Pointer)(unsafe.Pointer(&y))
}
