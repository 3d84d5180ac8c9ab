package fakeapiserver

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// Article: Kubernetes-Informer (smartkeyerror) §1 and informer notes §1.2:
// the watch is an HTTP/1.1 chunked response, one JSON event per chunk. This
// reads the raw bytes off the socket to show the framing itself.
func TestWatch_ChunkedNewlineDelimitedFrames(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "a", nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/namespaces/default/pods?watch=true&resourceVersion=%s HTTP/1.1\r\nHost: localhost\r\n\r\n", p.ResourceVersion)
	br := bufio.NewReader(conn)
	head := readUntil(t, br, "\r\n\r\n")
	require.Contains(t, head, "HTTP/1.1 200 OK")
	require.Contains(t, head, "Transfer-Encoding: chunked")
	require.Contains(t, head, "Content-Type: application/json")

	e.createPod("default", "b", nil)
	size := readUntil(t, br, "\r\n")
	n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
	require.NoError(t, err, "a chunk starts with its size in hex")
	chunk := make([]byte, n)
	_, err = io.ReadFull(br, chunk)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(chunk), `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b"`), "%s", chunk)
	require.True(t, strings.HasSuffix(string(chunk), "}}\n"), "one event per chunk, ending in a newline")
	trace.Checkf(t, "HTTP/1.1 200 with Transfer-Encoding: chunked; the first chunk's size line %q is %d bytes: one event, then a newline:\n%s\\n",
		size, n, strings.TrimSuffix(string(chunk), "\n"))
}

func readUntil(t *testing.T, br *bufio.Reader, delim string) string {
	t.Helper()
	var sb strings.Builder
	for !strings.HasSuffix(sb.String(), delim) {
		b, err := br.ReadByte()
		require.NoError(t, err)
		sb.WriteByte(b)
	}
	return sb.String()
}

// Article 004: curl ...pods?watch=true without a resourceVersion first
// lists what exists as ADDED events, then streams changes. resourceVersion=0
// does the same.
func TestWatch_WithoutVersionStartsWithSyntheticAdds(t *testing.T) {
	for _, query := range []string{"?watch=true", "?watch=1&resourceVersion=0", "?watch=yes"} {
		t.Run(query, func(t *testing.T) {
			e := newEnv(t, Options{})
			a := e.createPod("default", "a", nil)
			b := e.createPod("default", "b", nil)
			a.Labels = map[string]string{"changed": "yes"}
			a2, err := e.srv.Update(a) // one ADDED of the current state, not a replay of ADDED+MODIFIED
			require.NoError(t, err)
			ws := e.watch("/api/v1/namespaces/default/pods" + query)
			require.Equal(t, []string{"ADDED a@" + a2.GetResourceVersion(), "ADDED b@" + b.ResourceVersion}, ws.nextN(2))
			c := e.createPod("default", "c", nil)
			require.Equal(t, "ADDED c@"+c.ResourceVersion, ws.next().summary(t))
		})
	}
}

// Article 004: list, take the list's resourceVersion, watch from it. The
// watch replays every change after that version, then streams live ones.
func TestWatch_ReplaysFromExactVersion(t *testing.T) {
	e := newEnv(t, Options{})
	e.createPod("default", "a", nil)
	from := e.srv.ResourceVersion()
	b := e.createPod("default", "b", nil)
	b.Labels = map[string]string{"x": "y"}
	b2, err := e.srv.Update(b)
	require.NoError(t, err)
	_, err = e.srv.Delete("configmaps", "default", "nothing") // a failed write changes nothing
	require.Error(t, err)

	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + from)
	require.Equal(t, []string{"ADDED b@" + b.ResourceVersion, "MODIFIED b@" + b2.GetResourceVersion()}, ws.nextN(2))
	_, err = e.srv.Delete("pods", "default", "a")
	require.NoError(t, err)
	next := ws.nextN(2)
	require.Equal(t, "MODIFIED a", next[0][:len("MODIFIED a")], "graceful deletion marks the pod first")
	require.Equal(t, "DELETED a@"+e.srv.ResourceVersion(), next[1])
}

