// Package deltafifo is the queue between the Reflector and the informer: the
// DeltaFIFO the articles describe, and the RealFIFO of client-go's in-order
// informers (the InOrderInformers feature gate: their default since 1.33,
// GA and locked on since 1.36). It mirrors client-go's tools/cache delta_fifo.go and
// the_real_fifo.go.
//
// # Why a queue
//
// The Reflector lists and watches the API server; the informer updates its
// cache and calls event handlers. If the Reflector called the informer
// directly, a slow handler would stall the watch. So the Reflector only
// writes changes into a queue and goes back to reading the stream, and the
// informer pops them at its own pace ("Kubernetes-Informer" by smartkeyerror,
// §2; the "informer" notes, §2.3, call it the unbounded queue: it never
// refuses a write, so the watch never waits).
//
// # Deltas, one queue entry per key
//
// A change is a Delta: a DeltaType (Added, Updated, Deleted, Replaced, Sync)
// and the object after the change. The DeltaFIFO keeps a FIFO of keys
// ("namespace/name") and, for each key, the Deltas that arrived since the key
// was last popped, oldest first. A key is queued once however many deltas pile
// up for it; Pop removes the oldest key and hands all of its Deltas to a
// process function at once, and the informer applies them in order.
//
// The "informer" notes, §2.4, call this "event dedup" and say only the last
// event of a repeated key is kept. That is not what the DeltaFIFO does: every
// delta is kept, and the only merging is that two consecutive deletions of a
// key collapse into one (dedupDeltas). Coalescing repeated keys into one
// piece of work is the job of the controller's work queue, further down the
// pipeline. TestDeltaFIFO_KeepsEveryDeltaNotOnlyTheLast shows it.
//
// # Replace: the relist
//
// After a list (and after every relist, when a watch expired) the Reflector
// calls Replace with the whole list ("如何高效掌控K8s资源变化" by 王成: syncWith
// → Replace). Listed objects get a Replaced delta (Sync if the queue was not
// built with EmitDeltaTypeReplaced; informers set it, as "Kubernetes 源码阅读
// - Informer" shows in sharedIndexInformer.Run). An object the list lacks was
// deleted while the watch was down, and nobody saw its DELETED event: Replace
// queues a Deleted delta whose object is a DeletedFinalStateUnknown tombstone
// carrying the last state known. To find those objects the queue needs the
// informer's cache as its KnownObjects (the same article shows
// KnownObjects: s.indexer).
//
// # Resync
//
// Resync replays the cache: a Sync delta with the cached object for every
// cached key, so handlers see every object again (an OnUpdate whose old and
// new objects are the same). Keys with deltas already queued are skipped, or a
// stale cached state would follow a newer pending change.
//
// # Pop, HasSynced, Close
//
// Pop blocks until a key is queued and calls process under the queue's lock,
// so while the informer applies one key's deltas to its cache, Replace and
// Resync cannot look at a half-updated cache. (That is the DeltaFIFO's and
// the articles'; a RealFIFO with UnlockWhileProcessing, client-go 1.36's
// default, lets go of the lock, because in atomic mode Replace and Resync
// no longer read the cache.) HasSynced turns true once every
// item of the first Replace has been popped: the moment the cache holds the
// initial list (WaitForCacheSync waits for it). Close wakes Pop and makes it
// return ErrFIFOClosed once the queue is empty.
//
// # RealFIFO
//
// client-go then moved to the RealFIFO: every notification kept in arrival
// order as its own Delta, nothing merged per key, one Delta per Pop. The
// informer can run on either queue through the Queue interface; docs/
// deltafifo.md explains why upstream changed, and TestQueues_SideBySide feeds
// both the same input.
//
// client-go 1.35 and 1.36 gave the RealFIFO four modes, each behind a
// feature gate that is on by default there, each off in a queue built here
// unless RealFIFOOptions asks for it (today's informer, informer.Today,
// asks for them): a relist or a resync as one item
// (AtomicEvents: ReplacedAll, SyncAll), the lock released while the
// informer processes (UnlockWhileProcessing), the resourceVersion of
// bookmarks queued for the store (EmitDeltaTypeBookmark, Bookmark), and
// many deltas popped at once for one cache write (PopBatch).
// the_real_fifo_modes.go tells why each exists.
//
// # Where kinformer differs from client-go
//
//   - Pop takes no context. client-go's takes none either: the informer
//     closes the queue when its context ends, and Close unblocks Pop.
//   - Writes to a closed queue fail with ErrFIFOClosed (client-go accepts
//     them and nobody ever pops them).
//   - There is no ErrRequeue and no AddIfNotPresent (removed in client-go
//     1.33): a process error is returned by Pop, and the item is gone.
//   - Replace validates and transforms every listed object before queueing
//     any, so a bad list fails whole instead of half-queued.
//   - ListKeys and List return the queued keys in queue order, not map
//     order, so tests and scenario scripts can print them.
//   - A RealFIFO without AtomicEvents may have a nil KnownObjects (an
//     empty cache); client-go requires one there.
//   - RealFIFOOptions.Validate returns, as an error, what client-go panics
//     with ("coding error"); NewRealFIFO panics with it.
//   - RealFIFOOptions.BatchSize can be set (client-go fixes it at 1,000).
//   - Objects are api.Object; Delta.Object is any because it may hold a
//     DeletedFinalStateUnknown.
//
// # Trying it without Go
//
// testdata/*.txt are scenario scripts (`add foo 1`, `replace foo=1 @rv=10`,
// `pop`, ...) each followed by the queue's printed state; TestScenarios runs
// them, and `go test ./deltafifo -run TestScenarios -update` rewrites the
// expected output. docs/deltafifo.md lists them and the commands.
//
// # In the articles
//
// Read this package beside:
//
//   - "如何高效掌控K8s资源变化? K8s Informer实现机制浅析" (王成), section "认识 DeltaFIFO";
//   - the "informer" notes (author unknown), sections "2.3 无界队列" and "2.4
//     事件去重" (see above for where the dedup really is);
//   - "Kubernetes 源码阅读 - Informer" (2021-07-10), sections "构造 `DeltaFIFO` 队列"
//     and "Resync 机制是什么";
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "Informer
//     机制": steps 2 and 3 of the seven.
package deltafifo
