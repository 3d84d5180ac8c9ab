package fakeapiserver

import (
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// etcdTooLarge is the real server's answer when etcd refuses a write as
// over its 1.5 MiB request limit: the etcd error, unconverted, as a 500
// without a reason (kubernetes/kubernetes#74600 shows this body).
const etcdTooLarge = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request is too large","code":500}`

// The total size of an object's annotations (keys and values) may be
// 262144 bytes and no more, on every write path: 422 Invalid with the real
// server's FieldValueTooLong message. An update reports the cause four
// times (rest.BeforeUpdate's two metadata checks, then ValidateConfigMapUpdate's
// two), its message once.
func TestLimits_AnnotationsOver256KiB(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedAll()
	before := e.requireTypedListsDecode()
	over := strings.Repeat("a", maxAnnotationBytes) // key "k" makes it one byte over
	const cause = `{"reason":"FieldValueTooLong","message":"Too long: may not be more than 262144 bytes","field":"metadata.annotations"}`
	want := func(obj string, causes int) string {
		return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"%s\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes","reason":"Invalid","details":{"name":"%[1]s","kind":"ConfigMap","causes":[%s]},"code":422}`,
			obj, strings.TrimSuffix(strings.Repeat(cause+",", causes), ","))
	}
	for _, tc := range []struct{ name, method, path, ctype, body, obj string }{
		{"create", http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json",
			`{"metadata":{"name":"big","annotations":{"k":"` + over + `"}}}`, "big"},
		{"update", http.MethodPut, "/api/v1/namespaces/default/configmaps/cm", "application/json",
			`{"metadata":{"name":"cm","annotations":{"k":"` + over + `"}}}`, "cm"},
		{"merge patch", http.MethodPatch, "/api/v1/namespaces/default/configmaps/cm", string(MergePatchType),
			`{"metadata":{"annotations":{"k":"` + over + `"}}}`, "cm"},
		{"json patch, split over two annotations", http.MethodPatch, "/api/v1/namespaces/default/configmaps/cm", string(JSONPatchType),
			`[{"op":"add","path":"/metadata/annotations","value":{"a":"` + over[:1<<17] + `","b":"` + over[:1<<17] + `"}}]`, "cm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.body, "Content-Type", tc.ctype)
			require.Equal(t, http.StatusUnprocessableEntity, r.code)
			causes := 4
			if tc.method == http.MethodPost {
				causes = 1
			}
			require.Equal(t, want(tc.obj, causes), string(r.body))
			require.Equal(t, before, e.requireTypedListsDecode())
		})
	}
	// At the limit exactly: accepted.
	r := e.do(http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"metadata":{"name":"at-limit","annotations":{"k":"`+over[1:]+`"}}}`)
	require.Equal(t, http.StatusCreated, r.code, "%.300s", r.body)
}

