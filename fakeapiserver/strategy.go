package fakeapiserver

import (
	"github.com/kinformer/kinformer/api"
)

// A strategy is what kube-apiserver keeps per resource in
// pkg/registry/<group>/<resource>/strategy.go: the rules of one kind for
// each kind of write. The write path (ops.go) is generic; it asks the
// resource's strategy at four points, one per verb, so a reader looking for
// "why was my ReplicaSet refused" finds the answer in strategy_replicasets.go:
//
//	create         Default, InitialStatus, PrepareForCreate, then Validate
//	update         PrepareForUpdate, Default, then Validate and ValidateUpdate
//	status update  PrepareForStatusUpdate, then ValidateStatusUpdate
//	delete         GracefulDelete (graceful.go holds the mechanism)
//
// What every kind shares (the metadata rules of the generic registry's
// BeforeCreate and BeforeUpdate: uid, creationTimestamp, deletionTimestamp
// and generation are the server's, names and labels must be valid) is in
// beforeCreate, beforeUpdate and validateMetaUpdate, not repeated per kind.
type strategy struct {
	// Default fills in what the real server defaults, on create and on
	// every update (the defaulting runs when the body is decoded).
	Default func(obj map[string]any)
	// InitialStatus replaces whatever status a create sends (nil: keep
	// it, as for kinds without a status).
	InitialStatus func(obj map[string]any) map[string]any
	// PrepareForCreate changes what a new object of this kind may not keep
	// as sent (after Default and InitialStatus, before Validate).
	PrepareForCreate func(obj map[string]any)
	// Admit runs on create once the object has its uid and
	// creationTimestamp (now), for status fields stamped with the time.
	Admit func(obj map[string]any, now string)
	// Validate reports the 422 causes of an object, beyond its metadata,
	// on create and on update of the main resource.
	Validate func(obj map[string]any) []api.StatusCause

	// PrepareForUpdate copies from old what an update of the main resource
	// may not change (nil: the status, for kinds with one).
	PrepareForUpdate func(obj, old map[string]any)
	// ValidateUpdate reports the fields an update may not change (the
	// "field is immutable" causes).
	ValidateUpdate func(obj, old map[string]any) []api.StatusCause

	// PrepareForStatusUpdate copies from old what a /status write may not
	// change (nil: the spec; labels and annotations do change).
	PrepareForStatusUpdate func(obj, old map[string]any)
	// ValidateStatusUpdate reports the 422 causes of a new status.
	ValidateStatusUpdate func(obj, old map[string]any) []api.StatusCause

	// UpdateOrder is the order the kind's ValidateUpdate lists its causes
	// in (it matters only when several fields fail at once).
	UpdateOrder updateOrder

	// GracefulDelete: a DELETE first marks the object (deletionTimestamp,
	// a MODIFIED event) and then removes it (a DELETED event), as the real
	// server does for pods not bound to a node; a bound pod stays marked
	// until a delete with grace 0 (see graceful.go).
	GracefulDelete bool
}

// prepareForUpdate keeps what an update of the main resource may not change.
func (r *resource) prepareForUpdate(obj, old map[string]any) {
	if r.HasStatus {
		// The main resource ignores status, as on the real server.
		copyField(obj, old, "status")
	}
	if r.PrepareForUpdate != nil {
		r.PrepareForUpdate(obj, old)
	}
}

// prepareForStatusUpdate keeps what a /status write may not change.
func (r *resource) prepareForStatusUpdate(obj, old map[string]any) {
	copyField(obj, old, "spec")
	if r.PrepareForStatusUpdate != nil {
		r.PrepareForStatusUpdate(obj, old)
	}
}

// copyField sets obj[key] to a copy of old[key], or removes it when old has
// none.
func copyField(obj, old map[string]any, key string) {
	if v, ok := old[key]; ok {
		obj[key] = deepCopy(v)
	} else {
		delete(obj, key)
	}
}

// beforeCreate resets what only the server sets on a new object (the
// generic registry's BeforeCreate): a client may not pick its uid,
// creationTimestamp or deletion marks. A client-set generation stays on
// kinds that keep none of their own (a ConfigMap), as on the real server.
func (r *resource) beforeCreate(meta map[string]any) {
	for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp",
		"deletionGracePeriodSeconds", "selfLink", "managedFields"} {
		delete(meta, f)
	}
	if r.HasGeneration {
		meta["generation"] = jsonInt(1)
	}
}

// beforeUpdate applies the generic registry's BeforeUpdate to the new
// object's metadata before any validation:
//
//   - generation is the server's: the old one (bumped later when the spec
//     changed);
//   - an empty uid means "the same object"; creationTimestamp is kept;
//   - a deletionTimestamp once set is kept, and so is
//     deletionGracePeriodSeconds when the update leaves it out.
//
// Whatever else differs from old (another uid, a new deletionTimestamp) is
// then refused by validateMetaUpdate as "field is immutable".
func beforeUpdate(meta, oldMeta map[string]any) {
	copyField(meta, oldMeta, "generation")
	if stringAt(meta, "uid") == "" {
		copyField(meta, oldMeta, "uid")
	}
	copyField(meta, oldMeta, "creationTimestamp")
	if oldMeta["deletionTimestamp"] != nil {
		copyField(meta, oldMeta, "deletionTimestamp")
	}
	if oldMeta["deletionGracePeriodSeconds"] != nil && meta["deletionGracePeriodSeconds"] == nil {
		copyField(meta, oldMeta, "deletionGracePeriodSeconds")
	}
	delete(meta, "selfLink")
	delete(meta, "managedFields")
}

// updateOrder is how a kind's update validation orders its parts: its
// metadata update rules (ValidateObjectMetaUpdate), its create rules
// (metadata and Validate) and its own update rules (ValidateUpdate).
type updateOrder int

const (
	// createFirst: create rules, then metadata and own update rules
	// (namespaces, ReplicaSets: ValidateX then ValidateXUpdate).
	createFirst updateOrder = iota
	// metaUpdateFirst: metadata update rules, create rules, own update
	// rules (pods: ValidatePodUpdate).
	metaUpdateFirst
	// updateFirst: metadata and own update rules, then create rules
	// (ConfigMaps: ValidateConfigMapUpdate).
	updateFirst
)

// orderUpdateCauses joins the causes of a kind's update validation in the
// kind's order. update holds metaUpdate and then the kind's own update
// causes.
func (r *resource) orderUpdateCauses(metaUpdate, create, update []api.StatusCause) []api.StatusCause {
	var out []api.StatusCause
	switch r.UpdateOrder {
	case metaUpdateFirst:
		out = append(out, metaUpdate...)
		out = append(out, create...)
		out = append(out, update[len(metaUpdate):]...)
	case updateFirst:
		out = append(out, update...)
		out = append(out, create...)
	default:
		out = append(out, create...)
		out = append(out, update...)
	}
	return out
}
