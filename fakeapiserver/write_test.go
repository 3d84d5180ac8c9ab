package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

const podJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"demo-d","labels":{"app":"demo"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`

// A create answers 201 with the object as stored: the server has set uid,
// resourceVersion, creationTimestamp, generation, defaults and the initial
// status (compare the repository's testdata/kube-apiserver-1.36/02-create-pod.txt).
func TestCreate_SetsServerFields(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods", podJSON)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	var p api.Pod
	r.decode(t, &p)
	require.Equal(t, "default", p.Namespace, "namespace comes from the URL")
	require.Len(t, p.UID, 36)
	require.Equal(t, e.srv.ResourceVersion(), p.ResourceVersion)
	require.Equal(t, int64(1), p.Generation)
	require.Equal(t, epoch, p.CreationTimestamp.UTC())
	require.Equal(t, api.PodPending, p.Status.Phase)
	require.Equal(t, api.RestartPolicyAlways, p.Spec.RestartPolicy)
	require.Contains(t, string(r.body), `"imagePullPolicy":"Always"`)
	require.Contains(t, string(r.body), `"qosClass":"BestEffort"`)
}

// Fields the typed structs do not know survive below spec: the server
// stores JSON, not structs (kubectl sends many such fields). Fields no
// version of the kind has (at the top level, in metadata) are dropped, as
// the real server drops them (fieldvalidation.go).
func TestCreate_UnknownFieldsSurviveRoundTrip(t *testing.T) {
	e := newEnv(t, Options{})
	body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"a":"b"},"bogus":1},` +
		`"spec":{"priorityClassName":"high","containers":[{"name":"c","image":"busybox","ports":[{"containerPort":8080}],"env":[{"name":"X","value":"1"}]}],` +
		`"someFutureField":{"nested":[1,2.5,"x",true,null]}},"topLevelBogus":{"nested":[1]}}`
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, "/api/v1/namespaces/default/pods", body).code)
	got := string(e.get("/api/v1/namespaces/default/pods/p").body)
	for _, want := range []string{`"priorityClassName":"high"`, `"ports":[{"containerPort":8080}]`, `"env":[{"name":"X","value":"1"}]`, `"someFutureField":{"nested":[1,2.5,"x",true,null]}`} {
		require.Contains(t, got, want)
	}
	require.NotContains(t, got, "topLevelBogus")
	require.NotContains(t, got, `"bogus"`)
}

func TestCreate_GenerateName(t *testing.T) {
	e := newEnv(t, Options{})
	body := `{"metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`
	seen := map[string]bool{}
	for range 5 {
		r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods", body)
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
		var p api.Pod
		r.decode(t, &p)
		require.Regexp(t, `^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`, p.Name)
		require.False(t, seen[p.Name])
		seen[p.Name] = true
		require.Contains(t, string(r.body), `"imagePullPolicy":"IfNotPresent"`, "a tagged image defaults to IfNotPresent")
	}
}

