// Package indexer is the informer's local cache: a thread-safe map from key
// to object, plus any number of secondary indices kept current on every
// write. It mirrors client-go's tools/cache store.go, index.go and
// thread_safe_store.go.
//
// # The story
//
// An informer lists every object of one resource once, then watches for
// changes, and applies each change to a copy it keeps in memory ("Kubernetes-
// Informer" by smartkeyerror, §2, calls it the Local Key-Value Storage; the
// "informer" notes, §2.1, the local cache). Controllers then read that copy
// instead of asking the API server, which is what makes thousands of
// controllers affordable.
//
// The copy is keyed by "namespace/name" (just "name" for cluster-scoped
// objects): MetaNamespaceKeyFunc computes it, SplitMetaNamespaceKey undoes
// it. A Store is that keyed map.
//
// Looking objects up by key is not enough: the ReplicaSet controller wants
// "every Pod in namespace default", or "every Pod whose controller is this
// ReplicaSet". Scanning the whole cache for each question is slow, so an
// Indexer adds indices ("informer" notes, §2.2). An IndexFunc maps an object
// to zero or more index values (its namespace, the value of a label, its
// controller's UID); an index maps each value to the set of keys whose
// objects produced it. ByIndex(NamespaceIndex, "default") is then one map
// lookup.
//
// # The invariant
//
// After every Add, Update, Delete, Replace, Transaction and AddIndexers,
// every index holds exactly the values its IndexFunc gives for the objects
// currently stored: no more, no less. The classic bug is on Update: adding the new object's
// values but forgetting to remove the old object's (a Pod relabelled from
// app=a to app=b would still be found under app=a). The thread-safe map
// computes the old object's values, removes the key from those sets, adds it
// to the new ones, and deletes a set when it becomes empty, so an index never
// fills up with empty sets for values nobody has any more
// (kubernetes#84959).
//
// A write either happens entirely or not at all: all index values of the new
// object are computed before anything changes, so an IndexFunc that fails
// leaves the store and every index as they were.
//
// # Don't mutate what the cache gives you
//
// Get, GetByKey, List, Index and ByIndex return the very objects the cache
// holds, not copies; copying every read would cost more than the cache saves.
// The price is a rule: treat them as read-only. Mutating one changes the
// cache behind the informer's back, makes the indices lie (they were computed
// from the object as it was), and races with every other reader; in an
// informer's cache it can change other objects too, since objects decoded
// for a cache share the maps and lists they repeat (a ReplicaSet's pods,
// one labels map: listwatch.ForReadOnlyCache). Copy first
// (obj.DeepCopyObject()), change the copy, and send the copy to the API
// server; the informer will bring the change back. CacheMutationDetector lets
// a test catch code that breaks the rule, like client-go's
// KUBE_CACHE_MUTATION_DETECTOR.
//
// # The store's resourceVersion
//
// The client-go of the articles kept no version in the cache: Replace took
// the list's resourceVersion and ignored it. client-go 1.36 (KEP-5647) has
// the store remember the resourceVersion of its last write
// (LastStoreSyncResourceVersion): an object's on Add, Update and Delete,
// the list's on Replace, the last object's on a Transaction, and the one a
// Bookmark brings when the server says nothing changed up to it. kinformer
// records the same.
//
// It means "the cache holds the server's state as of this version" only if
// writes arrive in resourceVersion order and a relist arrives whole. An
// informer in atomic mode (the AtomicFIFO gate, client-go 1.36) does both:
// a relist is one Replace with the list's version, watch events follow in
// order, bookmarks move the version on. A relist applied object by object
// (the articles' DeltaFIFO, or a RealFIFO without atomic events) leaves the
// listed objects' own, older versions behind it, so client-go answers ""
// unless its AtomicFIFO gate is on, and so does the kinformer informer
// unless it runs in atomic mode (informer.RealFIFOFeatures). Transaction
// (transaction.go) is the batch write such an informer uses.
// TestStore_LastStoreSyncResourceVersionFollowsWrites and
// TestIndexer_TransactionIsOneWrite show both.
//
// # Where kinformer differs from client-go
//
//   - An IndexFunc that returns an error makes the write return that error
//     and change nothing. client-go panics instead, because its indexer has
//     no way to report the failure and a half-updated index would be worse.
//     kinformer computes every value before writing, so it can refuse the
//     write cleanly, and bad objects never crash the program.
//   - AddIndexers works on a store that already holds objects: it indexes
//     them on the spot. Older client-go (the one the articles read) refused
//     once the informer had started, because back-filling was not written;
//     client-go HEAD back-fills too.
//   - Store and Indexer take api.Object rather than interface{}, so the
//     compiler rejects objects without metadata. KeyFunc still takes any,
//     so the delta queue can key a tombstone with the same function type.
//   - List, ListKeys, IndexKeys, ByIndex and ListIndexFuncValues return their
//     results in no particular order, as in client-go. Sort if you print them.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), section "2.
//     Informer工作原理": the Local Key-Value Storage and the Indexer;
//   - the "informer" notes (author unknown), sections "2.1 本地缓存" and "2.2
//     本地索引";
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "Informer
//     机制": steps 4 and 5 of the seven (ThreadSafeStore).
package indexer
