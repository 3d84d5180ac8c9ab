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

// seedAll creates one object of every resource: pod p, configmap cm and
// replicaset rs in default, and namespace team.
func (e *env) seedAll() {
	e.t.Helper()
	for path, body := range map[string]string{
		"/api/v1/namespaces/default/pods":              `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
		"/api/v1/namespaces/default/configmaps":        `{"metadata":{"name":"cm"},"data":{"k":"v"}}`,
		"/apis/apps/v1/namespaces/default/replicasets": `{"metadata":{"name":"rs"},"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
		"/api/v1/namespaces":                           `{"metadata":{"name":"team"}}`,
	} {
		r := e.do(http.MethodPost, path, body)
		require.Equal(e.t, http.StatusCreated, r.code, "%s: %s", path, r.body)
	}
}

// requireTypedListsDecode is the invariant the type check keeps: a typed
// LIST of every resource decodes, item by item, into its Go type (what an
// informer's reflector does). It returns the lists' bodies, so a caller can
// check that a refused write changed nothing.
func (e *env) requireTypedListsDecode() map[string]string {
	e.t.Helper()
	bodies := map[string]string{}
	for _, r := range builtinResources {
		path := "/api/" + r.Version + "/" + r.Name
		if r.Group != "" {
			path = "/apis/" + r.Group + "/" + r.Version + "/" + r.Name
		}
		resp := e.get(path)
		require.Equal(e.t, http.StatusOK, resp.code, "%s: %s", path, resp.body)
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		resp.decode(e.t, &list)
		for _, item := range list.Items {
			require.NoError(e.t, json.Unmarshal(item, r.New()), "%s item %s", path, item)
		}
		var meta struct {
			Metadata api.ListMeta `json:"metadata"`
		}
		resp.decode(e.t, &meta)
		bodies[r.Name] = strings.Replace(string(resp.body), `"resourceVersion":"`+meta.Metadata.ResourceVersion+`"`, "", 1)
	}
	return bodies
}

// A known field of the wrong JSON type is refused on every write path, as
// the real server refuses it: create, update and update of the status
// decode the body first and answer 400; a patch is decoded once applied and
// answers 422 on the field "patch" (JSON and merge patches show the
// patched object, a strategic merge patch shows the patch and the
// unstructured converter's words). After each refusal nothing has changed
// and every typed LIST still decodes.
func TestTypeCheck_EveryResourceEveryWritePath(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedAll()
	before := e.requireTypedListsDecode()

	type wrong struct {
		path     string // the object's path
		kind     string
		sub      string // "" or "status"
		body     string // a full object with one wrong field (create, update)
		merge    string // a merge (and strategic) patch setting it
		jsonOp   string // the same as a JSON patch
		decode   string // the decoder's words
		convert  string // the unstructured converter's words
		patchMap string // the strategic patch as Go prints it
	}
	cases := map[string]wrong{
		"pod spec.nodeName": {"/api/v1/namespaces/default/pods/p", "Pod", "",
			`{"metadata":{"name":"p"},"spec":{"nodeName":5,"containers":[{"name":"c","image":"busybox"}]}}`,
			`{"spec":{"nodeName":5}}`, `[{"op":"add","path":"/spec/nodeName","value":5}]`,
			"json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string",
			"cannot convert int64 to string", "map[spec:map[nodeName:5]]"},
		"pod status.phase": {"/api/v1/namespaces/default/pods/p", "Pod", "status",
			`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":7}}`,
			`{"status":{"phase":7}}`, `[{"op":"replace","path":"/status/phase","value":7}]`,
			"json: cannot unmarshal number into Go struct field PodStatus.status.phase of type v1.PodPhase",
			"cannot convert int64 to string", "map[status:map[phase:7]]"},
		"pod container list": {"/api/v1/namespaces/default/pods/p", "Pod", "",
			`{"metadata":{"name":"p"},"spec":{"containers":{"name":"c"}}}`,
			`{"spec":{"containers":{"name":"c"}}}`, `[{"op":"replace","path":"/spec/containers","value":{"name":"c"}}]`,
			"json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container",
			"cannot restore slice from map", "map[spec:map[containers:map[name:c]]]"},
		"configmap data": {"/api/v1/namespaces/default/configmaps/cm", "ConfigMap", "",
			`{"metadata":{"name":"cm"},"data":{"k":1}}`,
			`{"data":{"k":1}}`, `[{"op":"replace","path":"/data/k","value":1}]`,
			"json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
			"cannot convert int64 to string", "map[data:map[k:1]]"},
		"configmap labels": {"/api/v1/namespaces/default/configmaps/cm", "ConfigMap", "",
			`{"metadata":{"name":"cm","labels":{"a":true}}}`,
			`{"metadata":{"labels":{"a":true}}}`, `[{"op":"add","path":"/metadata/labels","value":{"a":true}}]`,
			"json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string",
			"unrecognized type: string", "map[metadata:map[labels:map[a:true]]]"},
		"replicaset spec.replicas": {"/apis/apps/v1/namespaces/default/replicasets/rs", "ReplicaSet", "",
			`{"metadata":{"name":"rs"},"spec":{"replicas":"3","selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			`{"spec":{"replicas":"3"}}`, `[{"op":"replace","path":"/spec/replicas","value":"3"}]`,
			"json: cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32",
			"unrecognized type: int32", "map[spec:map[replicas:3]]"},
		"replicaset status.replicas": {"/apis/apps/v1/namespaces/default/replicasets/rs", "ReplicaSet", "status",
			`{"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}},"status":{"replicas":1.5}}`,
			`{"status":{"replicas":1.5}}`, `[{"op":"replace","path":"/status/replicas","value":1.5}]`,
			"json: cannot unmarshal number 1.5 into Go struct field ReplicaSetStatus.status.replicas of type int32",
			"cannot convert float64 to int32", "map[status:map[replicas:1.5]]"},
		"namespace spec.finalizers": {"/api/v1/namespaces/team", "Namespace", "",
			`{"metadata":{"name":"team"},"spec":{"finalizers":"kubernetes"}}`,
			`{"spec":{"finalizers":"kubernetes"}}`, `[{"op":"replace","path":"/spec/finalizers","value":"kubernetes"}]`,
			"json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []string",
			"cannot restore slice from string", "map[spec:map[finalizers:kubernetes]]"},
		"namespace status.phase": {"/api/v1/namespaces/team", "Namespace", "status",
			`{"metadata":{"name":"team"},"status":{"phase":["Active"]}}`,
			`{"status":{"phase":["Active"]}}`, `[{"op":"replace","path":"/status/phase","value":["Active"]}]`,
			"json: cannot unmarshal array into Go struct field NamespaceStatus.status.phase of type v1.NamespacePhase",
			"unrecognized type: string", "map[status:map[phase:[Active]]]"},
	}
	for name, c := range cases {
		objPath := c.path
		if c.sub != "" {
			objPath += "/" + c.sub
		}
		collection := c.path[:strings.LastIndexByte(c.path, '/')]
		badRequest := fmt.Sprintf("%s in version \"v1\" cannot be handled as a %s: %s", c.kind, c.kind, c.decode)
		steps := []struct {
			verb, method, path, ctype, body string
		}{
			{"update", http.MethodPut, objPath, "application/json", c.body},
			{"merge patch", http.MethodPatch, objPath, string(MergePatchType), c.merge},
			{"json patch", http.MethodPatch, objPath, string(JSONPatchType), c.jsonOp},
			{"strategic merge patch", http.MethodPatch, objPath, string(StrategicMergePatchType), c.merge},
		}
		if c.sub == "" {
			steps = append(steps, struct{ verb, method, path, ctype, body string }{
				"create", http.MethodPost, collection, "application/json", strings.Replace(c.body, c.path[strings.LastIndexByte(c.path, '/')+1:], "fresh", 1)})
		}
		for _, s := range steps {
			t.Run(name+"/"+s.verb, func(t *testing.T) {
				r := e.do(s.method, s.path, s.body, "Content-Type", s.ctype)
				st := r.status(t)
				switch s.verb {
				case "create", "update":
					require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
					require.Equal(t, api.StatusReasonBadRequest, st.Reason)
					require.Equal(t, badRequest, st.Message)
				default:
					require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
					require.Equal(t, api.StatusReasonInvalid, st.Reason)
					require.Len(t, st.Details.Causes, 1)
					require.Equal(t, "patch", st.Details.Causes[0].Field)
					require.Equal(t, api.CauseTypeFieldValueInvalid, st.Details.Causes[0].Type)
					if s.verb == "strategic merge patch" {
						require.Equal(t, fmt.Sprintf(` "" is invalid: patch: Invalid value: %q: %s`, c.patchMap, c.convert), st.Message)
					} else {
						// json-patch v4 writes the top level sorted (patchrender.go).
						require.True(t, strings.HasPrefix(st.Message, ` "" is invalid: patch: Invalid value: "{\"apiVersion\":\"`), st.Message)
						require.Contains(t, st.Message, `\"kind\":\"`+c.kind+`\"`)
						require.True(t, strings.HasSuffix(st.Message, `}": `+c.decode), st.Message)
					}
				}
				require.Equal(t, before, e.requireTypedListsDecode(), "a refused write changed a list")
			})
		}
	}
}

// The exact body of the 400, as kube-apiserver writes it (the form of the
// answer kubectl shows as `Error from server (BadRequest): ... Pod in
// version "v1" cannot be handled as a Pod: json: cannot unmarshal ...`).
func TestTypeCheck_BadRequestBody(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"nodeName":5,"containers":[{"name":"c","image":"i"}]}}`)
	require.Equal(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string","reason":"BadRequest","code":400}`,
		string(r.body))
}

