package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// generousWait bounds every wait here: it ends as soon as the condition
// holds, so it costs nothing on a fast machine.
const generousWait = 10 * time.Second

// newLabUI is the page's server with a lab behind it, as the demo runs it.
func newLabUI(t *testing.T) (*lab.Lab, *httptest.Server) {
	t.Helper()
	u, _ := newTestUI(t)
	// Settle: how long a step waits for a hop before it looks for a timer;
	// a step ends as soon as a hop arrives.
	u.lab = lab.New(lab.Options{Settle: generousWait})
	srv := httptest.NewServer(u.handler())
	t.Cleanup(srv.Close)
	t.Cleanup(u.lab.Close) // no stage stays parked at the gate
	return u.lab, srv
}

// labDo sends one request to the lab's API (a POST with the page's
// header) and returns the status and the body.
func labDo(t *testing.T, srv *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("X-Kinformer", "1")
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// askLabView sends one request and decodes its lab.View answer.
func askLabView(t *testing.T, srv *httptest.Server, method, path, body string) lab.View {
	t.Helper()
	code, b := labDo(t, srv, method, path, body)
	require.Equal(t, http.StatusOK, code, "%s", b)
	var v lab.View
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

// The page's buttons, through the page's own handler: Pause holds the
// pipeline's hops; Step lets exactly one go and answers it with the state
// after it; the timeline slider rewinds to a step and shows what the boxes
// held then, read-only; the speed control slows the clock; Resume is live
// again; a Step while running is refused (409) with a message.
func TestLabAPI_PauseStepRewindSpeedResumeThroughThePage(t *testing.T) {
	story := trace.ForTest(t)
	l, srv := newLabUI(t)

	v := askLabView(t, srv, http.MethodPost, "/api/lab/pause", "")
	require.True(t, v.Paused)

	// A DeltaFIFO's two hops, each with the queue's contents after it.
	fifo := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	queued := map[string]any{"kind": "DeltaFIFO", "items": []any{map[string]any{"key": "default/web-1",
		"deltas": []any{map[string]any{"type": "Deleted", "rv": "57"}}}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fifo.Event("delta queued", trace.Key("default/web-1"), trace.RV("57"), trace.StateOf("fifo", "", queued))
		fifo.Event("pop", trace.Key("default/web-1"), trace.StateOf("fifo", "", map[string]any{"kind": "DeltaFIFO", "items": []any{}}))
	}()
	require.Eventually(t, func() bool {
		return len(askLabView(t, srv, http.MethodGet, "/api/lab/state", "").Waiting) == 1
	}, generousWait, time.Millisecond, "the first hop waits at the gate")

	var stepped struct {
		Hop   lab.Hop  `json:"hop"`
		State lab.View `json:"state"`
	}
	code, b := labDo(t, srv, http.MethodPost, "/api/lab/step", "")
	require.Equal(t, http.StatusOK, code, "%s", b)
	require.NoError(t, json.Unmarshal(b, &stepped))
	require.Equal(t, "delta queued", stepped.Hop.What)
	require.Equal(t, "fifo/pods", stepped.Hop.Box)
	first := stepped.Hop.Step
	require.Equal(t, queued, stepped.State.FIFO["pods"], "the step's answer shows the queue after it")
	story.Event("stepped", trace.Key(stepped.Hop.Text))

	code, b = labDo(t, srv, http.MethodPost, "/api/lab/step", "")
	require.Equal(t, http.StatusOK, code, "%s", b)
	require.NoError(t, json.Unmarshal(b, &stepped))
	require.Equal(t, "pop", stepped.Hop.What)
	require.Equal(t, first+1, stepped.Hop.Step, "exactly one hop per step")
	<-done

	// The timeline, dragged back to the first hop: the queue as it was.
	v = askLabView(t, srv, http.MethodPost, "/api/lab/rewind?step="+strconv.Itoa(first), "")
	require.True(t, v.Rewound, "a rewound view is read-only")
	require.Equal(t, first, v.Step)
	require.Equal(t, queued, v.FIFO["pods"])
	require.Equal(t, "delta queued", v.Hop.What)
	v = askLabView(t, srv, http.MethodGet, "/api/lab/state", "")
	require.True(t, v.Rewound, "the page's poll sees the rewound step too")
	require.Equal(t, first, v.Step)
	story.Event("rewound", trace.Key(v.Hop.Text))

	code, b = labDo(t, srv, http.MethodGet, "/api/lab/timeline?from="+strconv.Itoa(first)+"&limit=5", "")
	require.Equal(t, http.StatusOK, code)
	var hops []lab.Hop
	require.NoError(t, json.Unmarshal(b, &hops))
	require.Len(t, hops, 2, "the hops around the shown step")
	require.Equal(t, "pop", hops[1].What)

	v = askLabView(t, srv, http.MethodPost, "/api/lab/speed?x=0.25", "")
	require.Equal(t, 0.25, v.Speed)

	v = askLabView(t, srv, http.MethodPost, "/api/lab/resume", "")
	require.False(t, v.Paused)
	require.False(t, v.Rewound, "Resume goes on live")
	require.Equal(t, first+1, v.Step)

	code, b = labDo(t, srv, http.MethodPost, "/api/lab/step", "")
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, string(b), lab.ErrNotPaused.Error())
}

// A recording saved from the page loads back into it (read-only, at its
// first step).
func TestLabAPI_SaveAndLoadARecording(t *testing.T) {
	l, srv := newLabUI(t)
	fifo := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	fifo.Event("delta queued", trace.Key("default/a"), trace.StateOf("fifo", "", map[string]any{"items": []any{"default/a"}}))
	code, rec := labDo(t, srv, http.MethodGet, "/api/lab/recording", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, string(rec), `"kinformer":"lab recording v1"`)

	v := askLabView(t, srv, http.MethodPost, "/api/lab/recording", string(rec))
	require.True(t, v.Loaded)
	require.True(t, v.Rewound)
	require.Equal(t, map[string]any{"items": []any{"default/a"}}, v.FIFO["pods"])
}

// Bad input from the page (or curl) is answered 400 with a message that
// says what is wrong, never a panic, and the lab goes on working: a step
// that is no number or not kept, a speed that is no number, zero, too
// fast or NaN, garbage for a recording. A POST without the page's header
// is refused (403).
func TestLabAPI_BadInputIsRefusedWithAMessage(t *testing.T) {
	l, srv := newLabUI(t)
	l.Tracer().Stage(trace.StageWorkQueue).Event("add", trace.Key("default/web"))
	for _, c := range []struct {
		method, path, body string
		code               int
		says               string
	}{
		{http.MethodPost, "/api/lab/rewind?step=abc", "", 400, "want a whole number"},
		{http.MethodPost, "/api/lab/rewind", "", 400, "not in the timeline"},
		{http.MethodPost, "/api/lab/rewind?step=99999", "", 400, "not in the timeline"},
		{http.MethodPost, "/api/lab/rewind?step=-3", "", 400, "not in the timeline"},
		{http.MethodPost, "/api/lab/speed?x=fast", "", 400, "want a number"},
		{http.MethodPost, "/api/lab/speed", "", 400, "want a number"},
		{http.MethodPost, "/api/lab/speed?x=0", "", 400, "want more than 0"},
		{http.MethodPost, "/api/lab/speed?x=-1", "", 400, "want more than 0"},
		{http.MethodPost, "/api/lab/speed?x=1e9", "", 400, "at most 100"},
		{http.MethodPost, "/api/lab/speed?x=NaN", "", 400, "want more than 0"},
		{http.MethodPost, "/api/lab/recording", "this is not JSON", 400, "load recording"},
		{http.MethodPost, "/api/lab/recording", "", 400, "load recording"},
		{http.MethodPost, "/api/lab/recording", `{"kinformer":"a shopping list"}`, 400, "not a lab recording"},
		{http.MethodPost, "/api/lab/recording", `{"kinformer":"lab recording v1","hops":[]}`, 400, "no hops"},
		{http.MethodPost, "/api/lab/recording", `{"kinformer":"lab recording v1","hops":[{"step":3},{"step":9}]}`, 400, "step 9 follows step 3"},
		{http.MethodGet, "/api/lab/state?step=x", "", 400, "want a whole number"},
		{http.MethodGet, "/api/lab/state?step=99999", "", 404, "not in the timeline"},
		{http.MethodGet, "/api/lab/timeline?limit=many", "", 400, "want a whole number"},
	} {
		code, b := labDo(t, srv, c.method, c.path, c.body)
		require.Equal(t, c.code, code, "%s %s: %s", c.method, c.path, b)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(b, &e), "%s %s answers JSON: %s", c.method, c.path, b)
		require.Contains(t, e.Error, c.says, "%s %s", c.method, c.path)
	}

	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/lab/pause", nil)
	require.NoError(t, err)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, string(b), "X-Kinformer")
	require.False(t, l.Paused(), "no header, no pause")

	v := askLabView(t, srv, http.MethodGet, "/api/lab/state", "")
	require.Equal(t, 1.0, v.Speed, "a refused speed left the clock as it was")
	require.Equal(t, 1, v.LastStep)
	require.False(t, v.Loaded, "a refused recording left the live timeline shown")
}

