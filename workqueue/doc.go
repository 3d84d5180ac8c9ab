// Package workqueue is the queue a controller drains: client-go's
// util/workqueue, written from scratch.
//
// # Why a controller works from a queue
//
// An informer calls its event handlers one event at a time, on its own
// goroutine. If a handler did the real work (talk to the API server, create
// pods, wait), a slow controller would hold up the informer and every other
// handler behind it. So handlers only compute a key ("namespace/name") and
// Add it to a work queue; the controller's workers take keys from the queue
// at their own pace, read the current object from the informer's cache, and
// reconcile. The queue absorbs the difference in speed between the informer
// and the controller ("Kubernetes-Informer" by smartkeyerror, §2).
//
// A key, not an event, is queued on purpose. Ten updates to one pod that
// arrive while the pod waits in the queue collapse into one entry, and the
// worker that finally takes it reads the newest state from the cache: the
// controller reconciles towards the latest state instead of replaying
// history.
//
// # The queue: queue, dirty, processing
//
// Typed keeps three structures under one mutex:
//
//   - queue, the FIFO order in which items will be handed out;
//   - dirty, the set of items that need processing (everything in queue,
//     plus items re-added while a worker holds them);
//   - processing, the set of items a worker has taken with Get and not yet
//     given back with Done.
//
// From these follow the properties client-go's doc.go lists:
//
//   - Fair: items are handed out in the order they were added.
//   - Stingy: an item added many times before it is processed is processed
//     once (Add sees it in dirty and does nothing), and an item is never
//     processed by two workers at once (an item added while it is in
//     processing goes to dirty only; Done puts it back in queue).
//   - Multiple producers and consumers, and a worker may re-add the item it
//     is processing: it will be processed again after Done.
//   - Shutdown notifications: see below.
//
// # Shutdown, exactly
//
// These semantics were mis-documented upstream for years
// (kubernetes/kubernetes#101928, #131200, #141079), so here they are
// precisely.
//
// ShutDown: from now on Add and AddAfter do nothing. Get keeps handing out
// the items already queued, one per call, as before; only when the queue is
// empty does Get return shutdown=true (and then at once, forever). A Get
// blocked on an empty queue wakes and returns shutdown=true. Items re-added
// before the shutdown while they were processing are still queued again by
// Done and so still handed out. Items waiting in a delaying queue's heap (a
// pending AddAfter or AddRateLimited) are dropped. ShutDown does not wait.
//
// ShutDownWithDrain: everything ShutDown does, then it blocks until the
// processing set is empty, that is, until every item handed out by Get has
// been given back with Done. It does not wait for items that are still
// queued: if no worker is calling Get they stay queued and it returns as
// soon as processing is empty; if workers are calling Get, it may return in
// the instant between one item's Done and the next Get
// (kubernetes/kubernetes#141079 asks upstream to change this; kinformer keeps
// client-go's behaviour, see below). A ShutDown called while a
// ShutDownWithDrain is waiting makes it return at once. If a worker never
// calls Done, ShutDownWithDrain never returns.
//
// To finish every queued item before exiting, do what client-go#700
// recommends: let each worker loop until Get reports shutdown, call
// ShutDown, and wait for the workers (a sync.WaitGroup). Get hands out every
// queued item before it reports shutdown, so when the workers have exited
// the queue is empty and nothing is processing.
//
// Why kinformer keeps the #141079 gap: client-go defines ShutDownWithDrain
// as waiting for processing items and readers compare this code with
// client-go; a drain that waited for queued items too would hang forever
// when no worker is left to Get them, and would still lose the items waiting
// in a delaying queue's heap. The WaitGroup pattern above is the reliable
// way to finish everything.
//
// # The delaying queue
//
// AddAfter(item, d) puts the item in a min-heap ordered by ready time
// (container/heap) and one goroutine, the waiting loop, sleeps on a timer
// until the earliest item is due, then Adds every due item to the queue in
// ready-time order. Re-adding an item that is already waiting keeps the
// earlier of the two ready times. The loop uses the queue's clock, so tests
// move time with a fake clock instead of waiting, and it stops on ShutDown.
//
// # The rate-limiting queue and the retry protocol
//
// AddRateLimited(item) is AddAfter(item, limiter.When(item)). The protocol
// article 004's controller follows ("Kubernetes Controller 实现机制深度解析"
// by 赵化冰, and kubernetes/kubernetes#108343):
//
//   - event handlers call Add (no delay, no failure recorded);
//   - a worker that failed calls AddRateLimited, which records a failure
//     and delays the retry; NumRequeues tells how many failures are
//     recorded, so the worker can give up after N;
//   - a worker that succeeded (or gave up) calls Forget, which clears the
//     failure history so the next failure starts again at the shortest
//     delay;
//   - and in every case Done, so the item can be handed out again.
//
// Limiters: per-item exponential (base·2^failures, capped), fast/slow (N
// fast retries then slow ones), a token bucket shared by all items, max-of,
// and DefaultControllerRateLimiter = max of a 5ms..1000s exponential and a
// 10 qps / 100 burst bucket, as client-go. See each limiter for what its
// When means; the bucket's delays compound under overload.
//
// # Metrics
//
// A MetricsProvider makes the metrics of a named queue: depth, adds, queue
// latency, work duration, unfinished work, longest running processor and
// retries. The default records nothing and costs nothing. NewInMemoryMetrics
// keeps them in memory for a demo to print. The two "in flight" gauges
// (unfinished work, longest running processor) are set every 500 ms by a
// goroutine on the queue's clock, as in client-go; it runs only when a
// provider is set and stops on ShutDown.
//
// # Where kinformer departs from client-go
//
//   - Generics: every type takes the item type (Interface[T],
//     RateLimitingInterface[T], RateLimiter[T]); client-go spells these
//     TypedInterface[T] and keeps untyped aliases for the pre-generics names
//     the articles use. The articles' workqueue.RateLimitingInterface is
//     RateLimitingInterface[string] here, and their key.(string) cast is
//     gone. The constructors are client-go's typed ones and only those
//     (NewTyped, NewTypedDelayingQueue, NewTypedRateLimitingQueue, each
//     with a WithConfig form): the articles' workqueue.New() and
//     NewRateLimitingQueue, deprecated upstream, are not here.
//   - One QueueConfig (Name, Clock, MetricsProvider) for all three queues,
//     instead of client-go's QueueConfig, DelayingQueueConfig and
//     RateLimitingQueueConfig.
//   - The metrics provider is per queue (QueueConfig.MetricsProvider); there
//     is no global SetProvider.
//   - The token bucket is written here (client-go wraps
//     golang.org/x/time/rate) with the same reservation semantics, and its
//     constructor returns an error for a rate or burst that could never let
//     an item through.
//   - Done of an item that is not being processed is a no-op (client-go
//     would queue it a second time if it were dirty).
//   - The waiting loop is woken when a new earliest item arrives instead of
//     polling with a 10 s heartbeat, and items are passed to it under a
//     mutex instead of through a 1000-slot channel.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), section "2.
//     Informer工作原理": the work queue between the handlers and the controller;
//   - the "informer" notes (author unknown), section "2.4 事件去重": the dedup of
//     repeated keys happens here;
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "Informer
//     机制": step 7 of the seven and the workqueue controller example
//     (AddRateLimited, Forget, NumRequeues, five retries).
package workqueue
