package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
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
// tour), which the narrator reports from the server's trace. When it
// strikes is the gate's to say (chaos_gate.go).
type faults struct {
	srv    *fakeapiserver.Server
	pods   informer.Lister[*api.Pod]
	rsets  informer.Lister[*api.ReplicaSet]
	client *listwatch.TypedClient[*api.Pod]
	n      *narrator
	gate   *chaosGate
	done   atomic.Int64 // faults injected, for the summary
	// skip, if set, makes the chaos loop wait its turn: while the lab is
	// paused or a lesson runs, nothing is broken behind the learner's back.
	skip func() bool

	// roll picks a tick's fault (0 to 3, see chaosGate.decide); nil is
	// rand.IntN(4). Tests set it to replay one sequence.
	roll func() int

	mu       sync.Mutex
	spared   []string // pods the tour asks you to delete: the chaos loop leaves them to you
	lastHold holdKind // the last tick's hold, said once per streak
	touches  int      // writes to the configmap before a compaction
}

// errNoPodToDelete: web has no pod the fault may delete.
var errNoPodToDelete = errors.New("no pod of web to delete")

// spare keeps the chaos loop's hands off the pods named.
func (f *faults) spare(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spared = append(f.spared, names...)
}

func (f *faults) isSpared(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.spared, name)
}

// deletePod deletes a random pod of the ReplicaSet web (or the one named),
// as `kubectl delete pod` would: the controller must notice and replace it.
// The chaos loop spares the pods the tour names; you may delete any.
func (f *faults) deletePod(ctx context.Context, who, name string) (string, error) {
	if name == "" {
		pods, err := f.pods.ByNamespace("default").List(webSelector())
		if err != nil {
			return "", fmt.Errorf("listing the pods of web: %w", err)
		}
		// A pod already terminating would only be asked again.
		var live []*api.Pod
		for _, p := range pods {
			if p.DeletionTimestamp == nil && (who != "chaos" || !f.isSpared(p.Name)) {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return "", errNoPodToDelete
		}
		name = live[rand.IntN(len(live))].Name
	}
	f.done.Add(1)
	f.n.say(f.n.t.deletingPod, f.n.t.who(who), name)
	return name, f.client.Delete(ctx, "default", name, listwatch.DeleteOptions{})
}

// dropWatches ends every open watch, as an API server restart or a load
// balancer would: each reflector resumes from its last resourceVersion.
func (f *faults) dropWatches(who string) {
	f.done.Add(1)
	f.n.say(f.n.t.dropWatches, f.n.t.who(who))
	f.srv.CloseWatches()
}

// compact writes the configmap no informer watches, forgets the server's
// history, then at once drops the watches, so the reflectors must come back
// from a version the server no longer has: 410 Expired, and a relist.
// Without the write, a reflector that had seen the last change (or a
// bookmark) would watch again from exactly the compacted version, which
// the server still serves: no 410; and so would one that an event or a
// bookmark reached between the compaction and the drop.
func (f *faults) compact(who string) error {
	if err := f.touchConfigMap(); err != nil {
		return err
	}
	f.done.Add(1)
	f.n.say(f.n.t.compacting, f.n.t.who(who), f.srv.ResourceVersion())
	f.srv.CompactHistory()
	f.srv.CloseWatches()
	return nil
}

// touchConfigMap writes an annotation on the configmap settings, which no
// informer of the demo watches: the server's resourceVersion moves past
// every reflector's.
func (f *faults) touchConfigMap() error {
	f.mu.Lock()
	f.touches++
	n := f.touches
	f.mu.Unlock()
	patch := `{"metadata":{"annotations":{"kinformer.io/touched":"` + strconv.Itoa(n) + `"}}}`
	if _, err := f.srv.Patch("configmaps", "default", "settings", fakeapiserver.MergePatchType, []byte(patch)); err != nil {
		return fmt.Errorf("writing the configmap settings before a compaction: %w", err)
	}
	return nil
}

// world reads what the gate needs from the informers' caches.
func (f *faults) world() worldState {
	var w worldState
	if rs, err := f.rsets.ByNamespace("default").Get("web"); err == nil {
		w.want, w.ready = 1, int(rs.Status.ReadyReplicas)
		if rs.Spec.Replicas != nil {
			w.want = int(*rs.Spec.Replicas)
		}
	}
	pods, _ := f.pods.ByNamespace("default").List(webSelector())
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			w.terminating++
		}
	}
	return w
}

// chaos injects a fault every interval until ctx ends, when the gate
// allows.
func (f *faults) chaos(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if f.skip != nil && f.skip() {
				continue // the lab is paused or a lesson runs: nothing breaks behind the learner's back
			}
			f.tick(ctx, now, interval)
		}
	}
}

// tick is one tick of the chaos loop at now: a fault, or a tick held off
// (said once per streak of the same reason). It returns what it did.
func (f *faults) tick(ctx context.Context, now time.Time, interval time.Duration) faultKind {
	roll := rand.IntN(4)
	if f.roll != nil {
		roll = f.roll()
	}
	kind, h := f.gate.decide(now, interval, f.world(), roll)
	f.mu.Lock()
	say := h.kind != notHeld && h.kind != f.lastHold
	f.lastHold = h.kind
	f.mu.Unlock()
	if say {
		f.n.say("%s", f.n.t.holdLine(h))
	}
	switch kind {
	case deletePodFault:
		if _, err := f.deletePod(ctx, "chaos", ""); err != nil {
			return noFault
		}
	case dropWatchesFault:
		f.dropWatches("chaos")
	case compactFault:
		if f.compact("chaos") != nil {
			return noFault
		}
	}
	return kind
}

func webSelector() api.Selector {
	sel, _ := api.ParseSelector("app=web") // a constant that parses
	return sel
}
