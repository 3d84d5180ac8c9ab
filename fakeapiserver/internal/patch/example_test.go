package patch_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kinformer/kinformer/fakeapiserver/internal/patch"
)

// decode reads JSON the way the fake server stores objects.
func decode(s string) map[string]any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

func show(v any, err error) {
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

const pod = `{"metadata":{"name":"web","labels":{"app":"web"}},
	"spec":{"containers":[{"name":"web","image":"nginx:1.27"},{"name":"sidecar","image":"busybox"}]}}`

// What `kubectl label pod web tier=frontend` sends.
func ExampleMergePatch() {
	show(patch.MergePatch(decode(pod), []byte(`{"metadata":{"labels":{"tier":"frontend"}}}`)))
	// Output:
	// {"metadata":{"labels":{"app":"web","tier":"frontend"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"web"},{"image":"busybox","name":"sidecar"}]}}
}

// A controller changes one container by index, guarded by a test; the
// second patch fails its test and changes nothing.
func ExampleJSONPatch() {
	show(patch.JSONPatch(decode(pod), []byte(`[
		{"op":"test","path":"/spec/containers/1/name","value":"sidecar"},
		{"op":"replace","path":"/spec/containers/1/image","value":"busybox:1.37"}]`)))
	show(patch.JSONPatch(decode(pod), []byte(`[
		{"op":"test","path":"/metadata/labels/app","value":"db"},
		{"op":"remove","path":"/spec/containers/1"}]`)))
	// Output:
	// {"metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"web"},{"image":"busybox:1.37","name":"sidecar"}]}}
	// error: testing value /metadata/labels/app failed: test failed
}

// What `kubectl patch pod web -p ...` sends by default: the containers list
// merges by name, so only the web container changes; a $patch: delete
// element removes the sidecar.
func ExampleStrategicMergePatch() {
	show(patch.StrategicMergePatch(decode(pod),
		[]byte(`{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}`), patch.DefaultMergeKeys))
	show(patch.StrategicMergePatch(decode(pod),
		[]byte(`{"spec":{"containers":[{"$patch":"delete","name":"sidecar"}]}}`), patch.DefaultMergeKeys))
	// Output:
	// {"metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.28","name":"web"},{"image":"busybox","name":"sidecar"}]}}
	// {"metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}
}
