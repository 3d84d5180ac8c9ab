package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
)

// fuzzKeys adds lists of the small seed documents to DefaultMergeKeys, so
// the fuzzer reaches keyed and set merges without guessing pod paths.
var fuzzKeys = func() MergeKeys {
	keys := MergeKeys{"l": "k", "s": MergeAsSet, "l.l": "k"}
	for k, v := range DefaultMergeKeys {
		keys[k] = v
	}
	return keys
}()

// fuzzDoc decodes the fuzzer's document bytes; ok is false unless they hold
// one JSON object.
func fuzzDoc(b []byte) (doc, pristine map[string]any, ok bool) {
	decode := func() (map[string]any, bool) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var m map[string]any
		return m, dec.Decode(&m) == nil && m != nil
	}
	doc, ok = decode()
	pristine, _ = decode()
	return doc, pristine, ok
}

// checkFuzzResult is the property every patch function must keep, whatever
// the input: no panic (the fuzzer catches those), the document unchanged,
// and either a JSON object that encodes or an error of one of the kinds.
func checkFuzzResult(t *testing.T, doc, pristine, got map[string]any, err error) {
	if !reflect.DeepEqual(doc, pristine) {
		t.Fatal("the patch changed its input document")
	}
	if err != nil {
		if got != nil {
			t.Fatal("a result returned with an error")
		}
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotApplicable) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("error %v wraps none of ErrMalformed, ErrNotApplicable and ErrTooLarge", err)
		}
		return
	}
	if got == nil {
		t.Fatal("no result and no error")
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
}

func fuzzSeeds(f *testing.F, patches ...string) {
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		f.Fatal(err)
	}
	docs := [][]byte{pod, []byte(`{"l":[{"k":1,"l":[{"k":"a"}]},{"k":"2"}],"s":["x",1],"a":{"b":[1,2]}}`), []byte(`{}`)}
	for _, d := range docs {
		for _, p := range patches {
			f.Add(d, []byte(p))
		}
	}
}

func FuzzMergePatch(f *testing.F) {
	fuzzSeeds(f, `{"a":{"b":null,"c":[1]}}`, `{"metadata":{"labels":{"x":"y"}}}`, `[]`, `null`, `{"l":{"k":1}}`)
	f.Fuzz(func(t *testing.T, docBytes, patch []byte) {
		doc, pristine, ok := fuzzDoc(docBytes)
		if !ok {
			return
		}
		got, err := MergePatch(doc, patch)
		checkFuzzResult(t, doc, pristine, got, err)
	})
}

func FuzzJSONPatch(f *testing.F) {
	fuzzSeeds(f,
		`[{"op":"add","path":"/a/b/-","value":3},{"op":"test","path":"/a/b/2","value":3.0}]`,
		`[{"op":"move","from":"/l/0","path":"/l/1"},{"op":"copy","from":"/s","path":"/t"},{"op":"remove","path":"/s/0"}]`,
		`[{"op":"replace","path":"","value":{"x":[]}},{"op":"add","path":"/x/0","value":null}]`,
		`[{"op":"replace","path":"/spec/containers/0/image","value":"x"}]`,
		`[{"op":"test","path":"/~01","value":"10"}]`)
	f.Fuzz(func(t *testing.T, docBytes, patch []byte) {
		doc, pristine, ok := fuzzDoc(docBytes)
		if !ok {
			return
		}
		got, err := JSONPatch(doc, patch)
		checkFuzzResult(t, doc, pristine, got, err)
	})
}

func FuzzStrategicMergePatch(f *testing.F) {
	fuzzSeeds(f,
		`{"l":[{"k":1,"v":2,"l":[{"k":"b"},{"$patch":"delete","k":"a"}]},{"k":"3"}],"$setElementOrder/l":[{"k":"3"},{"k":1}]}`,
		`{"s":["y",{"$patch":"replace"}],"$deleteFromPrimitiveList/s":[1]}`,
		`{"a":{"$patch":"replace","c":1},"$retainKeys":["a","l"]}`,
		`{"l":[{"$patch":"replace"},{"k":9}],"s":null}`,
		`{"spec":{"containers":[{"name":"web","env":[{"name":"X","value":"1"}]},{"$patch":"delete","name":"sidecar"}]}}`,
		`{"metadata":{"$setElementOrder/finalizers":["example.com/audit"],"finalizers":["example.com/audit"]}}`)
	f.Fuzz(func(t *testing.T, docBytes, patch []byte) {
		doc, pristine, ok := fuzzDoc(docBytes)
		if !ok {
			return
		}
		got, err := StrategicMergePatch(doc, patch, fuzzKeys)
		checkFuzzResult(t, doc, pristine, got, err)
	})
}
