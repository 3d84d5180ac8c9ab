package yamljson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzYAMLToJSON: no input panics or hangs Convert; what it accepts is
// valid JSON, the same every time, and ConvertWithLines writes the same
// JSON with a line inside the input for every value.
func FuzzYAMLToJSON(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n",
		`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"a\nb"},"metadata":{"name":"c"}}`,
		"a: |+2\n   x\n\n b: >-\n  y\n",
		"- &a {k: [1, 2.5, yes, ~]}\n- *a\n- <<: *a\n  k: 0x1F\n",
		"a: 'it''s'\nb: \"\\u00e9\\x41\\\n  c\"\n",
		"--- !!str\n...\n---\nb: 2\n",
		"? a\n: b\n",
		"a:\n\tb",
		"[{a: b}, c: d, !!int '1']",
		"\xff\xfea\x00:\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := Convert(in)
		if err != nil {
			if r.JSON != nil || err.Error() == "" {
				t.Fatalf("error %q with output %q", err, r.JSON)
			}
			return
		}
		if !json.Valid(r.JSON) {
			t.Fatalf("not JSON: %q from %q", r.JSON, in)
		}
		again, err := Convert(in)
		if err != nil || !bytes.Equal(again.JSON, r.JSON) {
			t.Fatalf("second conversion differs: %q, %v", again.JSON, err)
		}
		withLines, err := ConvertWithLines(in)
		if err != nil || !bytes.Equal(withLines.JSON, r.JSON) {
			t.Fatalf("ConvertWithLines differs: %q, %v", withLines.JSON, err)
		}
		for ptr, line := range withLines.Lines {
			if line < 1 || line > bytes.Count(in, []byte("\n"))+bytes.Count(in, []byte("\r"))+1 {
				t.Fatalf("%q: line %d outside the input %q", ptr, line, in)
			}
		}
		if _, ok := withLines.Lines[""]; !ok {
			t.Fatalf("no line for the document: %v", withLines.Lines)
		}
	})
}
