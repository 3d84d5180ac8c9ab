package fakeapiserver

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// Watch.
//
// A watch is a chunked HTTP/1.1 response that never ends on its own (until
// timeoutSeconds): one JSON frame per line, each flushed as its own chunk,
//
//	{"type":"ADDED","object":{...}}
//
// What the stream starts with depends on resourceVersion:
//
//   - unset or "0": a synthetic ADDED for every object that exists now, then
//     every change (article 004's curl without a version shows this);
//   - "N": every change after N, replayed from history, then live changes;
//     if N is older than the history, one ERROR frame with a 410 Expired
//     Status (HTTP 200, as the real watch cache answers), then the end;
//   - with sendInitialEvents=true (a "streaming list", what client-go 1.35+
//     opens first): ADDED for the current state (not older than N), then a
//     BOOKMARK annotated k8s.io/initial-events-end, then changes.
//
// A watch filtered by a selector sees an object that stops matching as
// DELETED and one that starts matching as ADDED.
//
// The replay, the selector transitions and the delivery are storage's
// (storage/watch.go): events reach a watch through a buffered channel
// filled by the writer while it holds the storage's lock; a watcher that
// lets the buffer fill is cut off (its stream ends; the client resumes
// from the last version it saw), so a slow reader cannot make the server's
// memory grow without bound. This file is the HTTP side: which storage
// watch a request opens, and the stream it writes.

// watcher is a watch's storage side: storage does the replay, the
// selector transitions, the fan-out and the cutting off.
type watcher = storage.Watcher[*record]

// watchEvent is one frame to send: a change, or (fault injection) garbage.
// A change several watches receive alike is one watchEvent (storage's
// fan-out), which lets the frame be shared.
type watchEvent = storage.WatchEvent[*record]

// garbageEvent is the type of a watchEvent that carries garbage (its
// record's raw bytes) instead of a change: WriteGarbage.
const garbageEvent storage.EventType = "GARBAGE"

// Fan-out: one write, encoded once.
//
// A write reaches every open watch of its resource. Without sharing, each
// watcher with a Table or PartialObjectMetadata Accept re-encoded the
// object for its own frame, and each watcher the object stopped matching
// made (and encoded) its own copy of the old state stamped with the
// deletion's version: with 100 such watchers, 100 encodings of one
// change.
//
// Now:
//
//   - plain JSON watchers frame the record's raw bytes (encoded once, when
//     the record was made, and shared read-only by every reader) in their
//     stream's reusable buffer: a copy, no encoding and no allocation per
//     watcher or per event. (Writing prefix, raw bytes and suffix straight
//     to the response instead saved nothing measurable and split frames
//     bigger than net/http's 2 KB buffer over two chunks.)
//   - storage hands every watcher that gets the same (type, record) from
//     one write the same *watchEvent; Table and PartialObjectMetadata
//     streams make its frame once per form on it (WatchEvent.Memo), by
//     whichever stream writes the frame first (so the writer, which holds
//     the storage's lock, encodes nothing), read-only afterwards;
//   - the old state a selector watcher sees leave (DELETED at the new
//     version) is made once per write, by storage.
//
// The frames live on the watch events, not in the history, so they are
// gone once the last watcher has sent its frame. (A Table's Age cell is
// thus as of the first stream's write, not each stream's: they are
// milliseconds apart.)

// appendWatchFrame returns {"type":typ,"object":body}\n in a new slice of
// exactly its size.
func appendWatchFrame(typ storage.EventType, body []byte) []byte {
	prefix := framePrefix(typ)
	b := make([]byte, 0, len(prefix)+len(body)+len(frameSuffix))
	b = append(b, prefix...)
	b = append(b, body...)
	return append(b, frameSuffix...)
}

// The constant parts of a frame.
var (
	framePrefixAdded    = []byte(`{"type":"ADDED","object":`)
	framePrefixModified = []byte(`{"type":"MODIFIED","object":`)
	framePrefixDeleted  = []byte(`{"type":"DELETED","object":`)
	frameSuffix         = []byte("}\n")
)