// An object whose stored form would pass etcd's 1.5 MiB limit is refused
// on every write path, as etcd refuses it (the body limit, 3 MiB, is
// larger, so such bodies arrive). Nothing changes; every list decodes; a
// dry run, which never reaches etcd, is not refused.
func TestLimits_ObjectOver1_5MiB(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedAll()
	before := e.requireTypedListsDecode()
	big := strings.Repeat("x", maxObjectBytes)
	half := strings.Repeat("x", maxObjectBytes/2)
	for _, tc := range []struct{ name, method, path, ctype, body string }{
		// A ConfigMap's data is validated to 1 MiB and a pod's spec is
		// immutable, so the big writes go into a ReplicaSet's pod template
		// (container args and env are not size-checked by validation).
		{"create", http.MethodPost, "/apis/apps/v1/namespaces/default/replicasets", "application/json",
			`{"metadata":{"name":"big"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","args":["` + big + `"]}]}}}}`},
		{"update", http.MethodPut, "/apis/apps/v1/namespaces/default/replicasets/rs", "application/json",
			`{"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","args":["` + big + `"]}]}}}}`},
		{"merge patch", http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/rs", string(MergePatchType),
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i","args":["` + half + `","` + half + `"]}]}}}}`},
		{"strategic merge patch", http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/rs", string(StrategicMergePatchType),
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"BIG","value":"` + big + `"}]}]}}}}`},
		{"json patch", http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/rs", string(JSONPatchType),
			`[{"op":"add","path":"/spec/template/metadata/annotations","value":{"a":"b"}},{"op":"add","path":"/spec/x","value":"` + big + `"}]`},
		{"update of the status", http.MethodPut, "/api/v1/namespaces/default/pods/p/status", "application/json",
			`{"metadata":{"name":"p"},"status":{"message":"` + big + `"}}`},
		{"patch of the status", http.MethodPatch, "/api/v1/namespaces/team/status", string(MergePatchType),
			`{"status":{"conditions":[{"message":"` + big + `"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.body, "Content-Type", tc.ctype)
			require.Equal(t, http.StatusInternalServerError, r.code, "%.300s", r.body)
			require.Equal(t, etcdTooLarge, string(r.body))
			require.Equal(t, before, e.requireTypedListsDecode())

			dry := e.do(tc.method, tc.path+"?dryRun=All", tc.body, "Content-Type", tc.ctype)
			require.Less(t, dry.code, 300, "a dry run never reaches etcd: %.300s", dry.body)
			require.Equal(t, before, e.requireTypedListsDecode())
		})
	}
}

// An object cannot grow past the limit a patch at a time (one grew to
// 29 MiB so): each patch is measured as a whole new write.
func TestLimits_ObjectCannotGrowThroughPatches(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedAll()
	chunk := strings.Repeat("y", 400<<10)
	var accepted int
	for i := range 10 {
		r := e.do(http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/rs",
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"K`+strconv.Itoa(i)+`","value":"`+chunk+`"}]}]}}}}`,
			"Content-Type", string(StrategicMergePatchType))
		if r.code == http.StatusInternalServerError {
			require.Equal(t, etcdTooLarge, string(r.body))
			break
		}
		require.Equal(t, http.StatusOK, r.code, "%.300s", r.body)
		accepted++
	}
	require.Equal(t, 3, accepted, "three 400 KiB values fit in 1.5 MiB, a fourth does not")
	got := e.get("/apis/apps/v1/namespaces/default/replicasets/rs")
	require.LessOrEqual(t, len(got.body), maxObjectBytes)
	var rs struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Env []struct{ Name string } `json:"env"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	got.decode(t, &rs)
	require.Len(t, rs.Spec.Template.Spec.Containers[0].Env, 3, "the three accepted")
}

// The patch that took a server down: four thousand copies of a 1 MiB
// value (359 KB of JSON patch) would be 4 GiB once encoded. The copy
// budget refuses it after 3 MiB, as kube-apiserver does, quickly and
// without allocating more than a few times the object's size.
func TestLimits_CopyAmplifyingJSONPatch(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedAll()
	r := e.do(http.MethodPut, "/api/v1/namespaces/default/configmaps/cm",
		`{"metadata":{"name":"cm"},"data":{"a":"`+strings.Repeat("z", 1<<20)+`"}}`)
	require.Equal(t, http.StatusOK, r.code, "%.300s", r.body)
	before := e.requireTypedListsDecode()
	ops := make([]string, 4000)
	for i := range ops {
		ops[i] = `{"op":"copy","from":"/data/a","path":"/data/c` + strconv.Itoa(i) + `"}`
	}
	body := "[" + strings.Join(ops, ",") + "]"

	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	r = e.do(http.MethodPatch, "/api/v1/namespaces/default/configmaps/cm", body, "Content-Type", string(JSONPatchType))
	took := time.Since(start)
	runtime.ReadMemStats(&m1)

	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%.300s", r.body)
	// The real patch handler hides json-patch's words ("Unable to complete
	// the copy, the accumulated size increase of copy is ..."): a JSON
	// patch that fails to apply is NewGenericServerResponse(422).
	require.Equal(t, "the server rejected our request due to an error in our request", r.status(t).Message)
	require.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(100<<20), "bytes allocated while answering")
	require.Less(t, took, 5*time.Second)
	require.Equal(t, before, e.requireTypedListsDecode())
}

