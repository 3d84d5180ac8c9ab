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
// The listed objects are printed as LIST lines. When the server ends the
// watch cleanly (its timeout), watch resumes from the last resourceVersion
// it printed, as a Reflector does; an ERROR event (410 Expired: the version
// is too old) is printed and ends the program.
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
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := listwatch.BindFlags(fs)
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
	o := options{config: *cfg, resource: r, namespace: *namespace, selector: *selector, bookmarks: *bookmarks}
	if *all {
		o.namespace = api.NamespaceAll
	}
	var err error
	o.config, err = o.config.OrInCluster(defaultServer)
	return o, err
}

func resourceNames() []string {
	names := make([]string, 0, len(resources))
	for n := range resources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// run is the program: list, then watch until ctx ends or the watch fails.
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

	rv, n, err := list(ctx, lw, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "listed %d %s at resourceVersion %s; watching from there\n", n, o.resource, rv)
	for ctx.Err() == nil {
		w, err := lw.Watch(ctx, listwatch.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: o.bookmarks})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return fmt.Errorf("watch %s from resourceVersion %s: %w", o.resource, rv, err)
		}
		rv, err = printEvents(w, stdout, rv)
		w.Stop()
		if err != nil {
			return err
		}
		if ctx.Err() == nil {
			fmt.Fprintf(stderr, "the server ended the watch; watching again from resourceVersion %s\n", rv)
		}
	}
	return nil
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

// printEvents prints w's events until it ends and returns the last
// resourceVersion seen. An ERROR event ends the program.
func printEvents(w listwatch.Watch, stdout io.Writer, rv string) (string, error) {
	for ev := range w.ResultChan() {
		if ev.Type == api.Error {
			fmt.Fprintf(stdout, "ERROR %s %v\n", listwatch.ReasonForError(ev.Err), ev.Err)
			if listwatch.IsResourceExpired(ev.Err) {
				return rv, fmt.Errorf("resourceVersion %s is too old (%w); run again to list afresh", rv, ev.Err)
			}
			return rv, fmt.Errorf("the watch failed: %w", ev.Err)
		}
		printLine(stdout, string(ev.Type), ev.Object)
		rv = ev.Object.GetResourceVersion()
	}
	return rv, nil
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
