// Package reflector keeps a local store in step with the API server: the
// Reflector of client-go's tools/cache, the first box of every informer
// diagram.
//
// # The story
//
// Article 000 (Kubernetes-Informer, smartkeyerror, §2) puts it in one
// sentence: the Reflector opens a long connection to the API server and
// uses ListAndWatch to fetch every object of a resource and then follow its
// changes, pushing each change (a Delta) into the DeltaFIFO. Article 001
// (王成) lists the fields that make it work: the store, the ListerWatcher,
// the expected type, the resync period, the page size, the last synced
// resourceVersion, the backoff, and the watch error handler. This package
// is those fields and the loop that uses them:
//
//	Run
//	 └─ ListAndWatch, again and again, with a backoff after each return
//	     ├─ list (paged) ─────────────► store.Replace(items, listRV)
//	     └─ watch from listRV ────────► store.Add / Update / Delete
//	         ├─ bookmark: only the resourceVersion moves on
//	         ├─ ended cleanly or dropped: watch again from the last version
//	         ├─ 429 or connection refused: back off, watch again
//	         └─ 410 Expired, or anything else: return, and Run relists
//	     (beside the watch, a resync timer calls store.Resync)
//
// # Which resourceVersion, when
//
// The resourceVersion a list asks for matters: "0" on the first list (any
// state; the server may answer from its cache instead of etcd), the last
// synced version on a relist (so the store never goes back in time:
// kubernetes#83520), and "" (the most recent state) when the server said
// the last version is gone (410) or not reached yet (504). Lists at "" or
// "0" are paged, PageSize items at a time from one snapshot; a list at a
// given version is not, so the server can serve it from its watch cache.
// Every watch starts from the last synced version, which every event and
// bookmark moves forward: that is what makes a dropped watch resumable
// without a relist and without missing anything.
//
// # Where kinformer differs from client-go
//
//   - A context.Context replaces the stop channel, and Run returns when it
//     ends.
//   - The watch error handler sees every failure, including the ones
//     client-go only logs (an expired watch, a very short watch).
//   - MinWatchTimeout may be set below client-go's 5-minute floor, so tests
//     can exercise timeouts quickly (they use a fake clock anyway).
//   - A list at a specific resourceVersion is never paged, even if PageSize
//     is set (client-go pages it when the first list came back paged).
//   - Decode failures and cut connections come from package listwatch as
//     Error events (client-go's StreamWatcher swallows cut connections and
//     just closes). A cut or reset connection is reported to the watch
//     error handler and then resumes like a clean end; anything else
//     relists. Either way a watch that ended with no events in under a
//     second is a "very short watch": back off and relist, never reconnect
//     in a tight loop.
//   - Run returns only after the resync goroutine it started has.
//
// docs/reflector.md maps each behaviour to the articles and to the test
// that pins it.
package reflector
