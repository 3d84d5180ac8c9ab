package replicaset

import (
	"log/slog"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
)

// ExpectationsTimeout is how long a ReplicaSet's expectations may stay
// unfulfilled before the controller stops waiting for them and acts on what
// its cache shows (kubernetes pkg/controller: ExpectationsTimeout). Events
// can be lost for good (a pod created and deleted while the watch was down,
// so neither its ADDED nor its DELETED is ever seen); without a time limit
// such a ReplicaSet would never be reconciled again.
const ExpectationsTimeout = 5 * time.Minute

// expectations remember, per ReplicaSet key, the writes the controller has
// made and not yet seen come back through its informer: kubernetes'
// UIDTrackingControllerExpectations (ControllerExpectations plus the keys of
// the pods it deleted), in one type.
//
// The controller creates and deletes pods through the API server, but counts
// them in its cache, and the cache learns of its own writes only when the
// watch delivers them. Until then a reconcile would count the old pods and
// create (or delete) again. So before it writes, the controller records what
// it expects (expectCreations, expectDeletions); the pod handlers lower the
// counts as the informer reports each add and delete (creationObserved,
// deletionObserved), and so does a write that failed, which nobody will ever
// observe; and a reconcile changes pods only when its ReplicaSet's
// expectations are satisfied: fulfilled, expired, or never set.
type expectations struct {
	clock  clock.Clock
	tracer *trace.Tracer // stage "controller"

	mu    sync.Mutex
	byKey map[string]*expectation
	// reconciling holds the keys workers are reconciling now, kept only
	// when the Tracer is Inspecting (inspect.go); nil otherwise.
	reconciling map[string]struct{}
}

// expectation is what one ReplicaSet is still waiting to observe.
type expectation struct {
	adds, dels int
	// deleting holds the keys of the pods deleted and not yet observed gone,
	// so that a pod seen deleted twice (first marked with a
	// deletionTimestamp, then removed) lowers dels once.
	deleting  map[string]bool
	timestamp time.Time // when the expectation was set
}

func newExpectations(clk clock.Clock, tracer *trace.Tracer) *expectations {
	e := &expectations{clock: clk, tracer: tracer, byKey: map[string]*expectation{}}
	if tracer.Inspecting() {
		e.reconciling = map[string]struct{}{}
	}
	return e
}

// satisfied reports whether the ReplicaSet may be acted on: it expects
// nothing (never set, deleted, or every expected add and delete observed),
// or its expectations are older than ExpectationsTimeout.
func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.byKey[key]
	if !ok {
		return true
	}
	return exp.fulfilled() || e.clock.Since(exp.timestamp) > ExpectationsTimeout
}

func (exp *expectation) fulfilled() bool { return exp.adds <= 0 && exp.dels <= 0 }

// expectCreations records that n pods are about to be created for key,
// replacing what key expected before.
func (e *expectations) expectCreations(key string, n int) {
	e.set(key, &expectation{adds: n}, "expect creations")
}

// expectDeletions records that the pods podKeys are about to be deleted
// for key, replacing what key expected before.
func (e *expectations) expectDeletions(key string, podKeys []string) {
	exp := &expectation{dels: len(podKeys), deleting: make(map[string]bool, len(podKeys))}
	for _, k := range podKeys {
		exp.deleting[k] = true
	}
	e.set(key, exp, "expect deletions")
}

func (e *expectations) set(key string, exp *expectation, why string) {
	exp.timestamp = e.clock.Now()
	adds, dels := exp.adds, exp.dels
	e.mu.Lock()
	e.byKey[key] = exp
	e.traceLocked(key, adds, dels, why)
	e.mu.Unlock()
	e.trace(key, adds, dels, why)
}

// creationObserved lowers key's expected adds by one: the informer saw one
// of its pods appear, or a create failed and will never be seen.
func (e *expectations) creationObserved(key, why string) {
	e.mu.Lock()
	exp, ok := e.byKey[key]
	var adds, dels int
	if ok {
		exp.adds--
		adds, dels = exp.adds, exp.dels
		e.traceLocked(key, adds, dels, why)
	}
	e.mu.Unlock()
	if ok {
		e.trace(key, adds, dels, why)
	}
}

// deletionObserved lowers key's expected deletes by one if podKey is one of
// the pods it deleted and this is the first time it is seen gone (or its
// delete failed).
func (e *expectations) deletionObserved(key, podKey, why string) {
	e.mu.Lock()
	exp, ok := e.byKey[key]
	lowered := ok && exp.deleting[podKey]
	var adds, dels int
	if lowered {
		delete(exp.deleting, podKey)
		exp.dels--
		adds, dels = exp.adds, exp.dels
		e.traceLocked(key, adds, dels, why)
	}
	e.mu.Unlock()
	if lowered {
		e.trace(key, adds, dels, why)
	}
}

// forget drops key's expectations: its ReplicaSet is gone.
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byKey, key)
}

// get returns key's outstanding adds and dels, and whether it has
// expectations at all (for tests and the trace).
func (e *expectations) get(key string) (adds, dels int, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.byKey[key]
	if !ok {
		return 0, 0, false
	}
	return exp.adds, exp.dels, true
}

// trace reports key's expectations after a change, once the lock is let
// go; traceLocked does it under the lock, with the controller's state,
// when inspecting (inspect.go). Each call site calls both: one of them
// reports.
func (e *expectations) trace(key string, adds, dels int, why string) {
	if e.tracer.On() && !e.tracer.Inspecting() {
		e.tracer.Event("expectations", trace.Key(key), slog.Int("adds", adds), slog.Int("dels", dels), trace.Reason(why))
	}
}

func (e *expectations) traceLocked(key string, adds, dels int, why string) {
	if e.tracer.Inspecting() {
		e.eventLocked("expectations", trace.Key(key), slog.Int("adds", adds), slog.Int("dels", dels), trace.Reason(why))
	}
}
