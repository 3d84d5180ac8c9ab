package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/kinformer/kinformer/lab"
)

// lessonDemo is the whole demo, with its page, running in the test.
type lessonDemo struct {
	t    *testing.T
	page string // the page's URL
}

// startLessonDemo runs the demo (the informer given, no chaos) until the
// test ends, and waits for its page.
func startLessonDemo(t *testing.T, inf string) *lessonDemo {
	t.Helper()
	var out syncbuf.Buffer
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--web", "127.0.0.1:0", "--chaos-every", "0",
			"--start-delay", "100ms", "--quiet", "--lang", "en", "--informer", inf}, &out)
	}()
	t.Cleanup(func() {
		stop()
		require.NoError(t, <-done)
	})
	pageRe := regexp.MustCompile(`live view: (http://\S+)/`)
	require.Eventually(t, func() bool { return pageRe.MatchString(out.String()) }, 20*time.Second, 5*time.Millisecond)
	return &lessonDemo{t: t, page: pageRe.FindStringSubmatch(out.String())[1]}
}

// post POSTs to the page's API and decodes the answer into v.
func (d *lessonDemo) post(path string, v any) int {
	d.t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.page+path, nil)
	require.NoError(d.t, err)
	req.Header.Set("X-Kinformer", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(d.t, err)
	defer resp.Body.Close()
	require.NoError(d.t, json.NewDecoder(resp.Body).Decode(v))
	return resp.StatusCode
}

// lessonStory is a lesson run to its end: every narrated step.
type lessonStory struct {
	views []lessonView
}

// hops are the narrated hops' "stage: what key" lines, in order.
func (s lessonStory) hops() []string {
	var out []string
	for _, v := range s.views[1:] {
		out = append(out, v.Hop.Stage+": "+v.Hop.What+" "+v.Hop.Key)
	}
	return out
}

