package informer

import (
	"context"
	"fmt"
)

// HasSynced as channels: the informer's and each registration's (client-go
// 1.36's HasSyncedChecker), so that WaitFor can wait for them without
// polling. Each channel is closed once and says the same as the HasSynced
// beside it, which reads it.
//
// The chain, each link closed after the one before:
//
//  1. the queue's channel, closed when the last item of the initial list
//     has been processed, that is, is in the cache and handed to every
//     listener (deltafifo.Queue.HasSyncedChecker);
//  2. the informer's, closed by a goroutine of Run that waits for the
//     queue's (watchSynced), which then tells every listener;
//  3. a registration's, closed when three things hold: the informer has
//     synced, AddEventHandler has returned, and the handler has handled
//     every initial-list add it was given (initialPending is 0).
//
// For 3, whichever of the three comes last closes the channel: the informer
// telling the listeners (upstreamHasSynced), AddEventHandler on its way out
// (markRegistered), or the listener after an initial add (checkSynced in
// handle). Each sets its own fact, then checks all three; the facts are
// atomics, so of two that happen at once at least one sees the other's.
// Once the informer has synced, initialPending can only go down: every
// initial-list add of a listener registered before was counted before the
// queue's channel closed (1), and a listener registered after gets its
// replay counted before AddEventHandler returns. So a closed channel is
// never wrong.

// HasSyncedChecker implements SharedIndexInformer.
func (s *sharedIndexInformer) HasSyncedChecker() DoneChecker { return informerSyncedChecker{s} }

type informerSyncedChecker struct{ s *sharedIndexInformer }

func (c informerSyncedChecker) Name() string {
	return fmt.Sprintf("SharedIndexInformer %T", c.s.objectType)
}
func (c informerSyncedChecker) Done() <-chan struct{} { return c.s.synced }

// watchSynced closes the informer's synced channel once its controller's
// (the queue's) is closed, and tells the listeners; or returns when ctx
// ends. Run runs it beside the controller and waits for it.
func (s *sharedIndexInformer) watchSynced(ctx context.Context, c Controller) {
	select {
	case <-c.HasSyncedChecker().Done():
		close(s.synced)
		s.processor.upstreamHasSynced()
	case <-ctx.Done():
	}
}

// upstreamHasSynced tells every listener that the informer has synced.
func (p *sharedProcessor) upstreamHasSynced() {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l := range p.listeners {
		l.upstreamHasSynced()
	}
}

// upstreamHasSynced records that the informer has synced.
func (p *processorListener) upstreamHasSynced() {
	p.upstreamSynced.Store(true)
	p.checkSynced()
}

// markRegistered records that AddEventHandler is returning the listener:
// every initial-list add it will ever get has been counted. The informer
// may have synced before the listener was in the processor's set, so
// markRegistered also looks at the informer's channel itself.
func (p *processorListener) markRegistered() {
	p.registered.Store(true)
	if IsDone(p.upstream) {
		p.upstreamSynced.Store(true)
	}
	p.checkSynced()
}

// checkSynced closes the registration's channel if all three facts hold.
func (p *processorListener) checkSynced() {
	if p.registered.Load() && p.upstreamSynced.Load() && p.initialPending.Load() == 0 {
		p.closeSynced.Do(func() { close(p.synced) })
	}
}

// HasSynced implements ResourceEventHandlerRegistration.
func (p *processorListener) HasSynced() bool { return IsDone(p.HasSyncedChecker()) }

// HasSyncedChecker implements ResourceEventHandlerRegistration.
func (p *processorListener) HasSyncedChecker() DoneChecker { return registrationSyncedChecker{p} }

type registrationSyncedChecker struct{ p *processorListener }

func (c registrationSyncedChecker) Name() string {
	return fmt.Sprintf("%s + event handler %s", c.p.upstream.Name(), c.p.name)
}
func (c registrationSyncedChecker) Done() <-chan struct{} { return c.p.synced }