// A version older than the server's history: HTTP 200, then one ERROR frame
// carrying a 410 Expired Status, then the end of the stream, exactly as
// the repository's testdata/kube-apiserver-1.36/14-watch-410-after-apiserver-restart.txt.
// This is what makes a reflector relist.
func TestWatch_TooOldVersionIsErrorFrame410(t *testing.T) {
	e := newEnv(t, Options{History: 2})
	first := e.createPod("default", "a", nil)
	for i := range 3 {
		e.createPod("default", fmt.Sprintf("p%d", i), nil)
	}
	t.Logf("client (raw HTTP, the test): watching pods from rv=%s, older than the server's history of 2 events", first.ResourceVersion)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + first.ResourceVersion)
	require.Equal(t, http.StatusOK, ws.resp.StatusCode)
	f := ws.next()
	t.Logf("client (raw HTTP, the test): HTTP %d, then the frame %s", ws.resp.StatusCode, strings.TrimSpace(f.raw))
	require.Equal(t, api.Error, f.Type)
	rv, _ := strconv.Atoi(e.srv.ResourceVersion())
	require.JSONEq(t, fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: %s (%d)","reason":"Expired","code":410}`, first.ResourceVersion, rv-1), string(f.Object))
	require.Empty(t, ws.ended(), "nothing follows the ERROR frame")
}

// timeoutSeconds ends the stream cleanly: no ERROR, just the end.
func TestWatch_TimeoutSecondsEndsCleanly(t *testing.T) {
	e := newEnv(t, Options{})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=5&resourceVersion=" + e.srv.ResourceVersion())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.clock.Step(4 * time.Second)
	p := e.createPod("default", "a", nil)
	require.Equal(t, "ADDED a@"+p.ResourceVersion, ws.next().summary(t), "still open before the timeout")
	e.clock.Step(time.Second)
	require.Empty(t, ws.ended())
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 5*time.Second, time.Millisecond)
}

// A timeoutSeconds too large for a time.Duration is a very long watch, not
// one that ends at once (it overflowed to a negative timeout).
func TestWatch_HugeTimeoutSecondsStaysOpen(t *testing.T) {
	e := newEnv(t, Options{})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=99999999999999999&resourceVersion=" + e.srv.ResourceVersion())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	e.clock.Step(24 * time.Hour)
	p := e.createPod("default", "a", nil)
	require.Equal(t, "ADDED a@"+p.ResourceVersion, ws.next().summary(t))
}

// A BOOKMARK carries only a resourceVersion the watch has reached: the
// client can resume from there even if none of its objects changed. The
// object is the watched kind's empty object, byte for byte as
// 11-watch-chunked-raw.txt. The server sends one on its bookmark interval
// and as the watch times out, once the server has moved past the version
// the watch started from: never on a watch that saw nothing move
// (12-watch-bookmark-initial-events.txt), and then on every tick, the same
// version again if nothing moved since (10-watch-events.txt ends with two
// equal bookmarks).
func TestWatch_BookmarksCarryOnlyAVersion(t *testing.T) {
	e := newEnv(t, Options{BookmarkInterval: time.Minute})
	idle := e.watch("/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion=" + e.srv.ResourceVersion())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // timeout timer + bookmark ticker
	e.clock.Step(time.Minute)
	e.clock.Step(time.Minute)
	e.clock.Step(time.Minute)
	require.Empty(t, idle.ended(), "nothing moved: no bookmark, not even at the timeout")

	from := e.srv.ResourceVersion()
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=" + from)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2))
	// Other resources move the global resourceVersion on.
	_, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default"}})
	require.NoError(t, err)
	rv := e.srv.ResourceVersion()
	e.clock.Step(time.Minute)
	f := ws.next()
	require.Equal(t, `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"`+rv+`"},"spec":{"containers":null},"status":{}}}`+"\n", f.raw)
	e.clock.Step(time.Minute)
	require.Equal(t, "BOOKMARK @"+rv, ws.next().summary(t), "nothing moved since: the same version again")

	// A pod event, then the timeout: the last bookmarks are newer still.
	p := e.createPod("default", "a", nil)
	require.Equal(t, "ADDED a@"+p.ResourceVersion, ws.next().summary(t))
	_, err = e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg2", Namespace: "default"}})
	require.NoError(t, err)
	e.clock.Step(10 * time.Minute) // the ticker and the timeout fire together: one or two bookmarks
	rest := ws.ended()
	require.NotEmpty(t, rest)
	for _, f := range rest {
		require.Equal(t, "BOOKMARK @"+e.srv.ResourceVersion(), f.summary(t))
	}
}

