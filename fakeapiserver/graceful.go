package fakeapiserver

import (
	"encoding/json"
	"time"
)

// Graceful deletion of pods, and the would-be answers of dry-run deletes,
// modelled on kube-apiserver 1.36: the pod strategy's CheckGracefulDelete
// (pkg/registry/core/pod/strategy.go) picks the grace period, and the
// generic BeforeDelete (apiserver pkg/registry/rest/delete.go) plus the
// registry Store.Delete decide between marking and removing.
//
//   - The grace is DeleteOptions.gracePeriodSeconds if given, else the pod's
//     spec.terminationGracePeriodSeconds (defaulted to 30), else 0. A pod not
//     bound to a node (no spec.nodeName) or already terminated (phase
//     Succeeded or Failed) gets 0. A negative grace counts as 1.
//   - The first delete marks the pod: deletionTimestamp = now + grace,
//     deletionGracePeriodSeconds = grace, generation + 1 (a MODIFIED event).
//     With grace > 0 (or finalizers) the pod stays: the answer is the marked
//     pod. With grace 0 it is removed in the same request (a DELETED event),
//     which is what the real server does for an unbound pod.
//   - A later delete may only shorten the grace: deletionTimestamp moves by
//     the difference and, at 0, the pod goes (MODIFIED then DELETED, as when
//     the kubelet finishes a graceful delete). A longer or absent grace
//     changes nothing and answers the pod as stored. A pod already marked
//     with grace 0 is removed at once (DELETED only).

// podGracePeriod is the grace CheckGracefulDelete settles on.
func podGracePeriod(obj map[string]any, requested *int64) int64 {
	var period int64
	if requested != nil {
		period = *requested
	} else if n, ok := valueAt(obj, "spec", "terminationGracePeriodSeconds").(json.Number); ok {
		if v, err := n.Int64(); err == nil {
			period = v
		}
	}
	if s, _ := valueAt(obj, "spec", "nodeName").(string); s == "" {
		period = 0
	}
	if phase, _ := valueAt(obj, "status", "phase").(string); phase == "Succeeded" || phase == "Failed" {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// gracefulDeleteLocked deletes an object of a GracefulDelete resource (a
// pod) and returns the answer of the DELETE. The caller holds the lock and
// has checked the preconditions.
func (s *Server) gracefulDeleteLocked(tx *recordTx, existing *record, opts deleteOptions) *record {
	r := existing.res
	old := existing.object()
	meta := mapAt(old, "metadata")
	finalizers := len(stringList(meta["finalizers"])) > 0
	requested := opts.gracePeriod
	if requested != nil && *requested < 0 {
		one := int64(1)
		requested = &one
	}
	next := copyObject(old)
	nextMeta := mapAt(next, "metadata")
	var period int64
	if ts, ok := meta["deletionTimestamp"].(string); ok && ts != "" {
		current := intAt(meta, "deletionGracePeriodSeconds")
		if current <= 0 {
			// Already due: the delete goes through at once (an earlier
			// request marked the pod with grace 0 but did not remove it).
			if finalizers || opts.dryRun {
				return existing
			}
			return s.removeLocked(tx, existing)
		}
		if requested == nil || *requested >= current {
			return existing // graceful deletion pending: only a shorter grace counts
		}
		period = *requested
		if t, err := time.Parse(time.RFC3339, ts); err == nil {
			t = t.Add(time.Duration(period-current) * time.Second)
			nextMeta["deletionTimestamp"] = t.UTC().Format(time.RFC3339)
		}
	} else {
		period = podGracePeriod(old, requested)
		nextMeta["deletionTimestamp"] = s.clock.Now().Add(time.Duration(period) * time.Second).UTC().Format(time.RFC3339)
		if r.HasGeneration && intAt(meta, "generation") > 0 {
			nextMeta["generation"] = jsonInt(intAt(meta, "generation") + 1)
		}
	}
	nextMeta["deletionGracePeriodSeconds"] = jsonInt(period)
	if opts.dryRun {
		if period == 0 && !finalizers {
			// The real server's dry-run storage delete answers the object
			// as stored: the marking was never written.
			return existing
		}
		return newRecord(r, next, existing.rv) // the would-be state, current resourceVersion
	}
	rec := s.modifyLocked(tx, existing, next)
	if period > 0 || finalizers {
		return rec
	}
	return s.removeLocked(tx, rec)
}

// dryRunDeleteLocked is the answer of a dry-run delete of an object of a
// resource without graceful deletion: an object with finalizers or a
// namespace would be marked (a namespace also turns Terminating, as the
// namespace registry's Delete does); anything else would be removed, and
// the real server then answers the object as stored.
func (s *Server) dryRunDeleteLocked(existing *record) *record {
	r := existing.res
	next := existing.object()
	meta := mapAt(next, "metadata")
	if meta["deletionTimestamp"] != nil {
		return existing
	}
	isNamespace := r == namespacesResource()
	if !isNamespace && len(stringList(meta["finalizers"])) == 0 {
		return existing
	}
	nextMeta := mapAt(next, "metadata")
	nextMeta["deletionTimestamp"] = s.now()
	if isNamespace {
		status := ensureMap(next, "status")
		status["phase"] = "Terminating"
	} else {
		nextMeta["deletionGracePeriodSeconds"] = jsonInt(0)
		if r.HasGeneration && intAt(meta, "generation") > 0 {
			nextMeta["generation"] = jsonInt(intAt(meta, "generation") + 1)
		}
	}
	return newRecord(r, next, existing.rv)
}
