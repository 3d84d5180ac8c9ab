package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/internal/patch"
)

// The write path: create, update (of the object or of its status), patch
// and delete. HTTP handlers and the Go API both end here. Each operation
// is one storage transaction (storage.Store.Update): the storage's lock is
// held from reading the current object to committing the new one, which is
// what makes resourceVersion checks (409 Conflict) exact, and the answer
// waits until the write is durable.

// checkNamespace makes the body's namespace agree with the URL's.
func checkNamespace(r *resource, meta map[string]any, ns string) *api.Status {
	if !r.Namespaced {
		delete(meta, "namespace")
		return nil
	}
	switch body := stringAt(meta, "namespace"); body {
	case "":
		meta["namespace"] = ns
	case ns:
	default:
		return errBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

func (s *Server) validate(r *resource, obj map[string]any) *api.Status {
	meta := mapAt(obj, "metadata")
	causes := validateMeta(r, meta)
	if r.Validate != nil {
		causes = append(causes, r.Validate(obj)...)
	}
	if len(causes) > 0 {
		return errInvalid(r.Kind, r.Group, stringAt(meta, "name"), causes)
	}
	return nil
}

// create stores a new object. obj is owned by the call. strictBody is the
// request's body under fieldValidation=Strict, else nil (fieldvalidation.go).
func (s *Server) create(r *resource, ns string, obj map[string]any, dryRun bool, strictBody []byte) (*record, *api.Status) {
	if st := checkTypeMeta(r, obj); st != nil {
		return nil, st
	}
	if st := typeCheckBody(r, obj); st != nil {
		return nil, st
	}
	if st := checkBodyFields(r, obj, strictBody); st != nil {
		return nil, st
	}
	meta := ensureMap(obj, "metadata")
	if st := checkNamespace(r, meta, ns); st != nil {
		return nil, st
	}
	r.beforeCreate(meta)
	generate := stringAt(meta, "name") == "" && stringAt(meta, "generateName") != ""
	if generate {
		meta["name"] = generatedName(stringAt(meta, "generateName"))
	}
	if r.Default != nil {
		r.Default(obj)
	}
	if r.InitialStatus != nil {
		if status := r.InitialStatus(obj); status != nil {
			obj["status"] = status
		} else {
			delete(obj, "status")
		}
	}
	if r.PrepareForCreate != nil {
		r.PrepareForCreate(obj)
	}
	pruneEmpty(obj)
	if st := s.validate(r, obj); st != nil {
		return nil, st
	}

	var rec *record
	err := s.store.Update(func(tx *recordTx) error { // acknowledged only once durable
		var st *api.Status
		rec, st = s.createLocked(tx, r, ns, obj, generate, dryRun)
		return fail(st)
	})
	return rec, asStatus(err)
}

// createLocked is create's part inside the storage transaction: the checks
// that must still hold when the object is written.
func (s *Server) createLocked(tx *recordTx, r *resource, ns string, obj map[string]any, generate, dryRun bool) (*record, *api.Status) {
	meta := mapAt(obj, "metadata")
	if !s.servesLocked(r) {
		return nil, errUnknownResource() // its CRD went since the request looked it up
	}
	if r.Namespaced {
		if st := s.namespaceWritableLocked(tx, r, ns, stringAt(meta, "name")); st != nil {
			return nil, st
		}
	}
	exists := func(name string) bool {
		_, _, err := tx.Get(storageKey(r, stringAt(meta, "namespace"), name))
		return err == nil
	}
	for generate && exists(stringAt(meta, "name")) {
		meta["name"] = generatedName(stringAt(meta, "generateName"))
	}
	name := stringAt(meta, "name")
	if st := checkCreateResourceVersion(meta, dryRun); st != nil {
		return nil, st
	}
	if exists(name) {
		return nil, errAlreadyExists(r, name)
	}
	meta["uid"] = newUID()
	meta["creationTimestamp"] = s.now()
	if r.Admit != nil {
		r.Admit(obj, s.now())
	}
	if dryRun {
		return dryRunRecord(r, obj, stringAt(meta, "resourceVersion")), nil
	}
	if st := checkObjectSize(obj); st != nil {
		return nil, st
	}
	rec := newRecord(r, obj, tx.NextRev())
	if err := tx.Create(rec.storageKey(), rec); err != nil {
		return nil, errAlreadyExists(r, name)
	}
	return rec, nil
}

// namespaceWritableLocked is create's check of the namespace an object goes
// into: it exists, and is not being deleted.
func (s *Server) namespaceWritableLocked(tx *recordTx, r *resource, ns, name string) *api.Status {
	nsRec, _, err := tx.Get(storageKey(namespacesResource(), "", ns))
	if err != nil {
		return errNamespaceNotFound(ns)
	}
	if valueAt(nsRec.object(), "metadata", "deletionTimestamp") != nil {
		return newStatus(403, api.StatusReasonForbidden,
			fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", r.GroupResource(), name, ns),
			qualifiedDetails(r, name))
	}
	return nil
}

// checkCreateResourceVersion is the storage layer's check of a new object's
// resourceVersion (etcd3's Create), reached after validation and admission
// and before the key is looked up: a version that parses as a number other
// than 0 is a plain error, which the handler answers 500 without a reason
// (15-differential: create-invalid/resourceversion-set). One that does not
// parse is not checked, and is replaced like any other. A dry run never
// reaches that code: its storage only looks the key up, and answers the
// object with the version as sent.
func checkCreateResourceVersion(meta map[string]any, dryRun bool) *api.Status {
	rv := stringAt(meta, "resourceVersion")
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil && n != 0 && !dryRun {
		return newStatus(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created", nil)
	}
	return nil
}

var namespacesRow = lookupResource("", "v1", "namespaces")

func namespacesResource() *resource { return namespacesRow }

// update replaces an object (subresource "") or its status ("status"). obj
// is owned by the call; strictBody as for create.
func (s *Server) update(r *resource, ns, name, subresource string, obj map[string]any, dryRun bool, strictBody []byte) (*record, *api.Status) {
	if st := checkTypeMeta(r, obj); st != nil {
		return nil, st
	}
	if st := typeCheckBody(r, obj); st != nil {
		return nil, st
	}
	if st := checkBodyFields(r, obj, strictBody); st != nil {
		return nil, st
	}
	meta := ensureMap(obj, "metadata")
	if bodyName := stringAt(meta, "name"); bodyName != name {
		return nil, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", bodyName, name)
	}
	if st := checkNamespace(r, meta, ns); st != nil {
		return nil, st
	}
	var rec *record
	err := s.store.Update(func(tx *recordTx) error { // acknowledged only once durable
		existing, _, err := tx.Get(storageKey(r, ns, name))
		if err != nil {
			return errNotFound(r, name)
		}
		// A PUT body's uid is a precondition (rest.DefaultUpdatedObjectInfo's
		// Preconditions), checked by the storage layer before anything else;
		// a patch has none, so a patched uid is refused as immutable instead.
		if uid := stringAt(meta, "uid"); uid != "" && uid != existing.UID() {
			return errStorageUIDPrecondition(existing, uid)
		}
		var st *api.Status
		rec, st = s.updateLocked(tx, existing, subresource, obj, dryRun)
		return fail(st)
	})
	return rec, asStatus(err)
}

// updateLocked is the heart of update and patch: it checks the client's
// resourceVersion, lets the resource's strategy keep what this kind of
// write may not change, validates, bumps generation when the spec changed,
// skips no-op writes, and deletes an object whose last finalizer was
// removed during deletion. subresource is "" (the object), "status" or
// "finalize".
func (s *Server) updateLocked(tx *recordTx, existing *record, subresource string, obj map[string]any, dryRun bool) (*record, *api.Status) {
	r := existing.res
	meta := ensureMap(obj, "metadata")
	if rv, ok := meta["resourceVersion"]; ok && rv != nil && rv != "" {
		rvs, _ := rv.(string)
		if _, err := strconv.ParseUint(rvs, 10, 64); err != nil {
			// The registry's Store.Update parses it with the storage
			// versioner (APIObjectVersioner.ObjectResourceVersion), whose
			// plain strconv error no layer converts: the handler answers
			// it as an unknown error, 500 without a reason.
			return nil, newStatus(http.StatusInternalServerError, "", err.Error(), nil)
		}
		if rvs != strconv.FormatUint(existing.rv, 10) {
			return nil, errConflict(r, existing.name)
		}
	}

	old := existing.object()
	oldMeta := mapAt(old, "metadata")
	next := obj
	switch subresource {
	case "status":
		r.prepareForStatusUpdate(next, old)
	case "finalize":
		copyField(next, old, "status")
	default:
		r.prepareForUpdate(next, old)
	}
	if r.Default != nil {
		// Defaults apply whenever a body is decoded, subresources too.
		r.Default(next)
	}
	beforeUpdate(meta, oldMeta)
	if subresource == "" && r.HasGeneration && r.contentChanged(next, old) {
		meta["generation"] = jsonInt(intAt(oldMeta, "generation") + 1)
	}
	pruneEmpty(next)
	if st := s.validateUpdate(r, subresource, next, old); st != nil {
		return nil, st
	}
	deleting := meta["deletionTimestamp"] != nil
	meta["resourceVersion"] = strconv.FormatUint(existing.rv, 10)
	if jsonEqual(next, old) {
		return existing, nil // nothing changed: no new resourceVersion, no event
	}
	if dryRun {
		return dryRunUpdateRecord(r, next, existing.rv), nil
	}
	if deleting && len(stringList(meta["finalizers"])) == 0 &&
		intAt(oldMeta, "deletionGracePeriodSeconds") == 0 {
		// The last finalizer is gone: the object goes. Watchers see one
		// DELETED carrying the last stored state, as etcd's delete event does.
		// A pod still in its grace period (deletionGracePeriodSeconds > 0)
		// stays, as the real Store.Update's shouldDeleteDuringUpdate decides:
		// the kubelet's grace-0 delete removes it.
		return s.removeLocked(tx, existing), nil
	}
	if st := checkObjectSize(next); st != nil {
		return nil, st
	}
	return s.modifyLocked(tx, existing, next), nil
}

// validateUpdate runs the checks of one kind of update, in the real
// server's order: rest.BeforeUpdate's generic metadata rules, then the
// kind's strategy, whose own metadata rules repeat them (see
// validateMeta's neighbours in validate.go).
func (s *Server) validateUpdate(r *resource, subresource string, obj, old map[string]any) *api.Status {
	meta, oldMeta := mapAt(obj, "metadata"), mapAt(old, "metadata")
	causes := validateMetaCommon(meta)
	causes = append(causes, validateMetaUpdate(meta, oldMeta)...)
	kindMetaUpdate := validateKindMetaUpdate(r, meta, oldMeta)
	switch subresource {
	case "status":
		causes = append(causes, kindMetaUpdate...)
		if r.ValidateStatusUpdate != nil {
			causes = append(causes, r.ValidateStatusUpdate(obj, old)...)
		}
	case "finalize":
		causes = append(causes, kindMetaUpdate...)
		causes = append(causes, validateNamespaceFinalize(obj, old)...)
	default:
		var create, update []api.StatusCause
		if builtinKind(r) {
			create = validateMeta(r, meta) // a CRD's or custom resource's update repeats no create rules
		}
		if r.Validate != nil {
			create = append(create, r.Validate(obj)...)
		}
		update = kindMetaUpdate
		if r.ValidateUpdate != nil {
			update = append(update, r.ValidateUpdate(obj, old)...)
		}
		causes = append(causes, r.orderUpdateCauses(kindMetaUpdate, create, update)...)
	}
	if len(causes) > 0 {
		return errInvalid(r.Kind, r.Group, stringAt(meta, "name"), causes)
	}
	return nil
}

// PatchType is the Content-Type of a PATCH request.
type PatchType string

const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          PatchType = "application/apply-patch+yaml" // answered 415: server-side apply is not modelled
)

var patchTypes = []string{string(JSONPatchType), string(MergePatchType), string(StrategicMergePatchType)}

// customPatchTypes are the patch types the real server lists for a custom
// resource (server-side apply, which the fake answers 415, included).
var customPatchTypes = []string{string(JSONPatchType), string(MergePatchType), string(ApplyPatchType)}

// applyPatch runs the patch engine of the given type on a stored object.
func applyPatch(pt PatchType, doc map[string]any, body []byte) (map[string]any, error) {
	switch pt {
	case JSONPatchType:
		return patch.JSONPatch(doc, body)
	case MergePatchType:
		return patch.MergePatch(doc, body)
	case StrategicMergePatchType:
		return patch.StrategicMergePatch(doc, body, patch.DefaultMergeKeys)
	}
	return nil, fmt.Errorf("unsupported patch type %q", pt)
}

// patchObject applies a patch to the stored object and saves the result as
// an update would. strict: fieldValidation=Strict.
func (s *Server) patchObject(r *resource, ns, name, subresource string, pt PatchType, body []byte, dryRun, strict bool) (*record, *api.Status) {
	var rec *record
	err := s.store.Update(func(tx *recordTx) error { // acknowledged only once durable
		existing, _, err := tx.Get(storageKey(r, ns, name))
		if err != nil {
			return errNotFound(r, name)
		}
		var st *api.Status
		rec, st = s.patchLocked(tx, existing, subresource, pt, body, dryRun, strict)
		return fail(st)
	})
	return rec, asStatus(err)
}

// patchLocked is patchObject inside the storage transaction.
func (s *Server) patchLocked(tx *recordTx, existing *record, subresource string, pt PatchType, body []byte, dryRun, strict bool) (*record, *api.Status) {
	r, ns, name := existing.res, existing.ns, existing.name
	old := existing.object()
	patched, err := applyPatch(pt, old, body)
	var unknownDirective *patch.UnknownDirectiveError
	switch {
	case err == nil:
	case errors.As(err, &unknownDirective):
		return nil, unknownDirectiveStatus(unknownDirective) // patch_answers.go
	case errors.Is(err, patch.ErrTooLarge):
		return nil, newStatus(413, api.StatusReasonRequestEntityTooLarge, err.Error(), nil)
	case errors.Is(err, patch.ErrNotApplicable) && pt == JSONPatchType:
		// A JSON patch that does not fit the object (a failed "test", a
		// path that does not exist, an unknown op, the copy budget): the
		// real patch handler answers NewGenericServerResponse(422, ...)
		// without the json-patch library's words, which only the server's
		// log sees. The fake logs them (Options.Logger).
		if l := s.opts.Logger; l != nil {
			l.Info("fakeapiserver: json patch refused", "resource", r.Name, "namespace", ns, "name", name, "err", err)
		}
		return nil, newStatus(422, api.StatusReasonInvalid, "the server rejected our request due to an error in our request", &api.StatusDetails{})
	case errors.Is(err, patch.ErrNotApplicable):
		// The patch is well formed but does not fit the object (a failed
		// JSON patch "test", a path that does not exist): 422, as the real
		// server answers.
		return nil, newStatus(422, api.StatusReasonInvalid, err.Error(), nil)
	default:
		if st := patchBodyStatus(pt, body); st != nil {
			return nil, st // the real handler's first decode refuses it
		}
		return nil, errBadRequest("%v", err)
	}
	if st := checkPatchedTypeMeta(r, pt, old, patched, body); st != nil {
		return nil, st
	}
	if st := typeCheckPatched(r, pt, old, patched, body); st != nil {
		return nil, st
	}
	if st := checkPatchedFields(r, pt, patched, body, strict); st != nil {
		return nil, st
	}
	// The patch handler checks the patched object's name and namespace
	// against the URL as an update's handler does (400 BadRequest,
	// 15-differential: patch-invalid/name-change, namespace-change); an
	// empty namespace is the URL's.
	meta := ensureMap(patched, "metadata")
	if patchedName := stringAt(meta, "name"); patchedName != name {
		return nil, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", patchedName, name)
	}
	if st := checkNamespace(r, meta, ns); st != nil {
		return nil, st
	}
	return s.updateLocked(tx, existing, subresource, patched, dryRun)
}

// dryRunRecord is what a dryRun=All create answers: the object as it would
// be stored, without a resourceVersion since nothing was written, or with
// the one the client sent (sentRV), which the dry-run storage leaves as it
// is.
func dryRunRecord(r *resource, obj map[string]any, sentRV string) *record {
	rec := newRecord(r, obj, 0) // encodes obj: it is not kept
	if sentRV == "" {
		delete(mapAt(obj, "metadata"), "resourceVersion")
	} else {
		mapAt(obj, "metadata")["resourceVersion"] = sentRV
	}
	rec.raw = encodeObject(obj)
	return rec
}

// dryRunUpdateRecord is what a dryRun=All update or patch answers: the
// object as it would be stored, still carrying the stored object's
// resourceVersion (the real server's dry-run update returns the object
// before the storage layer would have stamped a new one).
func dryRunUpdateRecord(r *resource, obj map[string]any, rv uint64) *record {
	return newRecord(r, obj, rv)
}
