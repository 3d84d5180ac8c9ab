package deltafifo

import (
	"log/slog"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// The queues' trace events (stage "deltafifo"), shared by DeltaFIFO and
// RealFIFO:
//
//	delta queued       type key rv n      n: deltas now queued for the key (DeltaFIFO) or in all (RealFIFO)
//	tombstone queued   key rv             a Deleted DeletedFinalStateUnknown from Replace
//	deletion collapsed key                a second Deleted in a row, merged (dedupDeltas)
//	replace            n rv tombstones    a list replaced the contents
//	resync             n                  Sync deltas queued from the cache
//	pop                key types n        a key's Deltas handed to the informer; n: still queued
//	pop batch          n keys types left  a RealFIFO batch (PopBatch): n deltas, first..last key
//
// A pop or pop batch whose process function runs with the queue's lock
// released (UnlockWhileProcessing, while few deltas are queued) ends with
// unlocked=true; the attribute is absent otherwise.
//
// A ReplacedAll, SyncAll or Bookmark delta has no key: its "delta queued"
// and "pop" events have an empty key, and the rv of a ReplacedAll or a
// Bookmark is the version it carries.
//
// Every call site checks On first, so a queue without a Tracer pays one
// nil comparison. state is the queue's contents (inspect.go), given only
// when the Tracer is Inspecting: empty, the events are what they were.

// event reports what with attrs, and the queue's state if there is one.
func event(t *trace.Tracer, what string, state []slog.Attr, attrs ...slog.Attr) {
	if len(state) > 0 {
		attrs = append(attrs[:len(attrs):len(attrs)], state...)
	}
	t.Event(what, attrs...)
}

// traceQueued reports a delta just queued for key; n is what the queue
// holds for it afterwards.
func traceQueued(t *trace.Tracer, d Delta, key string, n int, state ...slog.Attr) {
	if tomb, ok := d.Object.(DeletedFinalStateUnknown); ok {
		event(t, "tombstone queued", state, trace.Key(key), trace.RV(objectRV(tomb.Obj)),
			trace.Reason("deleted while the watch was down: the list no longer has it"))
		return
	}
	event(t, "delta queued", state, trace.Type(string(d.Type)), trace.Key(key), trace.RV(objectRV(d.Object)), trace.Count(n))
}

// tracePop reports a popped item: its key, the types of its deltas, how
// many items are still queued, and whether the informer handles it with
// the lock released.
func tracePop(t *trace.Tracer, key string, deltas Deltas, left int, unlocked bool, state ...slog.Attr) {
	types := make([]string, len(deltas))
	for i, d := range deltas {
		types[i] = string(d.Type)
	}
	attrs := []slog.Attr{trace.Key(key), slog.String("deltas", strings.Join(types, ",")),
		trace.RV(objectRV(deltas[len(deltas)-1].Object)), trace.Count(left)}
	if unlocked {
		attrs = append(attrs, slog.Bool("unlocked", true))
	}
	event(t, "pop", state, attrs...)
}

// objectRV is the resourceVersion of a delta's object ("" for a tombstone
// without a final state).
func objectRV(obj any) string {
	switch o := obj.(type) {
	case DeletedFinalStateUnknown:
		obj = o.Obj
	case ReplacedAllInfo:
		return o.ResourceVersion
	case BookmarkInfo:
		return o.ResourceVersion
	}
	if o, ok := obj.(api.Object); ok && !api.IsNil(o) {
		return o.GetResourceVersion()
	}
	return ""
}
