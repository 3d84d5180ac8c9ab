package patch

import (
	"slices"
	"testing"
)

// smp applies a strategic merge patch with DefaultMergeKeys to the test pod.
func smp(t *testing.T, patch string) map[string]any {
	t.Helper()
	got, err := StrategicMergePatch(loadPod(t), []byte(patch), DefaultMergeKeys)
	if err != nil {
		t.Fatalf("StrategicMergePatch(%s): %v", patch, err)
	}
	return got
}

func requireNames(t *testing.T, list any, key string, want ...string) {
	t.Helper()
	if got := names(t, list, key); !slices.Equal(got, want) {
		t.Errorf("%s order = %q, want %q", key, got, want)
	}
}

// The body that, as a merge patch, wipes the pod down to one bare container
// (TestMergePatchReplacesArrays) changes only the web container's image as
// a strategic merge patch: containers merge by name.
func TestStrategicMergeContainerByName(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web", "sidecar")
	if v := at(t, got, "spec", "containers", 0, "image"); v != "nginx:1.28" {
		t.Errorf("web image = %v", v)
	}
	if v := at(t, got, "spec", "containers", 0, "ports", 0, "name"); v != "http" {
		t.Errorf("web's other fields were lost: ports[0].name = %v", v)
	}
	if v := at(t, got, "spec", "containers", 1, "image"); v != "busybox:1.36" {
		t.Errorf("sidecar changed: image = %v", v)
	}
}

// A container the pod lacks is added. Without $setElementOrder it goes
// first, before the untouched containers, exactly as Kubernetes'
// strategicpatch orders it; with the $setElementOrder kubectl apply sends, it
// goes where the manifest has it.
func TestStrategicMergeAddsContainer(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[{"name":"debug","image":"busybox"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "debug", "web", "sidecar")
	assertJSON(t, `{"name":"debug","image":"busybox"}`, at(t, got, "spec", "containers", 0))

	got = smp(t, `{"spec":{
		"$setElementOrder/containers":[{"name":"web"},{"name":"sidecar"},{"name":"debug"}],
		"containers":[{"name":"debug","image":"busybox"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web", "sidecar", "debug")
	if _, ok := got["spec"].(map[string]any)["$setElementOrder/containers"]; ok {
		t.Error("the directive was stored in the object")
	}
}

// {"$patch": "delete", "name": "sidecar"} removes the sidecar container.
func TestStrategicMergeDeleteDirective(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[{"$patch":"delete","name":"sidecar"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web")

	got = smp(t, `{"spec":{"containers":[{"$patch":"delete","name":"nope"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web", "sidecar")
}

// {"$patch": "replace"} in a list makes the other elements replace it.
func TestStrategicMergeReplaceListDirective(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[{"$patch":"replace"},{"name":"only","image":"x","args":null}]}}`)
	assertJSON(t, `[{"name":"only","image":"x"}]`, at(t, got, "spec", "containers"))

	got = smp(t, `{"metadata":{"finalizers":[{"$patch":"replace"},"example.com/only"]}}`)
	assertJSON(t, `["example.com/only"]`, at(t, got, "metadata", "finalizers"))
}

// "$patch": "replace" in an object replaces it instead of merging into it;
// "$patch": "delete" empties it.
func TestStrategicMergeReplaceAndDeleteMapDirectives(t *testing.T) {
	got := smp(t, `{"metadata":{"labels":{"$patch":"replace","team":"a","gone":null}}}`)
	assertJSON(t, `{"team":"a"}`, at(t, got, "metadata", "labels"))

	got = smp(t, `{"spec":{"containers":[{"name":"web","resources":{"$patch":"delete"}}]}}`)
	assertJSON(t, `{}`, at(t, got, "spec", "containers", 0, "resources"))
}

// metadata.finalizers is a set: the patch's values are added once each,
// the existing ones kept.
func TestStrategicMergeFinalizersAsSet(t *testing.T) {
	got := smp(t, `{"metadata":{"finalizers":["example.com/audit","example.com/new","example.com/new"]}}`)
	assertJSON(t, `["example.com/protect","example.com/audit","example.com/new"]`, at(t, got, "metadata", "finalizers"))

	// The same list, undeclared, is replaced as in a merge patch.
	plain, err := StrategicMergePatch(loadPod(t), []byte(`{"metadata":{"finalizers":["example.com/new"]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `["example.com/new"]`, at(t, plain, "metadata", "finalizers"))
}

// $deleteFromPrimitiveList/finalizers removes values from the set; a set
// merge alone can only add. Deletions run before the same patch's additions,
// so a value deleted and added again counts as new and goes first.
func TestStrategicMergeDeleteFromPrimitiveList(t *testing.T) {
	got := smp(t, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/protect","example.com/absent"]}}`)
	assertJSON(t, `["example.com/audit"]`, at(t, got, "metadata", "finalizers"))

	got = smp(t, `{"metadata":{
		"$deleteFromPrimitiveList/finalizers":["example.com/audit"],
		"finalizers":["example.com/audit","example.com/new"]}}`)
	assertJSON(t, `["example.com/audit","example.com/new","example.com/protect"]`, at(t, got, "metadata", "finalizers"))
}

// Lists inside list elements merge too: a container's env by name, addressed
// as "spec.containers.env" in MergeKeys.
func TestStrategicMergeNestedEnvByName(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[{"name":"web","env":[
		{"name":"LOG_LEVEL","value":"debug"},
		{"name":"NEW","value":"1"}]}]}}`)
	assertJSON(t, `[
		{"name":"MODE","value":"production"},
		{"name":"LOG_LEVEL","value":"debug"},
		{"name":"NEW","value":"1"}]`, at(t, got, "spec", "containers", 0, "env"))

	got = smp(t, `{"spec":{"containers":[{"name":"web","env":[{"$patch":"delete","name":"MODE"}]}]}}`)
	assertJSON(t, `[{"name":"LOG_LEVEL","value":"info"}]`, at(t, got, "spec", "containers", 0, "env"))

	// A ReplicaSet's pod template merges at spec.template.spec.
	rs := decodeObject(t, `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"a","env":[{"name":"X","value":"1"}]}]}}}}`)
	out, err := StrategicMergePatch(rs, []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"Y","value":"2"}]}]}}}}`), DefaultMergeKeys)
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `[{"name":"web","image":"a","env":[{"name":"Y","value":"2"},{"name":"X","value":"1"}]}]`,
		at(t, out, "spec", "template", "spec", "containers"))
}

