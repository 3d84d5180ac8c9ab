package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/syncbuf"
)

// The browser test drives real headless Chromium through ChromeDriver's W3C
// WebDriver HTTP API (plain JSON over HTTP). scripts/browser-test.sh
// installs chromium and chromium-driver if missing, starts chromedriver and
// runs it:
//
//	go test ./cmd/demo -run TestBrowser -browser   # with WEBDRIVER_URL=http://127.0.0.1:<port>
var (
	browserFlag = flag.Bool("browser", false, "run the browser test (needs WEBDRIVER_URL, a running chromedriver; see scripts/browser-test.sh)")
	screenshot  = flag.String("screenshot", "", "where the browser test saves its screenshot (empty: nowhere; `make browser-screenshot` updates docs/demo-browser.png)")
)

// webDriver is a W3C WebDriver session.
type webDriver struct {
	t       *testing.T
	base    string // chromedriver's URL
	session string
	lastErr error // of text, for a failure's message
}

// call sends one WebDriver command and decodes its "value" into out.
func (d *webDriver) call(method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	url := d.base + path
	if d.session != "" && !strings.HasPrefix(path, "/session") {
		url = d.base + "/session/" + d.session + path
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, env.Value)
	}
	if out != nil {
		return json.Unmarshal(env.Value, out)
	}
	return nil
}

func (d *webDriver) must(method, path string, body, out any) {
	d.t.Helper()
	require.NoError(d.t, d.call(method, path, body, out))
}

// find returns the id of the first element matching a CSS selector.
func (d *webDriver) find(css string) (string, error) {
	var el map[string]string
	if err := d.call(http.MethodPost, "/element", map[string]string{"using": "css selector", "value": css}, &el); err != nil {
		return "", err
	}
	return el["element-6066-11e4-a52e-4f735466cecf"], nil
}

// text is the visible text of the first element matching css ("" if none).
func (d *webDriver) text(css string) string {
	id, err := d.find(css)
	if err != nil {
		d.lastErr = err
		return ""
	}
	var s string
	if err := d.call(http.MethodGet, "/element/"+id+"/text", nil, &s); err != nil {
		d.lastErr = err
		return ""
	}
	return s
}

func (d *webDriver) number(css string) int {
	n, err := strconv.Atoi(strings.TrimSpace(d.text(css)))
	if err != nil {
		return -1
	}
	return n
}

// click clicks the first element matching css, finding it again if the
// page redrew it in between (a stale element).
func (d *webDriver) click(css string) {
	d.t.Helper()
	var err error
	for range 5 {
		var id string
		if id, err = d.find(css); err != nil {
			continue
		}
		if err = d.call(http.MethodPost, "/element/"+id+"/click", map[string]any{}, nil); err == nil {
			return
		}
	}
	require.NoError(d.t, err, css)
}

// tryClick clicks the first element matching css, if there is one; false
// if there is none or it went away before the click landed.
func (d *webDriver) tryClick(css string) bool {
	id, err := d.find(css)
	if err != nil {
		return false
	}
	return d.call(http.MethodPost, "/element/"+id+"/click", map[string]any{}, nil) == nil
}

func TestBrowser_LiveViewInHeadlessChromium(t *testing.T) {
	if !*browserFlag {
		t.Skip("the browser test runs with -browser and a chromedriver: bash scripts/browser-test.sh (make browser-test)")
	}
	base := os.Getenv("WEBDRIVER_URL")
	require.NotEmpty(t, base, "-browser needs WEBDRIVER_URL, the address of a running chromedriver (scripts/browser-test.sh starts one)")
	aChineseFont(t)
	// Both informers (--informer); the screenshot is of the default, today's.
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) { browseTheLiveView(t, base, inf, inf == "today") })
	}
}

