package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// A patch nested deeper than encoding/json's 10000 levels is refused while
// decoding, for every patch type, and a 3 MiB body of "[" cannot blow the
// stack.
func TestDeeplyNestedPatchIsRefused(t *testing.T) {
	deep := deepNest(maxDepth + 1)
	hostile := bytes.Repeat([]byte("["), 3<<20)
	jsonPatch := append(append([]byte(`[{"op":"add","path":"/a","value":`), deep...), "}]"...)
	for name, apply := range patchFuncs {
		body := deep
		if name == "JSONPatch" {
			body = jsonPatch
		}
		_, err := apply(map[string]any{}, body)
		requireKind(t, err, ErrMalformed, "exceeded max depth")

		_, err = apply(map[string]any{}, hostile)
		want := "not valid JSON"
		if name == "JSONPatch" {
			want = "json patch operation 0: must be a JSON object, not an array"
		}
		requireKind(t, err, ErrMalformed, want)
	}
	// Just under the limit is fine.
	if _, err := MergePatch(map[string]any{}, deepNest(maxDepth-1)); err != nil {
		t.Errorf("9999 levels: %v", err)
	}
}

// A document deeper than the limit (one built in Go, since the decoder
// refuses such JSON) is refused before any recursion can run away.
func TestDeeplyNestedDocumentIsRefused(t *testing.T) {
	for name, apply := range patchFuncs {
		empty := map[string]string{"MergePatch": `{}`, "JSONPatch": `[]`, "StrategicMergePatch": `{}`}[name]
		_, err := apply(nestedDoc(maxDepth+1), []byte(empty))
		requireKind(t, err, ErrNotApplicable, "the document nests objects and arrays deeper than 10000 levels")
		if _, err := apply(nestedDoc(maxDepth), []byte(empty)); err != nil {
			t.Errorf("%s on a document at the limit: %v", name, err)
		}
	}
}

// A JSON patch cannot push a document past the limit by adding (or
// copying) a deep value at a deep path, so no sequence of patches can grow
// one without bound.
func TestJSONPatchCannotNestPastTheLimit(t *testing.T) {
	// The innermost object of doc is at level 9995, so a value of depth 5
	// added inside it reaches level 10000, the limit, and depth 6 passes it.
	doc := nestedDoc(maxDepth - 5)
	deepPath := "/" + strings.Repeat("a/", maxDepth-6) + "x"
	_, err := JSONPatch(doc, []byte(`[{"op":"add","path":"`+deepPath+`","value":{"b":{"c":{"d":{"e":{"f":{}}}}}}}]`))
	requireKind(t, err, ErrNotApplicable, "the result would nest objects and arrays deeper than 10000 levels")

	_, err = JSONPatch(doc, []byte(`[{"op":"copy","from":"/a","path":"`+deepPath+`"}]`))
	requireKind(t, err, ErrNotApplicable, "deeper than 10000 levels")

	if _, err := JSONPatch(doc, []byte(`[{"op":"add","path":"`+deepPath+`","value":{"b":{"c":{"d":{"e":{}}}}}}]`)); err != nil {
		t.Errorf("adding within the limit: %v", err)
	}
}

// nestedDoc returns {"a":{"a":...{}}} with n objects in all.
func nestedDoc(n int) map[string]any {
	doc := map[string]any{}
	for range n - 1 {
		doc = map[string]any{"a": doc}
	}
	return doc
}

// Every error wraps exactly one kind, and a decoder error stays reachable.
func TestErrorKinds(t *testing.T) {
	_, err := MergePatch(map[string]any{}, []byte(`{"a":}`))
	if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrNotApplicable) {
		t.Errorf("bad JSON: %v is not only ErrMalformed", err)
	}
	var syntaxErr *json.SyntaxError
	if !errors.As(err, &syntaxErr) {
		t.Errorf("errors.As finds no *json.SyntaxError in %v", err)
	}
	_, err = JSONPatch(map[string]any{}, []byte(`[{"op":"remove","path":"/a"}]`))
	if !errors.Is(err, ErrNotApplicable) || errors.Is(err, ErrMalformed) {
		t.Errorf("missing member: %v is not only ErrNotApplicable", err)
	}
}

// kube-apiserver refuses a JSON patch of more than 10000 operations; so do
// we, before applying any.
func TestJSONPatchOperationLimit(t *testing.T) {
	ops := func(n int) []byte {
		op := `{"op":"test","path":"","value":{}},`
		return []byte("[" + strings.TrimSuffix(strings.Repeat(op, n), ",") + "]")
	}
	if _, err := JSONPatch(map[string]any{}, ops(maxOperations)); err != nil {
		t.Errorf("%d operations: %v", maxOperations, err)
	}
	_, err := JSONPatch(map[string]any{}, ops(maxOperations+1))
	requireKind(t, err, ErrTooLarge, "json patch: more than 10000 operations")
}

