// Command watch lists a resource and then watches it from the list's
// resourceVersion, printing every event as one line:
//
//	TYPE KIND NAMESPACE/NAME RESOURCEVERSION
//
// It is article 004's raw-HTTP watcher ("Kubernetes Controller 实现机制深度解析",
// 赵化冰) done with kinformer's listwatch package, so a learner can see the
// raw stream of the fake server or of a real cluster:
//
//	go run ./cmd/fakeapiserver &                 # listens on 127.0.0.1:8080
//	go run ./cmd/watch --resource pods
//	kubectl --server http://127.0.0.1:8080 run test --image busybox   # in another terminal
//
// Against a real cluster: `kubectl proxy --port 8080` and the same command;
// or --server https://HOST:6443 --token-file TOKEN --ca-file ca.crt; or, in a
// pod, no flags at all (the service account is used).
//
// The listed objects are printed as LIST lines. Then it behaves as a
// Reflector (loop.go): when the server ends the watch, or the connection
// drops, it watches again from the last resourceVersion it printed; an
// ERROR event is printed, and on 410 Expired (the version is too old) it
// relists, printing LIST lines again; other failures are retried after a
// backoff. It runs until Ctrl-C (or --max-failures failures in a row).
//
// Nothing can make it hang: --request-timeout (default 30 s) bounds a list
// and the wait for a watch's response headers; each watch sends
// timeoutSeconds (--watch-timeout, default a random 5-10 min) and is given
// up when no frame arrives for --idle-timeout (default timeoutSeconds +
// 30 s).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// defaultServer is where `kubectl proxy --port 8080` (article 004) and
// `go run ./cmd/fakeapiserver` listen.
const defaultServer = "http://127.0.0.1:8080"

var resources = map[string]listwatch.Resource{
	"pods":        listwatch.Pods,
	"configmaps":  listwatch.ConfigMaps,
	"namespaces":  listwatch.Namespaces,
	"replicasets": listwatch.ReplicaSets,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "watch:", err)
		os.Exit(1)
	}
}

// options are the parsed command line.
type options struct {
	config    listwatch.Config
	resource  listwatch.Resource
	namespace string
	selector  string
	bookmarks bool

	watchTimeout time.Duration // timeoutSeconds; 0: random 5-10 min
	idleTimeout  time.Duration // 0: the watch's timeout + idleMargin
	retryBackoff time.Duration
	maxFailures  int
}

// defaultRequestTimeout is --request-timeout's default here (listwatch's
// BindFlags has none): a server that accepts and says nothing must not
// hang the program.
const defaultRequestTimeout = 30 * time.Second

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := listwatch.BindFlags(fs)
	cfg.Timeout = defaultRequestTimeout
	rt := fs.Lookup("request-timeout")
	rt.DefValue, rt.Usage = defaultRequestTimeout.String(), "limit for a list, and for the wait for a watch's response headers (0 = none)"
	var o options
	fs.DurationVar(&o.watchTimeout, "watch-timeout", 0, "timeoutSeconds sent with each watch: the server ends it then (0 = a random 5-10 min, as a Reflector)")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 0, "give up on a watch, and watch again, when no event or bookmark arrives for this long (0 = the watch's timeout + 30s)")
	fs.DurationVar(&o.retryBackoff, "retry-backoff", time.Second, "wait after a failure, doubling (to 30s) while failures continue")
	fs.IntVar(&o.maxFailures, "max-failures", 0, "exit after this many failures in a row (0 = retry until Ctrl-C)")
	namespace := fs.String("namespace", "default", "namespace to watch")
	all := fs.Bool("all-namespaces", false, "watch every namespace")
	resource := fs.String("resource", "pods", "what to watch: "+strings.Join(resourceNames(), ", "))
	selector := fs.String("selector", "", "label selector, e.g. app=web or 'tier in (front,back)'")
	bookmarks := fs.Bool("bookmarks", false, "ask for BOOKMARK events and print them")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	r, ok := resources[*resource]
	if !ok {
		return options{}, fmt.Errorf("unknown --resource %q: want one of %s", *resource, strings.Join(resourceNames(), ", "))
	}
	o.config, o.resource, o.namespace, o.selector, o.bookmarks = *cfg, r, *namespace, *selector, *bookmarks
	if o.retryBackoff <= 0 {
		return options{}, fmt.Errorf("--retry-backoff must be positive")
	}
	if *all {
		o.namespace = api.NamespaceAll
	}
	config, contextNamespace, err := o.config.Resolve(defaultServer)
	if err != nil {
		return options{}, err
	}
	o.config = config
	if contextNamespace != "" && !flagGiven(fs, "namespace") && !*all {
		o.namespace = contextNamespace // the kubeconfig context's or the pod's namespace, as kubectl
	}
	return o, nil
}

// flagGiven reports whether the command line set the flag.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func resourceNames() []string {
	names := make([]string, 0, len(resources))
	for n := range resources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// run is the program: list, then watch (again and again, relisting when it
// must) until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	client, err := listwatch.NewClient(o.config)
	if err != nil {
		return err
	}
	lw := listwatch.NewFilteredListWatchFromClient(client, o.resource, o.namespace, func(opts *listwatch.ListOptions) {
		opts.LabelSelector = o.selector
	})

	l := &loop{o: o, lw: lw, stdout: stdout, stderr: stderr}
	return l.run(ctx)
}

// list prints every object, a page of 500 at a time as a Reflector's pager
// asks, and returns the list's resourceVersion: where the watch starts.
func list(ctx context.Context, lw listwatch.ListerWatcher, stdout io.Writer) (rv string, n int, err error) {
	opts := listwatch.ListOptions{Limit: 500}
	for {
		page, err := lw.List(ctx, opts)
		if err != nil {
			return "", n, fmt.Errorf("list: %w", err)
		}
		for _, obj := range page.Items {
			printLine(stdout, "LIST", obj)
		}
		n += len(page.Items)
		if page.Continue == "" {
			return page.ResourceVersion, n, nil
		}
		opts.Continue = page.Continue
	}
}

// printLine writes `TYPE kind namespace/name rv` (just the name for a
// cluster-scoped object; "-" for a bookmark, which names no object).
func printLine(stdout io.Writer, typ string, obj api.Object) {
	key := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	if key == "" {
		key = "-"
	}
	fmt.Fprintf(stdout, "%s %s %s %s\n", typ, obj.GetObjectKind().Kind, key, obj.GetResourceVersion())
}
