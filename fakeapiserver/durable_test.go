package fakeapiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// openDir opens a durable server on dir and closes it when the test ends
// (Close is idempotent, so a test may close it earlier).
func openDir(t *testing.T, dir string, opts Options) *Server {
	t.Helper()
	srv, err := Open(dir, opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

// podState is what survives a restart: name -> resourceVersion.
func podState(t *testing.T, srv *Server, ns string) map[string]string {
	t.Helper()
	pods, _, err := srv.List("pods", ns)
	require.NoError(t, err)
	out := map[string]string{}
	for _, p := range pods {
		out[p.GetName()] = p.GetResourceVersion()
	}
	return out
}

func rvOf(t *testing.T, srv *Server) uint64 {
	rv, err := strconv.ParseUint(srv.ResourceVersion(), 10, 64)
	require.NoError(t, err)
	return rv
}

// Every kind of write survives Close and Open, with its resourceVersion;
// the counter continues exactly where it stopped after a clean Close, and
// the namespaces a cluster starts with are not created twice.
func TestDurable_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	srv := openDir(t, dir, Options{})
	require.True(t, srv.Recovery().Fresh)
	for i := range 5 {
		_, err := srv.Create(testPod("default", fmt.Sprintf("p%d", i), map[string]string{"i": strconv.Itoa(i)}))
		require.NoError(t, err)
	}
	_, err := srv.Patch("pods", "default", "p1", MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`))
	require.NoError(t, err)
	_, err = srv.Delete("pods", "default", "p2")
	require.NoError(t, err)
	_, err = srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	_, err = srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "team"}, Data: map[string]string{"k": "v"}})
	require.NoError(t, err)
	before, rv := podState(t, srv, ""), srv.ResourceVersion()
	p1, err := srv.Get("pods", "default", "p1")
	require.NoError(t, err)
	srv.Close()

	again := openDir(t, dir, Options{})
	rec := again.Recovery()
	t.Logf("recovery: %s", rec)
	assert.True(t, rec.Clean)
	assert.False(t, rec.Fresh)
	assert.Empty(t, rec.Truncated)
	assert.Equal(t, rv, again.ResourceVersion(), "after a clean Close the counter continues where it stopped")
	assert.Equal(t, before, podState(t, again, ""))
	got, err := again.Get("pods", "default", "p1")
	require.NoError(t, err)
	assert.Equal(t, p1, got, "the whole object comes back")
	cm, err := again.Get("configmaps", "team", "cm")
	require.NoError(t, err)
	assert.Equal(t, "v", cm.(*api.ConfigMap).Data["k"])
	nss, _, err := again.List("namespaces", "")
	require.NoError(t, err)
	assert.Len(t, nss, 4, "default, kube-system, kube-public and team, once each")

	p, err := again.Create(testPod("default", "after", nil))
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatUint(mustUint(t, rv)+1, 10), p.GetResourceVersion())
}

func mustUint(t *testing.T, s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err)
	return n
}

// A log whose last record is torn (cut short by the crash): Open recovers
// everything before it, reports and truncates the cut, and new writes
// append after it and survive the next restart. (The cut at every byte is
// storage's TestStorage_TornTailAtEveryOffset.)
func TestDurable_TornTailIsTruncated(t *testing.T) {
	dir := t.TempDir()
	srv := openDir(t, dir, Options{})
	for i := range 3 {
		_, err := srv.Create(testPod("default", fmt.Sprintf("p%d", i), nil))
		require.NoError(t, err)
	}
	want := podState(t, srv, "")
	_, err := srv.Create(testPod("default", "torn", nil))
	require.NoError(t, err)
	require.NoError(t, srv.RestartStore()) // a crash: no close record at the end
	srv.Close()
	// The log's last segment ends with the close record of srv.Close and,
	// before it, the record of the restart's counter jump; the segment
	// before holds "torn" as its last record: cut into it.
	segs, err := filepath.Glob(filepath.Join(dir, "wal-*.log"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(segs), 2)
	for _, later := range segs[1:] {
		require.NoError(t, os.Remove(later))
	}
	fi, err := os.Stat(segs[0])
	require.NoError(t, err)
	require.NoError(t, os.Truncate(segs[0], fi.Size()-3))

	s := openDir(t, dir, Options{})
	rec := s.Recovery()
	t.Logf("recovery: %s", rec)
	assert.Equal(t, want, podState(t, s, ""))
	assert.NotEmpty(t, rec.Truncated, "Open reports the damage")
	assert.Contains(t, rec.Problem, "torn")
	_, err = s.Create(testPod("default", "next", nil))
	require.NoError(t, err)
	s.Close()
	s2 := openDir(t, dir, Options{})
	assert.Empty(t, s2.Recovery().Truncated, "the truncated log takes new records cleanly")
	assert.Contains(t, podState(t, s2, ""), "next")
}

// With small snapshot thresholds: snapshots are written, old segments go,
// and a restart reads the snapshot plus the log after it.
func TestDurable_SnapshotAndLogReplay(t *testing.T) {
	dir := t.TempDir()
	srv := openDir(t, dir, Options{SnapshotRecords: 10})
	for i := range 35 {
		_, err := srv.Create(testPod("default", fmt.Sprintf("p%02d", i), nil))
		require.NoError(t, err)
	}
	for i := range 5 {
		_, err := srv.Patch("pods", "default", fmt.Sprintf("p%02d", i), MergePatchType, []byte(`{"metadata":{"labels":{"v":"2"}}}`))
		require.NoError(t, err)
	}
	_, err := srv.Delete("pods", "default", "p10")
	require.NoError(t, err)
	want, rv := podState(t, srv, ""), srv.ResourceVersion()
	srv.Close()

	_, err = os.Stat(filepath.Join(dir, "snapshot"))
	require.NoError(t, err, "a snapshot was written")
	segs, err := filepath.Glob(filepath.Join(dir, "wal-*.log"))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(segs), 3, "segments before the snapshot are removed: %v", segs)

	again := openDir(t, dir, Options{SnapshotRecords: 10})
	rec := again.Recovery()
	t.Logf("recovery: %s", rec)
	assert.NotZero(t, rec.SnapshotRV)
	assert.Less(t, rec.Records, 20, "only the log after the snapshot is replayed")
	assert.Equal(t, want, podState(t, again, ""))
	assert.Equal(t, rv, again.ResourceVersion())
	p, err := again.Get("pods", "default", "p01")
	require.NoError(t, err)
	assert.Equal(t, "2", p.GetLabels()["v"])
}

// RestartStore is a crash: acknowledged writes survive, watches end, the
// counter moves forward (never back, even over two crashes in a row with no
// write between), and an in-memory server refuses it.
func TestDurable_RestartStore(t *testing.T) {
	e := newEnvIn(t, t.TempDir(), Options{})
	for i := range 3 {
		e.createPod("default", fmt.Sprintf("p%d", i), nil)
	}
	want, rv := podState(t, e.srv, ""), rvOf(t, e.srv)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + strconv.FormatUint(rv, 10))
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, 5*time.Second, time.Millisecond)

	require.NoError(t, e.srv.RestartStore())
	assert.Empty(t, ws.ended(), "the watch ends")
	assert.Equal(t, want, podState(t, e.srv, ""))
	rv1 := rvOf(t, e.srv)
	assert.Greater(t, rv1, rv)
	assert.False(t, e.srv.Recovery().Clean)

	require.NoError(t, e.srv.RestartStore())
	rv2 := rvOf(t, e.srv)
	assert.Greater(t, rv2, rv1, "a second crash without a write in between still moves forward")
	p := e.createPod("default", "after", nil)
	assert.Equal(t, strconv.FormatUint(rv2+1, 10), p.ResourceVersion)

	mem := New(Options{})
	defer mem.Close()
	assert.True(t, errors.Is(mem.RestartStore(), ErrNoDataDir))
}

// After a restart, history starts empty at the new version: a watch, an
// exact list and a continue token from before answer 410 Expired worded as
// the real server (recording 14), so clients relist; a list or watch at ""
// or "0" works as usual.
func TestDurable_410AfterRestart(t *testing.T) {
	e := newEnvIn(t, t.TempDir(), Options{})
	for i := range 3 {
		e.createPod("default", fmt.Sprintf("p%d", i), nil)
	}
	var page api.PodList
	e.get("/api/v1/namespaces/default/pods?limit=1").decode(t, &page)
	require.NotEmpty(t, page.Continue)
	old := e.srv.ResourceVersion()

	require.NoError(t, e.srv.RestartStore())
	oldest := e.srv.store.Compacted() + 1

	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + old)
	require.Equal(t, http.StatusOK, ws.resp.StatusCode)
	f := ws.next()
	require.Equal(t, api.Error, f.Type)
	require.JSONEq(t, fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: %s (%d)","reason":"Expired","code":410}`, old, oldest), string(f.Object))
	require.Empty(t, ws.ended())

	r := e.get("/api/v1/namespaces/default/pods?resourceVersionMatch=Exact&resourceVersion=" + old)
	require.Equal(t, http.StatusGone, r.code)
	assert.Equal(t, "The resourceVersion for the provided list is too old.", r.status(t).Message)
	r = e.get("/api/v1/namespaces/default/pods?limit=1&continue=" + page.Continue)
	require.Equal(t, http.StatusGone, r.code)

	r = e.get("/api/v1/namespaces/default/pods?limit=10&resourceVersion=" + old)
	require.Equal(t, http.StatusGone, r.code, "a paged list at a version is exact: 410")

	// Not older than: fine, served at the new version (as in recording 14);
	// and "" and "0" as usual.
	for _, q := range []string{"?resourceVersion=" + old, "?limit=10", "?limit=10&resourceVersion=0", "?resourceVersion=0"} {
		r := e.get("/api/v1/namespaces/default/pods" + q)
		require.Equal(t, http.StatusOK, r.code, q)
		var l api.PodList
		r.decode(t, &l)
		assert.Len(t, l.Items, 3, q)
	}
	ws = e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=0")
	assert.Equal(t, []string{"ADDED p0@", "ADDED p1@", "ADDED p2@"}, trimRVs(ws.nextN(3)))
}

