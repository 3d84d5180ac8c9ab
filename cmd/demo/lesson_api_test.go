package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/lab"
)

// newLessonUI is the page's handler with a lab and lessons, no demo
// behind them (enough for what fails before the world is touched).
func newLessonUI(t *testing.T) (*lessons, *httptest.Server) {
	t.Helper()
	lb := lab.New(lab.Options{Settle: 10 * time.Millisecond})
	ls := newLessons(lessonEnv{lab: lb, ctx: context.Background()})
	u := &webUI{agg: newAggregator(t0, nil), hub: newHub(), now: func() time.Time { return t0 }, ctx: context.Background(), lab: lb, lessons: ls}
	srv := httptest.NewServer(u.handler())
	t.Cleanup(srv.Close)
	return ls, srv
}

func lessonRequest(t *testing.T, method, url string, header bool) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if header {
		req.Header.Set("X-Kinformer", "1")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// The list has every lesson, each titled and summed up in both
// languages; the buttons need the page's header; a lesson that does not
// exist, or a Next without a lesson, is an error that says what to do.
func TestLessons_ListAndTheirAPI(t *testing.T) {
	ls, srv := newLessonUI(t)
	resp, err := http.Get(srv.URL + "/api/lab/lessons")
	require.NoError(t, err)
	var list []lessonListed
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	resp.Body.Close()
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
		for _, b := range []bilingual{l.Title, l.Summary} {
			checkNarration(t, &b)
		}
	}
	require.Equal(t, []string{"lost-delete", "expired-relist", "watch-resume", "resync", "slow-handler", "queue-dedup", "retries", "both-informers"}, ids)

	code, body := lessonRequest(t, http.MethodGet, srv.URL+"/api/lab/lesson", false)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"active": false}, body)

	code, _ = lessonRequest(t, http.MethodPost, srv.URL+"/api/lab/lesson/start?id=lost-delete", false)
	require.Equal(t, http.StatusForbidden, code, "no header, no lesson")
	code, body = lessonRequest(t, http.MethodPost, srv.URL+"/api/lab/lesson/start?id=nope", true)
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, body["error"], "GET /api/lab/lessons lists them")
	for _, a := range []string{"next", "back"} {
		code, body = lessonRequest(t, http.MethodPost, srv.URL+"/api/lab/lesson/"+a, true)
		require.Equal(t, http.StatusConflict, code, a)
		require.Contains(t, body["error"], "start one", a)
	}
	code, body = lessonRequest(t, http.MethodPost, srv.URL+"/api/lab/lesson/stop", true)
	require.Equal(t, http.StatusOK, code, "stopping nothing is fine")
	require.Equal(t, map[string]any{"active": false}, body)
	code, _ = lessonRequest(t, http.MethodPost, srv.URL+"/api/lab/lesson/dance", true)
	require.Equal(t, http.StatusNotFound, code)

	ls.mu.Lock() // as a start or a Next under way holds it
	code, body = lessonRequest(t, http.MethodGet, srv.URL+"/api/lab/lesson", false)
	ls.mu.Unlock()
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"active": false, "busy": true}, body, "a GET does not wait for a Next")
}

// idleScript is a lesson whose story never comes.
type idleScript struct{ baseScript }

func (idleScript) begin(*lessonRun) error                        { return nil }
func (idleScript) intro(*lessonRun) bilingual                    { return say("intro", "开始") }
func (idleScript) narrate(*lessonRun, lab.Hop) (bilingual, bool) { return bilingual{}, false }
func (idleScript) done(*lessonRun) bool                          { return false }

// A Next never hangs: with no hop waiting and no timer that could bring
// one, it answers at once with the lesson as it was and an error in it,
// in both languages.
func TestLessons_NextOnAnIdlePipelineSaysSo(t *testing.T) {
	ls, _ := newLessonUI(t)
	l := ls.env.lab
	l.Pause()
	ls.run = &lessonRun{ls: ls, env: &ls.env, meta: lessonMeta{id: "idle", title: say("idle", "空闲")}, script: idleScript{},
		said: map[string]int{}, frames: []lessonFrame{{narration: say("intro", "开始")}}}
	v, err := ls.next(context.Background())
	require.NoError(t, err)
	require.Contains(t, v.Error, "idle")
	checkNarration(t, v.ErrorText)
	require.Zero(t, v.Index)
	require.False(t, v.Done)
}

