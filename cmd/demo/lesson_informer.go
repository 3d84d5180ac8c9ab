package main

import (
	"context"
	"fmt"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// lessonInformer is a pod informer a lesson starts beside the demo's own,
// on the same server, client, clock and lab tracer. Its events carry
// resource=name ("pods (articles)"), so its boxes do not collide with the
// demo's pods informer's; its one handler is named "lesson".
type lessonInformer struct {
	name   string
	cancel context.CancelFunc
	done   chan struct{}
}

// startInformer starts one and waits until it (and its handler) synced.
// resync > 0 gives the handler that resync period.
func (e *lessonEnv) startInformer(ctx context.Context, name string, p informer.Pipeline, resync time.Duration) (*lessonInformer, error) {
	lw := listwatch.NewFilteredListWatchFromClient(e.client, listwatch.Pods, "", nil)
	inf := informer.NewSharedIndexInformerWithOptions(lw, &api.Pod{}, informer.SharedIndexInformerOptions{
		ResyncPeriod: resync,
		Pipeline:     p,
		Clock:        e.clock,
		Logger:       e.logger,
		Tracer:       e.tracer.With(trace.Resource(name)),
		Indexers:     indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc},
	})
	reg, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "lesson", ResyncPeriod: &resync})
	if err != nil {
		return nil, fmt.Errorf("the lesson's informer %q: %w", name, err)
	}
	runCtx, cancel := context.WithCancel(e.ctx) // the demo's work: it ends with the demo at the latest
	li := &lessonInformer{name: name, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(li.done)
		inf.Run(runCtx)
	}()
	wait, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	if !informer.WaitForCacheSync(wait, reg.HasSynced) {
		li.stop()
		return nil, fmt.Errorf("the lesson's informer %q did not sync in 20 s", name)
	}
	return li, nil
}

// stop ends the informer and waits (bounded) for it to return.
func (li *lessonInformer) stop() {
	if li == nil {
		return
	}
	li.cancel()
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-li.done:
	case <-t.C:
	}
}
