package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/lab"
)

// The live view: one page, embedded, that draws the pipeline and updates
// from a Server-Sent Events stream of snapshots (sse.go), with buttons
// that break things. `make demo` serves it on 127.0.0.1:8081 (--web).

//go:embed web
var webFiles embed.FS

// contentSecurityPolicy is the page's: its own origin only, no inline
// script or style, no framing.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// tickEvery is how often the page gets a snapshot.
const tickEvery = 250 * time.Millisecond

// webUI serves the page, its stream and its buttons.
type webUI struct {
	agg      *aggregator
	hub      *hub
	actions  map[string]pageAction
	repoRoot string // where docs/ and the sources are, "" if unknown
	now      func() time.Time
	ctx      context.Context // the demo's work: actions run under it
	lab      *lab.Lab        // nil: no lab (its endpoints answer 404)
	lessons  *lessons        // nil: no lessons (lesson.go)
	// tour is the tour's plan in each language ("en", "zh") for
	// GET /api/tour, once the tour is printed.
	tour atomic.Pointer[map[string]tourPlan]
}

// setTour makes the tour, as the terminal printed it, the page's.
func (u *webUI) setTour(f tourFacts) {
	en, zh := englishTexts.tourPlan(f.url, f.listRV, f.pods...), chineseTexts.tourPlan(f.url, f.listRV, f.pods...)
	// The terminal's line breaks are not the page's: a space in English,
	// nothing between Chinese characters.
	en.ChaosOff = strings.ReplaceAll(en.ChaosOff, "\n", " ")
	zh.ChaosOff = strings.ReplaceAll(zh.ChaosOff, "\n", "")
	plans := map[string]tourPlan{"en": en, "zh": zh}
	u.tour.Store(&plans)
}

// handler is the page's mux, every response with the page's CSP.
func (u *webUI) handler() http.Handler {
	static, _ := fs.Sub(webFiles, "web")
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(static))
	mux.HandleFunc("GET /api/stream", u.stream)
	mux.HandleFunc("GET /api/snapshot", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, u.agg.snapshot(u.now()))
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Query().Get("key")
		if key == "" {
			http.Error(w, "key= is required", http.StatusBadRequest)
			return
		}
		writeJSON(w, u.agg.forKey(key))
	})
	mux.HandleFunc("GET /api/tour", func(w http.ResponseWriter, r *http.Request) {
		plans := u.tour.Load()
		if plans == nil {
			writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "the tour is not printed yet"}) // the page asks again
			return
		}
		writeJSON(w, *plans)
	})
	mux.HandleFunc("POST /api/fault/{name}", u.fault)
	u.labRoutes(mux)
	mux.HandleFunc("GET /docs/{file}", u.repoFile)
	mux.HandleFunc("GET /src/{path...}", u.repoFile)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		mux.ServeHTTP(w, r)
	})
}

// stream is the SSE endpoint: a snapshot at once, then one per publish,
// each with the trace events since the last. It ends when the client goes
// away or the demo stops (hub closed).
func (u *webUI) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	wake, unsubscribe := u.hub.subscribe()
	defer unsubscribe()
	var last uint64
	if s := u.agg.snapshot(u.now()); s.Seq > 200 {
		last = s.Seq - 200 // a new page starts with a short history
	}
	send := func() error {
		s := u.agg.snapshot(u.now())
		s.Events, s.Skipped = u.agg.eventsSince(last, maxEventsPerTx)
		if n := len(s.Events); n > 0 {
			last = s.Events[n-1].Seq
		}
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: snapshot\ndata: %s\n\n", b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if send() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-u.hub.done:
			// The last numbers first: what the summary counts.
			if send() != nil {
				return
			}
			fmt.Fprint(w, "event: end\ndata: {}\n\n")
			_ = rc.Flush()
			return
		case <-wake:
			if send() != nil {
				return
			}
		}
	}
}

// fault runs one of the page's buttons. A custom header is required, so
// that no other site's form can press them.
func (u *webUI) fault(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Kinformer") != "1" {
		http.Error(w, "missing X-Kinformer header", http.StatusForbidden)
		return
	}
	act, ok := u.actions[r.PathValue("name")]
	if !ok {
		http.Error(w, "no such fault", http.StatusNotFound)
		return
	}
	did, err := act(u.ctx)
	if err != nil {
		e := saidError(err)
		writeJSONStatus(w, http.StatusConflict, map[string]string{"error": e.EN, "error_zh": e.ZH})
		return
	}
	writeJSON(w, map[string]string{"did": did.EN, "did_zh": did.ZH})
}

// repoFile serves a docs page or a source file of the repository as text,
// for the boxes' links.
func (u *webUI) repoFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("path")
	if f := r.PathValue("file"); f != "" {
		name = "docs/" + f
	}
	name = path.Clean(name)
	if u.repoRoot == "" || strings.HasPrefix(name, "..") || path.IsAbs(name) ||
		!(strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".go")) {
		http.Error(w, "not found (run the demo from the repository to read its docs and sources here)", http.StatusNotFound)
		return
	}
	root, err := os.OpenRoot(u.repoRoot)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.Copy(w, f)
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// findRepoRoot walks up from the working directory to kinformer's go.mod.
func findRepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/kinformer/kinformer\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// listenWeb listens for the page: loopback only unless public.
// explicit says the address was given: a default one in use falls back to
// a free port.
func listenWeb(addr string, public, explicit bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--web %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); !public && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--web %q is not a loopback address; add --web-public to serve the page beyond this machine", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && !explicit {
		return net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	return ln, err
}

// serveWeb serves the page on ln until stop is called: stop ends every
// stream (the hub closes) and then the server.
func serveWeb(ln net.Listener, u *webUI) (stop func()) {
	srv := &http.Server{Handler: u.handler(), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "demo: live view:", err)
		}
	}()
	ticks := make(chan struct{})
	tickDone := make(chan struct{})
	go func() {
		defer close(tickDone)
		t := time.NewTicker(tickEvery)
		defer t.Stop()
		for {
			select {
			case <-ticks:
				return
			case <-t.C:
				u.hub.publish()
			}
		}
	}()
	return func() {
		close(ticks)
		<-tickDone
		u.hub.close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
		<-served
	}
}

// pageControls are the switches the page's buttons turn that are the
// demo's own, not a fault endpoint's: a slow handler and failing
// reconciles.
type pageControls struct {
	slow        atomic.Bool
	failNext    atomic.Int64
	handlerWait time.Duration
	clock       clock.Clock // the lab's, so a slow handler waits on the pipeline's time; nil: the wall clock
}

func (c *pageControls) clockOrReal() clock.Clock {
	if c.clock == nil {
		return clock.RealClock{}
	}
	return c.clock
}

func (c *pageControls) state() controls {
	return controls{SlowHandler: c.slow.Load(), FailReconcile: int(c.failNext.Load())}
}

// failReconcile is replicaset.Options.FailReconcile: it fails the next
// failNext reconciles.
func (c *pageControls) failReconcile(string) error {
	for {
		n := c.failNext.Load()
		if n <= 0 {
			return nil
		}
		if c.failNext.CompareAndSwap(n, n-1) {
			return errors.New("failing on purpose (the page's \"make reconcile fail\" button)")
		}
	}
}