// Every bad create is a Status with the right code, reason and message,
// never a panic or a plain-text 500.
func TestCreate_Errors(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "demo-a", nil)
	pod := func(meta string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":` + meta + `,"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
	}
	for _, tc := range []struct {
		name    string
		path    string
		body    string
		ctype   string
		code    int
		reason  api.StatusReason
		message string
		field   string
	}{
		{"already exists", "/api/v1/namespaces/default/pods", pod(`{"name":"demo-a"}`), "", 409, api.StatusReasonAlreadyExists, `pods "demo-a" already exists`, ""},
		{"namespace missing", "/api/v1/namespaces/no-such-ns/pods", pod(`{"name":"x"}`), "", 404, api.StatusReasonNotFound, `namespaces "no-such-ns" not found`, ""},
		{"namespace mismatch", "/api/v1/namespaces/default/pods", pod(`{"name":"x","namespace":"kube-system"}`), "", 400, api.StatusReasonBadRequest, "the namespace of the provided object does not match the namespace sent on the request", ""},
		{"kind mismatch", "/api/v1/namespaces/default/pods", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, "", 400, api.StatusReasonBadRequest, `ConfigMap in version "v1" cannot be handled as a Pod: converting (v1.ConfigMap) to (core.Pod): unknown conversion`, ""},
		{"apiVersion mismatch", "/api/v1/namespaces/default/pods", `{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"x"}}`, "", 400, api.StatusReasonBadRequest, `Pod in version "v1" cannot be handled as a Pod: no kind "Pod" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`, ""},
		{"malformed JSON", "/api/v1/namespaces/default/pods", `{"apiVersion":`, "", 400, api.StatusReasonBadRequest, `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":)`, ""},
		{"not an object", "/api/v1/namespaces/default/pods", `[1,2]`, "", 400, api.StatusReasonBadRequest, `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b312c325d)`, ""},
		{"trailing data", "/api/v1/namespaces/default/pods", pod(`{"name":"x"}`) + `{}`, "", 400, api.StatusReasonBadRequest, "", ""},
		{"no containers", "/api/v1/namespaces/default/pods", `{"metadata":{"name":"bad"},"spec":{}}`, "", 422, api.StatusReasonInvalid, `Pod "bad" is invalid: spec.containers: Required value`, "spec.containers"},
		{"no name", "/api/v1/namespaces/default/pods", pod(`{}`), "", 422, api.StatusReasonInvalid, `Pod "" is invalid: metadata.name: Required value: name or generateName is required`, "metadata.name"},
		{"bad name", "/api/v1/namespaces/default/pods", pod(`{"name":"Bad_Name"}`), "", 422, api.StatusReasonInvalid, "", "metadata.name"},
		{"bad label", "/api/v1/namespaces/default/pods", pod(`{"name":"x","labels":{"a":"no spaces"}}`), "", 422, api.StatusReasonInvalid, "", "metadata.labels"},
		// The storage layer's plain error: 500 without a reason
		// (15-differential: create-invalid/resourceversion-set).
		{"resourceVersion set", "/api/v1/namespaces/default/pods", pod(`{"name":"x","resourceVersion":"5"}`), "", 500, "", "resourceVersion should not be set on objects to be created", ""},
		{"protobuf body", "/api/v1/namespaces/default/pods", "\x6b\x38\x73\x00", "application/vnd.kubernetes.protobuf", 415, api.StatusReasonUnsupportedMediaType, "", ""},
		// A YAML body is read as the JSON it converts to (yamlbody.go).
		{"yaml body", "/api/v1/namespaces/default/pods", "kind: Pod\nspec:\n  containers:\n  - {name: c, image: i}\n", "application/yaml", 422, api.StatusReasonInvalid, "", "metadata.name"},
		{"text/yaml body", "/api/v1/namespaces/default/pods", "kind: Pod", "text/yaml", 415, api.StatusReasonUnsupportedMediaType, "", ""},
		{"replicaset selector does not match template", "/apis/apps/v1/namespaces/default/replicasets",
			`{"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			"", 422, api.StatusReasonInvalid, "", "spec.template.metadata.labels"},
		{"create on an object path", "/api/v1/namespaces/default/pods/x", pod(`{"name":"x"}`), "", 405, api.StatusReasonMethodNotAllowed, "", ""},
		{"create across namespaces", "/api/v1/pods", pod(`{"name":"x"}`), "", 405, api.StatusReasonMethodNotAllowed, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctype := tc.ctype
			if ctype == "" {
				ctype = "application/json"
			}
			r := e.do(http.MethodPost, tc.path, tc.body, "Content-Type", ctype)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			st := r.status(t)
			require.Equal(t, tc.reason, st.Reason)
			require.Equal(t, int32(tc.code), st.Code)
			if tc.message != "" {
				require.Equal(t, tc.message, st.Message)
			}
			if tc.field != "" {
				require.Equal(t, tc.field, st.Details.Causes[0].Field)
			}
		})
	}

	// A 422 for a kind of a named group: the message qualifies the kind
	// (ReplicaSet.apps), the details keep kind and group apart, as the real
	// server's do (compare ListOptions.meta.k8s.io in 13-gone-410-and-too-large.txt).
	r := e.do(http.MethodPost, "/apis/apps/v1/namespaces/default/replicasets", `{"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"app":"a"}}}}`)
	st := r.status(t)
	require.True(t, strings.HasPrefix(st.Message, `ReplicaSet.apps "rs" is invalid: `), st.Message)
	require.Equal(t, "ReplicaSet", st.Details.Kind)
	require.Equal(t, "apps", st.Details.Group)
}

func TestCreate_BodyOver3MiBIs413(t *testing.T) {
	e := newEnv(t, Options{})
	big := `{"metadata":{"name":"big","annotations":{"x":"` + strings.Repeat("a", 3<<20) + `"}}}`
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/configmaps", big)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.code)
	require.Equal(t, "Request entity too large: limit is 3145728", r.status(t).Message)
}

// Optimistic concurrency: an update must name the resourceVersion it read;
// if someone wrote in between, 409 Conflict. Without a resourceVersion the
// update is unconditional, as the real server allows for pods.
func TestUpdate_ConflictOnStaleResourceVersion(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "demo-a", nil)
	stale := p.ResourceVersion

	p.Labels = map[string]string{"touched": "yes"}
	r := e.do(http.MethodPut, "/api/v1/namespaces/default/pods/demo-a", mustJSON(t, p))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	p.ResourceVersion = stale
	p.Labels = map[string]string{"touched": "again"}
	r = e.do(http.MethodPut, "/api/v1/namespaces/default/pods/demo-a", mustJSON(t, p))
	require.Equal(t, http.StatusConflict, r.code)
	require.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"demo-a\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"demo-a","kind":"pods"},"code":409}`, string(r.body))

	p.ResourceVersion = ""
	r = e.do(http.MethodPut, "/api/v1/namespaces/default/pods/demo-a", mustJSON(t, p))
	require.Equal(t, http.StatusOK, r.code, "an update without resourceVersion is unconditional")

	other := *p
	other.Name = "other"
	r = e.do(http.MethodPut, "/api/v1/namespaces/default/pods/demo-a", mustJSON(t, &other))
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Equal(t, "the name of the object (other) does not match the name on the URL (demo-a)", r.status(t).Message)

	r = e.do(http.MethodPut, "/api/v1/namespaces/default/pods/missing", `{"metadata":{"name":"missing"},"spec":{"containers":[{"name":"c","image":"i"}]}}`)
	require.Equal(t, http.StatusNotFound, r.code)
}

// The main resource ignores status; the /status subresource ignores spec.
// (That split is why a controller writes status with UpdateStatus.) Labels
// and annotations change through either, as on the real server: the status
// strategies of pods, ReplicaSets and namespaces keep only the spec (and a
// pod's ownerReferences) from the stored object.
func TestUpdate_StatusSubresourceSplit(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "web", nil)

	p.Status.Phase = api.PodRunning
	p.Labels = map[string]string{"a": "b"}
	got, err := e.srv.Update(p)
	require.NoError(t, err)
	require.Equal(t, api.PodPending, got.(*api.Pod).Status.Phase, "PUT on the object ignores status")
	require.Equal(t, "b", got.GetLabels()["a"])

	p = got.(*api.Pod)
	p.Status.Phase = api.PodRunning
	p.Status.PodIP = "10.0.0.7"
	p.Labels = map[string]string{"a": "from-status"}
	p.Spec.NodeName = "node-9"
	r := e.do(http.MethodPut, "/api/v1/namespaces/default/pods/web/status", mustJSON(t, p))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var after api.Pod
	r.decode(t, &after)
	require.Equal(t, api.PodRunning, after.Status.Phase)
	require.Equal(t, "10.0.0.7", after.Status.PodIP)
	require.Equal(t, "from-status", after.Labels["a"], "PUT on /status applies labels too")
	require.Empty(t, after.Spec.NodeName, "PUT on /status ignores spec")
	require.Equal(t, int64(1), after.Generation, "a status change does not bump generation")

	r = e.do(http.MethodGet, "/api/v1/namespaces/default/configmaps/x/status", "")
	require.Equal(t, http.StatusNotFound, r.code, "configmaps have no status subresource")
}

