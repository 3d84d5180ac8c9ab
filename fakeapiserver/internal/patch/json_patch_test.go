package patch

import (
	"testing"
)

// Every example of RFC 6902 Appendix A, with its expected result or error.
//
// RFC 6902 Appendix A.1-A.16.
func TestJSONPatchRFC6902AppendixA(t *testing.T) {
	cases := []struct {
		name, doc, patch, want string
		err                    error
		msg                    string
	}{
		{name: "A.1 adding an object member",
			doc:   `{"foo":"bar"}`,
			patch: `[{"op":"add","path":"/baz","value":"qux"}]`,
			want:  `{"baz":"qux","foo":"bar"}`},
		{name: "A.2 adding an array element",
			doc:   `{"foo":["bar","baz"]}`,
			patch: `[{"op":"add","path":"/foo/1","value":"qux"}]`,
			want:  `{"foo":["bar","qux","baz"]}`},
		{name: "A.3 removing an object member",
			doc:   `{"baz":"qux","foo":"bar"}`,
			patch: `[{"op":"remove","path":"/baz"}]`,
			want:  `{"foo":"bar"}`},
		{name: "A.4 removing an array element",
			doc:   `{"foo":["bar","qux","baz"]}`,
			patch: `[{"op":"remove","path":"/foo/1"}]`,
			want:  `{"foo":["bar","baz"]}`},
		{name: "A.5 replacing a value",
			doc:   `{"baz":"qux","foo":"bar"}`,
			patch: `[{"op":"replace","path":"/baz","value":"boo"}]`,
			want:  `{"baz":"boo","foo":"bar"}`},
		{name: "A.6 moving a value",
			doc:   `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
			patch: `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
			want:  `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{name: "A.7 moving an array element",
			doc:   `{"foo":["all","grass","cows","eat"]}`,
			patch: `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`,
			want:  `{"foo":["all","cows","eat","grass"]}`},
		{name: "A.8 testing a value: success",
			doc:   `{"baz":"qux","foo":["a",2,"c"]}`,
			patch: `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
			want:  `{"baz":"qux","foo":["a",2,"c"]}`},
		{name: "A.9 testing a value: error",
			doc:   `{"baz":"qux"}`,
			patch: `[{"op":"test","path":"/baz","value":"bar"}]`,
			err:   ErrNotApplicable,
			msg:   `json patch operation 0 (test "/baz"): test failed: the value at "/baz" is "qux", not "bar"`},
		{name: "A.10 adding a nested member object",
			doc:   `{"foo":"bar"}`,
			patch: `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`,
			want:  `{"foo":"bar","child":{"grandchild":{}}}`},
		{name: "A.11 ignoring unrecognized elements",
			doc:   `{"foo":"bar"}`,
			patch: `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`,
			want:  `{"foo":"bar","baz":"qux"}`},
		{name: "A.12 adding to a nonexistent target",
			doc:   `{"foo":"bar"}`,
			patch: `[{"op":"add","path":"/baz/bat","value":"qux"}]`,
			err:   ErrNotApplicable,
			msg:   `json patch operation 0 (add "/baz/bat"): "/baz" does not exist`},
		{name: "A.13 invalid JSON patch document",
			doc:   `{"foo":"bar"}`,
			patch: `[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`,
			err:   ErrMalformed,
			msg:   `json patch operation 0: member "op" appears twice`},
		{name: "A.14 ~ escape ordering",
			doc:   `{"/":9,"~1":10}`,
			patch: `[{"op":"test","path":"/~01","value":10}]`,
			want:  `{"/":9,"~1":10}`},
		{name: "A.15 comparing strings and numbers",
			doc:   `{"/":9,"~1":10}`,
			patch: `[{"op":"test","path":"/~01","value":"10"}]`,
			err:   ErrNotApplicable,
			msg:   `test failed: the value at "/~01" is 10, not "10"`},
		{name: "A.16 adding an array value",
			doc:   `{"foo":["bar"]}`,
			patch: `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`,
			want:  `{"foo":["bar",["abc","def"]]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := JSONPatch(decodeObject(t, c.doc), []byte(c.patch))
			if c.err != nil {
				requireKind(t, err, c.err, c.msg)
				if got != nil {
					t.Error("a failed patch returned a result")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, c.want, got)
		})
	}
}

// Each way a JSON patch can be wrong gets its own message; bodies that are
// not a well-formed patch are ErrMalformed (400 on the server), patches
// that do not fit this pod are ErrNotApplicable (422).
func TestJSONPatchErrors(t *testing.T) {
	cases := []struct {
		patch string
		kind  error
		msg   string
	}{
		{``, ErrMalformed, "json patch: the body is empty"},
		{`{"op":"add"}`, ErrMalformed, "json patch: the body must be a JSON array of operations, not an object"},
		{`null`, ErrMalformed, "not null"},
		{`[`, ErrMalformed, "json patch: the body is not valid JSON: unexpected EOF"},
		{`[{"op":"remove","path":"/a"},]`, ErrMalformed, "the body is not valid JSON"},
		{`[{"op" "remove"}]`, ErrMalformed, "the body is not valid JSON"},
		{`[] []`, ErrMalformed, "json patch: the body has data after its JSON array"},
		{`[1]`, ErrMalformed, "json patch operation 0: must be a JSON object, not a number"},
		{`[{"op":"test","path":"","value":{}},[]]`, ErrMalformed, "json patch operation 1: must be a JSON object, not an array"},
		{`[{"path":"/a"}]`, ErrMalformed, `json patch operation 0: missing "op" member`},
		{`[{"op":"jump","path":"/a"}]`, ErrMalformed, `json patch operation 0: unknown op "jump" (want add, remove, replace, move, copy or test)`},
		{`[{"op":"add","value":1}]`, ErrMalformed, `op "add" is missing its "path" member`},
		{`[{"op":"test","path":"/a"}]`, ErrMalformed, `op "test" is missing its "value" member`},
		{`[{"op":"copy","path":"/a"}]`, ErrMalformed, `op "copy" is missing its "from" member`},
		{`[{"op":1,"path":"/a"}]`, ErrMalformed, `member "op" must be a string, not a number`},
		{`[{"op":"remove","path":null}]`, ErrMalformed, `member "path" must be a string, not null`},
		{`[{"op":"remove","path":"metadata"}]`, ErrMalformed, `"path": JSON pointer "metadata" must be empty or start with "/"`},
		{`[{"op":"move","from":"/a~3","path":"/b"}]`, ErrMalformed, `"from": JSON pointer "/a~3"`},
		// Well formed, but not for this pod:
		{`[{"op":"remove","path":"/nope"}]`, ErrNotApplicable,
			`json patch operation 0 (remove "/nope"): "/nope" does not exist`},
		{`[{"op":"replace","path":"/metadata/nope","value":1}]`, ErrNotApplicable, `"/metadata/nope" does not exist`},
		{`[{"op":"test","path":"/metadata/name","value":"web-7d4b9c-x2kq9"},{"op":"remove","path":"/spec/containers/5"}]`, ErrNotApplicable,
			`json patch operation 1 (remove "/spec/containers/5"): index 5 is out of range: the array at "/spec/containers" has 2 elements`},
		{`[{"op":"add","path":"/spec/containers/3","value":{}}]`, ErrNotApplicable, "index 3 is out of range"},
		{`[{"op":"replace","path":"/spec/containers/01/image","value":"x"}]`, ErrNotApplicable,
			`"/spec/containers" is an array, and "01" is not an array index`},
		{`[{"op":"remove","path":"/spec/containers/-"}]`, ErrNotApplicable, `index "-" (past the end) can only be used to add`},
		{`[{"op":"add","path":"/metadata/name/x","value":1}]`, ErrNotApplicable,
			`"/metadata/name" is a string, not an object or array, so nothing can be added to it`},
		{`[{"op":"test","path":"/metadata/name/x","value":1}]`, ErrNotApplicable,
			`"/metadata/name" is a string, not an object or array, so it has no "x"`},
		{`[{"op":"move","from":"/metadata","path":"/metadata/labels/m"}]`, ErrNotApplicable,
			`json patch operation 0 (move "/metadata" to "/metadata/labels/m"): "/metadata" cannot be moved into its own child "/metadata/labels/m"`},
		{`[{"op":"copy","from":"/nope","path":"/a"}]`, ErrNotApplicable, `"/nope" does not exist`},
		{`[{"op":"test","path":"/metadata/labels/app","value":"db"}]`, ErrNotApplicable,
			`test failed: the value at "/metadata/labels/app" is "web", not "db"`},
		{`[{"op":"remove","path":""}]`, ErrNotApplicable, "the whole document cannot be removed"},
		{`[{"op":"replace","path":"","value":[1]}]`, ErrNotApplicable,
			"json patch: the result is an array, but an object must stay a JSON object"},
	}
	for _, c := range cases {
		got, err := JSONPatch(loadPod(t), []byte(c.patch))
		requireKind(t, err, c.kind, c.msg)
		if got != nil {
			t.Errorf("patch %s: a failed patch returned a result", c.patch)
		}
	}
}

// The patch is atomic: a failing operation discards the earlier ones, and
// the caller's document never sees any of them.
//
// RFC 6902 §5.
func TestJSONPatchIsAtomic(t *testing.T) {
	pod := loadPod(t)
	got, err := JSONPatch(pod, []byte(`[
		{"op":"add","path":"/metadata/labels/tier","value":"frontend"},
		{"op":"remove","path":"/metadata/labels/nope"}]`))
	requireKind(t, err, ErrNotApplicable, `json patch operation 1 (remove "/metadata/labels/nope")`)
	if got != nil {
		t.Error("a failed patch returned a result")
	}
	if _, ok := at(t, pod, "metadata", "labels").(map[string]any)["tier"]; ok {
		t.Error("the first operation of a failed patch reached the document")
	}
}

// Operations see the results of the ones before them.
func TestJSONPatchOperationsApplyInOrder(t *testing.T) {
	got, err := JSONPatch(map[string]any{}, []byte(`[
		{"op":"add","path":"/l","value":[]},
		{"op":"add","path":"/l/-","value":"a"},
		{"op":"add","path":"/l/0","value":"b"},
		{"op":"copy","from":"/l","path":"/m"},
		{"op":"move","from":"/l/1","path":"/m/-"},
		{"op":"replace","path":"/m/0","value":"c"}]`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `{"l":["b"],"m":["c","a","a"]}`, got)
}

// "test" compares numbers by value, not by text, and exactly: 1, 1.0 and
// 10e-1 are equal; 12345678901234567890 and 12345678901234567891 are not,
// though both round to the same float64.
//
// RFC 6902 §4.6.
func TestJSONPatchTestComparesNumbersNumerically(t *testing.T) {
	doc := decodeObject(t, `{"one":1,"big":12345678901234567890,"zero":0,"obj":{"a":[1,{"b":2.5}]},"s":"1","null":null}`)
	cases := []struct {
		path, value string
		equal       bool
	}{
		{"/one", `1`, true},
		{"/one", `1.0`, true},
		{"/one", `1e0`, true},
		{"/one", `10e-1`, true},
		{"/one", `0.1E1`, true},
		{"/one", `2`, false},
		{"/one", `"1"`, false},
		{"/s", `1`, false},
		{"/big", `12345678901234567890.000`, true},
		{"/big", `12345678901234567891`, false},
		{"/zero", `-0`, true},
		{"/zero", `0e999999999999999999999`, true},
		{"/one", `1e999999999999999999999`, false},
		{"/obj", `{"a":[1.0,{"b":25e-1}]}`, true},
		{"/obj", `{"a":[{"b":2.5},1]}`, false},
		{"/obj", `{"a":[1,{"b":2.5}],"c":null}`, false},
		{"/null", `null`, true},
		{"/null", `false`, false},
	}
	for _, c := range cases {
		_, err := JSONPatch(doc, []byte(`[{"op":"test","path":"`+c.path+`","value":`+c.value+`}]`))
		if c.equal && err != nil {
			t.Errorf("test %s == %s: %v", c.path, c.value, err)
		}
		if !c.equal && err == nil {
			t.Errorf("test %s == %s passed; want a failure", c.path, c.value)
		}
	}
}

// "copy" copies deeply: changing the copy afterwards leaves the source alone.
func TestJSONPatchCopyIsDeep(t *testing.T) {
	got, err := JSONPatch(loadPod(t), []byte(`[
		{"op":"copy","from":"/metadata/labels","path":"/spec/nodeSelector"},
		{"op":"add","path":"/spec/nodeSelector/zone","value":"a"}]`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `{"app":"web","pod-template-hash":"7d4b9c"}`, at(t, got, "metadata", "labels"))
	assertJSON(t, `{"app":"web","pod-template-hash":"7d4b9c","zone":"a"}`, at(t, got, "spec", "nodeSelector"))
}

// What a controller sends: guard on the resourceVersion it read, then change
// one container's image by index and append a finalizer.
func TestJSONPatchLikeAController(t *testing.T) {
	got, err := JSONPatch(loadPod(t), []byte(`[
		{"op":"test","path":"/metadata/resourceVersion","value":"46226"},
		{"op":"replace","path":"/spec/containers/1/image","value":"busybox:1.37"},
		{"op":"add","path":"/metadata/finalizers/-","value":"example.com/cleanup"},
		{"op":"add","path":"/metadata/annotations/example.com~1owner","value":"team-a"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if v := at(t, got, "spec", "containers", 1, "image"); v != "busybox:1.37" {
		t.Errorf("sidecar image = %v", v)
	}
	assertJSON(t, `["example.com/protect","example.com/audit","example.com/cleanup"]`, at(t, got, "metadata", "finalizers"))
	if v := at(t, got, "metadata", "annotations", "example.com/owner"); v != "team-a" {
		t.Errorf(`annotation "example.com/owner" = %v`, v)
	}

	_, err = JSONPatch(got, []byte(`[{"op":"test","path":"/metadata/resourceVersion","value":"1"}]`))
	requireKind(t, err, ErrNotApplicable, `test failed: the value at "/metadata/resourceVersion" is "46226", not "1"`)
}

// "add" and "replace" at the root replace the whole document; "move" to the
// same place is a no-op; an empty patch changes nothing.
func TestJSONPatchEdgeCases(t *testing.T) {
	cases := []struct{ doc, patch, want string }{
		{`{"a":1}`, `[]`, `{"a":1}`},
		{`{"a":1}`, `[{"op":"add","path":"","value":{"b":2}}]`, `{"b":2}`},
		{`{"a":1}`, `[{"op":"replace","path":"","value":{"c":3}}]`, `{"c":3}`},
		{`{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`},
		{`{"a":1}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`},
		{`{"a":{"b":1}}`, `[{"op":"copy","from":"","path":"/c"}]`, `{"a":{"b":1},"c":{"a":{"b":1}}}`},
		{`{"":1}`, `[{"op":"replace","path":"/","value":2}]`, `{"":2}`},
		{`{"l":[1,2,3]}`, `[{"op":"remove","path":"/l/0"},{"op":"remove","path":"/l/1"}]`, `{"l":[2]}`},
		{`{"l":[1,2]}`, `[{"op":"add","path":"/l/2","value":3}]`, `{"l":[1,2,3]}`},
		{`{"l":[[1]]}`, `[{"op":"add","path":"/l/0/0","value":0}]`, `{"l":[[0,1]]}`},
	}
	for _, c := range cases {
		got, err := JSONPatch(decodeObject(t, c.doc), []byte(c.patch))
		if err != nil {
			t.Errorf("%s on %s: %v", c.patch, c.doc, err)
			continue
		}
		assertJSON(t, c.want, got)
	}
}
