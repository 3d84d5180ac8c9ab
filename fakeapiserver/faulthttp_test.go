package fakeapiserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

func (e *env) fault(path string, headers ...string) FaultResult {
	e.t.Helper()
	r := e.do(http.MethodPost, path, "", headers...)
	require.Equal(e.t, http.StatusOK, r.code, "POST %s: %s", path, r.body)
	var res FaultResult
	r.decode(e.t, &res)
	require.Equal(e.t, "FaultResult", res.Kind)
	return res
}

// Off unless asked for: a server without Options.Faults answers 404.
func TestFaultEndpoints_OffByDefault(t *testing.T) {
	e := newEnv(t, Options{})
	for _, p := range []string{"/faults", "/faults/compact"} {
		r := e.do(http.MethodPost, p, "")
		require.Equal(t, http.StatusNotFound, r.code)
		assert.Contains(t, r.status(t).Message, "fault endpoints are off")
	}
	before := e.srv.ResourceVersion()
	require.Equal(t, http.StatusNotFound, e.get("/faults").code)
	require.Equal(t, before, e.srv.ResourceVersion())
}

// GET /faults lists them; wrong methods and unknown names are refused.
func TestFaultEndpoints_ListAndMistakes(t *testing.T) {
	e := newEnv(t, Options{Faults: true})
	r := e.get("/faults")
	require.Equal(t, http.StatusOK, r.code)
	var list struct {
		Kind  string
		Items []struct{ Method, Path, Does, Then string }
	}
	r.decode(t, &list)
	require.Equal(t, "FaultEndpointList", list.Kind)
	var paths []string
	for _, it := range list.Items {
		paths = append(paths, it.Path)
		assert.NotEmpty(t, it.Does)
		assert.NotEmpty(t, it.Then)
	}
	assert.Equal(t, []string{"/faults/compact", "/faults/close-watches", "/faults/drop", "/faults/outage", "/faults/fail",
		"/faults/garbage", "/faults/delay", "/faults/restart", "/faults/reset"}, paths)

	assert.Equal(t, http.StatusMethodNotAllowed, e.get("/faults/compact").code)
	assert.Equal(t, http.StatusNotFound, e.do(http.MethodPost, "/faults/nope", "").code)
	for _, bad := range []string{"/faults/fail?code=418", "/faults/fail?count=0", "/faults/fail?verb=eat",
		"/faults/fail?resource=unicorns", "/faults/fail?retryAfter=soon", "/faults/delay?d=fast", "/faults/delay",
		"/faults/drop?type=EATEN", "/faults/drop?resource=unicorns"} {
		r := e.do(http.MethodPost, bad, "")
		assert.Equal(t, http.StatusBadRequest, r.code, "%s: %s", bad, r.body)
	}
}

// Behind the token, like the API.
func TestFaultEndpoints_BehindTheToken(t *testing.T) {
	e := newEnv(t, Options{Faults: true, Token: "s3cret"})
	require.Equal(t, http.StatusUnauthorized, e.do(http.MethodPost, "/faults/compact", "").code)
	e.fault("/faults/compact", "Authorization", "Bearer s3cret")
}

// compact + close-watches: the watch ends, and one from its old version gets
// 410 Expired: what makes a reflector relist.
func TestFaultEndpoints_CompactAndCloseWatches(t *testing.T) {
	rec := trace.NewRecorder()
	e := newEnv(t, Options{Faults: true, Tracer: rec.Tracer()})
	e.createPod("default", "a", nil)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=4")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)

	res := e.fault("/faults/compact")
	assert.Equal(t, "compact", res.Fault)
	assert.Equal(t, "history compacted at resourceVersion 4", res.Did)
	assert.Contains(t, res.Then, "410 Expired")
	assert.Equal(t, "4", res.ResourceVersion)
	res = e.fault("/faults/close-watches")
	assert.Equal(t, "closed every watch (1 open)", res.Did)
	assert.Empty(t, ws.ended())

	old := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=3")
	f := old.next()
	require.Equal(t, api.Error, f.Type)
	assert.Contains(t, f.raw, `"code":410`)

	var did []string
	for _, ev := range rec.Events() {
		if ev.What == "fault: requested" {
			did = append(did, ev.Get("path")+": "+ev.Get("did"))
		}
	}
	assert.Equal(t, []string{"/faults/compact: history compacted at resourceVersion 4",
		"/faults/close-watches: closed every watch (1 open)"}, did, "the trace says what was done (the demo narrates it)")
}

