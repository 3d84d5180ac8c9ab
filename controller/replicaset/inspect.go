package replicaset

import (
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Inspect: the controller's own state at each hop, for the lab.
//
// When its Tracer is Inspecting (a trace.Inspect consumer: the demo's lab),
// the controller adds a ControllerState, box "controller" named
// "replicaset", to its "expectations", "reconcile", "reconciled", "pod
// created" and "pod deleted" events: what each ReplicaSet still expects
// to observe, and which keys workers are reconciling. It is made under the
// expectations' lock, which the event is reported under too, so the order
// of the events is the order of the states. The set of keys being
// reconciled is kept only then.

// maxListed caps every list of a State: a box shows the first entries and
// says how many more there are (Truncated).
const maxListed = 200

// ControllerState is what the lab shows of the ReplicaSet controller.
type ControllerState struct {
	// Expectations: per ReplicaSet key, the creates and deletes of its own
	// that the controller has not yet seen come back through its informer.
	Expectations map[string]ExpectationState `json:"expectations"`
	// Reconciling are the keys workers are reconciling now, sorted.
	Reconciling []string `json:"reconciling"`
	// Truncated counts the entries left out of the lists above, each
	// capped at 200.
	Truncated int `json:"truncated,omitempty"`
}

// ExpectationState is what one ReplicaSet still expects to observe.
type ExpectationState struct {
	Adds int `json:"adds"`
	Dels int `json:"dels"`
	// Deleting are the pods deleted and not yet seen gone, sorted.
	Deleting []string `json:"deleting,omitempty"`
	// Since is when the expectations were set, on the controller's clock;
	// ExpectationsTimeout after it they no longer hold a reconcile back.
	Since time.Time `json:"since"`
	// Satisfied: every expected add and delete observed, or expired. A
	// reconcile acts on the cache only when its ReplicaSet's are.
	Satisfied bool `json:"satisfied"`
}

// stateLocked is the controller's state as a State attribute. Called under
// e.mu, only when inspecting.
func (e *expectations) stateLocked() slog.Attr {
	st := ControllerState{Expectations: map[string]ExpectationState{}, Reconciling: []string{}}
	keys := slices.Sorted(maps.Keys(e.byKey))
	if len(keys) > maxListed {
		st.Truncated += len(keys) - maxListed
		keys = keys[:maxListed]
	}
	for _, k := range keys {
		exp := e.byKey[k]
		es := ExpectationState{Adds: exp.adds, Dels: exp.dels, Since: exp.timestamp,
			Satisfied: exp.fulfilled() || e.clock.Since(exp.timestamp) > ExpectationsTimeout}
		if len(exp.deleting) > 0 {
			es.Deleting = slices.Sorted(maps.Keys(exp.deleting))
		}
		st.Expectations[k] = es
	}
	st.Reconciling = append(st.Reconciling, slices.Sorted(maps.Keys(e.reconciling))...)
	if len(st.Reconciling) > maxListed {
		st.Truncated += len(st.Reconciling) - maxListed
		st.Reconciling = st.Reconciling[:maxListed:maxListed]
	}
	return trace.StateOf("controller", "replicaset", st)
}

// eventLocked reports what with the controller's state. Called under e.mu,
// only when inspecting.
func (e *expectations) eventLocked(what string, attrs ...slog.Attr) {
	e.tracer.Event(what, append(attrs, e.stateLocked())...)
}

// event reports what with the controller's state, under e.mu; only when
// inspecting.
func (e *expectations) event(what string, attrs ...slog.Attr) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.eventLocked(what, attrs...)
}

// markReconciling marks key as being reconciled (on) or no longer, and reports
// what, if not empty, with the state after it; only when inspecting.
func (e *expectations) markReconciling(key string, on bool, what string, attrs ...slog.Attr) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if on {
		e.reconciling[key] = struct{}{}
	} else {
		delete(e.reconciling, key)
	}
	if what != "" {
		e.eventLocked(what, attrs...)
	}
}
