// Command benchscale lists a million realistic pods from the fake API server
// into an informer, then applies a million updates, and reports the time to
// HasSynced, the events per second, and the peak memory of each side:
//
//	make bench-scale                                     # 1,000,000 pods, 1,000,000 updates
//	go run ./cmd/benchscale -pods 100000 -updates 100000 # smaller
//
// The server and the informer run as two processes, so that the peak
// resident set (VmHWM, /proc/PID/status) of each is its own: this one runs
// the informer, and starts the other, itself again with BENCHSCALE_SERVER
// set, which seeds a fakeapiserver.Server through Load (a million creates
// would take half an hour) and applies the updates through Load as well.
// The pods are bench/testdata/pod.json (bench.PodJSON), 3.9 KB of JSON each,
// with their own name, uid and node. docs/performance.md ("A million pods")
// has a run's output and what it means.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if os.Getenv(serverEnv) != "" {
		err = serveMain(ctx, os.Args[1:], os.Stdin, os.Stdout)
	} else {
		err = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

// config is what a run does.
type config struct {
	pods, updates int
	batch         int    // objects per Load call, on the server
	informer      string // "today" or "articles"
	// CPU profiles of the informer's process and of the server's ("": none).
	cpuProfile, serverCPUProfile string
}

// memoryLimit is what the informer's peak RSS must stay under (issue 27).
const memoryLimit = 4 << 30

// run runs the informer against a server process and writes the report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchscale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.pods, "pods", 1_000_000, "pods the server holds and the informer lists")
	fs.IntVar(&cfg.updates, "updates", 1_000_000, "updates the server applies once the informer has synced (going round the pods)")
	fs.IntVar(&cfg.batch, "batch", 1_000, "objects the server loads in one transaction, seeding and updating")
	fs.StringVar(&cfg.informer, "informer", "today", `the informer: "today" (client-go 1.36's: a streaming list, a RealFIFO) or "articles" (a LIST, then a watch, a DeltaFIFO)`)
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the informer's process to this file")
	fs.StringVar(&cfg.serverCPUProfile, "server-cpuprofile", "", "write a CPU profile of the server's process to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.pods < 1 || cfg.updates < 0 || cfg.batch < 1 {
		return fmt.Errorf("-pods and -batch must be above 0 and -updates not below, got %d, %d, %d", cfg.pods, cfg.batch, cfg.updates)
	}
	var pipeline informer.Pipeline
	switch cfg.informer {
	case "today":
		pipeline = informer.Today
	case "articles":
		pipeline = informer.Articles
	default:
		return fmt.Errorf("-informer %q: want today or articles", cfg.informer)
	}
	stopProfile, err := startCPUProfile(cfg.cpuProfile)
	if err != nil {
		return err
	}
	res, err := measure(ctx, cfg, pipeline, stderr)
	stopProfile()
	if err != nil {
		return err
	}
	res.write(stdout)
	return nil
}

// result is what a run measured.
type result struct {
	cfg                  config
	podBytes             int
	serverPID, selfPID   int
	seed                 time.Duration
	serverHeapPerPod     int64
	synced               time.Duration
	syncCPU, syncSrvCPU  time.Duration
	cachePerPod          int64
	updated, applied     time.Duration
	updCPU, updSrvCPU    time.Duration
	selfRSS, serverRSS   int64
	rssErr               error
	cached, adds, events int64
}

