// Package storage is etcd in miniature: the store under the fake API
// server, what etcd is to kube-apiserver. Read it alone as "what etcd does
// for the API server"; it knows nothing of HTTP, of Kubernetes objects, of
// api.Status answers or of resources' Go types.
//
// # The idea
//
// etcd is a versioned key-value store with a change feed:
//
//   - Revisions. One counter for the whole store. Every write (create,
//     update, delete) takes the next revision; the API server shows it to
//     clients as metadata.resourceVersion, and a list carries the revision
//     it read at. Clients only ever hand these numbers back.
//   - Keys. Strings like etcd's, /registry/{group/}{resource}/{namespace}/{name}
//     (the core group has no segment, a cluster-scoped object no
//     namespace), kept in one sorted index: a list of a prefix (all pods;
//     the pods of one namespace) is a binary search plus the page.
//   - History. The last changes are kept (Options.History events, and
//     Options.HistoryBytes of values). From them a watch replays every
//     change after an old revision, and a list reads the state exactly at
//     an old revision (undoing, from the current state, every later
//     change): that is how every page of a paged list reads one snapshot.
//   - Compaction. History is bounded: what falls off the front, or what
//     Compact forgets, is gone. A watch or an exact list at a revision
//     older than the history is ErrCompacted; the API server answers it
//     410 Expired, and its client relists.
//   - Watch. A watch on a key or a prefix gets every change after its
//     revision, in order, or it ends: never a stream with a hole. With a
//     predicate (a label selector) the store turns a value that starts or
//     stops matching into ADDED or DELETED, as kube-apiserver's etcd3
//     watcher does. A reader too slow to keep up is cut off instead of
//     buffered forever.
//   - Durability. With a directory, every write is in a write-ahead log,
//     fsync'd before it is acknowledged (many writers share one fsync), and
//     before any client sees it: like etcd, which applies, serves and sends
//     watch events only for committed revisions, the store makes a change
//     visible (to watches, lists, gets, Rev) only once it is durable, so
//     nothing a client saw can un-happen. Reads do not wait for the disk:
//     they read the last visible state (visible.go says why). The cost: a
//     watch event waits for the group fsync of its change. Snapshots bound
//     the log; a restart (even after kill -9) recovers every acknowledged
//     write, at a revision that never goes back, with an empty history:
//     every older revision is then ErrCompacted.
//
// # The API
//
// Store[O] is modelled on kube-apiserver's storage.Interface
// (k8s.io/apiserver/pkg/storage), which sits between its registry and
// etcd: Get, List (at a revision, with paging), Create, GuaranteedUpdate
// and Delete with Preconditions (UID, revision), or several writes in one
// transaction (Update), Watch from a revision, Compact, Rev.
//
// Choices, and why:
//
//   - Generic over the stored value (O Object): the store never sees a Go
//     type, only a UID, the value's bytes (what the log keeps) and a
//     Versioner that stamps a revision into a copy (the value a DELETED
//     event carries). The API server's registry stores its *record; the
//     tests here store a small struct.
//   - Writes are transactions (Update): the store's single lock is held
//     from the first read to the last commit, so what a caller checked
//     (the revision it read, that a namespace exists) still holds when it
//     writes. etcd offers compare-and-swap and kube-apiserver retries
//     GuaranteedUpdate until the compare holds; with one lock the first
//     try always does. The value written carries Tx.NextRev (the caller
//     stamps it, so it is encoded once).
//   - A commit hook (Options.OnCommit), under the lock, lets the registry
//     keep what depends on stored values (the rows a CRD adds) in step
//     with them, so its checks inside a transaction are exact too.
//   - A change delivered alike to many watchers is one *WatchEvent, on
//     which an encoding is made once and shared (WatchEvent.Memo).
//   - Recovery hands the raw key/values to Options.Decode in one call, so
//     the registry can decode the CRDs first and then the custom objects
//     they define.
//   - Faults a real etcd and network produce, in storage words: Hide (a
//     watch that misses an event goes deaf and ends with ErrMissedEvent),
//     Compact, CloseWatches, Restart, StallDisk (fsyncs that hang).
//
// Start with store.go (the state), txn.go (writes and lists), watch.go,
// visible.go (when a change is seen), then faults.go and durable.go (wal.go, walrecord.go, snapshot.go,
// recover.go). The tests tell the story: go test -v ./fakeapiserver/storage,
// and the scripts in testdata/ (TestScripts).
package storage
