// Package trace is the one stream of structured events that every stage of
// kinformer reports what it does through: the fake API server (commit at rv
// N, frame sent to a watch), listwatch (list, watch opened, frame decoded),
// the Reflector (its phase: listing, watching, backing off), the DeltaFIFO
// and RealFIFO (delta queued, pop, tombstone), the informer (cache write,
// notification to a handler), the work queue (add, get, done, retry) and a
// controller's worker (reconcile).
//
// # The idea
//
// The articles draw the informer as boxes and arrows: Reflector →
// DeltaFIFO → Indexer → handler → work queue → worker. A trace event is one
// arrow firing. Every event carries the stage that sent it and, where there
// is one, the object's key ("default/web-1") and resourceVersion, so one pod
// can be followed through every box: filter the stream by key and read it
// top to bottom.
//
// A *Tracer is what a stage holds. Every constructor's options struct has a
// Tracer field; nil, the default, is off, and a stage checks for nil before
// it builds an event (`if t.On() { t.Event(...) }`), so tracing that is off
// costs one comparison per hop and no allocation. Nothing in the mechanism
// changes when it is traced: a Tracer only reports.
//
// Events are log/slog records: the message says what happened ("delta
// queued"), the attributes say to what (stage, key, rv, type ...). So any
// slog.Handler can receive them, and this package adds the three consumers
// kinformer needs: a Recorder that keeps events in memory (tests, scenario
// scripts, the demo's summary and browser view), ForTest which routes them
// to t.Log (so `go test -run X -v` tells a mechanism's story and a plain
// `go test` stays quiet), and Func, a handler that calls a function for
// each event (the demo's narration).
//
// client-go has no such thing: it logs with klog at verbosity levels, and
// its events are prose. kinformer keeps prose out of the mechanism and
// typed attributes in it, so a test can assert on the trace and a narrator
// can phrase it.
package trace

import (
	"context"
	"log/slog"
	"time"
)

// Stages: the value of the "stage" attribute, one per box of the diagram.
const (
	StageServer     = "server"     // the fake API server (kube-apiserver + etcd)
	StageListWatch  = "listwatch"  // the HTTP client: list requests and watch streams
	StageReflector  = "reflector"  // ListAndWatch and its phases
	StageDeltaFIFO  = "deltafifo"  // the DeltaFIFO or RealFIFO between Reflector and informer
	StageInformer   = "informer"   // the cache (Indexer) and the handlers' notifications
	StageWorkQueue  = "workqueue"  // the controller's work queue
	StageController = "controller" // a controller's workers: reconcile
)

// Attribute keys that stages share, so that one filter works on them all.
const (
	KeyStage    = "stage"    // one of the Stage constants
	KeyKey      = "key"      // the object's key, "namespace/name" (or "name")
	KeyRV       = "rv"       // a resourceVersion
	KeyType     = "type"     // a watch event type (ADDED ...) or a delta type (Added ...)
	KeyResource = "resource" // a resource's plural name, "pods"
	KeyCount    = "n"        // how many (items in a list, deltas popped, pending notifications)
	KeyHandler  = "handler"  // an event handler's name
	KeyWatch    = "watch"    // a watch's number on the server
	KeyReason   = "reason"   // why something ended or failed
	KeyDelay    = "after"    // a delay: backoff, retry
	KeyPhase    = "phase"    // a Reflector's phase
	KeyState    = "state"    // a stage's contents, for the lab (see State)
)

// Tracer reports what one stage does. The nil *Tracer is valid and off:
// every method does nothing, and On reports false.
type Tracer struct {
	logger  *slog.Logger
	inspect bool // the handler wants each stage's contents (Inspect)
}

// New returns a Tracer that sends events to h, or nil (off) if h is nil.
func New(h slog.Handler) *Tracer {
	if h == nil {
		return nil
	}
	return &Tracer{logger: slog.New(h), inspect: inspects(h)}
}

// On reports whether t sends events anywhere. Stages test it before they
// build an event's attributes.
func (t *Tracer) On() bool { return t != nil }

// Stage returns a Tracer whose events carry stage as their "stage".
func (t *Tracer) Stage(stage string) *Tracer {
	return t.With(slog.String(KeyStage, stage))
}

// With returns a Tracer whose events all carry attrs (an informer's
// resource, a handler's name).
func (t *Tracer) With(attrs ...slog.Attr) *Tracer {
	if t == nil {
		return nil
	}
	args := make([]any, len(attrs))
	for i, a := range attrs {
		args[i] = a
	}
	return &Tracer{logger: t.logger.With(args...), inspect: t.inspect}
}

// Inspecting reports whether t's consumer wants the stage's contents with
// each event (a handler made by Inspect: the lab). A stage that is
// inspected adds a State attribute to the events that change what it
// holds, built under its own lock, so that the consumer sees the contents
// exactly as they were at that hop without ever taking the stage's lock.
// Off (false) costs nothing: the stage builds no State.
func (t *Tracer) Inspecting() bool { return t != nil && t.inspect }

// Event reports that what happened, with attrs saying to what.
func (t *Tracer) Event(what string, attrs ...slog.Attr) {
	if t == nil {
		return
	}
	t.logger.LogAttrs(context.Background(), slog.LevelInfo, what, attrs...)
}

// Warn reports a failure the stage handles itself (a watch that failed and
// will be retried): an event like any other, at warning level, so a reader
// sees it as part of the story rather than as a stray log line.
func (t *Tracer) Warn(what string, attrs ...slog.Attr) {
	if t == nil {
		return
	}
	t.logger.LogAttrs(context.Background(), slog.LevelWarn, what, attrs...)
}

// Attribute constructors for the shared keys.

// Key is the object's key attribute.
func Key(k string) slog.Attr { return slog.String(KeyKey, k) }

// RV is a resourceVersion attribute.
func RV(rv string) slog.Attr { return slog.String(KeyRV, rv) }

// Type is an event or delta type attribute.
func Type(t string) slog.Attr { return slog.String(KeyType, t) }

// Resource is a resource name attribute.
func Resource(r string) slog.Attr { return slog.String(KeyResource, r) }

// Count is a count attribute.
func Count(n int) slog.Attr { return slog.Int(KeyCount, n) }

// Handler is an event handler's name attribute.
func Handler(name string) slog.Attr { return slog.String(KeyHandler, name) }

// Reason is a "why" attribute.
func Reason(why string) slog.Attr { return slog.String(KeyReason, why) }

// Err is a "why" attribute from an error.
func Err(err error) slog.Attr {
	if err == nil {
		return slog.String(KeyReason, "")
	}
	return slog.String(KeyReason, err.Error())
}

// Delay is a delay attribute.
func Delay(d time.Duration) slog.Attr { return slog.Duration(KeyDelay, d) }

// State is the contents of one stage's box at one hop, for the lab: Box
// names the box ("fifo", "indexer", "listener", "workqueue", "reflector",
// "controller", "server"), Name which one (a resource, "pods/replicaset"
// for a handler, a watch's number; empty: the consumer names it from the
// event's resource and handler), and Value is a JSON-ready copy of what
// the box holds. A State never shares memory with the stage.
type State struct {
	Box   string
	Name  string
	Value any
}

// StateOf is the State attribute. Stages add it only when Inspecting.
func StateOf(box, name string, v any) slog.Attr {
	return slog.Any(KeyState, State{Box: box, Name: name, Value: v})
}

// Phase is a Reflector phase attribute.
func Phase(p string) slog.Attr { return slog.String(KeyPhase, p) }