// measure starts the server process, then syncs the informer and waits for
// every update.
func measure(ctx context.Context, cfg config, pipeline informer.Pipeline, stderr io.Writer) (*result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &result{cfg: cfg, podBytes: len(newPodTemplate().appendPod(nil, 0, 0)), selfPID: os.Getpid()}
	fmt.Fprintf(stderr, "benchscale: seeding the server with %s pods ...\n", thousands(int64(cfg.pods)))
	srv, err := startServer(ctx, serverConfig{pods: cfg.pods, batch: cfg.batch, cpuProfile: cfg.serverCPUProfile}, stderr)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	r.serverPID, r.seed, r.serverHeapPerPod = srv.pid, srv.seeded, srv.heapPerPod

	// The informer, with a handler that counts.
	client, err := listwatch.NewClient(listwatch.Config{Server: srv.url})
	if err != nil {
		return nil, err
	}
	var adds, updates atomic.Int64
	allUpdated := make(chan struct{})
	target := int64(cfg.updates)
	inf := informer.NewSharedIndexInformerWithOptions(
		listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "", nil), &api.Pod{},
		informer.SharedIndexInformerOptions{Pipeline: pipeline})
	if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(any, bool) { adds.Add(1) },
		UpdateFunc: func(any, any) {
			if updates.Add(1) == target {
				close(allUpdated)
			}
		},
	}); err != nil {
		return nil, err
	}
	base := liveHeap()
	cpu0, srvCPU0 := cpus(r.selfPID, r.serverPID)
	fmt.Fprintf(stderr, "benchscale: seeded in %s; the informer lists them ...\n", seconds(r.seed))
	start := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := waitSynced(ctx, inf.HasSynced); err != nil {
		return nil, err
	}
	r.synced = time.Since(start)
	cpu1, srvCPU1 := cpus(r.selfPID, r.serverPID)
	r.syncCPU, r.syncSrvCPU = cpu1-cpu0, srvCPU1-srvCPU0
	r.cached = int64(len(inf.GetStore().ListKeys()))
	r.cachePerPod = (liveHeap() - base) / max(1, r.cached)

	fmt.Fprintf(stderr, "benchscale: synced in %s; %s updates ...\n", seconds(r.synced), thousands(target))
	cpu1, srvCPU1 = cpus(r.selfPID, r.serverPID)
	start = time.Now()
	if target > 0 {
		applied, err := srv.update(ctx, cfg.updates)
		if err != nil {
			return nil, err
		}
		r.applied = applied
		select {
		case <-allUpdated:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-srv.exited:
			return nil, errServerGone
		}
	}
	r.updated = time.Since(start)
	cpu2, srvCPU2 := cpus(r.selfPID, r.serverPID)
	r.updCPU, r.updSrvCPU = cpu2-cpu1, srvCPU2-srvCPU1
	r.adds, r.events = adds.Load(), updates.Load()

	r.selfRSS, r.rssErr = peakRSS(r.selfPID)
	if r.rssErr == nil {
		r.serverRSS, r.rssErr = peakRSS(r.serverPID)
	}
	return r, nil
}

// cpus is the CPU time each process has used (0 where it cannot be read).
func cpus(self, server int) (time.Duration, time.Duration) {
	a, _ := cpuTime(self)
	b, _ := cpuTime(server)
	return a, b
}

// waitSynced polls every millisecond (WaitForCacheSync's 100 ms would blur
// the time to sync).
func waitSynced(ctx context.Context, synced func() bool) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !synced() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// startCPUProfile profiles the process into file until the returned func
// is called ("": nothing).
func startCPUProfile(file string) (func(), error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("the CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// serverProcess is the running server process.
type serverProcess struct {
	cmd        *exec.Cmd
	pid        int
	url        string
	seeded     time.Duration
	heapPerPod int64
	stdin      io.WriteCloser
	lines      chan string   // its stdout
	exited     chan struct{} // closed when it has exited
}

// startServer starts this program again as the server process, and waits
// until it has seeded its pods and listens. The server ends when told to
// (stop), or when its stdin closes: when this process ends, however it
// ends.
func startServer(ctx context.Context, cfg serverConfig, stderr io.Writer) (*serverProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the server: %w", err)
	}
	cmd := exec.Command(exe, cfg.args()...)
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server process: %w", err)
	}
	p := &serverProcess{cmd: cmd, pid: cmd.Process.Pid, stdin: stdin, lines: make(chan string, 1), exited: make(chan struct{})}
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text() // read by whoever waits for an answer; a few at most
		}
		_ = cmd.Wait()
	}()
	f, err := p.answer(ctx, "ready", 3)
	if err != nil {
		p.stop()
		return nil, err
	}
	p.url = f[0]
	ns, err1 := strconv.ParseInt(f[1], 10, 64)
	perPod, err2 := strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		p.stop()
		return nil, fmt.Errorf("the server's ready line: %w", err)
	}
	p.seeded, p.heapPerPod = time.Duration(ns), perPod
	return p, nil
}

