// Package informer is the part of the pipeline that turns a stream of changes
// into a local cache and into calls to your code: client-go's
// tools/cache/controller.go and shared_informer.go, the informers factory,
// and the generated listers.
//
// # The story
//
// An informer has two duties ("Kubernetes-Informer" by smartkeyerror, §2):
// keep a local copy of one resource up to date, which is the most important
// one, and tell registered event handlers about every change. Article 004
// ("Kubernetes Controller 实现机制深度解析" by 赵化冰) splits the way there
// into seven steps; this package does steps 3 to 6, on top of the
// reflector (steps 1-2), the deltafifo queue, and the indexer (step 5):
//
//  1. the Reflector lists, then watches from the list's resourceVersion;
//  2. it puts the list (Replace) and every event (Add/Update/Delete) into
//     the queue;
//  3. the controller's processLoop pops the queue (controller.go);
//  4. HandleDeltas applies each popped item to the Indexer, oldest delta
//     first (processDeltas);
//  5. the Indexer stores it under its key and updates its indices;
//  6. the informer notifies the handlers: OnAdd, OnUpdate, OnDelete;
//  7. a handler puts the object's key on a work queue, and a worker
//     reconciles it, reading the object back from the cache.
//
// These are the steps of the articles' informer (Pipeline Articles).
// Today's, the default, takes the same seven with other pieces: a
// streaming list in step 1, one item per relist in step 2, batches in
// steps 3-5 (see "Two informers" below).
//
// Step 6 is where sharing happens. Every controller in a process that
// watches pods should share one list, one watch and one cache ("informer"
// notes, §2.5), so the informer lets any number of handlers register
// (§2.6, the observer pattern) and gives each its own goroutine and
// unbounded buffer (§2.7): a slow handler delays only itself. That is the
// sharedProcessor (one per informer) and its processorListeners (one per
// handler, processor_listener.go). The SharedInformerFactory makes sure
// there is one informer per resource in the first place (factory.go), and a
// Lister reads the cache with types (lister.go).
//
// # Who sees what, when
//
//   - The cache is updated before any handler is told, so a handler (or a
//     worker it feeds) that reads the cache sees at least that state.
//   - Each handler gets its notifications one at a time and in order; for
//     one object, the states it sees are a subsequence of the states the
//     object went through. States can be skipped (the DeltaFIFO hands out
//     all of a key's deltas at once, a relist replaces what was missed)
//     but are never reordered.
//   - A delete the watch missed (the connection was down when it
//     happened) is found by the next relist and delivered as OnDelete of a
//     deltafifo.DeletedFinalStateUnknown, a tombstone. This answers the
//     closing question of the "informer" notes (can list/watch lose
//     events, and does it matter?): single events can be lost, but the
//     relist makes the cache, and every handler's view, right again.
//   - Resync replays the cache: every object comes back as OnUpdate with
//     old == new, to the handlers whose resync period has passed. Nothing
//     changed on the server; it is the informer's way of saying "here is
//     everything again, in case you dropped something". An OnUpdate whose
//     old and new resourceVersion are equal is therefore treated as a
//     resync; this is why a transform must never blank the resourceVersion.
//   - The informer's HasSynced turns true once the cache holds the initial
//     list. A handler's registration has its own HasSynced, true once that
//     handler has also handled every object of that list: wait for the
//     registrations, not the informer, before starting workers that rely on
//     the handler having seen everything. Each HasSynced is also a channel
//     (HasSyncedChecker, client-go 1.36), closed the moment it turns true:
//     WaitFor waits on those channels, where the articles' WaitForCacheSync
//     asks every 100 ms (wait.go).
//
// # Two informers: the articles' and today's
//
// The articles (2020-2023) describe the informer of their day; client-go
// 1.36 runs a different one, each piece behind a feature gate that is on
// by default. kinformer builds both; SharedIndexInformerOptions.Pipeline
// (FactoryOptions.Pipeline) picks one. Today, the zero value, is the
// default; Articles is the one to read beside the articles.
//
//	piece              Articles                         Today                               client-go gate, since
//	the first fill     paged list, then a watch         streaming list on the watch         WatchListClient, 1.35
//	the queue          DeltaFIFO: a key's deltas        RealFIFO: every delta in order      InOrderInformers, 1.33 (GA 1.36)
//	                   popped together
//	a relist           Replaced per object, tombstones  one ReplacedAll; the cache swapped  AtomicFIFO, 1.36
//	                   from KnownObjects                in one write, then handlers told
//	a resync           a Sync delta per object          one SyncAll item                    AtomicFIFO, 1.36
//	the queue's lock   held while handlers are told     released                            UnlockWhileProcessingFIFO, 1.36
//	popping            one key at a time                up to 1,000 keys, one transaction   InOrderInformersBatchProcess, 1.35
//	watch bookmarks    the Reflector's version only     a Bookmark delta; the store's       AtomicFIFO, 1.36 (KEP-5647)
//	                                                    LastStoreSyncResourceVersion
//
// Under Articles the finer options add one piece each: Queue RealFIFOQueue
// is the 1.33 informer, RealFIFO its 1.35/1.36 modes (RealFIFOFeatures),
// UseWatchList the streaming list. Both informers end with the same cache
// (TestInformer_ArticlesAndTodayEndWithTheSameCache); every informer test
// run through queueKinds and every scenario script runs under both.
// NewInformer and NewIndexerInformer build the articles' informer.
//
// # Where kinformer differs from client-go
//
//   - context.Context instead of stop channels: Run(ctx), Start(ctx),
//     WaitForCacheSync(ctx, ...).
//   - One untyped handler type: ResourceEventHandlerFuncs.AddFunc has the
//     isInInitialList parameter (client-go's ResourceEventHandlerDetailedFuncs).
//   - Typed handlers: TypedResourceEventHandlerFuncs[T] hands each callback
//     a T instead of an any, and its DeleteFunc the object unwrapped from a
//     DeletedFinalStateUnknown with a finalStateUnknown flag, so the
//     type assertion and tombstone unwrap every client-go handler repeats
//     (and gets wrong, kubernetes#112354) are written once. An object of
//     another type is logged and skipped. DeleteObjectFunc gets a delete
//     as today's client-go typed handlers do, a DeletedObject[T] with its
//     key, also when the tombstone carries no object.
//   - One configuration style: every constructor takes one options struct
//     (SharedIndexInformerOptions, FactoryOptions, reflector.Options), not
//     client-go's mix of positional arguments, functional options
//     (WithNamespace, WithTweakListOptions, WithCustomResyncConfig,
//     WithTransform) and setters. A learner reads every knob in one place,
//     and FactoryOptions has no field the factory would override per
//     informer.
//   - One way to set a transform: SharedIndexInformerOptions.Transform
//     (FactoryOptions.Transform for a factory's informers). client-go's
//     SetTransform setter is gone: an option is fixed before Run by
//     construction, so there is no "already started" error to handle.
//   - One error for a server's refusal: a lister's miss is a
//     *listwatch.StatusError NotFound, the type the client returns for the
//     server's 404, so listwatch.IsNotFound and errors.As treat both alike.
//   - A registration reports Pending(), the handler's backlog
//     (client-go#1326, kubernetes#137314).
//   - A handler that panics is recovered, logged, and called again for the
//     next notification at once. client-go re-panics by default
//     (utilruntime.ReallyCrash), which ends the process; only a program
//     that turns ReallyCrash off gets the panic logged, the notification
//     skipped, and a one-second sleep before the next one. A panicking
//     initial-list add still counts as handled for HasSynced.
//   - A newly added handler is not "due for resync" until its own period
//     has passed (client-go marks a new listener due at once).
//   - RemoveEventHandler is final when it returns, even from inside the
//     handler's own call: nothing more reaches that handler (client-go's
//     removal is asynchronous).
//   - Two informers, one option apart (Pipeline, above): client-go has
//     only today's, and reaches the articles' pieces only through its
//     feature gates, most of them locked on.
//   - SharedInformerFactory.InformerFor takes a listwatch.Resource instead
//     of a typed accessor per resource, so a program's own Go type is
//     watched through a Resource literal (Example_userDefinedType); listers
//     are generic (NewLister[T]).
//   - The processor starts before and stops after the controller, in the
//     same goroutine as Run, so nothing is ever handed to a listener that
//     is not running (client-go starts it in a goroutine and makes
//     distribute wait until it has started).
//   - No cache mutation detector runs inside the informer: indexer's
//     CacheMutationDetector is a test tool, called from tests.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), sections "2.
//     Informer工作原理" and "3. Informer代码编写流程" (the factory and the Lister);
//   - the "informer" notes (author unknown), sections "2.5 复用连接", "2.6
//     基于观察者模式的注册", "2.7 无界队列" and "3. 设计总结";
//   - "Kubernetes 源码阅读 - Informer" (2021-07-10), sections
//     "`sharedInformerFactory`", "`InformerFor` 根据传入的资源类型创建 informer",
//     "`NewSharedIndexInformer`", "`SharedIndexInformer.Run` 启动具体的 informer",
//     "进入 `processLoop` 循环" and "Resync 机制是什么";
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "Informer
//     机制": steps 3 to 6 of the seven, and the workqueue controller example
//     (step 7).
package informer