// Status conditions merge by type, as the kubelet's status patches expect.
func TestStrategicMergeConditionsByType(t *testing.T) {
	got := smp(t, `{"status":{"conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady"}]}}`)
	requireNames(t, at(t, got, "status", "conditions"), "type", "Initialized", "Ready", "PodScheduled")
	assertJSON(t, `{"type":"Ready","status":"False","reason":"ContainersNotReady","lastTransitionTime":"2026-11-22T04:28:25Z"}`,
		at(t, got, "status", "conditions", 1))
}

// Owner references merge by uid; a new owner is added, the old one kept.
func TestStrategicMergeOwnerReferencesByUID(t *testing.T) {
	got := smp(t, `{"metadata":{"ownerReferences":[
		{"uid":"a6051856-6dde-4e82-83f3-376db6e14af5","blockOwnerDeletion":false},
		{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"u-2"}]}}`)
	requireNames(t, at(t, got, "metadata", "ownerReferences"), "uid", "a6051856-6dde-4e82-83f3-376db6e14af5", "u-2")
	if v := at(t, got, "metadata", "ownerReferences", 0, "blockOwnerDeletion"); v != false {
		t.Errorf("blockOwnerDeletion = %v", v)
	}
	if v := at(t, got, "metadata", "ownerReferences", 0, "kind"); v != "ReplicaSet" {
		t.Errorf("kind = %v; the merged owner lost its fields", v)
	}
}

// null deletes, as in a merge patch; null for an absent field is ignored,
// and nulls inside a new value are dropped.
func TestStrategicMergeNullDeletes(t *testing.T) {
	got := smp(t, `{"metadata":{"annotations":null,"labels":{"pod-template-hash":null},"absent":null},
		"spec":{"initContainers":[{"name":"init","image":"busybox","args":null}],"nodeSelector":{"zone":"a","gone":null}}}`)
	if _, ok := got["metadata"].(map[string]any)["annotations"]; ok {
		t.Error("annotations survived null")
	}
	assertJSON(t, `{"app":"web"}`, at(t, got, "metadata", "labels"))
	assertJSON(t, `[{"name":"init","image":"busybox"}]`, at(t, got, "spec", "initContainers"))
	assertJSON(t, `{"zone":"a"}`, at(t, got, "spec", "nodeSelector"))
}