// Watches beyond Options.MaxWatches are answered 429 with Retry-After, the
// answer a reflector backs off from without relisting; a slot frees when a
// watch ends.
func TestLimits_MaxWatches(t *testing.T) {
	e := newEnv(t, Options{MaxWatches: 2})
	w1 := e.watch("/api/v1/namespaces/default/pods?watch=true")
	e.watch("/api/v1/configmaps?watch=true")
	require.Equal(t, http.StatusOK, w1.resp.StatusCode)

	r := e.get("/api/v1/namespaces/default/pods?watch=true")
	require.Equal(t, http.StatusTooManyRequests, r.code)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	st := r.status(t)
	require.Equal(t, api.StatusReasonTooManyRequests, st.Reason)
	require.Equal(t, "Too many requests, please try again later.", st.Message)
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/pods").code, "lists are not limited")

	w1.close()
	require.Eventually(t, func() bool { return e.srv.watchSlots.Load() < 2 }, 10*time.Second, time.Millisecond)
	w3 := e.watch("/api/v1/namespaces/default/pods?watch=true")
	require.Equal(t, http.StatusOK, w3.resp.StatusCode)
}

func TestLimits_MaxWatchesDefaultAndUnlimited(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.watchSlots.Store(defaultMaxWatches - 1)
	release, st := s.acquireWatch()
	require.Nil(t, st)
	_, st = s.acquireWatch()
	require.NotNil(t, st)
	release()

	u := New(Options{MaxWatches: -1})
	defer u.Close()
	u.watchSlots.Store(1 << 40)
	_, st = u.acquireWatch()
	require.Nil(t, st)
}

// A continue token carrying a version the server has not reached (a forged
// token, or one from another server) is an exact read from the future:
// the list waits, then answers 504 ResourceVersionTooLarge, as a list at
// such a resourceVersion does; it is never served stamped with that
// version.
func TestList_ContinueTokenFromTheFuture(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "a", nil)
	token := encodeContinue(999999999, "/a\x00")
	done := make(chan response, 1)
	go func() { done <- e.get("/api/v1/namespaces/default/pods?limit=1&continue=" + token) }()
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.clock.Step(3 * time.Second)
	r := <-done
	require.Equal(t, http.StatusGatewayTimeout, r.code, "%s", r.body)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	st := r.status(t)
	require.Equal(t, fmt.Sprintf("Timeout: Too large resource version: 999999999, current: %s", e.srv.ResourceVersion()), st.Message)
	require.Equal(t, api.CauseTypeResourceVersionTooLarge, st.Details.Causes[0].Type)

	// A token at the current version is served at once.
	now, err := strconv.ParseInt(e.srv.ResourceVersion(), 10, 64)
	require.NoError(t, err)
	r = e.get("/api/v1/namespaces/default/pods?limit=1&continue=" + encodeContinue(now, "/\x00"))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
}

// A watch from a version the server has not reached answers 200 and then
// nothing (no ERROR frame) until the server gets there, as the real
// server's does (13-gone-410-and-too-large.txt): it is not refused.
func TestWatch_ResourceVersionFromTheFutureWaits(t *testing.T) {
	e := newEnv(t, Options{})
	next, err := strconv.ParseUint(e.srv.ResourceVersion(), 10, 64)
	require.NoError(t, err)
	ws := e.watch(fmt.Sprintf("/api/v1/namespaces/default/pods?watch=true&resourceVersion=%d", next+1))
	require.Equal(t, http.StatusOK, ws.resp.StatusCode)
	e.createPod("default", "first", nil)  // rv next+1: not after the watch's version
	e.createPod("default", "second", nil) // rv next+2: sent
	require.Equal(t, fmt.Sprintf("ADDED second@%d", next+2), ws.next().summary(t))
}
