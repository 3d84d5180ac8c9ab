package fakeapiserver

import (
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
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
// Events reach a watch through a buffered channel filled by the writer
// while it holds the store's lock; a watcher that lets the buffer fill is
// cut off (its stream ends; the client resumes from the last version it
// saw), so a slow reader cannot make the server's memory grow without
// bound.

type watcher struct {
	id      uint64 // the watch's number, for the trace
	res     *resource
	ns      string
	name    string // a watch of one object (/pods/{name}?watch=true)
	opts    listOptions
	out     output // the form its stream writes (JSON, Table, PartialObjectMetadata)
	after   uint64 // deliver only events with rv > after
	ch      chan watchItem
	stop    chan struct{} // closed when the server ends this watch
	stopped bool          // guarded by the store's lock
	// missed is the version of the first event a drop fault hid from this
	// watch (0: none). From then on it is deaf: it sends nothing more, and
	// it ends with 410 Expired (faults.go, "Dropping events"). Guarded by
	// the store's lock.
	missed uint64
}

// watchItem is one frame to send: an event, or (fault injection) garbage.
// frames, when set, is the frame shared with every other watcher of the
// same output form that was handed the same (type, record) by the same
// write (fanOut).
type watchItem struct {
	typ     api.EventType
	rec     *record
	garbage []byte
	frames  *sharedFrame
}

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
//   - Table and PartialObjectMetadata watchers share a sharedFrame per
//     (type, record): its bytes are made once per form, by whichever
//     stream writes the frame first (so the writer, which holds the
//     store's lock, encodes nothing), and are read-only afterwards;
//   - the old state a selector watcher sees leave (DELETED at the new
//     version) is made once per event (fanOut.goneRecord).
//
// The cache lives in the watch items, not in the history, so it is gone
// once the last watcher has sent its frame.

// sharedFrame is the frame of one (type, record), per output form, made on
// first use. (A Table's Age cell is thus as of the first stream's write,
// not each stream's: they are milliseconds apart.)
type sharedFrame struct {
	typ   api.EventType
	rec   *record
	once  [outputPartialList + 1]sync.Once
	bytes [outputPartialList + 1][]byte
}

// bytesFor returns the frame in form out, encoding it on the first call.
func (f *sharedFrame) bytesFor(s *Server, res *resource, out output) []byte {
	f.once[out].Do(func() {
		f.bytes[out] = appendWatchFrame(f.typ, s.renderObject(res, out, f.rec))
	})
	return f.bytes[out]
}

// appendWatchFrame returns {"type":typ,"object":body}\n in a new slice of
// exactly its size.
func appendWatchFrame(typ api.EventType, body []byte) []byte {
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
func framePrefix(typ api.EventType) []byte {
	switch typ {
	case api.Added:
		return framePrefixAdded
	case api.Modified:
		return framePrefixModified
	case api.Deleted:
		return framePrefixDeleted
	}
	return []byte(`{"type":"` + string(typ) + `","object":`)
}

// fanOut is what one committed event looks like to the watchers it is
// delivered to: the record of its DELETED-because-it-stopped-matching, and
// at most one sharedFrame per (type, record), each made when the first
// watcher needs it. Only the committing writer uses it, under the store's
// lock; it is not kept after the commit.
type fanOut struct {
	ev     *event
	gone   *record         // ev.prev at ev.rv, for the watchers it stopped matching
	frames [4]*sharedFrame // ADDED, MODIFIED, DELETED of ev.obj; DELETED of gone
}

// share returns the item w gets, its frame shared with the other watchers
// that need the object re-encoded (Table, PartialObjectMetadata). A plain
// JSON watcher's frame is the record's raw bytes: nothing to share.
func (fo *fanOut) share(w *watcher, it watchItem) watchItem {
	if w.out == outputJSON {
		return it
	}
	var slot **sharedFrame
	switch {
	case it.rec != fo.ev.obj:
		slot = &fo.frames[3]
	case it.typ == api.Added:
		slot = &fo.frames[0]
	case it.typ == api.Modified:
		slot = &fo.frames[1]
	default:
		slot = &fo.frames[2]
	}
	if *slot == nil {
		*slot = &sharedFrame{typ: it.typ, rec: it.rec}
	}
	it.frames = *slot
	return it
}

// goneRecord is ev.prev stamped with the deletion's version, made once
// per event however many watchers it stopped matching.
func (fo *fanOut) goneRecord() *record {
	if fo.gone == nil {
		fo.gone = fo.ev.prev.withRV(fo.ev.rv)
	}
	return fo.gone
}

func (w *watcher) matches(rec *record) bool {
	if (w.ns != "" && rec.ns != w.ns) || (w.name != "" && rec.name != w.name) {
		return false
	}
	return w.opts.matches(rec)
}

// itemFor turns a change into what this watcher sees of it, if anything.
// fo, if not nil, shares what it makes with the event's other watchers.
func (w *watcher) itemFor(ev *event, fo *fanOut) (watchItem, bool) {
	if ev.rv <= w.after {
		return watchItem{}, false
	}
	oldMatch := ev.prev != nil && w.matches(ev.prev)
	if ev.typ == api.Deleted {
		return watchItem{typ: api.Deleted, rec: ev.obj}, oldMatch
	}
	newMatch := w.matches(ev.obj)
	switch {
	case newMatch && oldMatch:
		return watchItem{typ: api.Modified, rec: ev.obj}, true
	case newMatch:
		return watchItem{typ: api.Added, rec: ev.obj}, true
	case oldMatch:
		// It stopped matching: for this watcher it is gone. Like the real
		// watch cache, send its last matching state at the new version.
		if fo != nil {
			return watchItem{typ: api.Deleted, rec: fo.goneRecord()}, true
		}
		return watchItem{typ: api.Deleted, rec: ev.prev.withRV(ev.rv)}, true
	}
	return watchItem{}, false
}

// deliverLocked hands a committed event to the watcher without blocking;
// fo shares its frame with the event's other watchers.
func (w *watcher) deliverLocked(ev *event, fo *fanOut, t *trace.Tracer) {
	if w.stopped || w.missed != 0 {
		return // a deaf watch sends nothing past its hole
	}
	it, ok := w.itemFor(ev, fo)
	if !ok {
		return
	}
	if !w.sendLocked(fo.share(w, it)) && t.On() {
		t.Warn("watch cut off", slog.Uint64(trace.KeyWatch, w.id), trace.Reason("too slow: its buffer is full"))
	}
}

// sendLocked queues a frame; false if the buffer was full and the watch was
// cut off.
func (w *watcher) sendLocked(it watchItem) bool {
	select {
	case w.ch <- it:
		return true
	default:
		w.stopLocked() // too slow: cut it off
		return false
	}
}

func (w *watcher) stopLocked() {
	if !w.stopped {
		w.stopped = true
		close(w.stop)
	}
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

	wt, initial, startRV, endRV, expired := s.startWatch(rq, opts, out, sendInitial)
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), out: out, res: rq.res, server: s}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if err := sw.rc.Flush(); err != nil {
		s.stopWatch(wt)
		return
	}
	if expired != nil {
		if s.tracer.On() {
			s.tracer.Event("watch refused", trace.Resource(rq.res.Name), trace.RV(opts.resourceVersion), trace.Reason("410 Expired: "+expired.Message))
		}
		sw.writeError(expired)
		return
	}
	defer s.stopWatch(wt)
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
		s.tracer.Event("watch opened", slog.Uint64(trace.KeyWatch, wt.id), trace.Resource(rq.res.Name), trace.RV(strconv.FormatUint(startRV, 10)), trace.Count(len(initial)))
	}

	sw.startRV, sw.watchID = startRV, wt.id
	for _, it := range initial {
		if !sw.write(it) {
			return
		}
	}
	if sendInitial && opts.allowBookmarks {
		if !sw.writeBookmark(endRV, true) {
			return
		}
	}
	why := s.streamEvents(req, sw, wt, opts)
	if s.tracer.On() {
		s.tracer.Event("watch closed", slog.Uint64(trace.KeyWatch, wt.id), trace.Reason(why))
	}
}