// has reports whether a narrated hop's trace line contains each of parts.
func (s lessonStory) has(parts ...string) bool {
	for _, v := range s.views[1:] {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(v.Hop.Text, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// runLesson starts lesson id and presses Next until it is done (at most
// maxNext times), checking what every step must have; it tells the story
// under -v, and checks that Back shows the previous step, read-only.
func (d *lessonDemo) runLesson(id string, maxNext int) lessonStory {
	t := d.t
	t.Helper()
	var v lessonView
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/start?id="+id, &v), "start: %+v", v)
	require.True(t, v.Active)
	require.Equal(t, id, v.ID)
	require.Zero(t, v.Index, "the intro")
	require.NotNil(t, v.State)
	require.True(t, v.State.Paused, "a lesson pauses the lab")
	story := lessonStory{views: []lessonView{v}}
	for i := 0; !v.Done; i++ {
		require.Less(t, i, maxNext, "the lesson did not end in %d Nexts; so far: %v", maxNext, story.hops())
		var next lessonView
		require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/next", &next))
		require.Empty(t, next.Error, "Next %d: %s (after %v)", i+1, next.Error, story.hops())
		require.Equal(t, v.Index+1, next.Index)
		require.NotNil(t, next.Hop, "a narrated step has its hop")
		require.Equal(t, next.Hop.Step, next.Step)
		require.False(t, next.Hop.World, "a story hop is one the lab held")
		v = next
		story.views = append(story.views, v)
	}
	for i, s := range story.views {
		checkNarration(t, s.Narration)
		if i == 0 {
			t.Logf("%s (%s)\n  en: %s\n  zh: %s", s.Title.En, s.Title.Zh, s.Narration.En, s.Narration.Zh)
			continue
		}
		t.Logf("step %d, %s\n  en: %s\n  zh: %s", s.Step, s.Hop.Text, s.Narration.En, s.Narration.Zh)
	}

	// Back: the previous narrated step, as it was recorded, read-only.
	prev := story.views[len(story.views)-2]
	var back lessonView
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/back", &back))
	require.Equal(t, prev.Index, back.Index)
	require.Equal(t, prev.Step, back.Step)
	require.Equal(t, *prev.Narration, *back.Narration)
	require.Equal(t, prev.Step, back.State.Step, "the lab shows the step rewound to")
	require.True(t, back.State.Rewound, "a step gone back to is read-only")
	var fwd lessonView
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/next", &fwd))
	require.Equal(t, v.Index, fwd.Index, "Next after Back goes forward through what was recorded")
	require.True(t, fwd.Done)
	require.False(t, fwd.State.Rewound, "the last step is live again")
	var over lessonView
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/next", &over))
	require.Equal(t, v.Index, over.Index, "a lesson that is over stays where it is")
	require.NotEmpty(t, over.Error)
	checkNarration(t, over.ErrorText)

	var stopped map[string]any
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/stop", &stopped))
	require.Equal(t, map[string]any{"active": false}, stopped)
	var st lab.View
	resp, err := http.Get(d.page + "/api/lab/state")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	require.False(t, st.Paused, "Stop lets the lab run again")
	return story
}

// checkNarration: both languages, no formatting slip.
func checkNarration(t *testing.T, n *bilingual) {
	t.Helper()
	require.NotNil(t, n)
	require.NotEmpty(t, n.En)
	require.NotEmpty(t, n.Zh)
	require.NotContains(t, n.En, "%!", "a formatting slip: %s", n.En)
	require.NotContains(t, n.Zh, "%!", "a formatting slip: %s", n.Zh)
	require.Regexp(t, `\p{Han}`, n.Zh, "the Chinese text is Chinese")
}

// Lesson 1, both informers: the DELETED is dropped, the watch fails with
// 410, the relist finds the pod gone and the delete reaches the cache and
// the controller's handler as a DeletedFinalStateUnknown tombstone: queued
// by the articles' DeltaFIFO, or found by today's ReplacedAll.
func TestLesson_LostDeleteBecomesATombstone(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) {
			d := startLessonDemo(t, inf)
			s := d.runLesson("lost-delete", 40)
			require.True(t, s.has("reflector: phase resource=pods phase=\"backing off\"", "410 Expired"), "%v", s.hops())
			if inf == "articles" {
				require.True(t, s.has("deltafifo: tombstone queued resource=pods"), "%v", s.hops())
			} else {
				require.True(t, s.has("deltafifo: delta queued resource=pods type=ReplacedAll"), "%v", s.hops())
				require.True(t, s.has("informer: cache replace resource=pods", "gone=1"), "%v", s.hops())
			}
			require.True(t, s.has("informer: cache delete (tombstone: final state unknown) resource=pods"), "%v", s.hops())
			last := s.views[len(s.views)-1]
			require.Equal(t, "OnDelete (final state unknown)", last.Hop.What)
			require.Equal(t, "replicaset-controller", last.Hop.Attrs["handler"])
		})
	}
}

// Lesson 2: compact, close the watches: the watch from the last
// resourceVersion gets 410 Expired, the Reflector backs off and relists.
func TestLesson_ExpiredWatchRelists(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) {
			d := startLessonDemo(t, inf)
			s := d.runLesson("expired-relist", 40)
			require.True(t, s.has("reflector: watch ended resource=pods", "the server closed it"), "%v", s.hops())
			require.True(t, s.has("reflector: [warning] watch ended resource=pods", "too old resource version"), "%v", s.hops())
			require.True(t, s.has("phase=\"backing off\"", "410 Expired"), "%v", s.hops())
			require.True(t, s.has("reflector: phase resource=pods phase=watching from=listing reason=listed"), "%v", s.hops())
			if inf == "today" {
				require.True(t, s.has("reflector: streaming list resource=pods"), "%v", s.hops())
				require.True(t, s.has("informer: cache replace resource=pods"), "%v", s.hops())
			} else {
				require.True(t, s.has("reflector: list resource=pods"), "%v", s.hops())
				require.True(t, s.has("delta=Replaced"), "%v", s.hops())
			}
		})
	}
}

