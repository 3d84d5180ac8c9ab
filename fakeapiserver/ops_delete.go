package fakeapiserver

import (
	"slices"
	"strconv"

	"github.com/kinformer/kinformer/api"
)

// The delete operation: one object, with its preconditions, finalizers and
// (for pods, graceful.go) grace period. HTTP's DELETE and the Go API end
// here; deletecollection deletes each object it listed through it.

// deleteOptions are the parts of DeleteOptions the server honours.
type deleteOptions struct {
	preconditionUID string
	preconditionRV  string
	dryRun          bool
	gracePeriod     *int64 // DeleteOptions.gracePeriodSeconds (nil: the object's own)
}

var protectedNamespaces = []string{api.NamespaceDefault, api.NamespaceSystem, api.NamespacePublic}

// deleteObject deletes one object and returns its last state.
//
//   - An object with finalizers is only marked: deletionTimestamp is set (a
//     MODIFIED event) and it stays until an update removes the last one.
//   - A pod is deleted gracefully (see gracefulDeleteLocked): a pod bound
//     to a node is only marked (deletionTimestamp = now + grace, a MODIFIED
//     event) and stays until a delete with grace 0 (the kubelet's); a pod
//     with grace 0 (unbound, terminated, or gracePeriodSeconds=0) is marked
//     (MODIFIED) and then removed (DELETED) in the same request.
//   - A dry run answers the would-be state and writes nothing.
//   - A namespace takes every object in it along (their DELETED events come
//     first).
//
// gone says the object was removed (or, in a dry run, would be): the
// HTTP answer is then a Status for a resource without ReturnDeletedObject.
func (s *Server) deleteObject(r *resource, ns, name string, opts deleteOptions) (_ *record, gone bool, status *api.Status) {
	st := s.store
	st.mu.Lock()
	defer s.unlockDurable(st.rv, &status) // acknowledged only once durable
	if ws := st.writableLocked(); ws != nil {
		return nil, false, ws
	}
	existing := st.objects[r][objectKey(ns, name)]
	if existing == nil {
		return nil, false, errNotFound(r, name)
	}
	meta := mapAt(existing.obj, "metadata")
	if uid := opts.preconditionUID; uid != "" && uid != stringAt(meta, "uid") {
		return nil, false, errPreconditionUID(r, name, uid, stringAt(meta, "uid"))
	}
	if rv := opts.preconditionRV; rv != "" && rv != strconv.FormatUint(existing.rv, 10) {
		return nil, false, errPreconditionRV(r, name, rv, existing.rv)
	}
	if r == namespacesResource() && slices.Contains(protectedNamespaces, name) {
		return nil, false, errForbidden(r, name, "this namespace may not be deleted")
	}
	if r.GracefulDelete {
		return s.gracefulDeleteLocked(existing, opts), false, nil // pods: always the object
	}
	finalizers := len(stringList(meta["finalizers"])) > 0
	if opts.dryRun {
		return s.dryRunDeleteLocked(existing), !finalizers && r != namespacesResource(), nil
	}
	if finalizers {
		if meta["deletionTimestamp"] != nil {
			return existing, false, nil
		}
		return s.markDeletingLocked(existing), false, nil
	}
	if r == namespacesResource() {
		for _, other := range st.served {
			if !other.Namespaced {
				continue
			}
			for _, rec := range st.recordsLocked(other, name, "") {
				s.removeLocked(rec)
			}
		}
	}
	return s.removeLocked(existing), true, nil
}

// markDeletingLocked sets deletionTimestamp (the start of a graceful or
// finalizer-blocked deletion) and commits it as a MODIFIED event.
func (s *Server) markDeletingLocked(existing *record) *record {
	r := existing.res
	next := copyObject(existing.obj)
	meta := mapAt(next, "metadata")
	meta["deletionTimestamp"] = s.now()
	meta["deletionGracePeriodSeconds"] = jsonInt(0)
	if r.HasGeneration {
		meta["generation"] = jsonInt(intAt(meta, "generation") + 1)
	}
	rv := s.store.nextRVLocked()
	rec := newRecord(r, next, rv)
	s.store.commitLocked(&event{typ: api.Modified, rv: rv, res: r, obj: rec, prev: existing})
	return rec
}

// removeLocked deletes the object for good and commits the DELETED event,
// whose object is the last state stamped with the deletion's version.
func (s *Server) removeLocked(existing *record) *record {
	s.beforeRemoveLocked(existing)
	rv := s.store.nextRVLocked()
	gone := existing.withRV(rv)
	s.store.commitLocked(&event{typ: api.Deleted, rv: rv, res: existing.res, obj: gone, prev: existing})
	return gone
}

// beforeRemoveLocked runs before an object is removed for good: a CRD's
// custom resources go first (crd.go).
func (s *Server) beforeRemoveLocked(existing *record) {
	if isCRDRow(existing.res) {
		s.crdChangingLocked(&event{typ: api.Deleted, res: existing.res, obj: existing})
	}
}
