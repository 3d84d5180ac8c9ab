package main

import (
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/trace"
)

// The queue and cache boxes of the live view, counted from the trace of
// either informer (pipeline.go). The DeltaFIFO's depth is its keys; the
// RealFIFO's is its deltas, which its events count for it. Today's
// informer adds items without a key (a ReplacedAll per relist, a SyncAll
// per resync, a Bookmark), popped batches, and one-step cache writes
// (a ReplacedAll's Replace, a batch's transaction) followed by one event
// per key they wrote (in=replace or in=transaction), which are not writes
// of their own.

// fifoEvent counts a queue's event. Called with a.mu held.
func (a *aggregator) fifoEvent(e trace.Event, res, key string) {
	f := a.fifo(res)
	keys := a.fifoKeys[res]
	count, countErr := strconv.Atoi(e.Get(trace.KeyCount))
	switch e.What {
	case "delta queued", "tombstone queued":
		f.Queued++
		if e.What == "tombstone queued" {
			f.Tombstones++
		}
		if e.Get(trace.KeyType) == "ReplacedAll" {
			f.ReplacedAll++
		}
		if a.informer == todayInformer {
			if countErr == nil {
				f.Depth = count // a RealFIFO counts every delta, not keys
			}
			return
		}
		keys[key] = true
		f.Depth = max(f.Depth, len(keys))
	case "pop":
		f.Popped++
		delete(keys, key)
		if countErr == nil {
			f.Depth = count // the queue says what is left
		}
	case "pop batch":
		f.Batches++
		if countErr == nil {
			f.Popped += count
		}
		if left, err := strconv.Atoi(e.Get("left")); err == nil {
			f.Depth = left
		}
	case "replace":
		f.Replaces++
	}
}

// cacheEvent counts a cache's event. Called with a.mu held.
func (a *aggregator) cacheEvent(e trace.Event, res, key string) {
	c := a.cache(res)
	keys := a.cacheKeys[res]
	switch {
	case e.What == "cache replace" || e.What == "cache transaction":
		c.Writes++ // one write; its keys follow, one event each
		if e.What == "cache replace" {
			c.SyncRV = e.RV()
		}
		return
	case e.What == "store bookmark":
		c.SyncRV = e.RV()
		return
	case key == "":
		return // a SyncAll's "cache resync": the handlers hear of the cache, which does not change
	}
	if e.Get("in") == "" {
		c.Writes++
	}
	if a.informer == todayInformer && e.Get("in") != "replace" {
		c.SyncRV = e.RV() // the store records the version of its last write
	}
	if e.What == "cache delete (tombstone: final state unknown)" && a.informer == todayInformer {
		a.fifo(res).Tombstones++ // a key today's ReplacedAll found gone
	}
	if strings.HasPrefix(e.What, "cache delete") {
		delete(keys, key)
	} else {
		keys[key] = e.RV()
	}
	c.Size = len(keys)
}
