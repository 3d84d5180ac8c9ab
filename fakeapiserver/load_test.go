package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// realisticPod is pod i as bench/testdata/pod.json has it (a Running
// Deployment pod as a 1.36 server sends it), on node-(i%3), with no
// resourceVersion yet.
func realisticPod(t testing.TB, i int) []byte {
	t.Helper()
	tmpl, err := os.ReadFile("../bench/testdata/pod.json")
	require.NoError(t, err)
	r := strings.NewReplacer("__NAME__", fmt.Sprintf("web-%d", i), "__UID__", fmt.Sprintf("uid-%d", i),
		`"resourceVersion":"__RV__",`, "", "__NODE__", fmt.Sprint(i%3))
	return []byte(r.Replace(string(bytes.TrimSpace(tmpl))))
}

// Load stores objects as they are and stamps only their resourceVersion: a
// GET answers the loaded bytes, a watch sees each as ADDED, and lists,
// label and field selectors find them as they find created objects.
func TestLoad_ObjectsAreServedAsLoaded(t *testing.T) {
	e := newEnv(t, Options{})
	w := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())
	pods := [][]byte{realisticPod(t, 0), realisticPod(t, 1), realisticPod(t, 2)}
	rv, err := e.srv.Load("pods", pods)
	require.NoError(t, err)
	t.Logf("loaded %d pods of %d bytes each, the last at resourceVersion %s", len(pods), len(pods[0]), rv)

	require.Equal(t, []string{"ADDED web-0@" + rvMinus(rv, 2), "ADDED web-1@" + rvMinus(rv, 1), "ADDED web-2@" + rv}, w.nextN(3))
	got := e.get("/api/v1/namespaces/default/pods/web-2")
	require.Equal(t, http.StatusOK, got.code)
	want := bytes.Replace(pods[2], []byte(`"metadata":{`), []byte(`"metadata":{"resourceVersion":"`+rv+`",`), 1)
	require.Equal(t, string(want), string(bytes.TrimSpace(got.body)), "a GET answers the bytes loaded, with their resourceVersion")

	var list api.PodList
	e.get("/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-1").decode(t, &list)
	require.Len(t, list.Items, 1)
	require.Equal(t, "web-1", list.Items[0].Name)
	e.get("/api/v1/pods?labelSelector=tier%3Dfrontend,app.kubernetes.io/name%3Dweb&fieldSelector=status.phase%3DRunning").decode(t, &list)
	require.Len(t, list.Items, 3)
	require.Equal(t, rv, list.ResourceVersion)
	require.Len(t, list.Items[0].Status.Conditions, 5, "the whole object is served")
}

// rvMinus is rv - n, as a string.
func rvMinus(rv string, n int) string {
	var v int
	fmt.Sscan(rv, &v)
	return fmt.Sprint(v - n)
}

