// Package reflector keeps a local store in step with the API server: the
// Reflector of client-go's tools/cache, the first box of every informer
// diagram.
//
// # The story
//
// Article 000 (Kubernetes-Informer, smartkeyerror, 2020-08-26, §2) puts it
// in one sentence: the Reflector opens a long connection to the API server
// and uses ListAndWatch to fetch every object of a resource and then follow
// its changes, pushing each change (a Delta) into the DeltaFIFO. Article
// 001 (如何高效掌控K8s资源变化? K8s Informer实现机制浅析, 王成) lists the
// fields that make it work: the store, the ListerWatcher, the expected
// type, the resync period, the page size, the last synced resourceVersion,
// the backoff, and the watch error handler. This package is those fields
// and the loop that uses them.
//
// # Phases, and the one function that decides
//
// The reflector is always in one of four phases:
//
//	listing      list at relistResourceVersion (or open a streaming list), then
//	             syncWith: store.Replace(items, listRV)
//	watching     watch from LastSyncResourceVersion; watchHandler applies each
//	             event: store.Add / Update / Delete, a bookmark only moves the version
//	backing off  wait out the backoff (or Retry-After), then relist or rewatch
//	stopped      the context ended
//
// A phase's body runs to its end and says how it ended (an outcome); next,
// a pure function in phases.go, turns that outcome into the next phase, and
// Run is only `for p := listing; p != stopped; p = step(p) {}`:
//
//	listing  ok                                    → watching
//	listing  410 / 504 too large, not at ""        → listing at "" at once
//	listing  streaming: 429, refused, 5xx+Retry    → back off, then relist (streaming again)
//	listing  streaming: anything else              → a paged list at once
//	listing  anything else                         → back off, then relist
//	watching 429 or connection refused             → back off, then rewatch
//	watching 410 Expired, any other error          → back off, then relist
//	watching no events in under a second           → back off, then relist
//	watching ended cleanly, or connection dropped  → watching, from the last version
//	backing off, over                              → relist or rewatch
//	the context ended                              → stopped
//
// (beside the watching phase, a resync timer calls store.Resync; it runs
// from the list that filled the store to the next relist.) ListAndWatch is
// one lap of the loop: from listing to the first failure that needs a
// relist, which it returns. TestReflector_NextPhase checks every rule of
// next without a server.
//
// # Which resourceVersion, when
//
// The resourceVersion a list asks for matters: "0" on the first list (any
// state; the server may answer from its cache instead of etcd), the last
// synced version on a relist (so the store never goes back in time:
// kubernetes#83520), and "" (the most recent state) when the server said
// the last version is gone (410) or not reached yet (504 "too large
// resource version", in any of the three forms servers have sent it). Lists
// at "" or "0" are paged, PageSize items at a time from one snapshot; a
// list at a given version is not, so the server can serve it from its
// watch cache. Every watch starts from the last synced version, which every
// event and bookmark moves forward: that is what makes a dropped watch
// resumable without a relist and without missing anything.
//
// # Trace events
//
// With Options.Tracer set, the reflector tells what it does (stage
// "reflector"); a failure it handles itself is a warning event, part of the
// story rather than a stray log line:
//
//	phase                 phase from reason [after next]   every transition ("start" first)
//	list                  rv (asked)
//	listed                rv n pages
//	list failed           rv reason                        warning
//	continue expired      rv reason                        warning: one unpaged list instead
//	relist at ""          rv reason                        the version is unavailable
//	replace               n rv                             syncWith
//	streaming list        rv
//	initial event         type key rv
//	initial events end    rv n
//	streaming list failed rv reason next                   warning; next: retry, fallback to list, relist at ""
//	watch                 rv (from)
//	watch event           type key rv                      every event applied to the store
//	bookmark              rv
//	watch event skipped   reason                           warning: wrong type, unknown event type
//	store failed          type key reason                  warning
//	watch failed          reason                           warning: the watch request failed
//	watch ended           reason n lasted                  warning if it ended with an error
//	resync
//
// # Where kinformer differs from client-go
//
//   - A context.Context replaces the stop channel, and Run returns when it
//     ends.
//   - The rules of what follows what are one pure function (next), not
//     spread over ListAndWatch, list, watch, watchList and BackoffUntil; the
//     behaviour is client-go's.
//   - The watch error handler sees every failure, including the ones
//     client-go only logs (an expired watch, a very short watch). A
//     streaming list's failures are not reported to it (client-go only
//     logs them either); they are trace warnings and log lines.
//   - MinWatchTimeout may be set below client-go's 5-minute floor, so tests
//     can exercise timeouts quickly (they use a fake clock anyway).
//   - A list at a specific resourceVersion is never paged, even if PageSize
//     is set (client-go pages it when the first list came back paged).
//   - No internal-error retry window for 500s on a watch (client-go retries
//     those for a while before relisting); a 500 relists after the backoff.
//   - Decode failures and cut connections come from package listwatch as
//     Error events (client-go's StreamWatcher swallows cut connections and
//     just closes). A cut or reset connection is reported to the watch
//     error handler and then resumes like a clean end; anything else
//     relists. Either way a watch that ended with no events in under a
//     second is a "very short watch": back off and relist, never reconnect
//     in a tight loop.
//   - A streaming list refused with a 5xx that carries Retry-After is
//     retried by the reflector (client-go's REST client retries it before
//     the reflector sees it; kinformer's listwatch client does not retry).
//   - Run returns only after the resync goroutine it started has.
//
// docs/reflector.md maps each behaviour to the articles and to the test
// that pins it.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), sections "1.
//     ListAndWatch机制" and "2. Informer工作原理": ListAndWatch, the first box;
//   - "如何高效掌控K8s资源变化? K8s Informer实现机制浅析" (王成), section "从 Reflector 说起": the
//     fields, syncWith → Replace, the expected-type checks of watchHandler;
//   - "Kubernetes 源码阅读 - Informer" (2021-07-10), section "启动 `Controller`",
//     "构造 `Reflector`": who builds and starts it;
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "Informer
//     机制": steps 1 and 2 of the seven.
package reflector
