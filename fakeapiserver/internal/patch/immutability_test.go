package patch

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patchFunc is one of the three patch functions, with DefaultMergeKeys for
// the strategic one.
type patchFunc func(doc map[string]any, patch []byte) (map[string]any, error)

var patchFuncs = map[string]patchFunc{
	"MergePatch": MergePatch,
	"JSONPatch":  JSONPatch,
	"StrategicMergePatch": func(doc map[string]any, patch []byte) (map[string]any, error) {
		return StrategicMergePatch(doc, patch, DefaultMergeKeys)
	},
}

// Patches that touch every part of the pod, for each function, some of them
// failing halfway.
var mutationPatches = map[string][]string{
	"MergePatch": {
		`{"metadata":{"labels":{"app":null,"new":"x"},"finalizers":["a"]},"spec":{"containers":[{"name":"web"}]},"status":null}`,
		`{"spec":{"volumes":[{"name":"config","configMap":null}],"securityContext":{"runAsUser":1}}}`,
	},
	"JSONPatch": {
		`[{"op":"replace","path":"/spec/containers/0/image","value":"x"},{"op":"remove","path":"/spec/containers/1"},
		  {"op":"add","path":"/metadata/finalizers/0","value":"a"},{"op":"move","from":"/status/conditions/0","path":"/status/conditions/-"},
		  {"op":"copy","from":"/spec/volumes","path":"/spec/volumes2"},{"op":"remove","path":"/metadata/labels/app"}]`,
		`[{"op":"remove","path":"/spec/containers/0/env/0"},{"op":"add","path":"/spec/containers/0/ports/-","value":{}},
		  {"op":"test","path":"/metadata/name","value":"not-this-pod"}]`,
	},
	"StrategicMergePatch": {
		`{"metadata":{"labels":{"app":null},"$deleteFromPrimitiveList/finalizers":["example.com/audit"],"finalizers":["z"]},
		  "spec":{"containers":[{"name":"web","env":[{"$patch":"delete","name":"MODE"},{"name":"LOG_LEVEL","value":"debug"}],
		  "ports":[{"containerPort":80,"name":"web"}]},{"$patch":"delete","name":"sidecar"}],
		  "volumes":[{"name":"cache","$retainKeys":["name"]}],"$setElementOrder/containers":[{"name":"web"}]},
		  "status":{"conditions":[{"type":"Ready","status":"False"}]}}`,
		`{"spec":{"containers":[{"name":"web","resources":{"$patch":"replace","limits":{"cpu":"1"}}},{"image":"no-name"}]}}`,
	},
}

// The caller's document is never modified, whether the patch succeeds or
// fails: the server's stored objects are shared with readers.
func TestPatchesNeverMutateTheDocument(t *testing.T) {
	for name, apply := range patchFuncs {
		for _, p := range mutationPatches[name] {
			pod, pristine := loadPod(t), loadPod(t)
			_, _ = apply(pod, []byte(p))
			if diff := cmp.Diff(pristine, pod); diff != "" {
				t.Errorf("%s(%s) changed its input (-before +after):\n%s", name, p, diff)
			}
		}
	}
}

// The result shares no map or slice with the document: scribbling over
// every map and slice of the result leaves the document as it was. (Without
// this, the server setting metadata.resourceVersion on a patched object
// could reach into the old, still-shared one.)
func TestPatchResultSharesNothingWithTheDocument(t *testing.T) {
	for name, apply := range patchFuncs {
		pod, pristine := loadPod(t), loadPod(t)
		empty := map[string]string{"MergePatch": `{}`, "JSONPatch": `[]`, "StrategicMergePatch": `{}`}[name]
		got, err := apply(pod, []byte(empty))
		if err != nil {
			t.Fatal(err)
		}
		scribble(got)
		if diff := cmp.Diff(pristine, pod); diff != "" {
			t.Errorf("changing %s's result changed its input (-before +after):\n%s", name, diff)
		}
	}
}

// scribble overwrites everything reachable from v: every map gets a new
// member and every slice element is replaced, after recursing.
func scribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			scribble(e)
		}
		v["scribbled"] = true
	case []any:
		for i, e := range v {
			scribble(e)
			v[i] = "scribbled"
		}
	}
}

// Readers may read the stored object while patches run on it: under -race
// this fails if a patch writes to the document at all.
func TestPatchWhileReadersReadTheDocument(t *testing.T) {
	pod := loadPod(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if _, err := json.Marshal(pod); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for name, apply := range patchFuncs {
		wg.Go(func() {
			for range 20 {
				for _, p := range mutationPatches[name] {
					_, _ = apply(pod, []byte(p))
				}
			}
		})
	}
	wg.Wait()
}