// answer waits for the server's next line, which must be word and n fields.
func (p *serverProcess) answer(ctx context.Context, word string, n int) ([]string, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case line := <-p.lines:
		f := strings.Fields(line)
		if len(f) != n+1 || f[0] != word {
			return nil, fmt.Errorf("the server said %q, want %s and %d fields", line, word, n)
		}
		return f[1:], nil
	case <-p.exited:
		return nil, errServerGone
	}
}

// update asks for n updates and returns how long the server took to make
// them (the informer may still be handling the last ones).
func (p *serverProcess) update(ctx context.Context, n int) (time.Duration, error) {
	if _, err := fmt.Fprintf(p.stdin, "update %d\n", n); err != nil {
		return 0, fmt.Errorf("asking the server for updates: %w", err)
	}
	f, err := p.answer(ctx, "updated", 2)
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	return time.Duration(ns), err
}

// stop ends the server process and waits for it: it is asked to quit,
// which it does between two loads; one that has not within stopWait (a
// load of a million objects under way) is killed.
func (p *serverProcess) stop() {
	_, _ = io.WriteString(p.stdin, "quit\n")
	_ = p.stdin.Close()
	kill := time.NewTimer(stopWait)
	defer kill.Stop()
	for {
		select {
		case <-p.exited:
			return
		case <-p.lines: // nothing more is waited for
		case <-kill.C:
			_ = p.cmd.Process.Kill()
		}
	}
}

// stopWait is how long stop lets the server end on its own.
const stopWait = 10 * time.Second

// errServerGone: the server's process ended before it answered.
var errServerGone = errors.New("the server process ended before it answered")

// write is the report.
func (r *result) write(w io.Writer) {
	c := r.cfg
	name := "today's"
	if c.informer == "articles" {
		name = "the articles'"
	}
	fmt.Fprintf(w, "benchscale: %s pods of %s B of JSON, %s updates, %s informer; %d CPUs, GOMAXPROCS %d, %s\n",
		thousands(int64(c.pods)), thousands(int64(r.podBytes)), thousands(int64(c.updates)), name, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Fprintf(w, "server:   seeded with Load in %s (%s pods/s); live heap %s B per pod (%.2fx its JSON)\n",
		seconds(r.seed), rate(int64(c.pods), r.seed), thousands(r.serverHeapPerPod), float64(r.serverHeapPerPod)/float64(r.podBytes))
	fmt.Fprintf(w, "sync:     HasSynced after %s (%s pods/s), %s pods cached, %s added; CPU %s informer, %s server\n",
		seconds(r.synced), rate(r.cached, r.synced), thousands(r.cached), thousands(r.adds), seconds(r.syncCPU), seconds(r.syncSrvCPU))
	fmt.Fprintf(w, "cache:    live heap %s B per cached pod\n", thousands(r.cachePerPod))
	if c.updates > 0 {
		fmt.Fprintf(w, "updates:  %s handled in %s: %s events/s (the server loaded them in %s); CPU per event %s informer, %s server\n",
			thousands(r.events), seconds(r.updated), rate(r.events, r.updated), seconds(r.applied),
			perEvent(r.updCPU, r.events), perEvent(r.updSrvCPU, r.events))
	}
	if r.rssErr != nil {
		fmt.Fprintf(w, "peak RSS: not measured: %v\n", r.rssErr)
		return
	}
	verdict := "below the 4 GiB limit"
	if r.selfRSS >= memoryLimit {
		verdict = "OVER the 4 GiB limit"
	}
	fmt.Fprintf(w, "peak RSS: informer %s (pid %d, %s); server %s (pid %d, %s B per pod)\n",
		gib(r.selfRSS), r.selfPID, verdict, gib(r.serverRSS), r.serverPID, thousands(r.serverRSS/int64(c.pods)))
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return thousands(int64(float64(n) / d.Seconds()))
}

func perEvent(d time.Duration, n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f µs", float64(d.Microseconds())/float64(n))
}

// thousands writes n with commas: 1,000,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