func TestUpdate_GenerationBumpsOnSpecChangeOnly(t *testing.T) {
	e := newEnv(t, Options{})
	three := int32(3)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{Replicas: &three, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}},
	}
	obj, err := e.srv.Create(rs)
	require.NoError(t, err)
	rs = obj.(*api.ReplicaSet)
	require.Equal(t, int64(1), rs.Generation)

	rs.Labels = map[string]string{"team": "a"}
	obj, err = e.srv.Update(rs)
	require.NoError(t, err)
	rs = obj.(*api.ReplicaSet)
	require.Equal(t, int64(1), rs.Generation, "a metadata change leaves generation alone")

	five := int32(5)
	rs.Spec.Replicas = &five
	obj, err = e.srv.Update(rs)
	require.NoError(t, err)
	require.Equal(t, int64(2), obj.GetGeneration(), "a spec change bumps generation")
}

// Writing what is already stored changes nothing: no new resourceVersion,
// no watch event, as on the real server.
func TestUpdate_NoOpKeepsResourceVersion(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "web", map[string]string{"a": "b"})
	got, err := e.srv.Update(p)
	require.NoError(t, err)
	require.Equal(t, p.ResourceVersion, got.GetResourceVersion())
	require.Equal(t, p.ResourceVersion, e.srv.ResourceVersion())
}