// The narration quotes the boxes as the lab records them (read through
// JSON, so a loaded recording's maps read as the stages' own values).
func TestLessons_QuoteTheBoxContents(t *testing.T) {
	v := lab.View{
		FIFO: map[string]any{
			"pods": map[string]any{"kind": "DeltaFIFO", "items": []any{
				map[string]any{"key": "default/web-x", "deltas": []any{map[string]any{"type": "Replaced", "rv": "50"}, map[string]any{"type": "Deleted", "rv": "57", "tombstone": true}}},
			}},
			"pods (today)": map[string]any{"kind": "RealFIFO", "items": []any{
				map[string]any{"key": "", "deltas": []any{map[string]any{"type": "ReplacedAll", "rv": "25", "n": 4}}},
			}},
		},
		Listeners: map[string]any{"pods/audit": map[string]any{"pending": []any{map[string]any{"type": "update", "key": "kube-system/coredns", "rv": "31"}}}},
		WorkQueue: map[string]any{"replicaset": map[string]any{"queue": []any{}, "dirty": []any{"default/web"}, "processing": []any{},
			"waiting": []any{map[string]any{"key": "default/web", "due": "2026-01-01T12:00:00.005Z"}}}},
		Indexer:   map[string]any{"pods": map[string]any{"objects": []any{map[string]any{"key": "default/web-y", "rv": "40"}}}},
		Reflector: map[string]any{"pods": map[string]any{"phase": "backing off", "lastSyncResourceVersion": "22", "backoffUntil": "2026-01-01T12:00:01.5Z"}},
	}
	q := queueNames(articlesInformer)
	require.Equal(t, "(The DeltaFIFO now holds default/web-x: [Replaced rv 50, Deleted rv 57 (tombstone)].)", quoteFIFOKey(v, "pods", "default/web-x", q).En)
	require.Equal(t, "（增量队列（DeltaFIFO）里现在有 default/web-x：[Replaced rv 50, Deleted rv 57（墓碑）]。）", quoteFIFOKey(v, "pods", "default/web-x", q).Zh)
	require.Equal(t, "(The RealFIFO now holds 1 item(s): [ReplacedAll rv 25 (4 objects)].)", quoteFIFO(v, "pods (today)", queueNames(todayInformer)).En)
	require.Equal(t, "(audit's buffer now holds 1: update kube-system/coredns rv 31.)", quotePending(v, "pods/audit", "audit").En)
	require.Equal(t, "(The work queue now: queue [], dirty {default/web}, processing {}, waiting {default/web until 12:00:00.005}.)", quoteWorkQueue(v, "replicaset").En)
	require.Equal(t, "(The cache now holds 1 object(s); default/web-x is not among them.)", quoteCacheHas(v, "pods", "default/web-x").En)
	require.Equal(t, "(The Reflector: backing off until 12:00:01.500 on the lab's clock; its last synced resourceVersion 22.)", quoteReflector(v, "pods").En)
	require.Equal(t, "（反射器：退避，直到实验台时钟的 12:00:01.500；它最后同步的 resourceVersion 是 22。）", quoteReflector(v, "pods").Zh)
	require.Equal(t, bilingual{}, quoteFIFO(v, "replicasets.apps", q), "a box the lab has not seen quotes nothing")
}

// The chaos loop breaks nothing while the lab is paused or a lesson runs:
// it asks, and waits its turn.
func TestChaos_WaitsWhileTheLabIsPausedOrALessonRuns(t *testing.T) {
	var asked atomic.Int64
	f := &faults{skip: func() bool { asked.Add(1); return true }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.chaos(ctx, time.Millisecond) }()
	require.Eventually(t, func() bool { return asked.Load() >= 5 }, 10*time.Second, time.Millisecond)
	cancel()
	<-done
	require.Zero(t, f.done.Load(), "no fault injected")
}
