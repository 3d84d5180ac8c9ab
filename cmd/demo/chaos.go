package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

// faults are what the chaos loop does to the world: the three ways a real
// cluster surprises an informer. The learner does the same, and more,
// through the server's own fault endpoints (POST /faults/..., see the
// tour), which the narrator reports from the server's trace.
type faults struct {
	srv    *fakeapiserver.Server
	pods   informer.Lister[*api.Pod]
	client *listwatch.TypedClient[*api.Pod]
	n      *narrator
	done   atomic.Int64 // faults injected, for the summary
	// skip, if set, makes the chaos loop wait its turn: while the lab is
	// paused or a lesson runs, nothing is broken behind the learner's back.
	skip func() bool
}

// deletePod deletes a random pod of the ReplicaSet web (or the one named),
// as `kubectl delete pod` would: the controller must notice and replace it.
func (f *faults) deletePod(ctx context.Context, who, name string) error {
	if name == "" {
		pods, err := f.pods.ByNamespace("default").List(webSelector())
		// A pod already terminating would only be asked again.
		var live []*api.Pod
		for _, p := range pods {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		pods = live
		if err != nil || len(pods) == 0 {
			return fmt.Errorf("no pod of web to delete")
		}
		name = pods[rand.IntN(len(pods))].Name
	}
	f.done.Add(1)
	f.n.say(f.n.t.deletingPod, f.n.t.who(who), name)
	return f.client.Delete(ctx, "default", name, listwatch.DeleteOptions{})
}

// dropWatches ends every open watch, as an API server restart or a load
// balancer would: each reflector resumes from its last resourceVersion.
func (f *faults) dropWatches(who string) {
	f.done.Add(1)
	f.n.say(f.n.t.dropWatches, f.n.t.who(who))
	f.srv.CloseWatches()
}

// compact forgets the server's history, then drops the watches so the
// reflectors must come back from a version the server no longer has: 410
// Expired, and a relist.
func (f *faults) compact(who string) {
	f.done.Add(1)
	f.n.say(f.n.t.compacting, f.n.t.who(who), f.srv.ResourceVersion())
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
		if f.skip != nil && f.skip() {
			continue
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

func webSelector() api.Selector {
	sel, _ := api.ParseSelector("app=web") // a constant that parses
	return sel
}
