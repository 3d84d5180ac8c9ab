// Command demo is the one-command tour of kinformer: it starts the fake API
// server with a few objects in it and prints what to try against it with
// curl and kubectl, in the order the articles explain things.
//
//	make demo            # or: go run ./cmd/demo --addr 127.0.0.1:8080
//
// Stop it with Ctrl-C.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address for the fake API server")
	history := fs.Int("history", 1000, "events the server keeps (try 5 to see 410 Expired quickly)")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := fakeapiserver.Options{History: *history}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	srv := fakeapiserver.New(opts)
	if err := seed(srv); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("%w (is another demo or server running? try --addr 127.0.0.1:0)", err)
	}
	printTour(out, "http://"+ln.Addr().String())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(out, "bye")
	return nil
}

// seed creates a small, recognisable world: three pods of a "web"
// ReplicaSet, a configmap, and a pod in kube-system.
func seed(srv *fakeapiserver.Server) error {
	three := int32(3)
	yes := true
	rs, err := srv.Create(&api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Replicas: &three,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27"}}}},
		},
	})
	if err != nil {
		return err
	}
	for i := range 3 {
		_, err := srv.Create(&api.Pod{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default",
				Labels: map[string]string{"app": "web"},
				OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web",
					UID: rs.GetUID(), Controller: &yes}}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27"}}},
		})
		if err != nil {
			return err
		}
	}
	if _, err := srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "default"},
		Data: map[string]string{"greeting": "hello"}}); err != nil {
		return err
	}
	_, err = srv.Create(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "coredns", Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "coredns", Image: "coredns:1.11"}}},
	})
	return err
}

func printTour(out io.Writer, url string) {
	k := "kubectl --server " + url
	fmt.Fprintf(out, `kinformer demo: a fake Kubernetes API server is listening on %[1]s
(in-memory, real resourceVersions; see docs/fakeapiserver.md). Ctrl-C stops it.

1. List, as article 004 does with curl (note metadata.resourceVersion of the list):
     curl %[1]s/api/v1/namespaces/default/pods

2. Watch from that version in a second terminal (each line is one chunk of the stream):
     curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=<rv>"
   or from "now", which first replays what exists as ADDED events:
     curl "%[1]s/api/v1/namespaces/default/pods?watch=true"

3. Change things with kubectl and watch the events arrive:
     %[2]s get pods -A
     %[2]s get pods -w
     %[2]s label pod web-0 tier=frontend
     %[2]s delete pod web-1                 (MODIFIED with deletionTimestamp, then DELETED)
     %[2]s get rs,cm
     %[2]s get pod web-2 -o json
     %[2]s api-resources

4. Break it: watch from a version older than the server's history and get 410 Expired
   (restart with --history 5 to make that easy), which is what makes a reflector relist:
     curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=1"

Then read the packages beside the articles: docs/ has one page per component.

`, url, k)
}
