// Command demo is the one-command tour of kinformer (make demo): in one
// process it runs the fake API server, two shared informers, the
// ReplicaSet controller of articles 000 and 004 (package
// controller/replicaset), a kubelet stand-in that starts pods, and a chaos
// loop that now and then deletes a pod, drops every watch or compacts the
// server's history. It narrates every change as it travels the pipeline,
// and prints the curl and kubectl lines to poke it with, among them the
// server's fault endpoints (POST /faults/...), enabled here.
//
//	make demo                               # until Ctrl-C
//	make demo ARGS="--duration 30s --trace" # every trace event, then a summary
//	make demo ARGS="--lang zh"              # narrated in Chinese (also when LANG starts with zh)
//	make demo ARGS="--informer articles"    # the articles' informer instead of today's (pipeline.go)
//	go run ./cmd/demo --addr 127.0.0.1:0 --history 5 --chaos-every 0
//
// When it ends it prints a summary and checks that every informer's cache
// equals the server and that the ReplicaSet has its replicas; it exits 1 if
// not.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options are the demo's flags.
type options struct {
	addr       string
	history    int
	duration   time.Duration
	trace      bool
	quiet      bool
	chaosEvery time.Duration
	workers    int
	replicas   int
	startDelay time.Duration
	web        string // the live view's address; "off": none
	webPublic  bool   // allow a non-loopback --web
	webSet     bool   // --web was given (a default port in use falls back to a free one)
	lang       language
	informer   informerKind
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address for the fake API server (127.0.0.1:0 picks a free port)")
	fs.IntVar(&o.history, "history", 1000, "events the server keeps (try 5 to see 410 Expired often)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until Ctrl-C)")
	fs.BoolVar(&o.trace, "trace", false, "print every trace event of every stage, with times")
	fs.BoolVar(&o.quiet, "quiet", false, "no narration, only the tour and the summary")
	fs.DurationVar(&o.chaosEvery, "chaos-every", 10*time.Second, "inject a random fault this often, when the informers are calm (0: never; see docs/demo.md)")
	fs.IntVar(&o.workers, "workers", 2, "the controller's workers")
	fs.IntVar(&o.replicas, "replicas", 3, "replicas of the ReplicaSet web")
	fs.DurationVar(&o.startDelay, "start-delay", time.Second, "how long the kubelet takes to start a pod")
	fs.StringVar(&o.web, "web", "127.0.0.1:8081", "address of the live view, a page in the browser (127.0.0.1:0 picks a free port; off: none)")
	fs.BoolVar(&o.webPublic, "web-public", false, "allow --web on an address other than loopback (the page has buttons that break things)")
	lang := fs.String("lang", "", "the narration's language: en or zh (default: zh if LC_ALL, or else LANG, starts with zh; else en)")
	inf := fs.String("informer", "today", "which informer runs: today (client-go 1.36's) or articles (the articles' list-then-watch, DeltaFIFO)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.informer, err = parseInformer(*inf); err != nil {
		return o, err
	}
	if o.lang, err = parseLanguage(*lang, os.Getenv); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.webSet = o.webSet || f.Name == "web" })
	if o.startDelay <= 0 {
		return o, errors.New("--start-delay must be positive")
	}
	return o, nil
}

// controllerMaxRetries is how often the controller retries a failing key
// before it drops it (replicaset.Options.MaxRetries; the retries lesson).
const controllerMaxRetries = 5

// bookmarkInterval is how often the fake server sends a watch a bookmark.
const bookmarkInterval = 10 * time.Second