func trimRVs(s []string) []string {
	for i, v := range s {
		for j := range v {
			if v[j] == '@' {
				s[i] = v[:j+1]
				break
			}
		}
	}
	return s
}

// Group commit: many writers at once, each acknowledged only when durable;
// after a reopen every acknowledged write is there with its version.
func TestDurable_GroupCommitConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	srv := openDir(t, dir, Options{SnapshotRecords: 150})
	const writers, each = 16, 40
	var mu sync.Mutex
	acked := map[string]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				p, err := srv.Create(testPod("default", fmt.Sprintf("w%02d-%03d", w, i), nil))
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				acked[p.GetName()] = p.GetResourceVersion()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	srv.Close()
	again := openDir(t, dir, Options{})
	t.Logf("recovery: %s", again.Recovery())
	assert.Equal(t, acked, podState(t, again, ""))
}

// History is bounded by bytes as well as by count: a few versions of a big
// object do not pin gigabytes, and versions that fell off answer 410.
func TestStore_HistoryBoundedByBytes(t *testing.T) {
	e := newEnv(t, Options{HistoryBytes: 1 << 20})
	blob := make([]byte, 300<<10)
	for i := range blob {
		blob[i] = 'x'
	}
	first, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big", Namespace: "default"}, Data: map[string]string{"blob": string(blob)}})
	require.NoError(t, err)
	for i := range 10 {
		_, err := e.srv.Patch("configmaps", "default", "big", MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"labels":{"n":"%d"}}}`, i)))
		require.NoError(t, err)
	}
	n, bytes := e.srv.store.HistoryStats()
	compacted := e.srv.store.Compacted()
	assert.LessOrEqual(t, bytes, int64(1<<20), "history stays under HistoryBytes")
	assert.GreaterOrEqual(t, n, 2)
	assert.Greater(t, compacted, mustUint(t, first.GetResourceVersion()))
	ws := e.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + first.GetResourceVersion())
	assert.Equal(t, api.Error, ws.next().Type)
}

// RestartStore in the middle of concurrent writes: a write that got an
// answer is there after the restart with its version; one that was cut off
// got a 503 and nothing else.
func TestDurable_RestartStoreDuringWrites(t *testing.T) {
	srv := openDir(t, t.TempDir(), Options{})
	var mu sync.Mutex
	acked := map[string]string{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p, err := srv.Create(testPod("default", fmt.Sprintf("w%d-%05d", w, i), nil))
				if err != nil {
					var st *api.Status
					if assert.True(t, errors.As(err, &st)) {
						assert.Equal(t, int32(http.StatusServiceUnavailable), st.Code, "%v", err)
					}
					continue
				}
				mu.Lock()
				acked[p.GetName()] = p.GetResourceVersion()
				mu.Unlock()
			}
		})
	}
	for range 3 {
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) > 50 }, 10*time.Second, time.Millisecond)
		require.NoError(t, srv.RestartStore())
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		t.Logf("restarted after %d acknowledged writes: %s", n, srv.Recovery())
	}
	close(stop)
	wg.Wait()
	got := podState(t, srv, "")
	for name, rv := range acked {
		assert.Equal(t, rv, got[name], name)
	}
}

// A watch frame is never sent before the write is durable, as etcd sends a
// watch event only for a committed revision. With the disk stalled, a POST
// commits but waits for its fsync: the watch's next frame is a BOOKMARK at
// the version before it (never past it), a list does not show it, and only
// once the fsync completes does the client get its 201 and the watch the
// ADDED. A crash in between would lose nothing any client was told of.
func TestDurable_WatchFrameOnlyOnceDurable(t *testing.T) {
	e := newEnvIn(t, t.TempDir(), Options{BookmarkInterval: time.Minute})
	from := e.srv.ResourceVersion()
	a := e.createPod("default", "a", nil)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=" + from)
	require.Equal(t, "ADDED a@"+a.ResourceVersion, ws.next().summary(t))
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // timeout timer + bookmark ticker

	resume := e.srv.store.StallDisk()
	t.Cleanup(resume)
	committed := func() (rev uint64) {
		require.NoError(t, e.srv.store.Update(func(tx *recordTx) error { rev = tx.NextRev() - 1; return nil }))
		return rev
	}
	before := committed()
	type answer struct {
		code int
		body []byte
		err  error
	}
	posted := make(chan answer, 1)
	go func() {
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
		resp, err := requestClient.Post(e.http.URL+"/api/v1/namespaces/default/pods", "application/json", strings.NewReader(body))
		if err != nil {
			posted <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		posted <- answer{code: resp.StatusCode, body: b, err: err}
	}()
	require.Eventually(t, func() bool { return committed() > before }, 10*time.Second, time.Millisecond, "the POST commits")
	t.Logf("pod b committed at rv %d; the disk is stalled: not durable", committed())

	e.clock.Step(time.Minute)
	require.Equal(t, "BOOKMARK @"+a.ResourceVersion, ws.next().summary(t),
		"the next frame is a bookmark at the last durable version, not the ADDED")
	var list api.PodList
	e.get("/api/v1/namespaces/default/pods").decode(t, &list)
	require.Len(t, list.Items, 1, "a list does not show it")
	require.Equal(t, a.ResourceVersion, list.ResourceVersion)
	select {
	case ans := <-posted:
		t.Fatalf("the POST was answered (%d) before the write was durable", ans.code)
	default:
	}

	t.Log("the fsync completes")
	resume()
	ans := <-posted
	require.NoError(t, ans.err)
	require.Equal(t, http.StatusCreated, ans.code, "body: %s", ans.body)
	var b api.Pod
	require.NoError(t, json.Unmarshal(ans.body, &b))
	require.Equal(t, "ADDED b@"+b.ResourceVersion, ws.next().summary(t))
}