// Lists Kubernetes keeps atomic, tolerations among them, are replaced.
func TestStrategicMergeUndeclaredListIsReplaced(t *testing.T) {
	got := smp(t, `{"spec":{"tolerations":[{"$patch":"replace"},{"key":"dedicated","operator":"Equal","value":"web"}]}}`)
	assertJSON(t, `[{"key":"dedicated","operator":"Equal","value":"web"}]`, at(t, got, "spec", "tolerations"))
}

// An empty list in the patch leaves a merged list alone, as in Kubernetes:
// merging nothing into it changes nothing.
func TestStrategicMergeEmptyListKeepsMergedList(t *testing.T) {
	got := smp(t, `{"spec":{"containers":[]},"metadata":{"finalizers":[]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web", "sidecar")
	assertJSON(t, `["example.com/protect","example.com/audit"]`, at(t, got, "metadata", "finalizers"))
}

// $setElementOrder alone reorders a merged list without changing it.
func TestStrategicMergeSetElementOrder(t *testing.T) {
	got := smp(t, `{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"web"}]},
		"metadata":{"$setElementOrder/finalizers":["example.com/audit","example.com/protect"]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "sidecar", "web")
	assertJSON(t, `["example.com/audit","example.com/protect"]`, at(t, got, "metadata", "finalizers"))

	// On a list that is not merged it has nothing to act on.
	got = smp(t, `{"spec":{"$setElementOrder/tolerations":[{"key":"x"}]}}`)
	if n := len(at(t, got, "spec", "tolerations").([]any)); n != 2 {
		t.Errorf("tolerations has %d elements, want 2", n)
	}
}

// What kubectl apply sends when the manifest changes one image: the new
// last-applied annotation, the order of the containers, and the change.
func TestStrategicMergeLikeKubectlApply(t *testing.T) {
	got := smp(t, `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},
		"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"sidecar"}],
		"containers":[{"image":"busybox:1.37","name":"sidecar"}]}}`)
	requireNames(t, at(t, got, "spec", "containers"), "name", "web", "sidecar")
	if v := at(t, got, "spec", "containers", 1, "image"); v != "busybox:1.37" {
		t.Errorf("sidecar image = %v", v)
	}
	if v := at(t, got, "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); v == nil {
		t.Error("the other annotation was lost")
	}
}

// $retainKeys drops the fields it does not list: switching a volume from
// emptyDir to hostPath leaves no emptyDir behind.
func TestStrategicMergeRetainKeys(t *testing.T) {
	got := smp(t, `{"spec":{"volumes":[{"name":"cache","$retainKeys":["hostPath","name"],"hostPath":{"path":"/tmp"}}]}}`)
	assertJSON(t, `{"name":"cache","hostPath":{"path":"/tmp"}}`, at(t, got, "spec", "volumes", 1))
	assertJSON(t, `{"name":"config","configMap":{"name":"web-config","defaultMode":420}}`, at(t, got, "spec", "volumes", 0))
}

