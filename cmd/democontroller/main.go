// Command democontroller runs the ReplicaSet controller of package
// controller/replicaset against an API server: it keeps, for every
// ReplicaSet in the namespace, spec.replicas pods running, and writes what
// it found to each ReplicaSet's status. It is the controller of
// "Kubernetes Controller 实现机制深度解析" (赵化冰) made real: informers,
// a rate-limited work queue, workers, retries.
//
//	go run ./cmd/fakeapiserver &                       # listens on 127.0.0.1:8080
//	go run ./cmd/democontroller --trace                # in another terminal
//	kubectl --server http://127.0.0.1:8080 create -f rs.yaml
//
// Against a real cluster: `kubectl proxy --port 8080` and the same command
// (it creates and deletes pods there: use a namespace of your own). The
// connection flags are those of cmd/watch.
//
// It waits for its caches to sync before its workers start, prints its
// counters whenever they change, and on SIGINT or SIGTERM stops taking
// work, finishes what is queued, prints the counters and exits 0.
//
// --informer picks the informers' pipeline, as cmd/demo's does: today
// (the default: client-go 1.36's streaming list and RealFIFO) or articles
// (the articles' list then watch and DeltaFIFO).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// defaultServer is where `kubectl proxy --port 8080` and
// `go run ./cmd/fakeapiserver` listen.
const defaultServer = "http://127.0.0.1:8080"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "democontroller:", err)
		os.Exit(1)
	}
}

// options are the parsed command line.
type options struct {
	config    listwatch.Config
	namespace string
	workers   int
	resync    time.Duration
	trace     bool
	stages    map[string]bool // nil: every stage
	informer  string          // --informer: today or articles
}

// withInformer sets, in the factory's options, the pipeline --informer
// names (cmd/demo's pipeline.go says what each runs).
func withInformer(name string, o informer.FactoryOptions) informer.FactoryOptions {
	o.Pipeline = informer.Today
	if name == "articles" {
		o.Pipeline = informer.Articles
	}
	return o
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("democontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := listwatch.BindFlags(fs)
	namespace := fs.String("namespace", "default", `the namespace whose ReplicaSets to reconcile ("" for every namespace)`)
	workers := fs.Int("workers", 2, "how many ReplicaSets are reconciled in parallel")
	resync := fs.Duration("resync", 30*time.Second, "how often every ReplicaSet is queued again even without events (0: never)")
	traced := fs.Bool("trace", false, "print trace events to stderr, one per line")
	stages := fs.String("trace-stages", "controller,workqueue", `which stages --trace prints, comma-separated, or "all"`)
	inf := fs.String("informer", "today", "the informers' pipeline: today (client-go 1.36's) or articles (list then watch, DeltaFIFO)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if *inf != "today" && *inf != "articles" {
		return options{}, fmt.Errorf("--informer %q: want articles or today", *inf)
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *workers < 1 {
		return options{}, fmt.Errorf("--workers must be at least 1, not %d", *workers)
	}
	o := options{config: *cfg, namespace: *namespace, workers: *workers, resync: *resync, trace: *traced, informer: *inf}
	if *stages != "all" {
		o.stages = map[string]bool{}
		for _, s := range strings.Split(*stages, ",") {
			o.stages[strings.TrimSpace(s)] = true
		}
	}
	config, contextNamespace, err := o.config.Resolve(defaultServer)
	if err != nil {
		return options{}, err
	}
	o.config = config
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "namespace" })
	if contextNamespace != "" && !given {
		o.namespace = contextNamespace // the kubeconfig context's or the pod's namespace, as kubectl
	}
	return o, nil
}

// run is the program: build the client, the factory and the controller,
// start the factory, run the controller until ctx ends, then shut the
// factory down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	stderr = &lockedWriter{w: stderr}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	tracer := o.tracer(stderr)
	o.config.Tracer = tracer
	client, err := listwatch.NewClient(o.config)
	if err != nil {
		return err
	}
	factory := informer.NewSharedInformerFactory(client, withInformer(o.informer, informer.FactoryOptions{
		DefaultResync: o.resync, Namespace: o.namespace, Logger: logger, Tracer: tracer,
	}))
	c, err := replicaset.NewReplicaSetController(replicaset.Options{
		Client: client, Factory: factory, Workers: o.workers, Logger: logger, Tracer: tracer,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reconciling the ReplicaSets of %s on %s with %d workers (informer: %s)\n", namespaceName(o.namespace), o.config.Server, o.workers, o.informer)
	factory.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { printStats(ctx, c, stdout) })
	err = c.Run(ctx)
	factory.Shutdown() // Run returns once ctx has ended, and so do the informers
	wg.Wait()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(stdout, "stopped before the caches synced")
		return nil
	}
	fmt.Fprintln(stdout, "stopped:", c.Stats())
	return err
}

func namespaceName(ns string) string {
	if ns == "" {
		return "every namespace"
	}
	return "namespace " + ns
}

// printStats prints the controller's counters every second in which they
// changed, until ctx ends.
func printStats(ctx context.Context, c *replicaset.ReplicaSetController, stdout io.Writer) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var last replicaset.Stats
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if st := c.Stats(); st != last {
				fmt.Fprintln(stdout, st)
				last = st
			}
		}
	}
}

// tracer returns the Tracer that prints the chosen stages' events to w, or
// nil without --trace.
func (o options) tracer(w io.Writer) *trace.Tracer {
	if !o.trace {
		return nil
	}
	return trace.New(trace.Func(func(e trace.Event) {
		if o.stages == nil || o.stages[e.Stage] {
			fmt.Fprintln(w, e.String())
		}
	}))
}

// lockedWriter serializes the writes of the logger and the tracer, which
// run on many goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
