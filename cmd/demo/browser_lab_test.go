package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/lab"
)

// The lab's part of the browser test (browser_test.go drives the page):
// pause, step, look inside the queue, rewind with the timeline, and a
// lesson to its end in Chinese.

// script runs JavaScript in the page and decodes what it returns.
func (d *webDriver) script(js string, out any, args ...any) {
	d.t.Helper()
	if args == nil {
		args = []any{}
	}
	d.must(http.MethodPost, "/execute/sync", map[string]any{"script": js, "args": args}, out)
}

// attr is a property of the first element matching css, or a data-*
// attribute ("" if none).
func (d *webDriver) attr(css, name string) string {
	id, err := d.find(css)
	if err != nil {
		d.lastErr = err
		return ""
	}
	kind := "/property/"
	if strings.HasPrefix(name, "data-") {
		kind = "/attribute/"
	}
	var s any
	if err := d.call(http.MethodGet, "/element/"+id+kind+name, nil, &s); err != nil {
		d.lastErr = err
		return ""
	}
	if s == nil {
		return ""
	}
	return fmt.Sprint(s)
}

// saveScreenshot writes what the browser shows to path.
func (d *webDriver) saveScreenshot(path string) {
	d.t.Helper()
	d.script(`window.scrollTo(0, 0); return null;`, nil) // a click may have scrolled the page
	var b64 string
	d.must(http.MethodGet, "/screenshot", nil, &b64)
	png, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(d.t, err)
	require.NoError(d.t, os.WriteFile(path, png, 0o644))
	d.t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// labShot is where a lab screenshot goes: beside -screenshot's, or "".
func labShot(name string) string {
	if *screenshot == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(*screenshot), name)
}

// aChineseFont: the page's 中文 must read in the screenshots, so the
// machine needs a font with Chinese glyphs (scripts/browser-test.sh
// installs one, and fails if it cannot).
func aChineseFont(t *testing.T) {
	if _, err := exec.LookPath("fc-list"); err != nil {
		t.Log("no fc-list here to look for a Chinese font (scripts/browser-test.sh checks it)")
		return
	}
	out, err := exec.Command("fc-list", ":lang=zh", "family").Output()
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(out)), "no font with Chinese glyphs: install fonts-noto-cjk or fonts-wqy-zenhei (scripts/browser-test.sh does)")
}

// deletePodThroughTheServer deletes one of web's pods with the fake API
// server's own HTTP API, as kubectl would, and returns its key and the
// resourceVersion of the change (the deletion mark of the two-step delete).
func deletePodThroughTheServer(t *testing.T, server string) (key, rv string) {
	resp, err := http.Get(server + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string  `json:"name"`
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	resp.Body.Close()
	name := ""
	for _, p := range list.Items {
		if strings.HasPrefix(p.Metadata.Name, "web-") && p.Metadata.DeletionTimestamp == nil {
			name = p.Metadata.Name
			break
		}
	}
	require.NotEmpty(t, name, "a pod of web to delete")
	req, err := http.NewRequest(http.MethodDelete, server+"/api/v1/namespaces/default/pods/"+name, nil)
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&obj))
	return "default/" + name, obj.Metadata.ResourceVersion
}

// labHops reads the lab's timeline from step from, as the page does.
func labHops(t *testing.T, page string, from int) []lab.Hop {
	resp, err := http.Get(page + "/api/lab/timeline?from=" + strconv.Itoa(from) + "&limit=10000")
	require.NoError(t, err)
	defer resp.Body.Close()
	var hops []lab.Hop
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&hops))
	return hops
}

