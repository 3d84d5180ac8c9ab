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
			msg:   `testing value /baz failed: test failed`}, // v4's text
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
			msg:   `add operation does not apply: doc is missing path: "/baz/bat": missing value`}, // v4's text
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
			msg:   `testing value /~01 failed: test failed`},
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

// A body that is not a JSON array of operation objects, or whose "op",
// "path" or "from" is not a string, is ErrMalformed (400 on the server:
// kube-apiserver decodes the body before json-patch sees it, and v4's
// DecodePatch refuses what is not a list of objects). Everything else that
// goes wrong is ErrNotApplicable (422: v4's Patch.Apply fails), with the
// text v4 gives.
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
		{`[{"op":1,"path":"/a"}]`, ErrMalformed, `member "op" must be a string, not a number`},
		{`[{"op":"remove","path":7}]`, ErrMalformed, `member "path" must be a string, not a number`},
		// Well formed, but v4's Apply refuses it:
		{`[{"path":"/a"}]`, ErrNotApplicable, `Unexpected kind: unknown`},           // Kind() of a missing op
		{`[{"op":null,"path":"/a"}]`, ErrNotApplicable, `Unexpected kind: unknown`}, // and of a null one
		{`[{"op":"jump","path":"/a"}]`, ErrNotApplicable, `Unexpected kind: jump`},  // ApplyIndent's default case
		{`[{"op":"add","value":1}]`, ErrNotApplicable, `add operation failed to decode path: missing value`},
		{`[{"op":"remove","path":null}]`, ErrNotApplicable, `remove operation failed to decode path: missing value`},
		{`[{"op":"replace","value":1}]`, ErrNotApplicable, `replace operation failed to decode path: operation missing path field: missing value`},
		{`[{"op":"test","value":1}]`, ErrNotApplicable, `test operation failed to decode path: operation missing path field: missing value`},
		// Not v4: kube-apiserver 1.36 refuses an add or replace without a
		// "value" member (v4 would set null).
		{`[{"op":"add","path":"/b"}]`, ErrNotApplicable, `add operation has no "value" member`},
		{`[{"op":"replace","path":"/metadata/name"}]`, ErrNotApplicable, `replace operation has no "value" member`},
		{`[{"op":"replace","path":""}]`, ErrNotApplicable, `replace operation has no "value" member`},
		{`[{"op":"test","path":"/metadata/name"}]`, ErrNotApplicable, `testing value /metadata/name failed: test failed`},
		{`[{"op":"copy","path":"/a"}]`, ErrNotApplicable, `copy operation failed to decode from: operation, missing from field: missing value`},
		{`[{"op":"move","path":"/a"}]`, ErrNotApplicable, `move operation failed to decode from: operation, missing from field: missing value`},
		{`[{"op":"copy","from":"/metadata/name"}]`, ErrNotApplicable, `copy operation failed to decode path: missing value`},
		{`[{"op":"move","from":"/metadata/name"}]`, ErrNotApplicable, `move operation failed to decode path: operation missing path field: missing value`},
		// add: the parent must exist; an index must be "-" or fit.
		{`[{"op":"add","path":"","value":{}}]`, ErrNotApplicable, `add operation does not apply: doc is missing path: "": missing value`},
		{`[{"op":"add","path":"/nope/x","value":1}]`, ErrNotApplicable, `add operation does not apply: doc is missing path: "/nope/x": missing value`},
		{`[{"op":"add","path":"/metadata/name/x","value":1}]`, ErrNotApplicable, `add operation does not apply: doc is missing path: "/metadata/name/x": missing value`},
		{`[{"op":"add","path":"/spec/containers/3","value":{}}]`, ErrNotApplicable,
			`error in add for path: '/spec/containers/3': Unable to access invalid index: 3: invalid index referenced`},
		{`[{"op":"add","path":"/spec/containers/-4","value":{}}]`, ErrNotApplicable,
			`error in add for path: '/spec/containers/-4': Unable to access invalid index: -4: invalid index referenced`},
		{`[{"op":"add","path":"/spec/containers/x","value":{}}]`, ErrNotApplicable,
			`error in add for path: '/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`},
		// remove: the target must exist.
		{`[{"op":"remove","path":""}]`, ErrNotApplicable, `remove operation does not apply: doc is missing path: "": missing value`},
		{`[{"op":"remove","path":"metadata"}]`, ErrNotApplicable, `remove operation does not apply: doc is missing path: "metadata": missing value`},
		{`[{"op":"remove","path":"/nope"}]`, ErrNotApplicable, `error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value`},
		{`[{"op":"remove","path":"/nope/x"}]`, ErrNotApplicable, `remove operation does not apply: doc is missing path: "/nope/x": missing value`},
		{`[{"op":"test","path":"/metadata/name","value":"web-7d4b9c-x2kq9"},{"op":"remove","path":"/spec/containers/5"}]`, ErrNotApplicable,
			`error in remove for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced`},
		{`[{"op":"remove","path":"/spec/containers/-"}]`, ErrNotApplicable,
			`error in remove for path: '/spec/containers/-': strconv.Atoi: parsing "-": invalid syntax`},
		// replace: the parent must exist, an array element too.
		{`[{"op":"replace","path":"/nope/x","value":1}]`, ErrNotApplicable, `replace operation does not apply: doc is missing path: /nope/x: missing value`},
		{`[{"op":"replace","path":"/spec/containers/2","value":{}}]`, ErrNotApplicable,
			`replace operation does not apply: doc is missing key: /spec/containers/2: missing value`},
		{`[{"op":"replace","path":"/spec/containers/-","value":{}}]`, ErrNotApplicable,
			`replace operation does not apply: doc is missing key: /spec/containers/-: missing value`},
		{`[{"op":"replace","path":"/spec/containers/5/image","value":"x"}]`, ErrNotApplicable,
			`replace operation does not apply: doc is missing path: /spec/containers/5/image: missing value`},
		{`[{"op":"replace","path":"","value":[1]}]`, ErrNotApplicable,
			"json patch: the result is an array, but an object must stay a JSON object"},
		// test
		{`[{"op":"test","path":"/metadata/labels/app","value":"db"}]`, ErrNotApplicable, `testing value /metadata/labels/app failed: test failed`},
		{`[{"op":"test","path":"/metadata/labels/nope","value":"x"}]`, ErrNotApplicable, `testing value /metadata/labels/nope failed: test failed`},
		{`[{"op":"test","path":"/metadata/name","value":null}]`, ErrNotApplicable, `testing value /metadata/name failed: test failed`},
		{`[{"op":"test","path":"/metadata/name"}]`, ErrNotApplicable, `testing value /metadata/name failed: test failed`},
		{`[{"op":"test","path":"","value":{}}]`, ErrNotApplicable, `testing value  failed: test failed`},
		{`[{"op":"test","path":"/metadata/name/x","value":1}]`, ErrNotApplicable, `test operation does not apply: is missing path: /metadata/name/x: missing value`},
		{`[{"op":"test","path":"/spec/containers/9","value":1}]`, ErrNotApplicable,
			`error in test for path: '/spec/containers/9': Unable to access invalid index: 9: invalid index referenced`},
		// move: from must exist (its errors name only from's last token).
		{`[{"op":"move","from":"","path":"/a"}]`, ErrNotApplicable, `move operation does not apply: doc is missing from path: : missing value`},
		{`[{"op":"move","from":"/nope/x","path":"/a"}]`, ErrNotApplicable, `move operation does not apply: doc is missing from path: /nope/x: missing value`},
		{`[{"op":"move","from":"/metadata/nope","path":"/a"}]`, ErrNotApplicable,
			`error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value`},
		{`[{"op":"move","from":"/spec/containers/7","path":"/a"}]`, ErrNotApplicable,
			`error in move for path: '7': Unable to access invalid index: 7: invalid index referenced`},
		{`[{"op":"move","from":"/metadata","path":"/metadata/labels/m"}]`, ErrNotApplicable,
			`move operation does not apply: doc is missing destination path: /metadata/labels/m: missing value`},
		{`[{"op":"move","from":"/metadata/name","path":"/spec/containers/9"}]`, ErrNotApplicable,
			`error in move for path: '/spec/containers/9': Unable to access invalid index: 9: invalid index referenced`},
		// copy: from's parent must exist, and the destination's.
		{`[{"op":"copy","from":"/nope/x","path":"/a"}]`, ErrNotApplicable, `copy operation does not apply: doc is missing from path: /nope/x: missing value`},
		{`[{"op":"copy","from":"/spec/containers/2","path":"/a"}]`, ErrNotApplicable,
			`error in copy for from: '/spec/containers/2': Unable to access invalid index: 2: invalid index referenced`},
		{`[{"op":"copy","from":"/metadata/name","path":"/nope/x"}]`, ErrNotApplicable,
			`copy operation does not apply: doc is missing destination path: /nope/x: missing value`},
		{`[{"op":"copy","from":"/metadata/name","path":"/spec/containers/9"}]`, ErrNotApplicable,
			`error while adding value during copy: Unable to access invalid index: 9: invalid index referenced`},
	}
	for _, c := range cases {
		got, err := JSONPatch(loadPod(t), []byte(c.patch))
		requireKind(t, err, c.kind, c.msg)
		if err != nil && c.kind == ErrNotApplicable && err.Error() != c.msg {
			t.Errorf("patch %s: error %q; want exactly %q", c.patch, err, c.msg)
		}
		if got != nil {
			t.Errorf("patch %s: a failed patch returned a result", c.patch)
		}
	}
}