// Lesson 3: close the watches, change a pod meanwhile: the Reflector
// watches again from its last resourceVersion, the server replays the
// change, and nothing is listed.
func TestLesson_DroppedWatchResumesWithoutRelist(t *testing.T) {
	d := startLessonDemo(t, "today")
	s := d.runLesson("watch-resume", 30)
	require.True(t, s.has("reflector: phase resource=pods phase=watching from=watching reason=\"ended cleanly\""), "%v", s.hops())
	require.True(t, s.has("server: frame sent", "key=kube-system/coredns"), "%v", s.hops())
	last := s.views[len(s.views)-1].Hop
	require.Equal(t, "kube-system/coredns", last.Key)
	require.Contains(t, last.What, "cache ")
	for _, h := range d.timeline(s.views[0].Step) {
		if h.Attrs["resource"] == "pods" && h.Stage == "reflector" {
			require.NotContains(t, []string{"list", "streaming list", "listed"}, h.What, "no relist: %s", h.Text)
		}
	}
}

// timeline is the lab's recorded hops from step from on.
func (d *lessonDemo) timeline(from int) []lab.Hop {
	d.t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/lab/timeline?from=%d&limit=10000", d.page, from))
	require.NoError(d.t, err)
	defer resp.Body.Close()
	var hops []lab.Hop
	require.NoError(d.t, json.NewDecoder(resp.Body).Decode(&hops))
	return hops
}

// Lesson 4: the lesson's informer's handler has a resync period; the lab's
// clock jumps to the resync timer, and every cached pod is replayed to it
// as an OnUpdate (resync), with nothing asked of the server.
func TestLesson_ResyncReplaysTheCache(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) {
			d := startLessonDemo(t, inf)
			s := d.runLesson("resync", 40)
			require.True(t, s.has(`reflector: resync resource="pods (resync)"`), "%v", s.hops())
			if inf == "today" {
				require.True(t, s.has(`informer: cache resync resource="pods (resync)"`), "%v", s.hops())
			} else {
				require.True(t, s.has(`deltafifo: delta queued resource="pods (resync)" type=Sync`), "%v", s.hops())
			}
			replayed := 0
			for _, v := range s.views[1:] {
				if v.Hop.What == "OnUpdate (resync)" {
					replayed++
				}
			}
			require.Equal(t, 4, replayed, "web's three pods and coredns")
			resync := s.views[1].Hop
			require.Equal(t, "resync", resync.What)
			require.False(t, resync.Time.Before(s.views[0].State.Now), "the lab's clock moved on to the resync timer")
			requireStopped(t, d, "pods (resync)")
		})
	}
}