// run runs the demo until ctx ends or --duration passes.
func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	n := newNarrator(out, !o.quiet, o.trace)
	n.t = textsFor(o.lang)
	n.informer = o.informer
	metrics := workqueue.NewInMemoryMetrics()
	agg := newAggregator(n.start, metrics)
	agg.informer = o.informer
	page := &pageControls{handlerWait: slowHandlerWait}
	agg.controlsNow = page.state
	var webLn net.Listener
	// The lab (package lab, web_lab.go): with the page, every stage reports
	// to the lab's gate, which the page can pause and step, and every timer
	// of the pipeline runs on the lab's clock. Without the page, neither.
	var lb *lab.Lab
	var clk clock.Clock = clock.RealClock{}
	var read func(trace.Event) // every reader of the trace, below
	if o.web != "off" && o.web != "" {
		if webLn, err = listenWeb(o.web, o.webPublic, o.webSet); err != nil {
			return err
		}
		defer webLn.Close() // in case of an early return; Serve closes it too
		// read is set below, before any stage runs.
		lb = lab.New(lab.Options{Next: func(e trace.Event) { read(e) }})
		clk = lb.Clock()
		page.clock = clk
	}
	// The narration, the chaos loop's gate and the live view read one trace
	// (with the page, once the lab has let each event through).
	gate := newChaosGate(clk)
	readers := []func(trace.Event){n.event, gate.event}
	if lb != nil {
		readers = append(readers, agg.event)
	}
	read = func(e trace.Event) {
		for _, r := range readers {
			r(e)
		}
	}
	tr := trace.New(trace.Func(read))
	if lb != nil {
		tr = lb.Tracer()
	}
	quietLog := slog.New(slog.DiscardHandler) // failures are in the trace already

	// Faults: the learner's curl lines break things through the server's own
	// fault endpoints (/faults/...), narrated from its trace ("you: ...").
	// Bookmarks every 10 s instead of every minute, so that a short run
	// shows today's informer recording them in its store.
	srv := fakeapiserver.New(fakeapiserver.Options{History: o.history, Tracer: tr, Faults: true, BookmarkInterval: bookmarkInterval, Clock: clk})
	if err := seed(srv, int32(o.replicas)); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("%w (is another demo or server running? try --addr 127.0.0.1:0)", err)
	}
	url := "http://" + ln.Addr().String()
	client, err := listwatch.NewClient(listwatch.Config{Server: url, Tracer: tr})
	if err != nil {
		return err
	}
	podClient := listwatch.For[*api.Pod](client, listwatch.Pods)
	factory := informer.NewSharedInformerFactory(client, withInformer(o.informer, informer.FactoryOptions{Tracer: tr, Logger: quietLog, Clock: clk}))
	// The lessons (lesson.go) run in the lab, with the page.
	var ls *lessons
	if lb != nil {
		ls = newLessons(lessonEnv{lab: lb, srv: srv, serverURL: url, client: client, pods: podClient, factory: factory,
			page: page, informer: o.informer, clock: clk, tracer: tr, logger: quietLog, maxRetries: controllerMaxRetries})
	}
	ctrl, err := replicaset.NewReplicaSetController(replicaset.Options{Client: client, Factory: factory,
		Workers: o.workers, Tracer: tr, Logger: quietLog, MetricsProvider: metrics, FailReconcile: ls.reconcileHook(page.failReconcile),
		Clock: clk, MaxRetries: controllerMaxRetries})
	if err != nil {
		return err
	}
	pods := informer.NewLister[*api.Pod](factory.InformerFor(listwatch.Pods).GetIndexer())
	rsets := informer.NewLister[*api.ReplicaSet](factory.InformerFor(listwatch.ReplicaSets).GetIndexer())
	f := &faults{srv: srv, pods: pods, rsets: rsets, client: podClient, n: n, gate: gate}
	f.skip = func() bool { return lb != nil && (lb.Paused() || ls.isActive()) }
	agg.setChaosFaults(f.done.Load) // the page counts the chaos loop's faults too, as the summary does

	serveCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(serveCtx, ln) }() // with the server's connection timeouts

	// Everything below runs until work is cancelled.
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	if ls != nil {
		ls.env.ctx = work // before anything runs: a lesson's informers and the reconcile hold end with the work
	}
	var wg sync.WaitGroup
	if lb != nil {
		wg.Go(func() { lb.Run(work) }) // when work ends, the lab lets every held hop go
	}
	n.say(n.t.starting, n.t.informerName(o.informer), url)
	if err := addAuditHandler(factory, page, work); err != nil {
		stopWork()
		return err
	}
	factory.Start(work)
	ctrlErr := make(chan error, 1)
	wg.Go(func() { ctrlErr <- ctrl.Run(work) })
	k := &kubelet{pods: pods, client: podClient, startDelay: o.startDelay, firstSeen: map[string]time.Time{}, stopping: map[string]time.Time{}}
	wg.Go(func() { k.run(work, n) })
	ui := &webUI{agg: agg, hub: newHub(), repoRoot: findRepoRoot(), now: time.Now, ctx: work,
		actions: pageActions(f, page, url), lab: lb, lessons: ls}
	if webLn != nil {
		stopWeb := serveWeb(webLn, ui)
		defer stopWeb() // the streams end when the demo stops
		n.block(fmt.Sprintf(n.t.liveView, webLn.Addr()))
	}

	facts, tourErr := waitAndPrintTour(ctx, factory, podClient, n, url, o.replicas)
	chaosCtx, stopChaos := context.WithCancel(ctx)
	if tourErr == nil {
		f.spare(facts.pods...) // the tour asks you to delete these
		ui.setTour(facts)
		if o.chaosEvery > 0 {
			wg.Go(func() { f.chaos(chaosCtx, o.chaosEvery) })
		}
	}
	<-ctx.Done()
	stopChaos()
	if ls != nil {
		ls.stop() // a lesson in progress ends: its faults and switches undone, its informer stopped
	}
	if lb != nil {
		lb.Close() // a paused pipeline runs again for the final check: nothing is held any more
	}
	n.say("%s", n.t.stopping)
	check := finalCheck(srv, factory)
	stopWork()
	wg.Wait()
	factory.Shutdown()
	stopServing() // Serve closes srv (ending its watches) and shuts down
	if err := <-serveErr; err != nil {
		return err
	}
	injected := f.done.Load() + int64(n.count(trace.StageServer, faultRequested))
	if tourErr == nil {
		n.block(n.t.tourShort(facts.url, facts.listRV, facts.pods...))
	}
	n.block(summary(n, ctrl.Stats(), injected, check))
	return errors.Join(tourErr, <-ctrlErr, check.err())
}