// What json-patch v4 (gopkg.in/evanphx/json-patch.v4, kube-apiserver 1.36)
// accepts where RFC 6902 says to fail, each case with the v4 code that
// makes it so.
func TestJSONPatchFollowsV4(t *testing.T) {
	cases := []struct{ name, doc, patch, want string }{
		{"replace of a missing member adds it (partialDoc.get never fails)",
			`{"a":{}}`, `[{"op":"replace","path":"/a/b","value":1}]`, `{"a":{"b":1}}`},
		{"replace at the root with a non-object is ignored (errors.Wrapf(nil) is nil)",
			`{"a":1}`, `[{"op":"replace","path":"","value":3}]`, `{"a":1}`},
		{"add and replace with a null value set null",
			`{"a":1}`, `[{"op":"add","path":"/b","value":null},{"op":"replace","path":"/a","value":null}]`, `{"a":null,"b":null}`},
		{"test of a missing member against null passes (get returns nil, raw is nil)",
			`{"a":1}`, `[{"op":"test","path":"/b","value":null}]`, `{"a":1}`},
		{"copy of a missing member adds null (deepCopy(nil) is nil)",
			`{"a":1}`, `[{"op":"copy","from":"/b","path":"/c"}]`, `{"a":1,"c":null}`},
		{"indices go through strconv.Atoi: leading zeros and + are accepted",
			`{"l":[1,2,3]}`, `[{"op":"replace","path":"/l/01","value":9},{"op":"remove","path":"/l/+0"}]`, `{"l":[9,3]}`},
		{"negative indices count from the end (SupportNegativeIndices)",
			`{"l":[1,2,3]}`, `[{"op":"replace","path":"/l/-1","value":9},{"op":"remove","path":"/l/-3"}]`, `{"l":[2,9]}`},
		{"add at -1 inserts before the end of the longer array, so it appends",
			`{"l":[1,2]}`, `[{"op":"add","path":"/l/-1","value":3}]`, `{"l":[1,2,3]}`},
		{"a negative index on the way to the target",
			`{"l":[{"a":1},{"a":2}]}`, `[{"op":"replace","path":"/l/-1/a","value":9}]`, `{"l":[{"a":1},{"a":9}]}`},
		{"the first piece of a path is dropped unread (findObject uses split[1:])",
			`{"a":1}`, `[{"op":"replace","path":"x/a","value":2}]`, `{"a":2}`},
		{"a bad escape stays as it is (decodePatchKey)",
			`{"a~2":1}`, `[{"op":"remove","path":"/a~2"}]`, `{}`},
		{"unknown members and a null from are ignored",
			`{"a":1}`, `[{"op":"add","path":"/b","value":2,"from":null,"x":1}]`, `{"a":1,"b":2}`},
		{"test at the root compares the whole document",
			`{"a":[1,{"b":2}]}`, `[{"op":"test","path":"","value":{"a":[1,{"b":2}]}}]`, `{"a":[1,{"b":2}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := JSONPatch(decodeObject(t, c.doc), []byte(c.patch))
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, c.want, got)
		})
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
	requireKind(t, err, ErrNotApplicable, `error in remove for path: '/metadata/labels/nope'`)
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
	requireKind(t, err, ErrNotApplicable, `testing value /metadata/resourceVersion failed: test failed`)
}

// "replace" at the root replaces the whole document with an object; "move"
// to the same place is a no-op; an empty patch changes nothing.
func TestJSONPatchEdgeCases(t *testing.T) {
	cases := []struct{ doc, patch, want string }{
		{`{"a":1}`, `[]`, `{"a":1}`},
		{`{"a":1}`, `[{"op":"replace","path":"","value":{"c":3}}]`, `{"c":3}`},
		{`{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`},
		{`{"a":1}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`},
		{`{"a":{"b":1}}`, `[{"op":"copy","from":"/a","path":"/c"}]`, `{"a":{"b":1},"c":{"b":1}}`},
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
