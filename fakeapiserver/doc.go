// Package fakeapiserver is an in-memory kube-apiserver (and its etcd) that
// speaks the real Kubernetes API over HTTP, so every mechanism of an
// informer can be run, broken and watched on a laptop, in a test, or with
// curl and kubectl.
//
// # The story
//
// A Kubernetes API server is, at heart, a versioned key-value store with a
// change feed. etcd gives every write a revision; the API server stamps it
// into the object as metadata.resourceVersion, answers a list with the
// revision it read at, and lets a client watch "every change after
// revision N". That contract is what a Reflector relies on: list, remember
// the list's resourceVersion, watch from it, and never miss or repeat a
// change. It is also where things go wrong: history is compacted (a watch
// from too old a version gets 410 Expired and must relist), watches are
// cut (and must resume from the last version seen), servers shed load (429
// with Retry-After), and an event can be missed (and the client only
// learns on its next relist that an object is gone: the tombstone case).
//
// # Three layers
//
// As in kube-apiserver, three layers, each built on the one below (HTTP
// reads and writes objects through the registry; only its fault injections
// and the current resourceVersion reach storage directly, as an etcd fault
// would):
//
//   - storage (the package fakeapiserver/storage): etcd in miniature, what
//     etcd is to kube-apiserver, and readable alone. One revision counter
//     (the resourceVersion), keys like etcd's
//     (/registry/{group/}{resource}/{namespace}/{name}) in one sorted
//     index, a bounded history from which a watch replays and a paged list
//     reads one snapshot, compaction (an older revision is ErrCompacted,
//     which the HTTP layer answers 410 Expired), watches with selector
//     transitions and slow watchers cut off, the hide/compact/close faults,
//     the write-ahead log, snapshots and recovery. Its Store is modelled
//     on kube-apiserver's storage.Interface and knows nothing of HTTP,
//     Kubernetes objects or api.Status.
//   - the registry: what is stored and the rules of each write.
//     record.go (the stored record, its storage key, storage's errors as
//     api.Status), registry.go (the one table of resources: pods,
//     configmaps, namespaces, replicasets; adding a resource is adding a
//     row), strategy*.go (each resource's strategy), crd.go (custom
//     resources: a CRD adds a row, in storage's commit hook), validate.go,
//     typecheck.go, fieldvalidation.go, limits.go (what a write may not
//     do, answered as the real server answers it: grow an object past
//     etcd's 1.5 MiB, carry over 256 KiB of annotations, copy more than 3
//     MiB in a JSON patch, give a known field the wrong JSON type; the
//     cap on open watches is HTTP's, in limits.go too), ops.go,
//     ops_delete.go, graceful.go (create, update, the status subresource,
//     three patch types, delete with finalizers and graceful pod deletion,
//     dry runs, 409 Conflict on a stale resourceVersion: each one storage
//     transaction), patchrender.go, jsonobj.go (objects as JSON, so fields
//     kinformer's typed structs lack survive a round trip), durable.go
//     (Open, RestartStore: recovered values decoded, CRDs first), goapi.go
//     and seed.go (the Go API, which acts on the registry as HTTP does),
//     load.go and loadscan.go (Load, the bulk path: objects stored as they
//     are, read in one pass; a seam the reader of the write path can skip).
//   - HTTP: server.go (Options, Server), handler.go (routing), list.go
//     (list with selectors, paging with continue tokens over one snapshot,
//     get), options.go (the resourceVersion rules: most recent, any,
//     not-older-than, exact, too large: 504; ListOptions validation),
//     watch.go and watch_stream.go (chunked watch streams: replay, synthetic
//     ADDED events for a watch from "now", 410 as an ERROR frame,
//     bookmarks, streaming lists, one frame encoded once per form across
//     watchers), writes.go, writeoptions.go, yamlbody.go, patchbody.go,
//     patch_answers.go, scheme.go (reading write requests and wording their
//     errors), errors.go (every api.Status), faults.go and faulthttp.go
//     (fault injection: fail requests with 500/429, compact history, close
//     every watch, write garbage into watches, delay delivery, drop chosen
//     events, restart the storage), discovery.go, openapi.go, table.go
//     (what kubectl needs), security.go, timeouts.go.
//
// Every failure is an api.Status worded as the real server words it; the
// recordings in the repository's testdata/kube-apiserver-1.36 are the yardstick.
//
// # Using it
//
// In a test:
//
//	srv := fakeapiserver.New(fakeapiserver.Options{Clock: fakeClock})
//	hs := httptest.NewServer(srv)
//	defer hs.Close(); defer srv.Close()
//	srv.Create(&api.Pod{...})          // the Go API acts on the same store
//	srv.CompactHistory()               // and injects faults
//
// As a program: go run ./cmd/fakeapiserver, then curl or kubectl --server.
//
// docs/fakeapiserver.md lists what is modelled, what is left out and why.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "K8s HTTP
//     API 的 List Watch 机制": the list and the watch with resourceVersion its
//     curl session runs, here against this server;
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), section "1.
//     ListAndWatch机制": the chunked HTTP watch;
//   - the "informer" notes (author unknown), section "1.2 基于chunk的消息通知".
package fakeapiserver
