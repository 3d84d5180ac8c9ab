package main

import (
	"fmt"

	"github.com/kinformer/kinformer/informer"
)

// The demo runs one of two informers (--informer):
//
//   - today: what client-go 1.36 runs, each piece behind a feature gate on
//     by default: the streaming list (WatchListClient), the RealFIFO
//     (InOrderInformers) with its 1.36 modes: a relist is one ReplacedAll
//     item applied to the cache in one step (AtomicFIFO), the queue's lock
//     is released while the handlers run (UnlockWhileProcessingFIFO),
//     watch events queued together are popped as one batch and applied in
//     one store transaction (InOrderInformersBatchProcess), and bookmarks
//     reach the store as Bookmark deltas (KEP-5647).
//   - articles: the informer the five articles describe: list then watch,
//     a DeltaFIFO that finds deletions in the cache (KnownObjects), one
//     delta at a time under the queue's lock.
//
// The default is today: it is the library's default and what a learner's
// cluster runs; the narration names every hop it adds to the articles'
// pipeline, and --informer articles shows the pipeline the articles draw.

// informerKind is --informer.
type informerKind int

const (
	todayInformer informerKind = iota
	articlesInformer
)

func parseInformer(s string) (informerKind, error) {
	switch s {
	case "today", "":
		return todayInformer, nil
	case "articles":
		return articlesInformer, nil
	}
	return todayInformer, fmt.Errorf("--informer %q: want articles or today", s)
}

func (k informerKind) String() string {
	if k == articlesInformer {
		return "articles"
	}
	return "today"
}

// queueName is the name of the informer's queue, as the narration and the
// live page show it.
func (k informerKind) queueName() string {
	if k == articlesInformer {
		return "DeltaFIFO"
	}
	return "RealFIFO"
}

// withInformer sets, in the factory's options, the pipeline k names.
func withInformer(k informerKind, o informer.FactoryOptions) informer.FactoryOptions {
	o.Pipeline = informer.Today
	if k == articlesInformer {
		o.Pipeline = informer.Articles
	}
	return o
}