// Wrong types that validation used to answer with 422 are decode errors
// (400) first, as on the real server; values of the right type that break
// a rule are still 422.
func TestTypeCheck_WrongTypeIs400NotInvalid(t *testing.T) {
	e := newEnv(t, Options{})
	for body, want := range map[string]string{
		`{"metadata":{"name":"x","labels":{"a":1}},"spec":{"containers":[{"name":"c","image":"i"}]}}`:      "ObjectMeta.metadata.labels of type string",
		`{"metadata":{"name":"x","finalizers":"f"},"spec":{"containers":[{"name":"c","image":"i"}]}}`:      "ObjectMeta.metadata.finalizers of type []string",
		`{"metadata":{"name":"x"},"spec":{"containers":["c"]}}`:                                            "PodSpec.spec.containers of type v1.Container",
		`{"metadata":{"name":"x","generation":"1"},"spec":{"containers":[{"name":"c","image":"i"}]}}`:      "ObjectMeta.metadata.generation of type int64",
		`{"metadata":{"name":"x"},"spec":{"restartPolicy":false,"containers":[{"name":"c","image":"i"}]}}`: "PodSpec.spec.restartPolicy of type v1.RestartPolicy",
	} {
		r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods", body)
		require.Equal(t, http.StatusBadRequest, r.code, "%s: %s", body, r.body)
		require.Contains(t, r.status(t).Message, want)
	}
	// Fields the api types lack stay allowed below spec, and come back as
	// sent; an unknown top-level field is dropped, as the real server drops
	// it (fieldvalidation.go).
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"u"},"spec":{"priority":"high","containers":[{"name":"c","image":"i","ports":"none"}]},"extra":[1]}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	require.Contains(t, string(r.body), `"ports":"none"`)
	require.NotContains(t, string(r.body), `"extra"`)
	e.requireTypedListsDecode()
}