// tourFacts are what the tour fills in: the server's address, the
// resourceVersion of a real list, and up to two pods of web it names.
type tourFacts struct {
	url, listRV string
	pods        []string
}

// tourPodsWait is how long the tour waits for the controller's first pods
// to name them.
const tourPodsWait = 5 * time.Second

// waitAndPrintTour waits for the informers to sync and for web's first
// pods (up to two, to name; at most tourPodsWait), lists the pods once to
// show a real resourceVersion, and prints the tour.
func waitAndPrintTour(ctx context.Context, factory informer.SharedInformerFactory, pods *listwatch.TypedClient[*api.Pod], n *narrator, url string, replicas int) (tourFacts, error) {
	facts := tourFacts{url: url}
	for res, ok := range factory.WaitForCacheSync(ctx) {
		if !ok {
			return facts, fmt.Errorf("the %s informer did not sync", res)
		}
	}
	cache := informer.NewLister[*api.Pod](factory.InformerFor(listwatch.Pods).GetIndexer())
	want := min(2, replicas)
	deadline := time.NewTimer(tourPodsWait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for len(facts.pods) < want {
		select {
		case <-ctx.Done():
			return facts, ctx.Err()
		case <-deadline.C:
			want = 0 // the tour says "a web pod" instead
		case <-tick.C:
			facts.pods = facts.pods[:0]
			found, _ := cache.ByNamespace("default").List(webSelector())
			for _, p := range found {
				if p.DeletionTimestamp == nil {
					facts.pods = append(facts.pods, p.Name)
				}
			}
			slices.Sort(facts.pods)
		}
	}
	facts.pods = facts.pods[:min(len(facts.pods), 2)]
	list, err := pods.List(ctx, "default", listwatch.ListOptions{})
	if err != nil {
		return facts, fmt.Errorf("listing pods for the tour: %w", err)
	}
	facts.listRV = list.ResourceVersion
	n.block(n.t.tour(url, facts.listRV, n.informer, facts.pods...))
	return facts, nil
}