// browseTheLab pauses the pipeline from the page, changes the world, steps
// until the change's delta is in the queue's box, rewinds to the step
// before it and to it, and goes live again; with shots, it saves the
// screenshots docs/demo.md shows and runs one lesson to its end in Chinese.
func browseTheLab(t *testing.T, d *webDriver, within func(string, func() bool), page, server string, shots bool) {
	d.click("#lab-pause")
	within("the lab pauses", func() bool { return d.text("#lab-status") == "paused" && d.text("#lab-pause") == "Resume" })

	// The world goes on while the pipeline stands: the server commits the
	// delete (a pod being deleted: its deletion mark, a MODIFIED); the
	// frame it makes waits at the gate.
	key, rv := deletePodThroughTheServer(t, server)
	within("the frame waits at the gate", func() bool { return strings.Contains(d.text("#lab-waiting"), "key="+key) })
	d.click("#look-fifo summary")
	queued := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `: .*\brv ` + regexp.QuoteMeta(rv) + `\b`)
	found := false
	for i := 0; i < 60 && !found; i++ {
		before := d.text("#lab-stepno")
		d.click("#lab-step")
		within("the step is answered", func() bool {
			return d.attr("#lab-step", "disabled") == "false" && (d.text("#lab-stepno") != before || d.text("#lab-msg") != "")
		})
		found = queued.MatchString(d.text("#look-fifo"))
	}
	require.True(t, found, "stepping, the queue's box shows %s's delta at rv %s:\n%s", key, rv, d.text("#look-fifo"))
	t.Logf("stepped to %s; the queue's box:\n%s", d.text("#lab-hop"), d.text("#look-fifo"))
	d.click("#look-cache summary")
	if shot := labShot("demo-lab.png"); shots && shot != "" {
		d.saveScreenshot(shot)
	}

	// The hop that queued it, from the lab's timeline.
	var q lab.Hop
	for _, h := range labHops(t, page, 1) {
		if h.What == "delta queued" && h.Key == key && h.RV == rv {
			q = h
		}
	}
	require.NotZero(t, q.Step, "the timeline has the delta queued hop")
	prev := labHops(t, page, q.Step-1)[0]

	// Drag the timeline back to the hop before: the queue as it was then.
	drag := func(step int) {
		var ok bool
		d.script(`const s = document.getElementById('lab-slider');
s.value = String(arguments[0]);
s.dispatchEvent(new Event('input', {bubbles: true}));
s.dispatchEvent(new Event('change', {bubbles: true}));
return s.value === String(arguments[0]);`, &ok, step)
		require.True(t, ok, "the slider reaches step %d", step)
	}
	drag(prev.Step)
	within("the page shows the rewound step, read-only", func() bool {
		return d.text("#lab-stepno") == strconv.Itoa(prev.Step) &&
			strings.Contains(d.text("#lab-rewound"), fmt.Sprintf("rewound to step %d", prev.Step)) &&
			strings.Contains(d.text("#lab-hop"), prev.Text)
	})
	within("the queue's box shows the state before the delta", func() bool {
		f := d.text("#look-fifo")
		return strings.Contains(f, fmt.Sprintf("at step %d", prev.Step)) && !queued.MatchString(f)
	})
	within("the hops around it are listed", func() bool {
		return strings.Contains(d.text("#lab-hops li.shown"), prev.Text) && strings.Contains(d.text("#lab-hops"), q.Text)
	})
	require.Contains(t, d.attr("body", "className"), "lab-readonly", "the page marks a rewound view")
	drag(q.Step)
	within("forward again to the delta", func() bool {
		return d.text("#lab-stepno") == strconv.Itoa(q.Step) && queued.MatchString(d.text("#look-fifo"))
	})
	// (Checked here, at the hop itself: while stepping, a write of the
	// world, the kubelet's, may be recorded after it.)
	require.Contains(t, d.attr("#box-fifo", "className"), "lab-hit", "the box the hop changed is marked")
	require.True(t, strings.HasPrefix(d.text("#look-fifo li.hl-key"), key+": "), "the hop's key is marked: %q", d.text("#look-fifo li.hl-key"))

	// Save the recording (the page's link), load it back with the file
	// input: the page shows it read-only, at its first step.
	require.Equal(t, page+"/api/lab/recording", d.attr("#lab-save", "href"))
	resp, err := http.Get(d.attr("#lab-save", "href"))
	require.NoError(t, err)
	rec, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "kinformer-lab.json")
	require.NoError(t, os.WriteFile(file, rec, 0o644))
	id, err := d.find("#lab-load")
	require.NoError(t, err)
	d.must(http.MethodPost, "/element/"+id+"/value", map[string]any{"text": file}, nil)
	within("the loaded recording is shown read-only", func() bool {
		return d.text("#lab-status") == "recording (read-only)" && strings.Contains(d.text("#lab-rewound"), "a loaded recording")
	})

	// A recording made by hand, with what a live run rarely shows at once:
	// a backoff and a delayed retry counted down from the step's time, a
	// tombstone, a frame waiting in a watch, a list cut short.
	file = filepath.Join(t.TempDir(), "made.json")
	require.NoError(t, os.WriteFile(file, handMadeRecording(t), 0o644))
	d.must(http.MethodPost, "/element/"+id+"/value", map[string]any{"text": file}, nil)
	within("the hand-made recording is shown", func() bool { return strings.Contains(d.text("#lab-range"), "1–5") })
	drag(5)
	var opened bool
	d.script(`document.querySelectorAll('details.look').forEach((e) => { e.open = true; }); return true;`, &opened)
	// (A row's label and value are apart on the page, not in its text: the
	// texts are compared without their spaces.)
	shows := func(css, want string) bool {
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
		return strings.Contains(squeeze(d.text(css)), squeeze(want))
	}
	within("every box shows the recording's contents", func() bool {
		return shows("#look-reflector", "backoff 2.8 s") && shows("#look-reflector", "backoff ends in 2.8 s") &&
			shows("#look-queue", "default/web · in 1.2 s") &&
			shows("#look-fifo", "default/web-1: Deleted (tombstone) rv 57") && shows("#look-fifo", "3 more not shown") &&
			shows("#look-server", "DELETED default/web-1 rv 57") && shows("#server-rows", "frames pending 1") &&
			shows("#look-controller", "default/web: adds 1, dels 0 · waiting for the cache")
	})
	require.Contains(t, d.attr("#box-controller", "className"), "lab-hit", "step 5 changed the controller's box")

	d.click("#lab-pause")
	within("Resume: live again", func() bool { return d.text("#lab-status") == "live" })
	require.NotContains(t, d.attr("body", "className"), "lab-readonly")

	// The speed control: a quarter of the speed, then full speed again.
	for _, x := range []string{"0.25", "1"} {
		d.script(`const s = document.getElementById('lab-speed');
s.value = arguments[0];
s.dispatchEvent(new Event('change', {bubbles: true}));
return null;`, nil, x)
		within("the lab runs at "+x+"×", func() bool {
			resp, err := http.Get(page + "/api/lab/state")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			var v lab.View
			return json.NewDecoder(resp.Body).Decode(&v) == nil && strconv.FormatFloat(v.Speed, 'f', -1, 64) == x
		})
	}

	if shots {
		runALessonInChinese(t, d, within, page)
	}
}

