package fakeapiserver

import (
	"slices"
	"strconv"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
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
func (s *Server) deleteObject(r *resource, ns, name string, opts deleteOptions) (*record, bool, *api.Status) {
	var rec *record
	var gone bool
	err := s.store.Update(func(tx *recordTx) error { // acknowledged only once durable
		var st *api.Status
		rec, gone, st = s.deleteLocked(tx, r, ns, name, opts)
		return fail(st)
	})
	if err != nil {
		return nil, false, asStatus(err)
	}
	return rec, gone, nil
}

// deleteLocked is deleteObject inside the storage transaction.
func (s *Server) deleteLocked(tx *recordTx, r *resource, ns, name string, opts deleteOptions) (*record, bool, *api.Status) {
	existing, _, err := tx.Get(storageKey(r, ns, name))
	if err != nil {
		return nil, false, errNotFound(r, name)
	}
	meta := mapAt(existing.object(), "metadata")
	if uid := opts.preconditionUID; uid != "" && uid != existing.UID() {
		return nil, false, errPreconditionUID(r, name, uid, existing.UID())
	}
	if rv := opts.preconditionRV; rv != "" && rv != strconv.FormatUint(existing.rv, 10) {
		return nil, false, errPreconditionRV(r, name, rv, existing.rv)
	}
	if r == namespacesResource() && slices.Contains(protectedNamespaces, name) {
		return nil, false, errForbidden(r, name, "this namespace may not be deleted")
	}
	if r.GracefulDelete {
		return s.gracefulDeleteLocked(tx, existing, opts), false, nil // pods: always the object
	}
	finalizers := len(stringList(meta["finalizers"])) > 0
	if opts.dryRun {
		return s.dryRunDeleteLocked(existing), !finalizers && r != namespacesResource(), nil
	}
	if finalizers {
		if meta["deletionTimestamp"] != nil {
			return existing, false, nil
		}
		return s.markDeletingLocked(tx, existing), false, nil
	}
	if r == namespacesResource() {
		for _, other := range s.rows {
			if !other.Namespaced {
				continue
			}
			l, _ := tx.List(other.nsPrefix(name), storage.ListOptions[*record]{})
			for _, rec := range l.Items {
				s.removeLocked(tx, rec)
			}
		}
	}
	return s.removeLocked(tx, existing), true, nil
}

// markDeletingLocked sets deletionTimestamp (the start of a graceful or
// finalizer-blocked deletion) and commits it as a MODIFIED event.
func (s *Server) markDeletingLocked(tx *recordTx, existing *record) *record {
	r := existing.res
	next := existing.object()
	meta := mapAt(next, "metadata")
	meta["deletionTimestamp"] = s.now()
	meta["deletionGracePeriodSeconds"] = jsonInt(0)
	if r.HasGeneration {
		meta["generation"] = jsonInt(intAt(meta, "generation") + 1)
	}
	return s.modifyLocked(tx, existing, next)
}

// modifyLocked writes next (owned by the call) as the new state of
// existing: a MODIFIED event at the next resourceVersion.
func (s *Server) modifyLocked(tx *recordTx, existing *record, next map[string]any) *record {
	rec := newRecord(existing.res, next, tx.NextRev())
	if err := tx.Update(rec.storageKey(), rec, storage.Preconditions{}); err != nil {
		panic("fakeapiserver: the object read in this transaction is gone: " + err.Error())
	}
	return rec
}

// removeLocked deletes the object for good and commits the DELETED event,
// whose object is the last state stamped with the deletion's version.
func (s *Server) removeLocked(tx *recordTx, existing *record) *record {
	if isCRDRow(existing.res) {
		// A CRD's custom resources go first (crd.go).
		s.crdChangingLocked(tx, existing.name, nil)
	}
	gone, err := tx.Delete(existing.storageKey(), storage.Preconditions{})
	if err != nil {
		panic("fakeapiserver: the object read in this transaction is gone: " + err.Error())
	}
	return gone
}
