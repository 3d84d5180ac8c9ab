package patch

import (
	"encoding/json"
	"testing"
)

// Every example of RFC 7386 Appendix A, run through mergeValue, the RFC's
// pseudocode, and, where both sides are objects, through MergePatch. The
// examples whose patch is not an object replace the whole document; a
// Kubernetes object cannot become an array or a string, so MergePatch
// refuses them instead.
//
// RFC 7386 Appendix A.
func TestMergePatchRFC7386AppendixA(t *testing.T) {
	cases := []struct{ original, patch, result string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, c := range cases {
		t.Run(c.original+" + "+c.patch, func(t *testing.T) {
			assertJSON(t, c.result, mergeValue(decodeValue(t, c.original), decodeValue(t, c.patch)))

			doc, docIsObject := decodeValue(t, c.original).(map[string]any)
			if !docIsObject {
				return // MergePatch only takes objects
			}
			got, err := MergePatch(doc, []byte(c.patch))
			if _, patchIsObject := decodeValue(t, c.patch).(map[string]any); !patchIsObject {
				requireKind(t, err, ErrMalformed, "merge patch: the body must be a JSON object")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, c.result, got)
		})
	}
}

// A merge patch that is not an object is refused with its JSON type named.
func TestMergePatchRejectsNonObjectPatch(t *testing.T) {
	for body, want := range map[string]string{
		`["c"]`: "not an array",
		`null`:  "not null",
		`"bar"`: "not a string",
		`12`:    "not a number",
		`true`:  "not a boolean",
	} {
		_, err := MergePatch(map[string]any{}, []byte(body))
		requireKind(t, err, ErrMalformed, "merge patch: the body must be a JSON object, "+want)
	}
}

// Bodies that are not one JSON value are refused, never half applied.
func TestMergePatchMalformedJSON(t *testing.T) {
	for body, want := range map[string]string{
		``:                 "merge patch: the body is empty",
		`   `:              "merge patch: the body is empty",
		`{`:                "merge patch: the body is not valid JSON: unexpected EOF",
		`{"a":}`:           "merge patch: the body is not valid JSON: invalid character '}'",
		`{"a":1} {"b":2}`:  "merge patch: the body has data after its JSON value",
		`{"a":1}]`:         "merge patch: the body has data after its JSON value",
		"{\"a\":\"\xff\"}": "", // invalid UTF-8 is replaced by U+FFFD, as encoding/json does
	} {
		got, err := MergePatch(map[string]any{"a": "x"}, []byte(body))
		if want == "" {
			if err != nil {
				t.Errorf("MergePatch(%q): %v", body, err)
			}
			continue
		}
		if got != nil {
			t.Errorf("MergePatch(%q) returned a result with its error", body)
		}
		requireKind(t, err, ErrMalformed, want)
	}
}

// kubectl label sends a merge patch of the labels alone; the other labels
// and every other field survive.
//
// Reference: kube-apiserver-1.36/09-update-patch-delete.txt, "PATCH
// merge-patch demo-b".
func TestMergePatchAddsLabelLikeKubectlLabel(t *testing.T) {
	pod := loadPod(t)
	got, err := MergePatch(pod, []byte(`{"metadata":{"labels":{"patched":"true"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `{"app":"web","pod-template-hash":"7d4b9c","patched":"true"}`, at(t, got, "metadata", "labels"))
	if got, want := compact(t, got["spec"]), compact(t, pod["spec"]); got != want {
		t.Errorf("spec changed:\n got %s\nwant %s", got, want)
	}
}

// kubectl label app- removes a label by setting it to null.
func TestMergePatchNullRemovesMember(t *testing.T) {
	got, err := MergePatch(loadPod(t), []byte(`{"metadata":{"labels":{"app":null},"annotations":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `{"pod-template-hash":"7d4b9c"}`, at(t, got, "metadata", "labels"))
	if _, ok := got["metadata"].(map[string]any)["annotations"]; ok {
		t.Error("annotations still present after null")
	}
}

// A merge patch cannot touch one array element: the containers list in the
// patch replaces the pod's whole list. (Compare
// TestStrategicMergeContainerByName, where the same body changes one
// container.)
func TestMergePatchReplacesArrays(t *testing.T) {
	got, err := MergePatch(loadPod(t), []byte(`{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `[{"name":"web","image":"nginx:1.28"}]`, at(t, got, "spec", "containers"))
}

// Numbers in the patch stay json.Number with their exact text: no rounding
// through float64, no 45.50 turned into 45.5.
func TestMergePatchKeepsJSONNumbers(t *testing.T) {
	got, err := MergePatch(loadPod(t), []byte(`{"spec":{"terminationGracePeriodSeconds":45.50,"big":12345678901234567891}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := at(t, got, "spec", "terminationGracePeriodSeconds"); v != json.Number("45.50") {
		t.Errorf("terminationGracePeriodSeconds = %#v, want json.Number(\"45.50\")", v)
	}
	if v := at(t, got, "spec", "big"); v != json.Number("12345678901234567891") {
		t.Errorf("big = %#v, want json.Number(\"12345678901234567891\")", v)
	}
	if v := at(t, got, "spec", "priority"); v != json.Number("0") {
		t.Errorf("untouched priority = %#v, want json.Number(\"0\")", v)
	}
}

// A nil document is the empty object.
func TestMergePatchNilDocument(t *testing.T) {
	got, err := MergePatch(nil, []byte(`{"a":{"b":null,"c":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `{"a":{"c":1}}`, got)
}
