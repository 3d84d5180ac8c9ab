package informer

import "fmt"

// Two informers live in this package: the one the five articles describe
// (2020-2023) and the one client-go 1.36 runs. Pipeline picks between
// them with one option; the finer knobs (Queue, RealFIFO, UseWatchList)
// add single later pieces to the articles' informer.

// Pipeline selects which informer NewSharedIndexInformerWithOptions builds
// (SharedIndexInformerOptions.Pipeline, FactoryOptions.Pipeline).
//
// The zero value is Today, the library's default, so a program that sets
// nothing gets what client-go 1.36 runs. Tests, Examples and scenario
// scripts that teach a mechanism of the articles select Articles, and say
// so.
type Pipeline int

const (
	// Today is the informer of client-go 1.36 (the default): each piece is
	// behind a client-go feature gate that is on by default there.
	//
	//   - The cache is filled by a streaming list: one watch with
	//     sendInitialEvents=true whose initial events end with a bookmark,
	//     then goes on as the watch; a paged list only when the server cannot
	//     stream (WatchListClient, default since 1.35; UseWatchList).
	//   - The queue is a RealFIFO: every notification in arrival order, no
	//     per-key grouping (InOrderInformers, default since 1.33, GA 1.36;
	//     RealFIFOQueue).
	//   - A relist is one ReplacedAll item and a resync one SyncAll item;
	//     the cache is replaced in one write before any handler hears of
	//     it; the queue reads no cache (no KnownObjects); watch bookmarks
	//     reach the store, whose LastStoreSyncResourceVersion handlers can
	//     trust (AtomicFIFO, 1.36; RealFIFOFeatures.AtomicFIFO, KEP-5647).
	//   - The queue's lock is released while handlers are notified
	//     (UnlockWhileProcessingFIFO, 1.36).
	//   - Up to 1,000 deltas of distinct keys are popped at once and applied
	//     in one store transaction (InOrderInformersBatchProcess, 1.35).
	//
	// Under Today the finer knobs (Queue, RealFIFO, UseWatchList) are all
	// on already; setting them changes nothing. To run a DeltaFIFO, select
	// Articles.
	Today Pipeline = iota
	// Articles is the informer the articles describe: a paged list, then a
	// watch from its resourceVersion; a DeltaFIFO whose KnownObjects is the
	// cache, so a relist finds deletions and a resync replays the cache
	// object by object; one key's deltas popped at a time and applied under
	// the queue's lock.
	//
	// Under Articles the finer knobs add one piece client-go added since:
	// Queue: RealFIFOQueue is the 1.33 informer (InOrderInformers), plus
	// RealFIFO (RealFIFOFeatures) its 1.35/1.36 modes, and UseWatchList
	// the 1.35 streaming list.
	Articles
)

// String is "today" or "articles".
func (p Pipeline) String() string {
	switch p {
	case Today:
		return "today"
	case Articles:
		return "articles"
	}
	return fmt.Sprintf("Pipeline(%d)", int(p))
}

// pipelineChoice is what a Pipeline and the finer knobs come to: the
// queue, its modes, and how the cache is filled.
type pipelineChoice struct {
	queue        QueueKind
	realFIFO     RealFIFOFeatures
	useWatchList bool
}

// choose resolves the options' Pipeline and finer knobs. Under Today every
// piece is on whatever the knobs say; under Articles the knobs are taken
// as they are (the RealFIFO modes only with a RealFIFO: the caller warns
// and drops them otherwise).
func (o SharedIndexInformerOptions) choose() pipelineChoice {
	if o.Pipeline == Today {
		return pipelineChoice{queue: RealFIFOQueue, realFIFO: ClientGo136(), useWatchList: true}
	}
	return pipelineChoice{queue: o.Queue, realFIFO: o.RealFIFO, useWatchList: o.UseWatchList}
}