// Streaming list (client-go 1.35+ opens its first watch like this): the
// current state as ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end, then changes, as
// the repository's testdata/kube-apiserver-1.36/12-watch-bookmark-initial-events.txt.
func TestWatch_SendInitialEventsEndsWithAnnotatedBookmark(t *testing.T) {
	e := newEnv(t, Options{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	listRV := e.srv.ResourceVersion()
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	require.Equal(t, []string{"ADDED a@" + a.ResourceVersion, "ADDED b@" + b.ResourceVersion}, ws.nextN(2))
	end := ws.next()
	require.Equal(t, api.Bookmark, end.Type)
	require.Equal(t, map[string]string{api.InitialEventsAnnotationKey: "true"}, end.meta(t).Annotations)
	require.Equal(t, listRV, end.meta(t).ResourceVersion)
	c := e.createPod("default", "c", nil)
	require.Equal(t, "ADDED c@"+c.ResourceVersion, ws.next().summary(t))

	// Without allowWatchBookmarks: the initial events, but no bookmark.
	ws2 := e.watch("/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	require.Len(t, ws2.nextN(3), 3)
	d := e.createPod("default", "d", nil)
	require.Equal(t, "ADDED d@"+d.ResourceVersion, ws2.next().summary(t))

	// sendInitialEvents=false (with NotOlderThan) starts at the current
	// version without the synthetic ADDEDs.
	ws3 := e.watch("/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 3 }, 5*time.Second, time.Millisecond)
	f := e.createPod("default", "f", nil)
	require.Equal(t, "ADDED f@"+f.ResourceVersion, ws3.next().summary(t))

	// Validation as the real server's: a server that silently ignored
	// sendInitialEvents would leave a streaming client unsynced forever.
	// (apimachinery's validateWatchOptions, every violation a cause.)
	for query, msg := range map[string]string{
		"sendInitialEvents=true":                            `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
		"sendInitialEvents=false":                           `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
		"resourceVersionMatch=NotOlderThan":                 `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
		"sendInitialEvents=true&resourceVersionMatch=Exact": `[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`,
	} {
		r := e.get("/api/v1/namespaces/default/pods?watch=true&" + query)
		require.Equal(t, http.StatusUnprocessableEntity, r.code, query)
		require.Contains(t, r.status(t).Message, msg)
	}
}

// A watcher filtered by a selector sees an object that stops matching as
// DELETED (its last matching state, at the new version) and one that starts
// matching as ADDED, as in 12-watch-bookmark-initial-events.txt.
func TestWatch_SelectorTransitionsAsDeletedAndAdded(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "demo-b", map[string]string{"app": "demo"})
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Ddemo&resourceVersion=" + p.ResourceVersion)

	p.Labels = map[string]string{"app": "other"}
	out, err := e.srv.Update(p)
	require.NoError(t, err)
	f := ws.next()
	require.Equal(t, api.Deleted, f.Type)
	require.Equal(t, out.GetResourceVersion(), f.meta(t).ResourceVersion)
	require.Equal(t, "demo", f.meta(t).Labels["app"], "the DELETED shows the last state that matched")

	p = out.(*api.Pod)
	p.Labels = map[string]string{"app": "demo"}
	back, err := e.srv.Update(p)
	require.NoError(t, err)
	require.Equal(t, "ADDED demo-b@"+back.GetResourceVersion(), ws.next().summary(t))

	// Changes to pods that never match are not sent at all.
	e.createPod("default", "unrelated", map[string]string{"app": "other"})
	last := e.createPod("default", "demo-z", map[string]string{"app": "demo"})
	require.Equal(t, "ADDED demo-z@"+last.ResourceVersion, ws.next().summary(t))
}

// A watch of one object (kubectl delete --wait, or the old
// /api/v1/watch/... paths article 000 cites) sees only that object.
func TestWatch_OneObjectAndTheLegacyWatchPath(t *testing.T) {
	e := newEnv(t, Options{})
	from := e.srv.ResourceVersion()
	ws := e.watch("/api/v1/watch/namespaces/default/pods/b?resourceVersion=" + from)
	ws2 := e.watch("/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Db&resourceVersion=" + from)
	e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	require.Equal(t, "ADDED b@"+b.ResourceVersion, ws.next().summary(t))
	require.Equal(t, "ADDED b@"+b.ResourceVersion, ws2.next().summary(t))
}

// A watcher that does not keep up must not grow the server's memory: once
// its buffer is full the server ends its stream (the client resumes from
// the last version it got). Here the watch delay holds the writer so the
// buffer fills.
func TestWatch_SlowWatcherIsCutOff(t *testing.T) {
	e := newEnv(t, Options{WatchBuffer: 3})
	e.srv.SetWatchDelay(time.Second)
	ws := e.watch("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=3600&resourceVersion=" + e.srv.ResourceVersion())
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1))
	first := e.createPod("default", "p0", nil)
	require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 2)) // the writer waits on its delay with p0 in hand
	for i := 1; i <= 5; i++ {
		e.createPod("default", fmt.Sprintf("p%d", i), nil) // p1..p3 fill the buffer, p4 overflows it
	}
	e.srv.SetWatchDelay(0)
	e.clock.Step(time.Second)
	got := []string{ws.next().summary(t)}
	for _, f := range ws.ended() {
		got = append(got, f.summary(t))
	}
	require.Equal(t, "ADDED p0@"+first.ResourceVersion, got[0])
	require.Len(t, got, 4, "p0 plus the three buffered events, then the end: %v", got)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, 5*time.Second, time.Millisecond)
}

// Many writers and many watchers at once: every watcher sees every change
// of every object exactly once, in resourceVersion order, and replaying its
// events gives the server's final state.
func TestWatch_ConcurrentWritersAndWatchers(t *testing.T) {
	e := newEnv(t, Options{WatchBuffer: 10000, History: 10000})
	from := e.srv.ResourceVersion()
	const watchers, writers, opsPerWriter = 4, 4, 60
	streams := make([]*watchStream, watchers)
	for i := range streams {
		streams[i] = e.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + from)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range opsPerWriter {
				name := fmt.Sprintf("w%d-p%d", w, rng.IntN(5))
				obj, err := e.srv.Get("pods", "default", name)
				switch {
				case err != nil:
					_, err = e.srv.Create(testPod("default", name, nil))
				case i%3 == 0:
					_, err = e.srv.Delete("pods", "default", name)
				default:
					p := obj.(*api.Pod)
					p.Labels = map[string]string{"i": strconv.Itoa(i)}
					_, err = e.srv.Update(p)
				}
				if err != nil && !strings.Contains(err.Error(), "not found") {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	final, listRV, err := e.srv.List("pods", "default")
	require.NoError(t, err)
	want := map[string]string{}
	for _, p := range final {
		want[p.GetName()] = p.GetResourceVersion()
	}
	last, _ := strconv.ParseUint(listRV, 10, 64)
	for _, ws := range streams {
		state := map[string]string{}
		var prev uint64
		for prev < last {
			f := ws.next()
			m := f.meta(t)
			rv, _ := strconv.ParseUint(m.ResourceVersion, 10, 64)
			require.Greater(t, rv, prev, "events arrive in resourceVersion order")
			prev = rv
			if f.Type == api.Deleted {
				delete(state, m.Name)
			} else {
				state[m.Name] = m.ResourceVersion
			}
		}
		require.Equal(t, want, state, "replaying the watch gives the server's state")
	}
}

// Fan-out shares frames: watchers of every form (plain JSON, Table,
// PartialObjectMetadata, a selector the object leaves and re-enters) that
// were open during the writes receive, byte for byte, the frames a watcher
// of the same form opened afterwards replays from history, where nothing
// is shared. Two of each form run, so each shared frame is read twice.
func TestWatch_SharedFramesEqualReplayedFrames(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.createPod("default", "fan", map[string]string{"app": "demo"})
	const (
		partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		table   = "application/json;as=Table;v=v1;g=meta.k8s.io"
	)
	forms := []struct{ name, query, accept string }{
		{"json", "", ""},
		{"partial", "", partial},
		{"table", "", table},
		{"selector", "&labelSelector=app%3Ddemo", ""},
		{"selector-partial", "&labelSelector=app%3Ddemo", partial},
	}
	path := func(query string) string {
		return "/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + p.ResourceVersion + query
	}
	open := func(query, accept string) *watchStream {
		if accept == "" {
			return e.watch(path(query))
		}
		return e.watch(path(query), "Accept", accept)
	}
	live := make([][2]*watchStream, len(forms))
	for i, f := range forms {
		live[i] = [2]*watchStream{open(f.query, f.accept), open(f.query, f.accept)}
	}

	cur := p
	for _, app := range []string{"other", "demo", "demo"} {
		cur.Labels = map[string]string{"app": app}
		out, err := e.srv.Update(cur)
		require.NoError(t, err)
		cur = out.(*api.Pod)
	}
	_, err := e.srv.Delete("pods", "default", "fan")
	require.NoError(t, err)
	// json and table see 4 frames; a selector watch misses nothing
	// either: DELETED (left), ADDED (back), MODIFIED, DELETED.
	const frames = 4

	for i, f := range forms {
		replay := open(f.query, f.accept)
		for n := range frames {
			want := replay.next().raw
			for _, ws := range live[i] {
				require.Equal(t, want, ws.next().raw, "%s frame %d", f.name, n)
			}
		}
	}
}