// With no MergeKeys, a strategic merge patch is a merge patch plus the
// directives.
func TestStrategicMergeWithoutMergeKeys(t *testing.T) {
	got, err := StrategicMergePatch(loadPod(t), []byte(`{"spec":{"containers":[{"name":"web"}]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, `[{"name":"web"}]`, at(t, got, "spec", "containers"))
}

// Each way a strategic merge patch can be wrong gets its own message.
func TestStrategicMergeErrors(t *testing.T) {
	cases := []struct {
		patch string
		kind  error
		msg   string
	}{
		{`[]`, ErrMalformed, "strategic merge patch: the body must be a JSON object, not an array"},
		{`{`, ErrMalformed, "strategic merge patch: the body is not valid JSON"},
		{`{"spec":{"containers":["web"]}}`, ErrMalformed,
			`strategic merge patch: spec.containers is merged by "name", but element 0 of the patch is a string, not an object`},
		{`{"spec":{"containers":[{"image":"x"}]}}`, ErrMalformed,
			`strategic merge patch: spec.containers: element 0 of the patch has no merge key "name"`},
		{`{"spec":{"containers":[{"name":null}]}}`, ErrMalformed, `has null as its merge key "name"; want a string or number`},
		{`{"spec":{"containers":[{"name":"web"},{"$patch":"delete"}]}}`, ErrMalformed, `element 1 of the patch has no merge key "name"`},
		{`{"spec":{"$setElementOrder/containers":[{}]}}`, ErrMalformed,
			`spec.containers: element 0 of its $setElementOrder has no merge key "name"`},
		{`{"spec":{"containers":[{"$patch":"merge"}]}}`, ErrMalformed, `"$patch": "merge" is not supported in a list`},
		{`{"spec":{"containers":[{"$patch":"drop","name":"web"}]}}`, ErrMalformed, `unknown "$patch" directive "drop"`},
		{`{"metadata":{"$patch":"explode"}}`, ErrMalformed,
			`metadata: unknown "$patch" directive "explode" in an object (want "replace" or "delete")`},
		{`{"$patch":1}`, ErrMalformed, `the top-level object: unknown "$patch" directive 1`},
		{`{"metadata":{"finalizers":[{"a":1}]}}`, ErrMalformed,
			"metadata.finalizers is merged as a set of primitives, but element 0 of the patch is an object"},
		{`{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}`, ErrMalformed,
			"metadata.finalizers: $deleteFromPrimitiveList/finalizers must be a list, not a string"},
		{`{"metadata":{"$deleteFromPrimitiveList/finalizers":[[]]}}`, ErrMalformed, "must list strings or numbers, but element 0 is an array"},
		{`{"spec":{"$setElementOrder/containers":{}}}`, ErrMalformed,
			"spec.containers: $setElementOrder/containers must be a list, not an object"},
		{`{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"name":"x"}]}}`, ErrMalformed,
			"spec.containers: element 0 of the patch is missing from its $setElementOrder"},
		{`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a"},{"name":"b"}]}}`, ErrMalformed,
			"the patch list and its $setElementOrder order element 1 differently"},
		{`{"spec":{"$setElementOrder/containers":["web"]}}`, ErrMalformed, "element 0 of its $setElementOrder is a string, not an object"},
		{`{"metadata":{"$setElementOrder/finalizers":[{}]}}`, ErrMalformed, "element 0 of its $setElementOrder is an object, not a string or number"},
		{`{"metadata":{"$retainKeys":"name"}}`, ErrMalformed, "metadata: $retainKeys must be a list of field names, not a string"},
		{`{"metadata":{"$retainKeys":[1]}}`, ErrMalformed, "metadata: $retainKeys must list field names, but holds a number"},
		{`{"metadata":{"$retainKeys":["name"],"labels":{}}}`, ErrMalformed, `metadata: the patch sets "labels", which $retainKeys does not list`},
		{`{"spec":{"tolerations":[{"$patch":"delete","key":"x"}]}}`, ErrNotApplicable,
			`spec.tolerations: element 0 is a "$patch": "delete" directive, but this list is not merged by key (it has no entry in MergeKeys)`},
	}
	for _, c := range cases {
		got, err := StrategicMergePatch(loadPod(t), []byte(c.patch), DefaultMergeKeys)
		requireKind(t, err, c.kind, c.msg)
		if got != nil {
			t.Errorf("patch %s: a failed patch returned a result", c.patch)
		}
	}
}

// An object whose merged list holds something the merge cannot match is
// refused with the element named.
func TestStrategicMergeRefusesOddStoredLists(t *testing.T) {
	doc := decodeObject(t, `{"spec":{"containers":["web"]},"metadata":{"finalizers":[{"a":1}]}}`)
	_, err := StrategicMergePatch(doc, []byte(`{"spec":{"containers":[{"name":"web"}]}}`), DefaultMergeKeys)
	requireKind(t, err, ErrNotApplicable, `spec.containers is merged by "name", but the object's element 0 is a string, not an object`)
	_, err = StrategicMergePatch(doc, []byte(`{"metadata":{"finalizers":["x"]}}`), DefaultMergeKeys)
	requireKind(t, err, ErrNotApplicable, "metadata.finalizers is merged as a set of primitives, but the object's element 0 is an object")
}