// runALessonInChinese runs the first lesson from Start to done with the
// page in Chinese, and ends it.
func runALessonInChinese(t *testing.T, d *webDriver, within func(string, func() bool), page string) {
	resp, err := http.Get(page + "/api/lab/lessons")
	require.NoError(t, err)
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Log("no lessons in this build (GET /api/lab/lessons: 404): the lesson part did not run")
		return
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	han := regexp.MustCompile(`\p{Han}`)
	d.click("#lang-zh")
	within("the lab in Chinese", func() bool { return d.text("#lab-pause") == "暂停" })
	within("the lessons are listed", func() bool { return han.MatchString(d.text("#lesson-pick")) })
	d.click("#lesson-start")
	within("the lesson starts with its introduction, in Chinese", func() bool {
		return d.text("#lesson-index") == "简介" && han.MatchString(d.text("#lesson-text"))
	})
	require.Empty(t, d.text("#lesson-done"), "a lesson just started is not done")
	// press clicks a lesson's button and waits for its answer.
	press := func(css string) {
		answers := d.attr("#lesson", "data-answers")
		d.click(css)
		within(css+" is answered", func() bool { return d.attr("#lesson", "data-answers") != answers })
		require.Empty(t, d.text("#lab-msg"), "%s: %s", css, d.text("#lesson-text"))
	}
	for i := 0; d.text("#lesson-done") == ""; i++ {
		require.Less(t, i, 80, "the lesson ends within 80 steps")
		press("#lesson-next")
		if e := d.text("#lesson-error"); e != "" {
			t.Logf("Next did not move (%s): again", e) // the pipeline idle for a moment: the learner presses Next again
			continue
		}
		require.Regexp(t, han, d.text("#lesson-text"))
		t.Logf("%s: %s", d.text("#lesson-index"), d.text("#lesson-text"))
		if i == 0 && d.text("#lesson-done") == "" {
			// Back: the previous narrated step again (read-only), then on.
			press("#lesson-back")
			require.Equal(t, "简介", d.text("#lesson-index"), "Back shows the introduction again")
			press("#lesson-next")
		}
	}
	require.Equal(t, "完成：课程已结束", d.text("#lesson-done"))
	t.Logf("lesson %q ended: %s", d.text("#lesson-title"), d.text("#lesson-text"))
	if shot := labShot("demo-lesson-zh.png"); shot != "" {
		d.saveScreenshot(shot)
	}
	d.click("#lesson-stop")
	within("the lesson ends, the lab is live", func() bool { return d.text("#lab-status") == "实时" })
	d.click("#lang-en")
	within("labels in English", func() bool { return d.text("#lab-pause") == "Pause" })
}

