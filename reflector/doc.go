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
// # One loop: phases, and the one function that decides
//
// The reflector is always in one phase, and the phase carries what it
// needs:
//
//	start                    nothing yet
//	listing{streaming}       list at relistResourceVersion: a paged LIST, or, streaming,
//	                         a watch with sendInitialEvents; then syncWith: store.Replace(items, listRV)
//	watching{open}           watch from LastSyncResourceVersion (open: the streaming list's watch,
//	                         still open); watchHandler applies each event: store.Add / Update /
//	                         Delete; a bookmark moves the version (and reaches a
//	                         ReflectorBookmarkStore)
//	backingOff{delay, then}  wait delay (at least the server's Retry-After), then go on to then:
//	                         a listing (relist) or a watching (rewatch)
//	stopped                  the context ended
//
// A phase's body runs to its end and says how it ended (an outcome); next,
// a pure function in phases.go, turns that outcome into the phase that
// follows, and the loop enters it. That loop is the only one: Run runs it
// until the context ends; ListAndWatch, client-go's name for one lap of
// it, runs the same loop and returns where next says a lap ends (where
// client-go's ListAndWatch returns and its Run backs off), with the
// failure, for its caller to report and back off from. next's rules:
//
//	start                                          → listing: streaming if UseWatchList, else paged
//	listing  ok                                    → watching (a streaming list's watch, still open)
//	listing  410 / 504 too large, not at ""        → the same listing, at "", at once
//	listing  streaming: 429, refused, 5xx+Retry    → back off, then a streaming list again
//	listing  streaming: ended before the bookmark  → a streaming list again, at once
//	listing  streaming: ... no events, under 1 s   → a paged list at once (a very short watch)
//	listing  streaming: anything else              → a paged list at once (the fallback)
//	listing  anything else                         → back off, then relist; the lap ends
//	watching 429 or connection refused             → back off, then rewatch
//	watching 410 Expired, any other error          → back off, then relist; the lap ends
//	watching no events in under a second           → back off, then relist; the lap ends
//	watching ended cleanly, or connection dropped  → watching, from the last version
//	backing off, over                              → relist or rewatch, as the phase says
//	the context ended                              → stopped
//
// A relist is a streaming list with UseWatchList (the fallback to a paged
// list lasts one lap). Beside the watching phase, a resync timer calls
// store.Resync; next keeps it running from the list that filled the store
// to the next relist, over rewatches and the backoffs before them. The
// loop decides nothing; it only draws a backoff's wait from the backoff
// manager (doubling, jittered) when it enters one. TestReflector_NextPhase
// checks every rule of next without a server, one row a rule, each naming
// the client-go behaviour it pins.
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
// watch cache, unless PageSize was set or the first list came back in
// pages (as in client-go: then every list is paged). Every watch starts from the last synced version, which every
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
//	streaming list failed rv reason next                   warning; next: retry, retry at once, fallback to list, relist at ""
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
//     spread over ListAndWatch, list, watch, watchList and BackoffUntil, and
//     Run and ListAndWatch are one loop; the behaviour is client-go's.
//   - The watch error handler sees every failure, including the ones
//     client-go only logs (an expired watch, a very short watch). A
//     streaming list's failures are not reported to it (client-go only
//     logs them either); they are trace warnings and log lines.
//   - MinWatchTimeout may be set below client-go's 5-minute floor, so tests
//     can exercise timeouts quickly (they use a fake clock anyway).
//   - No MaxInternalErrorRetryDuration: a 500 on a watch relists after the
//     backoff, which is what client-go does by default too (its window of
//     rewatches after a 500 is 0 unless a program sets that field, and no
//     informer does).
//   - Decode failures and cut connections come from package listwatch as
//     Error events (client-go's StreamWatcher swallows cut connections and
//     just closes). A cut or reset connection is reported to the watch
//     error handler and then resumes like a clean end; anything else
//     relists. Either way a watch that ended with no events in under a
//     second is a "very short watch": back off and relist, never reconnect
//     in a tight loop.
//   - A streaming list refused with a 5xx that carries Retry-After is
//     retried by the reflector (client-go's REST client retries it, up to
//     10 times, before the reflector sees it; kinformer's listwatch client
//     does not retry).
//   - A streaming list at "" that gets 410 or 504 too large falls back to a
//     paged list; client-go's watchList would stream again at once, with
//     no backoff.
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