// Loading an object whose key holds one with the same uid replaces it (a
// MODIFIED event: how cmd/benchscale drives its updates), and a loaded
// object goes through every write path afterwards like any other.
func TestLoad_SameUIDReplacesAsModified(t *testing.T) {
	e := newEnv(t, Options{})
	_, err := e.srv.Load("pods", [][]byte{realisticPod(t, 0)})
	require.NoError(t, err)
	w := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + e.srv.ResourceVersion())

	changed := bytes.Replace(realisticPod(t, 0), []byte(`"restartCount":0`), []byte(`"restartCount":1`), 1)
	changed = bytes.Replace(changed, []byte(`"tier":"frontend"`), []byte(`"tier":"backend"`), 1)
	rv, err := e.srv.Load("pods", [][]byte{changed})
	require.NoError(t, err)
	require.Equal(t, []string{"MODIFIED web-0@" + rv}, w.nextN(1))
	obj, err := e.srv.Get("pods", "default", "web-0")
	require.NoError(t, err)
	require.Equal(t, "backend", obj.(*api.Pod).Labels["tier"])

	// A patch reads the loaded bytes as it reads a created object's.
	r := e.do(http.MethodPatch, "/api/v1/namespaces/default/pods/web-0", `{"metadata":{"labels":{"patched":"yes"}}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	f := w.next()
	require.Equal(t, api.EventType("MODIFIED"), f.Type)
	require.Equal(t, "yes", f.meta(t).Labels["patched"])
	require.Contains(t, f.raw, `"restartCount":1`)
}

// Load refuses what a stored object cannot be, and refuses all of a load
// if it refuses one object: nothing of it is stored.
func TestLoad_RefusesAllOrNothing(t *testing.T) {
	e := newEnv(t, Options{})
	_, err := e.srv.Load("pods", [][]byte{realisticPod(t, 0)})
	require.NoError(t, err)
	before := e.srv.ResourceVersion()
	good := realisticPod(t, 1)
	for _, tc := range []struct {
		name, want string
		obj        []byte
	}{
		{"not JSON", "invalid character", []byte(`{"kind":"Pod",]`)},
		{"cut short", "unexpected end of JSON input", []byte(`{"kind":"Pod",`)},
		{"trailing bytes", "after top-level value", append(bytes.Clone(good), '}')},
		{"not an object", "expected a JSON object", []byte(`[1]`)},
		{"another kind", "want Pod, v1", bytes.Replace(good, []byte(`"kind":"Pod"`), []byte(`"kind":"ConfigMap"`), 1)},
		{"no name", "metadata.name", bytes.Replace(good, []byte(`"name":"web-1",`), nil, 1)},
		{"a bad name", "metadata.name", bytes.Replace(good, []byte(`"name":"web-1",`), []byte(`"name":"Web_1",`), 1)},
		{"no uid", "metadata.uid", bytes.Replace(good, []byte(`"uid":"uid-1",`), nil, 1)},
		{"no namespace", "metadata.namespace", bytes.Replace(good, []byte(`"namespace":"default",`), nil, 1)},
		{"a namespace that does not exist", `namespaces "nowhere" not found`, bytes.Replace(good, []byte(`"namespace":"default"`), []byte(`"namespace":"nowhere"`), 1)},
		{"another object's key", "Precondition failed: UID in precondition: uid-1, UID in object meta: uid-0", bytes.Replace(good, []byte(`"name":"web-1"`), []byte(`"name":"web-0"`), 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.srv.Load("pods", [][]byte{good, tc.obj})
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "object 1")
			require.Equal(t, before, e.srv.ResourceVersion(), "nothing was stored")
			_, err = e.srv.Get("pods", "default", "web-1")
			require.Error(t, err, "not even the good object")
		})
	}
	rv, err := e.srv.Load("pods", nil)
	require.NoError(t, err)
	require.Equal(t, before, rv, "nothing loaded: the version as it is")
	_, err = e.srv.Load("customresourcedefinitions", nil)
	require.ErrorContains(t, err, "create them")
	_, err = e.srv.Load("nothings", nil)
	require.Error(t, err)
}

// An object sent on several lines is stored on one: a watch frame must be.
func TestLoad_IndentedObjectIsStoredOnOneLine(t *testing.T) {
	e := newEnv(t, Options{})
	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, realisticPod(t, 0), "", "  "))
	_, err := e.srv.Load("pods", [][]byte{indented.Bytes()})
	require.NoError(t, err)
	w := e.watch("/api/v1/namespaces/default/pods?watch=true")
	f := w.next()
	require.Equal(t, api.EventType("ADDED"), f.Type)
	require.Equal(t, 1, strings.Count(f.raw, "\n"), "one frame, one line")
}

// testWant asks scanLoaded for the members the tests' objects have.
var testWant = loadWant{"metadata": {"name": true, "uid": true}, "spec": {"nodeName": true, "hostNetwork": true, "x": true, "n": true},
	"status": {"phase": true, "n": true}, "a": {"b": true}}

// scanLoaded reads what encoding/json reads: the scalars it keeps are the
// decoded object's, and the stamped bytes decode to the object with its new
// resourceVersion, wherever it was (or was not) and however it is spaced.
func TestScanLoaded_AgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"kind":"Pod","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"y"}},"spec":{"nodeName":"n\u00e9","hostNetwork":true,"x":[1,{"y":null}]},"status":{"phase":"Running","n":-1.5e3}}`,
		`{ "metadata" : { "name" : "a" } , "spec" : { } }`,
		`{"metadata":{}}`,
		`{"metadata":{"resourceVersion":null,"name":"b\"c"}}`,
		`{"metadata":{"name":"a","resourceVersion":"1"},"metadata2":{"resourceVersion":"9"}}`,
	} {
		v, err := scanLoaded([]byte(in), testWant)
		require.NoError(t, err, in)
		var full map[string]any
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&full))
		for top, val := range v.obj {
			m, isMap := val.(map[string]any)
			if !isMap {
				require.Equal(t, full[top], val, "%s in %s", top, in)
				continue
			}
			for k, sv := range m {
				if k == "labels" {
					require.Equal(t, stringMap(valueAt(full, top, k)), sv)
					continue
				}
				require.Equal(t, valueAt(full, top, k), sv, "%s.%s in %s", top, k, in)
			}
		}
		stamped := stampLoaded([]byte(in), &v, 42)
		var got map[string]any
		dec = json.NewDecoder(bytes.NewReader(stamped))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&got), "%s", stamped)
		mapAt(full, "metadata")["resourceVersion"] = "42"
		require.Equal(t, full, got, "%s", stamped)
	}
}

// scanLoaded accepts exactly the JSON objects encoding/json accepts, never
// panics, and what it stamps still decodes.
func FuzzScanLoaded(f *testing.F) {
	f.Add([]byte(`{"kind":"Pod","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"y"}},"spec":{"n":[1,2.5e-3,true,false,null,"\u0041"]}}`))
	f.Add([]byte(`{"metadata":{}}`))
	f.Add([]byte(`{"metadata":{"resourceVersion":1},"a":{"b":{"c":"\\"}}}`))
	f.Add([]byte(` {"a":-0.0e+1} `))
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := scanLoaded(in, testWant)
		var full map[string]any
		jerr := json.Unmarshal(in, &full)
		if jerr == nil && full == nil {
			jerr = fmt.Errorf("null")
		}
		if (err == nil) != (jerr == nil) {
			t.Fatalf("scanLoaded: %v, encoding/json: %v, for %q", err, jerr, in)
		}
		if err != nil || v.metaOpen < 0 {
			return
		}
		if err := json.Unmarshal(stampLoaded(in, &v, 42), &full); err != nil {
			t.Fatalf("stamped %q: %v", in, err)
		}
		if rv := valueAt(full, "metadata", "resourceVersion"); rv != "42" {
			t.Fatalf("stamped %q: resourceVersion %v", in, rv)
		}
	})
}
