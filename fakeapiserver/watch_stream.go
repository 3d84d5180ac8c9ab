package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// The writing end of a watch: each frame (an event, a BOOKMARK, an ERROR)
// is written and flushed as its own HTTP/1.1 chunk, as the real server
// does (11-watch-chunked-raw.txt).

// streamWriter writes frames, one flushed chunk each.
type streamWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	out     output
	res     *resource
	server  *Server
	startRV uint64 // the version the client already had when the watch began
	watchID uint64
	wt      *watcher // the storage's watch the frames come from
	buf     bytes.Buffer
}

// write sends one event. shared: ev came from the live fan-out, where
// watchers of the same write share it, so a frame that needs encoding is
// made once on it (Memo); an initial or replayed event is this stream's
// own, and its frame is assembled in the stream's buffer.
func (sw *streamWriter) write(ev *watchEvent, shared bool) bool {
	var frame []byte
	switch {
	case ev.Type == garbageEvent:
		frame = ev.Value.raw
	case shared && sw.out != outputJSON:
		frame = ev.Memo(int(sw.out), func() []byte { // shared: read only
			return appendWatchFrame(ev.Type, sw.server.renderObject(sw.res, sw.out, ev.Value))
		})
	default:
		// Plain JSON (renderObject is the record's raw bytes, encoded
		// once when the record was made), or a replayed or initial event
		// in another form: assembled in this stream's own buffer, so the
		// frame goes out as one Write and so one chunk.
		sw.buf.Reset()
		sw.buf.Write(framePrefix(ev.Type))
		sw.buf.Write(sw.server.renderObject(sw.res, sw.out, ev.Value))
		sw.buf.Write(frameSuffix)
		frame = sw.buf.Bytes()
	}
	if t := sw.server.tracer; t.Inspecting() {
		// Sent: the frame leaves what the lab shows queued as it is reported (inspect.go).
		state, _ := sw.wt.Sent()
		sw.traceFrame(t, ev, frame, state) // outside the store's lock: the lab holds it while paused
	} else if t.On() {
		sw.traceFrame(t, ev, frame)
	}
	return sw.flushBytes(frame) // after "frame sent": a frame counts as sent once it is reported
}

// traceFrame reports a frame about to be written (and, when inspecting,
// the open watches' state after it).
func (sw *streamWriter) traceFrame(t *trace.Tracer, ev *watchEvent, frame []byte, state ...slog.Attr) {
	if ev.Type == garbageEvent {
		t.Warn("garbage sent (fault)", append([]slog.Attr{slog.Uint64(trace.KeyWatch, sw.watchID), trace.Count(len(frame))}, state...)...)
		return
	}
	t.Event("frame sent", append([]slog.Attr{slog.Uint64(trace.KeyWatch, sw.watchID), trace.Type(string(ev.Type)),
		trace.Key(ev.Value.key), trace.RV(strconv.FormatUint(ev.Value.rv, 10))}, state...)...)
}

// writeBookmark writes a BOOKMARK. Its object is what the real server sends:
// an empty object of the watched kind (its Go struct's zero value, so a pod
// bookmark carries "spec":{"containers":null},"status":{}) whose metadata
// holds only the resourceVersion and, at the end of a streaming list's
// initial events, the k8s.io/initial-events-end annotation.
func (sw *streamWriter) writeBookmark(rv uint64, initialEventsEnd bool) bool {
	obj := map[string]any{}
	if sw.res.New != nil {
		_ = remarshal(sw.res.New(), &obj) // cannot fail for an empty api type
	}
	meta := map[string]any{"resourceVersion": strconv.FormatUint(rv, 10)}
	if initialEventsEnd {
		meta["annotations"] = map[string]any{api.InitialEventsAnnotationKey: "true"}
	}
	obj["kind"], obj["apiVersion"], obj["metadata"] = sw.res.Kind, sw.res.GroupVersion(), meta
	if sw.out == outputPartial {
		// The metadata client's watch: the bookmark is transformed too.
		obj = map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
	}
	sw.buf.Reset()
	sw.buf.WriteString(`{"type":"BOOKMARK","object":`)
	sw.buf.Write(encodeObject(obj))
	sw.buf.WriteString("}\n")
	if sw.server.tracer.On() {
		what := "bookmark sent"
		if initialEventsEnd {
			what = "bookmark sent (initial-events-end)"
		}
		sw.server.traceWatches(what, slog.Uint64(trace.KeyWatch, sw.watchID), trace.RV(strconv.FormatUint(rv, 10)))
	}
	return sw.flush()
}

func (sw *streamWriter) writeError(st *api.Status) {
	sw.buf.Reset()
	sw.buf.WriteString(`{"type":"ERROR","object":`)
	b, _ := json.Marshal(st)
	sw.buf.Write(b)
	sw.buf.WriteString("}\n")
	sw.flush()
}

func (sw *streamWriter) flush() bool { return sw.flushBytes(sw.buf.Bytes()) }

// flushBytes writes b as one chunk and flushes it. b may be shared with
// other streams: it is only read.
func (sw *streamWriter) flushBytes(b []byte) bool {
	if _, err := sw.w.Write(b); err != nil {
		return false
	}
	return sw.rc.Flush() == nil
}