// browseTheLiveView runs the demo with the informer given and drives its
// page in Chromium through the chromedriver at base.
func browseTheLiveView(t *testing.T, base, inf string, takeScreenshot bool) {
	start := time.Now()

	// The demo, in process, with its page on a free loopback port and no
	// chaos: every fault is the test's click.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--web", "127.0.0.1:0", "--chaos-every", "0",
			"--start-delay", "300ms", "--quiet", "--lang", "en", "--informer", inf}, &out)
	}()
	pageRe := regexp.MustCompile(`live view: (http://\S+)`)
	require.Eventually(t, func() bool { return pageRe.MatchString(out.String()) }, 10*time.Second, 10*time.Millisecond)
	page := pageRe.FindStringSubmatch(out.String())[1]

	d := &webDriver{t: t, base: strings.TrimRight(base, "/")}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome", "goog:loggingPrefs": map[string]string{"browser": "ALL"},
		"goog:chromeOptions": map[string]any{
			"args": []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1250", "--lang=en-US"},
		},
	}}}
	if bin := os.Getenv("CHROME_BIN"); bin != "" {
		caps["capabilities"].(map[string]any)["alwaysMatch"].(map[string]any)["goog:chromeOptions"].(map[string]any)["binary"] = bin
	}
	var session struct {
		SessionID string `json:"sessionId"`
	}
	d.must(http.MethodPost, "/session", caps, &session)
	d.session = session.SessionID
	defer func() { _ = d.call(http.MethodDelete, "/session/"+d.session, nil, nil) }()
	defer func() {
		if !t.Failed() {
			return
		}
		// What the browser saw: its console and the page's text.
		var logs []map[string]any
		_ = d.call(http.MethodPost, "/se/log", map[string]string{"type": "browser"}, &logs)
		t.Logf("browser console: %v\npage text:\n%s\nlast WebDriver error: %v", logs, d.text("body"), d.lastErr)
	}()
	d.must(http.MethodPost, "/window/rect", map[string]int{"width": 1500, "height": 1250}, nil)
	d.must(http.MethodPost, "/url", map[string]string{"url": page}, nil)

	within := func(what string, cond func() bool) {
		t.Helper()
		require.Eventually(t, cond, 15*time.Second, 50*time.Millisecond, what)
	}
	within("the page connects to the stream", func() bool { return d.text("#conn") == "live" })
	queue := map[string]string{"today": "RealFIFO", "articles": "DeltaFIFO"}[inf]
	within("the page names the informer and its queue", func() bool {
		return strings.Contains(d.text("#informer"), map[string]string{"today": "today's", "articles": "the articles'"}[inf]) &&
			d.text("#box-fifo h2") == queue
	})
	within("the controller's pods are ready", func() bool { return d.number("#rs-ready") == 3 })

	// Counters move: delete a pod, and watch events arrive.
	events := d.number("#events-total")
	adds := d.number("#q-adds")
	d.click("#btn-delete-pod")
	within("watch events are counted", func() bool { return d.number("#events-total") > events })
	within("the work queue gets adds", func() bool { return d.number("#q-adds") > adds })

	// Drop every watch: the reflectors watch again.
	restarts := d.number("#watch-restarts")
	d.click("#btn-drop-watches")
	within("the watch-restart counter moves", func() bool { return d.number("#watch-restarts") > restarts })

	// Compact the history (and drop the watches): 410 Expired, a relist.
	relists := d.number("#relists")
	d.click("#btn-compact")
	within("a relist after the compaction", func() bool { return d.number("#relists") > relists })

	// A failing reconcile: retries with the rate limiter's delays.
	failures := d.number("#c-failures")
	d.click("#btn-fail-reconcile")
	d.click("#btn-delete-pod")
	within("reconciles fail and are retried", func() bool { return d.number("#c-failures") > failures })
	within("the ReplicaSet is whole again", func() bool { return d.number("#rs-ready") == 3 })

	// Click a pod: the log shows its path.
	// The list may be redrawn between reading it and clicking (a pod
	// replaced), so the pod followed is the one the page marks selected,
	// not the one read before the click; and the note above the log is
	// shared with other messages, so the log itself is checked.
	// The pod clicked may also be one on its way out (deleted with a grace
	// period, removed a moment later), and its selection goes with it: then
	// another is clicked, until one stays selected.
	within("a pod in the cache", func() bool { return d.text("#pods li") != "" })
	var pod string
	within("a pod is selected", func() bool {
		if pod = d.text("#pods li.sel"); pod != "" {
			return true
		}
		d.tryClick("#pods li")
		return false
	})
	within("the filtered log shows the pod's hops", func() bool {
		log := d.text("#log")
		return strings.Contains(log, "cache") && strings.Contains(log, pod)
	})

	// The tour, on the page as in the terminal.
	within("the Try this panel lists the tour", func() bool { return strings.Contains(d.text("#tour"), "/faults/compact") })

	// The language switch: the labels, the last reconcile (the trace says
	// it in English) and the tour in Chinese.
	d.click("#lang-zh")
	within("labels in Chinese", func() bool { return strings.Contains(d.text("#box-reflector h2"), "反射器") })
	require.Contains(t, d.text("#box-fifo h2"), "增量队列")
	within("the last reconcile in Chinese", func() bool { return strings.Contains(d.text("#c-last"), "现有") })
	within("the tour in Chinese", func() bool {
		return strings.Contains(d.text("#panel-tour"), "试试这些") && strings.Contains(d.text("#tour"), "压缩")
	})
	d.click("#lang-en")
	within("labels in English", func() bool { return d.text("#box-reflector h2") == "Reflector" })

	if takeScreenshot && *screenshot != "" {
		d.click("#filter-clear")
		var b64 string
		d.must(http.MethodGet, "/screenshot", nil, &b64)
		png, err := base64.StdEncoding.DecodeString(b64)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(*screenshot, png, 0o644))
		t.Logf("screenshot: %s (%d bytes)", *screenshot, len(png))
	}

	// The lab: pause, step, look inside, rewind; a lesson in Chinese (today's run).
	server := regexp.MustCompile(`API server on (http://[0-9.:]+)`).FindStringSubmatch(out.String())
	require.NotNil(t, server, "the demo names its API server")
	browseTheLab(t, d, within, strings.TrimRight(page, "/"), server[1], takeScreenshot)

	// The demo stops: the stream ends, and the page says so.
	stop()
	require.NoError(t, <-done)
	within("the page sees the demo stop", func() bool { return d.text("#conn") == "demo stopped" })
	t.Logf("browser test took %v", time.Since(start).Round(time.Millisecond))
}