// The message names Go types as the real server's packages do (v1.X).
func TestConverterAndDecodeMessages(t *testing.T) {
	r := lookupResource("apps", "v1", "replicasets")
	for body, want := range map[string][2]string{
		`{"spec":{"replicas":"3"}}`:                      {"json: cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32", "unrecognized type: int32"},
		`{"spec":{"selector":[]}}`:                       {"json: cannot unmarshal array into Go struct field ReplicaSetSpec.spec.selector of type v1.LabelSelector", "cannot restore struct from: slice"},
		`{"spec":{"replicas":1e3}}`:                      {"json: cannot unmarshal number 1e3 into Go struct field ReplicaSetSpec.spec.replicas of type int32", "cannot convert float64 to int32"},
		`{"metadata":{"labels":"a"}}`:                    {"json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string", "cannot restore map from string"},
		`{"status":{"replicas":true}}`:                   {"json: cannot unmarshal bool into Go struct field ReplicaSetStatus.status.replicas of type int32", "unrecognized type: int32"},
		`{"metadata":{"creationTimestamp":"yesterday"}}`: {`time: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`, `time: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
	} {
		obj, err := decodeObject([]byte(body))
		require.NoError(t, err)
		err = decodeTyped(r, obj)
		require.Error(t, err, body)
		require.Equal(t, want[0], decodeMessage(err), body)
		require.Equal(t, want[1], converterMessage(err), body)
	}
}