// handMadeRecording is a lab recording of five hops, one per box, all at
// one time, so that every due time is counted down from it.
func handMadeRecording(t *testing.T) []byte {
	at := t0
	hop := func(step int, stage, what, box, value string) lab.RecordedHop {
		name := box[strings.Index(box, "/")+1:]
		return lab.RecordedHop{
			Hop:   lab.Hop{Step: step, Time: at, Stage: stage, What: what, Text: stage + ": " + what, Box: box},
			State: &lab.RecordedState{Box: box[:strings.Index(box, "/")], Name: name, Value: json.RawMessage(value)},
		}
	}
	due := func(d string) string {
		dur, err := time.ParseDuration(d)
		require.NoError(t, err)
		return at.Add(dur).Format(time.RFC3339Nano)
	}
	rec := lab.Recording{Kinformer: "lab recording v1", Hops: []lab.RecordedHop{
		hop(1, "reflector", "phase", "reflector/pods", `{"phase":"backing off","reason":"410 Expired","lastSyncResourceVersion":"41","backoffUntil":"`+due("2.8s")+`","backoff":"2.8s"}`),
		hop(2, "workqueue", "retry", "workqueue/replicaset", `{"queue":[],"dirty":["default/web"],"processing":[],"waiting":[{"key":"default/web","due":"`+due("1.2s")+`"}]}`),
		hop(3, "deltafifo", "tombstone queued", "fifo/pods", `{"kind":"DeltaFIFO","items":[{"key":"default/web-1","deltas":[{"type":"Deleted","rv":"57","tombstone":true}]}],"knownObjects":["default/web-1"],"truncated":3}`),
		hop(4, "server", "commit", "server/watches", `{"watches":{"7":{"resource":"pods","pending":[{"type":"DELETED","key":"default/web-1","rv":"57"}]},"8":null}}`),
		hop(5, "controller", "expectations", "controller/replicaset", `{"expectations":{"default/web":{"adds":1,"dels":0,"satisfied":false},"gone":null},"reconciling":["default/web"]}`),
	}}
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	return b
}
