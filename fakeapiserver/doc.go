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
// This package models exactly that contract:
//
//   - store.go: one global resourceVersion, every object kept as its full
//     JSON (so fields kinformer's typed structs lack survive a round trip),
//     and a bounded history of events, from which watches replay and paged
//     lists read a consistent snapshot.
//   - watch.go: chunked watch streams: replay from a version, synthetic
//     ADDED events for a watch from "now", 410 as an ERROR frame, bookmarks,
//     streaming lists (sendInitialEvents), selector transitions delivered as
//     DELETED/ADDED, and slow watchers cut off instead of buffered forever.
//   - list.go, options.go: list with selectors, paging with continue tokens
//     over one snapshot, the resourceVersion rules (most recent, any,
//     not-older-than, exact, too large → 504), and ListOptions validation.
//   - ops.go, writes.go: create, update, the status subresource, three patch
//     types, delete with finalizers and graceful pod deletion, dry runs, and
//     409 Conflict on a stale resourceVersion.
//   - wal.go, walrecord.go, snapshot.go, recover.go, durable.go: with
//     a data directory (Open), a write-ahead log fsync'd before a write is
//     acknowledged (group commit), snapshots, recovery of a torn tail, and a
//     restart that keeps every acknowledged object and answers older
//     versions 410 so clients relist. Without it, everything is in memory.
//   - limits.go, typecheck.go: what a write may not do, answered as the
//     real server answers it: grow an object past etcd's 1.5 MiB, carry
//     over 256 KiB of annotations, copy more than 3 MiB in a JSON patch,
//     give a known field the wrong JSON type (so every stored object
//     decodes into its Go type); and at most Options.MaxWatches watches.
//   - registry.go: the one table of resources (pods, configmaps, namespaces,
//     replicasets). Adding a resource is adding a row.
//   - faults.go: fault injection for tests: fail requests with 500/429,
//     compact history, close every watch, write garbage into watches, delay
//     delivery, drop chosen events.
//   - discovery.go, openapi.go, table.go: what kubectl needs: discovery,
//     a minimal OpenAPI document, and server-side printing (Table).
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
