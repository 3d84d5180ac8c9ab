package fakeapiserver

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// recordedSection returns the lines of one "===== title" section of a
// recording, from the line after its title to the next section.
func recordedSection(t *testing.T, path, titlePrefix string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "=====") {
			if in {
				break
			}
			in = strings.HasPrefix(line, "===== "+titlePrefix)
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "no section %q in %s", titlePrefix, path)
	return out
}

// recordedFrames are the watch frames of a section, and its headers.
func recordedFrames(t *testing.T, lines []string) (frames []frame, headers map[string]string) {
	t.Helper()
	headers = map[string]string{}
	for _, l := range lines {
		if strings.HasPrefix(l, `{"type"`) {
			var f frame
			require.NoError(t, json.Unmarshal([]byte(l), &f), "recorded frame %s", l)
			f.raw = l + "\n"
			frames = append(frames, f)
		} else if k, v, ok := strings.Cut(l, ": "); ok && !strings.Contains(k, " ") {
			headers[k] = v
		}
	}
	return frames, headers
}

func parseRV(t *testing.T, f frame) uint64 {
	t.Helper()
	rv, err := strconv.ParseUint(f.meta(t).ResourceVersion, 10, 64)
	require.NoError(t, err, "frame %s", f.raw)
	return rv
}

var resourceVersionField = regexp.MustCompile(`"resourceVersion":"\d+"`)

// The streaming list that today's client-go opens first (WatchListClient,
// on by default since 1.35), sent to the fake as the real kube-apiserver
// 1.36 answered it in testdata/kube-apiserver-1.36/12-watch-bookmark-initial-events.txt:
// the same headers, an ADDED frame per object in key order (not in
// resourceVersion order: the recording's demo-c, written first, comes
// last), then the initial-events-end BOOKMARK, byte for byte but for the
// version, at a version no older than any object's; and without
// allowWatchBookmarks the same ADDEDs and no bookmark at all.
func TestWatch_StreamingListMatchesTheRecording(t *testing.T) {
	const recording = "../testdata/kube-apiserver-1.36/12-watch-bookmark-initial-events.txt"
	const ns = "realk8s-samples"
	e := newEnv(t, Options{})
	_, err := e.srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}})
	require.NoError(t, err)
	// As in the recording: demo-c first, then demo-a and demo-b, and demo-b
	// changed afterwards, so versions and keys disagree on the order.
	e.createPod(ns, "demo-c", map[string]string{"app": "other"})
	e.createPod(ns, "demo-a", map[string]string{"app": "demo"})
	b := testPod(ns, "demo-b", map[string]string{"app": "demo"})
	_, err = e.srv.Create(b)
	require.NoError(t, err)
	patched := e.do("PATCH", "/api/v1/namespaces/"+ns+"/pods/demo-b", `{"metadata":{"labels":{"patched":"true"}}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, 200, patched.code, "patch: %s", patched.body)

	for _, tc := range []struct {
		name, section, query string
	}{
		{"with bookmarks", "WatchList: ", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=3"},
		{"without allowWatchBookmarks", "sendInitialEvents=true WITHOUT allowWatchBookmarks", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantHeaders := recordedFrames(t, recordedSection(t, recording, tc.section))
			ws := e.watch("/api/v1/namespaces/" + ns + "/pods?" + tc.query)
			for _, h := range []string{"Content-Type", "Cache-Control", "Transfer-Encoding"} {
				got := ws.resp.Header.Get(h)
				if h == "Transfer-Encoding" && len(ws.resp.TransferEncoding) > 0 {
					got = ws.resp.TransferEncoding[0]
				}
				require.Equal(t, wantHeaders[h], got, "header %s", h)
			}
			var got []frame
			for range want {
				got = append(got, ws.next())
			}
			require.NoError(t, e.clock.BlockUntilWaiters(ctxTimeout(t), 1)) // the watch's timeout
			e.clock.Step(3 * time.Second)
			got = append(got, ws.ended()...)
			require.Len(t, got, len(want), "as many frames as the real server sent")
			var maxRV uint64
			for i := range want {
				w, g := want[i], got[i]
				t.Logf("real: %s %s; fake: %s", w.Type, w.meta(t).Name, g.summary(t))
				require.Equal(t, w.Type, g.Type, "frame %d", i)
				require.Equal(t, w.meta(t).Name, g.meta(t).Name, "frame %d: key order", i)
				if g.Type == api.Bookmark {
					require.Equal(t, resourceVersionField.ReplaceAllString(w.raw, `"resourceVersion":"N"`),
						resourceVersionField.ReplaceAllString(g.raw, `"resourceVersion":"N"`), "the bookmark, byte for byte but for its version")
					require.GreaterOrEqual(t, parseRV(t, g), maxRV, "the bookmark's version is no older than any object's")
				} else {
					maxRV = max(maxRV, parseRV(t, g))
				}
			}
		})
	}
}
