package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeValue decodes JSON the way the fake server stores objects: numbers
// as json.Number.
func decodeValue(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("test JSON %q does not decode: %v", s, err)
	}
	return v
}

// decodeObject decodes a JSON object.
func decodeObject(t testing.TB, s string) map[string]any {
	t.Helper()
	m, ok := decodeValue(t, s).(map[string]any)
	if !ok {
		t.Fatalf("test JSON %q is not an object", s)
	}
	return m
}

// loadPod returns a fresh decode of testdata/pod.json, a 2 KB pod shaped like
// the ones in the repository's testdata/kube-apiserver-1.36.
func loadPod(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	return decodeObject(t, string(b))
}

// assertJSON fails unless got is the JSON value want.
func assertJSON(t testing.TB, want string, got any) {
	t.Helper()
	if diff := cmp.Diff(decodeValue(t, want), got); diff != "" {
		t.Errorf("result differs (-want +got):\n%s", diff)
	}
}

// compact renders v as compact JSON (map keys sorted).
func compact(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at walks a decoded document along field names and array indices, for
// assertions: at(pod, "spec", "containers", 0, "image").
func at(t testing.TB, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path, v)
			}
			v = m[p]
		case int:
			s, ok := v.([]any)
			if !ok || p >= len(s) {
				t.Fatalf("at %v: no element %d in %s", path, p, compact(t, v))
			}
			v = s[p]
		}
	}
	return v
}

// names returns the "name" (or other key) of each element of a list.
func names(t testing.TB, list any, key string) []string {
	t.Helper()
	var out []string
	for _, e := range list.([]any) {
		out = append(out, e.(map[string]any)[key].(string))
	}
	return out
}

// requireKind fails unless err wraps kind and its message contains want.
func requireKind(t testing.TB, err, kind error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one wrapping %q containing %q", kind, want)
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q does not wrap %q", err, kind)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

// deepNest returns n nested JSON objects {"a":{"a":...1...}}.
func deepNest(n int) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Repeat(`{"a":`, n))
	b.WriteString("1")
	b.WriteString(strings.Repeat("}", n))
	return b.Bytes()
}