// startWatch registers a watcher and collects what the stream starts with,
// all under one lock so no change falls between the two.
//
// startRV is the version the client already has (what bookmarks must beat);
// endRV is the version of the state the initial events show.
func (s *Server) startWatch(rq *request, opts listOptions, out output, sendInitial bool) (wt *watcher, initial []watchItem, startRV, endRV uint64, expired *api.Status) {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	st.watchIDs++
	wt = &watcher{id: st.watchIDs, res: rq.res, ns: rq.ns, name: rq.name, opts: opts, out: out, ch: make(chan watchItem, s.opts.WatchBuffer), stop: make(chan struct{})}
	rv, _ := strconv.ParseUint(opts.resourceVersion, 10, 64)
	switch {
	case rv == 0 && opts.sendInitialEvents != nil && !sendInitial:
		// sendInitialEvents=false: start at the current version, without
		// the synthetic ADDEDs a watch from "now" otherwise begins with.
		wt.after = st.rv
		startRV = st.rv
	case sendInitial || rv == 0:
		for _, rec := range st.recordsLocked(rq.res, rq.ns, "") {
			if wt.matches(rec) {
				initial = append(initial, watchItem{typ: api.Added, rec: rec})
			}
		}
		wt.after = st.rv
		startRV = st.rv
	case rv < st.compacted:
		return wt, nil, 0, 0, errExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, st.compacted+1))
	default:
		wt.after = rv
		for _, ev := range st.history.since(rv) {
			if ev.res.sameRow(rq.res) {
				if it, ok := wt.itemFor(ev, nil); ok {
					initial = append(initial, it)
				}
			}
		}
		wt.after = max(rv, st.rv)
		startRV = rv
	}
	if s.isClosed() {
		// Close ran after this request got past its check, but before this
		// watch was registered, so CloseWatches did not see it: end it now.
		wt.stopLocked()
	}
	if !st.servesLocked(rq.res) {
		// Its CRD was deleted after the request looked the row up.
		wt.stopLocked()
		return wt, nil, startRV, st.rv, nil
	}
	st.watchers[rq.res][wt] = struct{}{}
	return wt, initial, startRV, st.rv, nil
}

func (s *Server) stopWatch(wt *watcher) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	wt.stopLocked()
	delete(s.store.watchers[wt.res], wt)
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
		case it := <-wt.ch:
			if !s.delay(req) || !sw.write(it) {
				return "client gone"
			}
		case <-wt.stop:
			// Stopped by the server: send what is already queued, then end.
			for {
				select {
				case it := <-wt.ch:
					if !sw.write(it) {
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
	s.store.mu.RLock()
	rv, queued, deaf := s.store.rv, len(wt.ch), wt.missed != 0
	s.store.mu.RUnlock()
	for range queued {
		if !sw.write(<-wt.ch) {
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