// Each "copy" of a list into itself doubles it (v4 cannot copy the whole
// document, path ""); the copy budget stops the doubling long before memory
// runs out.
func TestJSONPatchCopyBudget(t *testing.T) {
	var ops []string
	for range 40 {
		ops = append(ops, `{"op":"copy","from":"/l","path":"/l/-"}`)
	}
	// Tiny values, so that their count runs out before their size does
	// (see TestJSONPatchCopySizeBudget for the other way round).
	tiny := make([]any, 1000)
	for i := range tiny {
		tiny[i] = json.Number("1")
	}
	_, err := JSONPatch(map[string]any{"l": tiny}, []byte("["+strings.Join(ops, ",")+"]"))
	requireKind(t, err, ErrTooLarge, "the patch copies (or moves deeper) more than 262144 values in all")

	got, err := JSONPatch(loadPod(t), []byte(`[{"op":"copy","from":"/spec/containers/0","path":"/spec/containers/-"}]`))
	if err != nil {
		t.Fatalf("copying one container: %v", err)
	}
	if n := len(at(t, got, "spec", "containers").([]any)); n != 3 {
		t.Errorf("%d containers after the copy, want 3", n)
	}
}

// Moving a value deeper is checked against the depth limit too, so a chain
// of moves cannot stack deep subtrees on top of each other.
func TestJSONPatchMoveDeeperIsChecked(t *testing.T) {
	doc := map[string]any{"x": nestedDoc(maxDepth - 1), "y": nestedDoc(2)}
	_, err := JSONPatch(doc, []byte(`[{"op":"move","from":"/x","path":"/y/a/x"}]`))
	requireKind(t, err, ErrNotApplicable, "deeper than 10000 levels")

	if _, err := JSONPatch(doc, []byte(`[{"op":"move","from":"/x/a","path":"/z"}]`)); err != nil {
		t.Errorf("moving up: %v", err)
	}
}

// Inserting at the front of a huge array shifts every element; thousands of
// such insertions are refused instead of running for a minute.
func TestJSONPatchShiftBudget(t *testing.T) {
	l := make([]any, 1<<20)
	for i := range l {
		l[i] = "0"
	}
	insertAtFront := `{"op":"add","path":"/l/0","value":1},`
	body := "[" + strings.TrimSuffix(strings.Repeat(insertAtFront, 100), ",") + "]"
	_, err := JSONPatch(map[string]any{"l": l}, []byte(body))
	requireKind(t, err, ErrTooLarge, "the patch shifts more than 33554432 array elements in all")

	// Appending shifts nothing.
	appendAtEnd := `{"op":"add","path":"/l/-","value":1},`
	body = "[" + strings.TrimSuffix(strings.Repeat(appendAtEnd, 100), ",") + "]"
	if _, err := JSONPatch(map[string]any{"l": l}, []byte(body)); err != nil {
		t.Errorf("appending: %v", err)
	}
}

// Copies are charged by their JSON size too: four thousand copies of a
// 1 MiB string (one value each, and free to share) are refused once they
// would grow the document by more than 3 MiB, kube-apiserver's limit.
func TestJSONPatchCopySizeBudget(t *testing.T) {
	doc := map[string]any{"a": strings.Repeat("x", 1<<20)}
	var ops []string
	for i := range 4000 {
		ops = append(ops, `{"op":"copy","from":"/a","path":"/b`+strconv.Itoa(i)+`"}`)
	}
	_, err := JSONPatch(doc, []byte("["+strings.Join(ops, ",")+"]"))
	requireKind(t, err, ErrNotApplicable, "Unable to complete the copy, the accumulated size increase of copy is 3145734, exceeding the limit 3145728")

	// Two copies (2 MiB) are within the budget.
	got, err := JSONPatch(doc, []byte("["+strings.Join(ops[:2], ",")+"]"))
	if err != nil {
		t.Fatalf("two copies: %v", err)
	}
	if len(got) != 3 {
		t.Errorf("%d members after two copies, want 3", len(got))
	}
}

func TestJSONSize(t *testing.T) {
	for _, v := range []any{nil, true, false, json.Number("12.5"), "a\"b\\c\n", []any{}, []any{"x", json.Number("1")},
		map[string]any{}, map[string]any{"k": map[string]any{"q\"": []any{nil, false}}, "z": "é"}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(len(b))
		if s, ok := v.(string); ok && strings.ContainsRune(s, '\n') {
			want = int64(len(b)) + 4 // counted as \u000a, written as \n: an overestimate
		}
		if got := jsonSize(v, 1<<30); got != want {
			t.Errorf("jsonSize(%s) = %d, want %d", b, got, want)
		}
	}
}