// framePrefix is {"type":"TYPE","object": (read only).
func framePrefix(typ storage.EventType) []byte {
	switch typ {
	case storage.Added:
		return framePrefixAdded
	case storage.Modified:
		return framePrefixModified
	case storage.Deleted:
		return framePrefixDeleted
	}
	return []byte(`{"type":"` + string(typ) + `","object":`)
}

func (s *Server) serveWatch(w http.ResponseWriter, req *http.Request, rq *request) {
	release, st := s.acquireWatch()
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	defer release()
	out, st := negotiate(req)
	if st == nil {
		st = checkPartial(out, false, rq.res)
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	opts, st := parseListOptions(req.URL.Query(), rq.res, true)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	sendInitial := opts.sendInitialEvents != nil && *opts.sendInitialEvents
	if sendInitial && opts.resourceVersion != "" && opts.resourceVersion != "0" {
		rv, _ := strconv.ParseUint(opts.resourceVersion, 10, 64)
		if st := s.waitForResourceVersion(req.Context(), rv); st != nil {
			s.writeStatus(w, req, st)
			return
		}
	}

	wt, initial, startRV, expired := s.startWatch(rq, opts, sendInitial)
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), out: out, res: rq.res, server: s}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if expired != nil {
		if err := sw.rc.Flush(); err != nil {
			return
		}
		if s.tracer.On() {
			s.tracer.Event("watch refused", trace.Resource(rq.res.Name), trace.RV(opts.resourceVersion), trace.Reason("410 Expired: "+expired.Message))
		}
		sw.writeError(expired)
		return
	}
	if err := sw.rc.Flush(); err != nil {
		wt.Stop()
		return
	}
	defer wt.Stop()
	if opts.timeoutSeconds < 0 {
		// The real server's request context for a negative timeoutSeconds
		// has expired before the watch starts: its watch cache, waiting to
		// be fresh enough to serve, gives up with the context's error, and
		// the stream is one ERROR frame carrying it as a 500 InternalError
		// (no details), then the end (15-differential:
		// watch-invalid/timeout-negative, a watch without resourceVersion;
		// the fake answers every watch with a negative timeout so).
		sw.writeError(newStatus(http.StatusInternalServerError, api.StatusReasonInternalError, "context deadline exceeded", nil))
		return
	}
	if s.tracer.On() {
		s.traceWatches("watch opened", slog.Uint64(trace.KeyWatch, wt.ID()), trace.Resource(rq.res.Name), trace.RV(strconv.FormatUint(startRV, 10)), trace.Count(len(initial)))
	}

	sw.startRV, sw.watchID, sw.wt = startRV, wt.ID(), wt
	for _, ev := range initial {
		if !sw.write(ev, false) {
			return
		}
	}
	if sendInitial && opts.allowBookmarks {
		if !sw.writeBookmark(wt.StartRev(), true) {
			return
		}
	}
	why := s.streamEvents(req, sw, wt, opts)
	switch {
	case s.tracer.Inspecting(): // stopped first: the state shows it gone
		wt.StopAndReport(func(state slog.Attr) {
			s.tracer.Event("watch closed", slog.Uint64(trace.KeyWatch, wt.ID()), trace.Reason(why), state)
		})
	case s.tracer.On():
		s.tracer.Event("watch closed", slog.Uint64(trace.KeyWatch, wt.ID()), trace.Reason(why))
	}
}

