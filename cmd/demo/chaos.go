package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

// faults are what the chaos loop and the /demo/ endpoints do to the
// world: the three ways a real cluster surprises an informer.
type faults struct {
	srv    *fakeapiserver.Server
	pods   informer.Lister[*api.Pod]
	client *listwatch.TypedClient[*api.Pod]
	n      *narrator
	done   atomic.Int64 // faults injected, for the summary
}

// deletePod deletes a random pod of the ReplicaSet web (or the one named),
// as `kubectl delete pod` would: the controller must notice and replace it.
func (f *faults) deletePod(ctx context.Context, who, name string) error {
	if name == "" {
		pods, err := f.pods.ByNamespace("default").List(webSelector())
		if err != nil || len(pods) == 0 {
			return fmt.Errorf("no pod of web to delete")
		}
		name = pods[rand.IntN(len(pods))].Name
	}
	f.done.Add(1)
	f.n.say("%s: deleting pod default/%s", who, name)
	return f.client.Delete(ctx, "default", name, listwatch.DeleteOptions{})
}

// dropWatches ends every open watch, as an API server restart or a load
// balancer would: each reflector resumes from its last resourceVersion.
func (f *faults) dropWatches(who string) {
	f.done.Add(1)
	f.n.say("%s: dropping every watch (each reflector resumes from its last resourceVersion, no relist)", who)
	f.srv.CloseWatches()
}

// compact forgets the server's history, then drops the watches so the
// reflectors must come back from a version the server no longer has: 410
// Expired, and a relist.
func (f *faults) compact(who string) {
	f.done.Add(1)
	f.n.say("%s: compacting history at rv %s and dropping watches (a watch from an older rv gets 410 Expired → relist)", who, f.srv.ResourceVersion())
	f.srv.CompactHistory()
	f.srv.CloseWatches()
}

// chaos injects a random fault every interval until ctx ends.
func (f *faults) chaos(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		switch rand.IntN(4) {
		case 0, 1: // deleting a pod is the most instructive: twice as likely
			_ = f.deletePod(ctx, "chaos", "")
		case 2:
			f.dropWatches("chaos")
		case 3:
			f.compact("chaos")
		}
	}
}

// handler serves the learner's buttons, so the tour's curl lines can break
// things on purpose:
//
//	POST /demo/delete-pod[?name=web-abc]   delete a (random) pod of web
//	POST /demo/drop-watches                end every watch
//	POST /demo/compact                     compact the history (410 on the next watch)
func (f *faults) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /demo/delete-pod", func(w http.ResponseWriter, r *http.Request) {
		if err := f.deletePod(r.Context(), "you", r.URL.Query().Get("name")); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		fmt.Fprintln(w, "deleted; watch the demo's narration")
	})
	mux.HandleFunc("POST /demo/drop-watches", func(w http.ResponseWriter, r *http.Request) {
		f.dropWatches("you")
		fmt.Fprintln(w, "every watch dropped; watch the demo's narration")
	})
	mux.HandleFunc("POST /demo/compact", func(w http.ResponseWriter, r *http.Request) {
		f.compact("you")
		fmt.Fprintln(w, "history compacted; watch the demo's narration")
	})
	return mux
}

func webSelector() api.Selector {
	sel, _ := api.ParseSelector("app=web") // a constant that parses
	return sel
}
