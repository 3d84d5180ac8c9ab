package informer

import "github.com/kinformer/kinformer/deltafifo"

// The informer's side of client-go 1.36's RealFIFO modes: which are on
// (RealFIFOFeatures), what the queue is built with, and what the
// controller is given. What the informer does with the modes' items is in
// handle_batch.go.

// RealFIFOFeatures selects, for the articles' informer (Pipeline Articles)
// whose Queue is RealFIFOQueue, the modes of client-go 1.36's RealFIFO
// (deltafifo/the_real_fifo_modes.go). Each field is named after the
// client-go feature gate that turns the mode on; all three are on by
// default in client-go 1.36 and in today's informer (Pipeline Today, which
// ignores this field), and off in the articles' informer unless set. With
// DeltaFIFOQueue they are ignored (a warning is logged).
type RealFIFOFeatures struct {
	// AtomicFIFO (beta, 1.36): a relist is one ReplacedAll item that
	// replaces the cache in one write before any handler hears of it
	// (deletes for what vanished, then adds and updates for the list); a
	// resync is one SyncAll item; the queue has no KnownObjects; watch
	// bookmarks reach the store (deltafifo.RealFIFOOptions.AtomicEvents
	// and EmitDeltaTypeBookmark); LastStoreSyncResourceVersion reports the
	// store's version.
	AtomicFIFO bool
	// UnlockWhileProcessingFIFO (beta, 1.36): the queue's lock is released
	// while the handlers are notified, while fewer than 2,000 deltas are
	// queued (deltafifo.RealFIFOOptions.UnlockWhileProcessing). Only with
	// AtomicFIFO, as in client-go, which ignores it otherwise.
	UnlockWhileProcessingFIFO bool
	// InOrderInformersBatchProcess (beta, 1.35): the informer pops up to
	// 1,000 deltas of distinct keys at once (deltafifo.RealFIFO.PopBatch),
	// applies them to the cache in one transaction, then notifies once per
	// delta, in order.
	InOrderInformersBatchProcess bool
}

// ClientGo136 is what client-go 1.36 runs by default: every mode on.
func ClientGo136() RealFIFOFeatures {
	return RealFIFOFeatures{AtomicFIFO: true, UnlockWhileProcessingFIFO: true, InOrderInformersBatchProcess: true}
}

// realFIFOOptions are the queue options the features ask for.
func (f RealFIFOFeatures) realFIFOOptions() deltafifo.RealFIFOOptions {
	return deltafifo.RealFIFOOptions{
		AtomicEvents:          f.AtomicFIFO,
		UnlockWhileProcessing: f.AtomicFIFO && f.UnlockWhileProcessingFIFO,
		EmitDeltaTypeBookmark: f.AtomicFIFO,
	}
}

// processBatch is the controller's ProcessBatch: HandleBatch if the
// informer pops batches, else nil.
func (s *sharedIndexInformer) processBatch() deltafifo.ProcessBatchFunc {
	if !s.realFIFO.InOrderInformersBatchProcess {
		return nil
	}
	return s.HandleBatch
}

// LastStoreSyncResourceVersion implements SharedIndexInformer.
func (s *sharedIndexInformer) LastStoreSyncResourceVersion() string {
	if !s.realFIFO.AtomicFIFO {
		return ""
	}
	return s.indexer.LastStoreSyncResourceVersion()
}