// startWatch registers a watcher in storage and collects what the stream
// starts with, all under the storage's lock, so no change falls between
// the two.
//
// startRV is the version the client already has (what bookmarks must
// beat); the watcher's StartRev is the version of the state the initial
// events show.
func (s *Server) startWatch(rq *request, opts listOptions, sendInitial bool) (wt *watcher, initial []*watchEvent, startRV uint64, expired *api.Status) {
	rv, _ := strconv.ParseUint(opts.resourceVersion, 10, 64)
	wo := storage.WatchOptions[*record]{Predicate: opts.matches, Buffer: s.opts.WatchBuffer}
	switch {
	case rv == 0 && opts.sendInitialEvents != nil && !sendInitial:
		// sendInitialEvents=false: start at the current version, without
		// the synthetic ADDEDs a watch from "now" otherwise begins with.
	case sendInitial || rv == 0:
		wo.SendInitialEvents = true
	default:
		wo.Rev = rv
	}
	wt, initial, err := s.watchRecords(rq.res, rq.ns, rq.name, wo)
	var ce *storage.CompactedError
	if errors.As(err, &ce) {
		return nil, nil, 0, errExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, ce.Compacted+1))
	}
	startRV = wt.StartRev()
	if wo.Rev != 0 {
		startRV = rv
	}
	return wt, initial, startRV, nil
}

// streamEvents sends live events until the client goes, the timeout ends the
// watch, or the server stops it, and says which.
func (s *Server) streamEvents(req *http.Request, sw *streamWriter, wt *watcher, opts listOptions) string {
	// Capped so that a huge timeoutSeconds cannot overflow into a negative
	// duration (a watch that ends at once).
	timeout := time.Duration(min(opts.timeoutSeconds, int64(math.MaxInt64/time.Second))) * time.Second
	if timeout == 0 {
		// The real server picks 30-60 minutes when the client does not say.
		timeout = 30*time.Minute + rand.N(30*time.Minute)
	}
	timer := s.clock.NewTimer(timeout)
	defer timer.Stop()
	var bookmarks <-chan time.Time
	if opts.allowBookmarks && s.opts.BookmarkInterval > 0 {
		t := s.clock.NewTicker(s.opts.BookmarkInterval)
		defer t.Stop()
		bookmarks = t.C()
	}
	for {
		select {
		case ev := <-wt.ResultChan():
			if !s.delay(req) || !sw.write(ev, true) {
				return "client gone"
			}
		case <-wt.Done():
			// Stopped by the server: send what is already queued, then end.
			for {
				select {
				case ev := <-wt.ResultChan():
					if !sw.write(ev, true) {
						return "client gone"
					}
				default:
					if st := s.deafStatus(wt); st != nil {
						sw.writeError(st)
						return "closed by the server, deaf: 410 Expired"
					}
					return "closed by the server"
				}
			}
		case <-bookmarks:
			if !s.bookmark(sw, wt) {
				return "client gone"
			}
		case <-timer.C():
			if st := s.deafStatus(wt); st != nil {
				sw.writeError(st)
				return "timeoutSeconds reached, deaf: 410 Expired"
			}
			if opts.allowBookmarks {
				s.bookmark(sw, wt)
			}
			return "timeoutSeconds reached"
		case <-req.Context().Done():
			return "client gone"
		}
	}
}

// bookmark sends a BOOKMARK carrying the server's current version, once
// that is newer than the version the watch started from. Like the real
// watch cache it compares with the start, not with the last frame sent, so
// an unchanged version is sent again on the next tick (10-watch-events.txt),
// and a watch that never saw anything move gets none. Every event up to the
// version was queued before the version was read, so those are sent first;
// that is what makes resuming from a bookmark's version lose nothing.
func (s *Server) bookmark(sw *streamWriter, wt *watcher) bool {
	rv, queued, deaf := wt.Progress()
	for range queued {
		if !sw.write(<-wt.ResultChan(), true) {
			return false
		}
	}
	if deaf {
		return true // its version would jump the hole (faults.go)
	}
	if rv <= sw.startRV {
		return true
	}
	return sw.writeBookmark(rv, false)
}

// delay applies the injected watch delay, if any; it gives up when the
// client goes or the server closes.
func (s *Server) delay(req *http.Request) bool {
	d := s.faults.watchDelay()
	if d <= 0 {
		return true
	}
	select {
	case <-s.clock.After(d):
		return true
	case <-req.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}