// requireStopped waits until the lesson's informer has stopped.
func requireStopped(t *testing.T, d *lessonDemo, resource string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, h := range d.timeline(0) {
			if h.Stage == "reflector" && h.What == "phase" && h.Attrs["resource"] == resource && h.Attrs["phase"] == "stopped" {
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "Stop ends the lesson's informer")
}

// Lesson 5: audit is slow; a pod changes five times: audit's pending
// notifications pile up while the controller's handler keeps up.
func TestLesson_SlowHandlerBacklogIsItsOwn(t *testing.T) {
	d := startLessonDemo(t, "today")
	s := d.runLesson("slow-handler", 40)
	auditPeak, ctrlPeak, auditTold := 0, 0, 0
	for _, v := range s.views[1:] {
		p := atoi(v.Hop.Attrs["pending"])
		switch {
		case v.Hop.What == "notify" && v.Hop.Attrs["handler"] == "audit":
			auditPeak = max(auditPeak, p)
		case v.Hop.What == "OnUpdate" && v.Hop.Attrs["handler"] == "replicaset-controller":
			ctrlPeak = max(ctrlPeak, p)
		case v.Hop.What == "OnUpdate" && v.Hop.Attrs["handler"] == "audit":
			auditTold++
		}
	}
	require.GreaterOrEqual(t, auditPeak, 3, "audit's backlog grows: %v", s.hops())
	require.Less(t, ctrlPeak, auditPeak, "the controller's handler keeps up")
	require.Equal(t, 5, auditTold, "audit handles every change, late")
}

// Lesson 6: the ReplicaSet changes while a worker reconciles it: the key
// is marked dirty, not queued (add while processing), a further change is
// deduplicated, Done queues it once more, and two reconciles cover three
// changes.
func TestLesson_WorkQueueDedupsWhileProcessing(t *testing.T) {
	d := startLessonDemo(t, "today")
	s := d.runLesson("queue-dedup", 30)
	var whats []string
	reconciled := 0
	for _, v := range s.views[1:] {
		if v.Hop.Stage == "workqueue" {
			whats = append(whats, v.Hop.What)
		}
		if v.Hop.What == "reconciled" {
			reconciled++
		}
	}
	require.Equal(t, []string{"add", "get", "add (while processing)", "add (deduplicated)", "done (queued again)", "get"}, whats)
	require.Equal(t, 2, reconciled, "three changes, two reconciles")
}

// Lesson 7: every reconcile fails: five rate-limited retries, each after
// twice the delay of the one before on the lab's clock, then a drop.
func TestLesson_RetriesBackOffThenDrop(t *testing.T) {
	d := startLessonDemo(t, "today")
	s := d.runLesson("retries", 40)
	var delays []string
	var retryAt time.Time
	for _, v := range s.views[1:] {
		switch {
		case v.Hop.Stage == "controller" && v.Hop.What == "retry":
			delays = append(delays, v.Hop.Attrs["after"])
			retryAt = v.Hop.Time
		case v.Hop.Stage == "workqueue" && v.Hop.What == "add" && !retryAt.IsZero():
			d, err := time.ParseDuration(delays[len(delays)-1])
			require.NoError(t, err)
			require.GreaterOrEqual(t, v.Hop.Time.Sub(retryAt), d, "a retry never comes before its delay, on the lab's clock")
		}
	}
	require.Equal(t, []string{"5ms", "10ms", "20ms", "40ms", "80ms"}, delays)
	require.Equal(t, "dropped", s.views[len(s.views)-1].Hop.What)
}

// Lesson 8: a second pod informer of the other kind; one missed delete:
// the DeltaFIFO queues Replaced deltas and a tombstone, the RealFIFO one
// ReplacedAll, and both caches drop the pod.
func TestLesson_SameRelistInBothInformers(t *testing.T) {
	for _, tc := range []struct{ inf, other string }{{"today", `"pods (articles)"`}, {"articles", `"pods (today)"`}} {
		t.Run(tc.inf, func(t *testing.T) {
			d := startLessonDemo(t, tc.inf)
			s := d.runLesson("both-informers", 40)
			deltaFIFO, realFIFO := tc.other, "pods"
			if tc.inf == "articles" {
				deltaFIFO, realFIFO = "pods", tc.other
			}
			require.True(t, s.has("deltafifo: tombstone queued resource="+deltaFIFO), "%v", s.hops())
			require.True(t, s.has("deltafifo: delta queued resource="+deltaFIFO+" type=Replaced "), "%v", s.hops())
			require.True(t, s.has("deltafifo: delta queued resource="+realFIFO+" type=ReplacedAll"), "%v", s.hops())
			for _, res := range []string{deltaFIFO, realFIFO} {
				require.True(t, s.has("informer: cache delete (tombstone: final state unknown) resource="+res+" "), "%s: %v", res, s.hops())
			}
			requireStopped(t, d, strings.Trim(tc.other, `"`))
		})
	}
}

// A demo stopped in the middle of a lesson (the lab paused, a pod's
// delete not yet seen) ends it first: the lab runs again, the world
// settles, and the final check passes (startLessonDemo's cleanup checks
// that run returned no error).
func TestLesson_DemoStopsCleanlyMidLesson(t *testing.T) {
	d := startLessonDemo(t, "today")
	var v lessonView
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/start?id=lost-delete", &v))
	require.Equal(t, http.StatusOK, d.post("/api/lab/lesson/next", &v))
	require.Empty(t, v.Error)
	require.Equal(t, 1, v.Index)
	require.True(t, v.State.Paused)
}
