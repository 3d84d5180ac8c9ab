package patch

import (
	"encoding/json"
	"testing"
)

// canonicalNumber gives equal text for equal numbers, in linear time, with
// no float64 rounding.
func TestCanonicalNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"0.000", "0"},
		{"0e5", "0"},
		{"1", "1e0"},
		{"1.0", "1e0"},
		{"1e0", "1e0"},
		{"10e-1", "1e0"},
		{"0.1E+1", "1e0"},
		{"100", "1e2"},
		{"-2.50", "-25e-1"},
		{"12345678901234567890", "1234567890123456789e1"},
		{"1e999999999999999999999", "1e999999999999999999999"},
		{"15e-999999999999999999999", "15e-999999999999999999999"},
		{"01", "?01"},
		{"1.", "?1."},
		{".5", "?.5"},
		{"1e", "?1e"},
		{"NaN", "?NaN"},
		{"", "?"},
		{"1 ", "?1 "},
	}
	for _, c := range cases {
		if got := canonicalNumber(c.in); got != c.want {
			t.Errorf("canonicalNumber(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Documents built by hand in Go (ints, float64s) compare and copy like
// decoded ones.
func TestGoNumbersInDocuments(t *testing.T) {
	doc := map[string]any{"i": 80, "f": 2.5, "u": uint8(7), "n": json.Number("80")}
	for path, value := range map[string]string{"/i": "80.0", "/f": "25e-1", "/u": "7", "/n": "8e1"} {
		if _, err := JSONPatch(doc, []byte(`[{"op":"test","path":"`+path+`","value":`+value+`}]`)); err != nil {
			t.Errorf("test %s == %s: %v", path, value, err)
		}
	}
	got, err := StrategicMergePatch(map[string]any{"spec": map[string]any{"containers": []any{
		map[string]any{"name": "web", "ports": []any{map[string]any{"containerPort": 80, "name": "http"}}},
	}}}, []byte(`{"spec":{"containers":[{"name":"web","ports":[{"containerPort":80.0,"protocol":"TCP"}]}]}}`), DefaultMergeKeys)
	if err != nil {
		t.Fatal(err)
	}
	if ports := at(t, got, "spec", "containers", 0, "ports").([]any); len(ports) != 1 {
		t.Errorf("port 80 (Go int) and 80.0 (patch) were not matched: %s", compact(t, ports))
	}
}

// A document holding a Go value no JSON decoder produces is refused, not
// shared or half copied.
func TestUnsupportedGoValueInDocument(t *testing.T) {
	doc := map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "web"}}}
	_, err := MergePatch(doc, []byte(`{}`))
	requireKind(t, err, ErrNotApplicable, "the document holds a Go map[string]string, which is not a JSON value")
}