// The three patch types kubectl and controllers send.
func TestPatch_ThreeTypes(t *testing.T) {
	e := newEnv(t, Options{})
	pod := testPod("default", "web", map[string]string{"app": "web"})
	pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: "sidecar", Image: "envoy"})
	_, err := e.srv.Create(pod)
	require.NoError(t, err)
	patch := func(ctype, body string) response {
		return e.do(http.MethodPatch, "/api/v1/namespaces/default/pods/web", body, "Content-Type", ctype)
	}

	// kubectl label sends a JSON merge patch.
	r := patch("application/merge-patch+json", `{"metadata":{"labels":{"patched":"true","app":null}}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var p api.Pod
	r.decode(t, &p)
	require.Equal(t, map[string]string{"patched": "true"}, p.Labels)

	// A JSON patch (RFC 6902) addresses fields by pointer.
	r = patch("application/json-patch+json", `[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:2"},{"op":"test","path":"/metadata/name","value":"web"}]`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r.decode(t, &p)
	require.Equal(t, "busybox:2", p.Spec.Containers[0].Image)

	// A strategic merge patch merges containers by name instead of
	// replacing the list. (A pod's container list is immutable, as on the
	// real server, so this and the next step patch a ReplicaSet's template.)
	rs := `{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`
	require.Equal(t, http.StatusCreated, e.do(http.MethodPost, "/apis/apps/v1/namespaces/default/replicasets", rs).code)
	patchRS := func(ctype, body string) []api.Container {
		t.Helper()
		r := e.do(http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/web", body, "Content-Type", ctype)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		var got api.ReplicaSet
		r.decode(t, &got)
		return got.Spec.Template.Spec.Containers
	}
	// Without $setElementOrder an added element goes first, as in
	// apimachinery's strategicpatch (kubectl apply sends the order).
	require.Equal(t, []api.Container{{Name: "sidecar", Image: "envoy:2"}, {Name: "c", Image: "busybox"}},
		patchRS("application/strategic-merge-patch+json", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy:2"}]}}}}`))

	// A merge patch replaces the whole list.
	require.Equal(t, []api.Container{{Name: "only", Image: "x"}},
		patchRS("application/merge-patch+json", `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"x"}]}}}}`))

	for _, tc := range []struct {
		name, ctype, body string
		code              int
	}{
		{"stale resourceVersion in the patch", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"}}`, 409},
		{"failed JSON patch test", "application/json-patch+json", `[{"op":"test","path":"/metadata/name","value":"nope"}]`, 422},
		{"malformed merge patch", "application/merge-patch+json", `{"metadata":`, 400},
		{"server-side apply without fieldManager", "application/apply-patch+yaml", `metadata: {}`, 422},
		{"plain JSON", "application/json", `{}`, 415},
		{"renaming", "application/merge-patch+json", `{"metadata":{"name":"other"}}`, 400},
		{"breaking validation", "application/merge-patch+json", `{"spec":{"containers":null}}`, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := patch(tc.ctype, tc.body)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			require.Equal(t, int32(tc.code), r.status(t).Code)
		})
	}
	r = e.do(http.MethodPatch, "/api/v1/namespaces/default/pods/missing", `{}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusNotFound, r.code)
}

// A DELETE returns the object's last state; the watch sees a DELETED whose
// resourceVersion is the deletion's. A pod is deleted gracefully: first
// marked (MODIFIED, with deletionTimestamp), then removed, as in
// the repository's testdata/kube-apiserver-1.36/10-watch-events.txt.
func TestDelete_ReturnsObjectAndPodsGoGracefully(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "watch-1", nil)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + p.ResourceVersion)

	r := e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/watch-1", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var gone api.Pod
	r.decode(t, &gone)
	require.NotNil(t, gone.DeletionTimestamp)
	require.Equal(t, int64(2), gone.Generation, "marking for deletion bumps generation")
	require.Equal(t, e.srv.ResourceVersion(), gone.ResourceVersion)

	modified, deleted := ws.next(), ws.next()
	require.Equal(t, api.Modified, modified.Type)
	require.NotNil(t, modified.meta(t).DeletionTimestamp)
	require.Equal(t, api.Deleted, deleted.Type)
	require.Equal(t, gone.ResourceVersion, deleted.meta(t).ResourceVersion, "DELETED carries the deletion's resourceVersion")

	r = e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/watch-1", "")
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, `pods "watch-1" not found`, r.status(t).Message)
}

func TestDelete_Preconditions(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "demo-c", nil)
	rv := e.srv.ResourceVersion()
	r := e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/demo-c", `{"preconditions":{"resourceVersion":"1"}}`)
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, fmt.Sprintf("Operation cannot be fulfilled on Pod \"demo-c\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (%s). The object might have been modified", rv), r.status(t).Message)
	r = e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/demo-c", `{"preconditions":{"uid":"nope"}}`)
	require.Equal(t, http.StatusConflict, r.code)
	r = e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/demo-c", `{"preconditions":`)
	require.Equal(t, http.StatusBadRequest, r.code)
	r = e.do(http.MethodDelete, "/api/v1/namespaces/default/pods/demo-c", `{"preconditions":{"resourceVersion":"`+rv+`"}}`)
	require.Equal(t, http.StatusOK, r.code)
}

// With finalizers a delete only marks the object; it goes when an update
// removes the last finalizer.
func TestDelete_FinalizersKeepObjectUntilRemoved(t *testing.T) {
	e := newEnv(t, Options{})
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default", Finalizers: []string{"example.com/cleanup"}}}
	_, err := e.srv.Create(cm)
	require.NoError(t, err)

	obj, err := e.srv.Delete("configmaps", "default", "cfg")
	require.NoError(t, err)
	require.NotNil(t, obj.GetDeletionTimestamp())
	still, err := e.srv.Get("configmaps", "default", "cfg")
	require.NoError(t, err, "the object stays while a finalizer remains")

	cm = still.(*api.ConfigMap)
	cm.Finalizers = append(cm.Finalizers, "example.com/another")
	_, err = e.srv.Update(cm)
	require.Error(t, err, "no new finalizers during deletion")
	require.Contains(t, err.Error(), "no new finalizers can be added if the object is being deleted")

	cm.Finalizers = nil
	_, err = e.srv.Update(cm)
	require.NoError(t, err)
	_, err = e.srv.Get("configmaps", "default", "cfg")
	require.Equal(t, int32(404), err.(*api.Status).Code, "removing the last finalizer deletes it")
}

func TestDelete_NamespaceTakesItsContents(t *testing.T) {
	e := newEnv(t, Options{})
	_, err := e.srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}})
	require.NoError(t, err)
	e.createPod("team-a", "p", nil)
	e.createPod("default", "keep", nil)
	_, err = e.srv.Delete("namespaces", "", "team-a")
	require.NoError(t, err)
	pods, _, err := e.srv.List("pods", "")
	require.NoError(t, err)
	require.Len(t, pods, 1)
	require.Equal(t, "keep", pods[0].GetName())

	r := e.do(http.MethodDelete, "/api/v1/namespaces/default", "")
	require.Equal(t, http.StatusForbidden, r.code)
	require.Equal(t, `namespaces "default" is forbidden: this namespace may not be deleted`, r.status(t).Message)

	// Namespaces have no deletecollection verb (01-discovery.txt): DELETE
	// on the collection is 405, and deletes nothing.
	r = e.do(http.MethodDelete, "/api/v1/namespaces", "")
	require.Equal(t, http.StatusMethodNotAllowed, r.code, "%s", r.body)
	require.Equal(t, api.StatusReasonMethodNotAllowed, r.status(t).Reason)
	nss, _, err := e.srv.List("namespaces", "")
	require.NoError(t, err)
	require.Len(t, nss, 3)
}

func TestDeleteCollection_BySelector(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "a", map[string]string{"app": "x"})
	e.createPod("default", "b", map[string]string{"app": "x"})
	e.createPod("default", "c", map[string]string{"app": "y"})
	r := e.do(http.MethodDelete, "/api/v1/namespaces/default/pods?labelSelector=app%3Dx", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	names, _ := e.listNames("/api/v1/namespaces/default/pods")
	require.Equal(t, []string{"c"}, names)
}

// dryRun=All answers as if it wrote, and writes nothing.
func TestDryRun_WritesNothing(t *testing.T) {
	e := newEnv(t, Options{})
	rv := e.srv.ResourceVersion()
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods?dryRun=All", podJSON)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	var p api.Pod
	r.decode(t, &p)
	require.Equal(t, "demo-d", p.Name)
	require.Empty(t, p.ResourceVersion)
	require.Equal(t, rv, e.srv.ResourceVersion())
	require.Equal(t, http.StatusNotFound, e.get("/api/v1/namespaces/default/pods/demo-d").code)
	// 422 Invalid, as ValidateCreateOptions answers (see writeoptions_test.go).
	require.Equal(t, http.StatusUnprocessableEntity, e.do(http.MethodPost, "/api/v1/namespaces/default/pods?dryRun=Some", podJSON).code)
}

// With --token every request must carry it (health checks and /version
// excepted, as the real server lets anyone read those).
func TestAuth_BearerToken(t *testing.T) {
	e := newEnv(t, Options{Token: "s3cret"})
	r := e.get("/api/v1/namespaces/default/pods")
	require.Equal(t, http.StatusUnauthorized, r.code)
	require.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, string(r.body))
	require.Equal(t, http.StatusUnauthorized, e.do(http.MethodGet, "/api/v1/namespaces/default/pods", "", "Authorization", "Bearer wrong").code)
	require.Equal(t, http.StatusUnauthorized, e.get("/api").code)
	require.Equal(t, http.StatusOK, e.do(http.MethodGet, "/api/v1/namespaces/default/pods", "", "Authorization", "Bearer s3cret").code)
	for _, p := range []string{"/healthz", "/readyz", "/livez", "/version"} {
		require.Equal(t, http.StatusOK, e.get(p).code, p)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