// fail: the next N matching requests fail, with Retry-After on a 429.
func TestFaultEndpoints_Fail(t *testing.T) {
	e := newEnv(t, Options{Faults: true})
	res := e.fault("/faults/fail?code=429&count=2&retryAfter=2&verb=list&resource=pods")
	assert.Equal(t, "the next 2 list pods request(s) fail with 429 (Retry-After: 2s)", res.Did)
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/configmaps").code, "another resource is not affected")
	for range 2 {
		r := e.get("/api/v1/namespaces/default/pods")
		require.Equal(t, http.StatusTooManyRequests, r.code)
		assert.Equal(t, "2", r.header.Get("Retry-After"))
	}
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/pods").code)

	for code, reason := range map[int]api.StatusReason{500: api.StatusReasonInternalError, 503: api.StatusReasonServiceUnavailable,
		504: api.StatusReasonTimeout, 410: api.StatusReasonExpired} {
		e.fault("/faults/fail?code=" + strconv.Itoa(code))
		r := e.get("/api/v1/namespaces/default/pods")
		require.Equal(t, code, r.code)
		assert.Equal(t, reason, r.status(t).Reason)
	}
}

// drop: the next matching event does not reach the open watches. A watch
// that misses it cannot go on without a hole: with the count used up the
// drop is over, and that watch ends with 410 Expired. A watch of other
// objects, which missed nothing, goes on; a new watch from the old version
// replays everything, the hidden event included.
func TestFaultEndpoints_Drop(t *testing.T) {
	e := newEnv(t, Options{Faults: true})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=3")
	other := e.watch("/api/v1/namespaces/kube-system/pods?watch=true&resourceVersion=3")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 2 }, 5*time.Second, time.Millisecond)
	res := e.fault("/faults/drop?resource=pods&namespace=default&name=web-1&count=1")
	assert.Equal(t, "the next 1 event(s) of pods default/web-1 will not reach the open watches", res.Did)
	e.createPod("default", "web-1", nil) // dropped: ws goes deaf, and ends
	e.createPod("default", "web-2", nil)
	e.createPod("kube-system", "sys", nil)
	f := ws.next()
	require.Equal(t, api.Error, f.Type, f.raw)
	require.Contains(t, f.raw, `"code":410`)
	require.Empty(t, ws.ended())
	assert.Equal(t, "ADDED sys@6", other.next().summary(t), "a watch that missed nothing goes on")
	again := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=3")
	assert.Equal(t, []string{"ADDED web-1@4", "ADDED web-2@5"}, again.nextN(2), "history kept the hidden event")
}

// garbage, delay, reset and restart.
func TestFaultEndpoints_GarbageDelayResetRestart(t *testing.T) {
	e := newEnv(t, Options{Faults: true})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=3")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	res := e.fault("/faults/garbage")
	assert.Contains(t, res.Did, "into every watch (1 open)")
	assert.Equal(t, frame{Type: "GARBAGE", raw: "this is not a JSON watch event\n"}, ws.next())

	res = e.fault("/faults/delay?d=2s")
	assert.Equal(t, "every watch frame is now delayed by 2s", res.Did)
	assert.Equal(t, 2*time.Second, e.srv.faults.watchDelay())
	e.fault("/faults/fail?count=3")
	e.fault("/faults/drop")
	res = e.fault("/faults/reset")
	assert.Equal(t, "every pending fault forgotten", res.Did)
	assert.Zero(t, e.srv.faults.watchDelay())
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/pods").code)
	e.createPod("default", "seen", nil)
	assert.Equal(t, "ADDED seen@4", ws.next().summary(t))

	r := e.do(http.MethodPost, "/faults/restart", "")
	require.Equal(t, http.StatusBadRequest, r.code, "an in-memory server has nothing to restart from")
	assert.Contains(t, r.status(t).Message, "--data-dir")
}

// restart, on a durable server: the watches end, the objects stay, and a
// watch from before the restart gets 410 Expired: a reflector relists.
func TestFaultEndpoints_Restart(t *testing.T) {
	e := newEnvIn(t, t.TempDir(), Options{Faults: true})
	e.createPod("default", "kept", nil)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=4")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)
	res := e.fault("/faults/restart")
	assert.Contains(t, res.Did, "restarted the store from its data directory")
	assert.Empty(t, ws.ended())
	require.Equal(t, http.StatusOK, e.get("/api/v1/namespaces/default/pods/kept").code)
	f := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=4").next()
	require.Equal(t, api.Error, f.Type)
	assert.Contains(t, f.raw, `"code":410`)
}