// The lab's files are served with the page's CSP, and every string lab.js
// shows has an English and a Chinese entry: each key of LAB_I18N
// (lab_i18n.js) is in both languages, and every key the page asks for
// (L('...') and the data-lab labels in lab.js and index.html) is one of
// them, and each of them is asked for.
func TestLabPage_EveryStringHasAChineseEntry(t *testing.T) {
	_, srv := newTestUI(t)
	get := func(p string) string {
		resp, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, p)
		require.True(t, strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "default-src 'self'"), p)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	js, strs, html := get("/lab.js"), get("/lab_i18n.js"), get("/index.html")
	get("/lab.css")
	require.Contains(t, html, "<script src=\"lab_i18n.js\" defer></script>\n<script src=\"lab.js\" defer></script>", "the strings load first")

	block := func(name string) string {
		m := regexp.MustCompile(`(?s)\n  ` + name + `: \{\n(.*?)\n  \}`).FindStringSubmatch(strs)
		require.NotNil(t, m, "LAB_I18N.%s in lab_i18n.js", name)
		return m[1]
	}
	entry := regexp.MustCompile(`(\w+): '((?:[^'\\]|\\.)*)'`)
	keys := func(name string) map[string]string {
		out := map[string]string{}
		for _, m := range entry.FindAllStringSubmatch(block(name), -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	en, zh := keys("en"), keys("zh")
	require.Greater(t, len(en), 50, "lab.js's English strings")
	for k, s := range en {
		require.NotEmpty(t, zh[k], "LAB_I18N.zh has no %q (en: %q)", k, s)
		for _, ph := range regexp.MustCompile(`\{\w+\}`).FindAllString(s, -1) {
			require.Contains(t, zh[k], ph, "zh %q keeps the placeholder %s", k, ph)
		}
	}
	for k := range zh {
		require.Contains(t, en, k, "LAB_I18N.en has no %q", k)
	}
	var used []string
	for _, re := range []string{`\bL\('(\w+)'`, `data-lab="(\w+)"`, `dataset\.lab = '(\w+)'`, `dataset\.lab = [^?\n]*\? '(\w+)' : '(\w+)'`} {
		for _, src := range []string{js, html} {
			for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(src, -1) {
				used = append(used, m[1:]...)
			}
		}
	}
	slices.Sort(used)
	used = slices.Compact(used)
	require.Greater(t, len(used), 40)
	for k := range en {
		require.Contains(t, used, k, "LAB_I18N.%s is shown nowhere", k)
	}
	for _, k := range used {
		require.Contains(t, en, k, "lab.js or index.html asks for %q", k)
		require.Contains(t, zh, k, "lab.js or index.html asks for %q", k)
	}
	require.Contains(t, html, `id="lab"`)
	require.NotContains(t, js, "innerHTML", "lab.js builds nodes; it never parses strings as HTML")
}
