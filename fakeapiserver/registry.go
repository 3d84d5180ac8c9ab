package fakeapiserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// resource is one row of the registry: everything the server needs to know to
// serve a kind of object. The server's handlers are generic; a resource's
// quirks (which fields a field selector may use, its defaults, its
// validation, the columns kubectl prints) live in its row.
type resource struct {
	Group      string // "" for the core group
	Version    string
	Name       string // plural, as in the URL: "pods"
	Singular   string
	Kind       string
	ShortNames []string
	Categories []string
	Namespaced bool
	// Verbs are the verbs the resource allows (discovery lists them; any
	// other is 405). nil means all of standardVerbs.
	Verbs []string

	// HasStatus: the object has a status the main resource ignores on
	// update and the /status subresource changes alone.
	HasStatus bool
	// HasGeneration: metadata.generation starts at 1 and is bumped when the
	// spec changes (or deletion starts).
	HasGeneration bool
	// HasFinalize: the object has a /finalize subresource, the only way
	// to change its spec.finalizers (namespaces).
	HasFinalize bool
	// Fields lists the field-selector fields the real server supports for
	// this resource, beyond metadata.name and metadata.namespace (its
	// field-label conversion function, e.g. pkg/apis/core/v1's for Pod). A
	// resource without one (ConfigMap, apps/v1 ReplicaSet) has no
	// conversion function registered and gets apimachinery's
	// DefaultMetaV1FieldSelectorConversion: name and namespace only.
	Fields []string
	// FieldDefaults is the value a selectable field has when the object
	// leaves it unset, as the real server's ToSelectableFields computes it
	// (a pod's spec.hostNetwork is "false", never "").
	FieldDefaults map[string]string
	// FieldAliases are field labels the real server accepts and renames
	// (a pod's legacy spec.host is spec.nodeName).
	FieldAliases map[string]string
	// TopFields are the fields of the kind's Go type besides kind,
	// apiVersion and metadata: a body's other top-level fields are unknown
	// (dropped, or refused with fieldValidation=Strict; fieldvalidation.go).
	// nil: not known (a custom resource), every field is kept.
	TopFields []string
	// ReturnDeletedObject: a DELETE that removes the object answers the
	// object's last state; without it the answer is a Status of status
	// Success naming the object (the generic registry's
	// Store.ReturnDeletedObject, set for pods and namespaces).
	ReturnDeletedObject bool
	// strategy holds the resource's rules for create, update, status
	// update and delete (strategy.go, and strategy_<resource>.go per row).
	strategy
	// Columns are the kubectl get columns (the server-side Table).
	Columns []column
	// New makes an empty typed object, for the Go API (nil for a custom
	// resource, which has no Go type).
	New func() api.Object

	// custom is set on the rows a CustomResourceDefinition makes (crd.go):
	// the CRD's name, and what its spec says of this version. Built-in rows
	// leave it nil.
	custom *customInfo
}

// builtinResources is the table of every resource the server serves from
// the start. Adding a resource is adding a row here (and, for the Go API, a
// type in package api). A Server serves these plus a row per
// CustomResourceDefinition it holds (Server.rows, crd.go).
var builtinResources = []*resource{
	{
		Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod",
		ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
		HasStatus: true, HasGeneration: true,
		Fields: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
			"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
			"status.podIPs", "status.nominatedNodeName"},
		FieldDefaults:       map[string]string{"spec.hostNetwork": "false"},
		FieldAliases:        map[string]string{"spec.host": "spec.nodeName"},
		TopFields:           []string{"spec", "status"},
		ReturnDeletedObject: true,
		strategy:            podStrategy,
		Columns:             podColumns,
		New:                 func() api.Object { return new(api.Pod) },
	},
	{
		Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap",
		ShortNames: []string{"cm"}, Namespaced: true,
		TopFields: []string{"data", "binaryData", "immutable"},
		strategy:  configMapStrategy,
		Columns:   configMapColumns,
		New:       func() api.Object { return new(api.ConfigMap) },
	},
	{
		Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace",
		ShortNames: []string{"ns"}, Namespaced: false, HasStatus: true, HasFinalize: true,
		Verbs:               []string{"create", "delete", "get", "list", "patch", "update", "watch"}, // no deletecollection
		Fields:              []string{"status.phase"},
		TopFields:           []string{"spec", "status"},
		ReturnDeletedObject: true,
		strategy:            namespaceStrategy,
		Columns:             namespaceColumns,
		New:                 func() api.Object { return new(api.Namespace) },
	},
	{
		Group: "apps", Version: "v1", Name: "replicasets", Singular: "replicaset", Kind: "ReplicaSet",
		ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true,
		HasStatus: true, HasGeneration: true,
		// No Fields: apps/v1 registers no field-label conversion for
		// ReplicaSet, so status.replicas is refused (unlike core/v1
		// ReplicationController, which allows it).
		TopFields: []string{"spec", "status"},
		strategy:  replicaSetStrategy,
		Columns:   replicaSetColumns,
		New:       func() api.Object { return new(api.ReplicaSet) },
	},
	{
		Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions",
		Singular: "customresourcedefinition", Kind: "CustomResourceDefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
		HasStatus: true, HasGeneration: true,
		// Every object of this row also changes what the server serves:
		// see crd.go (syncCRDLocked).
		TopFields: []string{"spec", "status"},
		// The real CRD registry answers a DELETE with the CRD, Terminating
		// until its custom resources are gone.
		ReturnDeletedObject: true,
		strategy:            crdStrategy,
		Columns:             crdColumns,
		New:                 nil, // no Go type: the Go API does not create CRDs
	},
}

// standardVerbs are the verbs of a resource that allows everything.
var standardVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// verbs are the verbs the resource allows, as discovery lists them.
func (r *resource) verbs() []string {
	if r.Verbs == nil {
		return standardVerbs
	}
	return r.Verbs
}

// GroupVersion is "v1" for the core group and "apps/v1" for a named one: the
// apiVersion of the resource's objects.
func (r *resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// ListKind is the kind of a list of these objects: "PodList".
func (r *resource) ListKind() string { return r.Kind + "List" }

// GroupResource is "pods" or "replicasets.apps", as the real server names a
// resource in messages about the collection.
func (r *resource) GroupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// hasSubresource reports whether the resource serves /name/sub.
func (r *resource) hasSubresource(sub string) bool {
	return (sub == "status" && r.HasStatus) || (sub == "finalize" && r.HasFinalize)
}

// kindGroup is "ConfigMap" or "ReplicaSet.apps": a kind qualified by its
// group, as BeforeDelete's messages name it.
func (r *resource) kindGroup() string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Kind + "." + r.Group
}

// supportsField reports whether a field selector may use field.
func (r *resource) supportsField(field string) bool {
	if field == "metadata.name" || (field == "metadata.namespace" && (r.Namespaced || len(r.Fields) == 0)) {
		return true
	}
	if _, ok := r.FieldAliases[field]; ok {
		return true
	}
	for _, f := range r.Fields {
		if f == field {
			return true
		}
	}
	return false
}

// unsupportedFieldMessage is the real server's 400 message for a field
// selector on a field the resource does not support: its conversion
// function's words, or DefaultMetaV1FieldSelectorConversion's for a
// resource that registers none.
func (r *resource) unsupportedFieldMessage(field string) string {
	if len(r.Fields) == 0 {
		return fmt.Sprintf("%q is not a known field selector: only %q, %q", field, "metadata.name", "metadata.namespace")
	}
	return "field label not supported: " + field
}

// fieldValues are obj's values of r.Fields, in that order; an unset field
// has its FieldDefaults value. A record keeps them as this slice rather
// than as api.Fields: a map of a dozen strings for every stored object was
// a third of what a pod cost beyond its JSON.
func (r *resource) fieldValues(obj map[string]any) []string {
	if len(r.Fields) == 0 {
		return nil
	}
	vals := make([]string, len(r.Fields))
	for i, path := range r.Fields {
		v := scalarString(valueAt(obj, strings.Split(path, ".")...))
		if v == "" {
			v = r.FieldDefaults[path]
		}
		vals[i] = v
	}
	return vals
}

// fieldSet is what a field selector reads: the record's selectable fields
// by name (metadata.name, metadata.namespace, r.Fields and their aliases).
func (rec *record) fieldSet() api.Fields {
	r := rec.res
	f := api.Fields{"metadata.name": rec.name}
	if r.Namespaced {
		f["metadata.namespace"] = rec.ns
	}
	for i, path := range r.Fields {
		f[path] = rec.fields[i]
	}
	for alias, path := range r.FieldAliases {
		f[alias] = f[path]
	}
	return f
}

// lookupResource finds the built-in resource served at
// group/version/name (custom resources: Server.lookupResource).
func lookupResource(group, version, name string) *resource {
	return findResource(builtinResources, group, version, name)
}

func findResource(rows []*resource, group, version, name string) *resource {
	for _, r := range rows {
		if r.Group == group && r.Version == version && r.Name == name {
			return r
		}
	}
	return nil
}

// lookupResource finds the resource this server serves at
// group/version/name: a built-in row or a custom resource's.
func (s *Server) lookupResource(group, version, name string) *resource {
	s.rowsMu.RLock()
	defer s.rowsMu.RUnlock()
	return findResource(s.rows, group, version, name)
}

// servedResources is a copy of the rows the server serves now, built-ins
// first, then custom resources in the order their CRDs were created.
func (s *Server) servedResources() []*resource {
	s.rowsMu.RLock()
	defer s.rowsMu.RUnlock()
	return slices.Clone(s.rows)
}

// servesLocked reports whether r is (still) served. Inside a storage
// transaction it is exact: rows change only in one.
func (s *Server) servesLocked(r *resource) bool {
	return slices.Contains(s.rows, r)
}

// setRowsLocked replaces the rows, inside a storage transaction.
func (s *Server) setRowsLocked(rows []*resource) {
	s.rowsMu.Lock()
	s.rows = rows
	s.rowsMu.Unlock()
}

// groupVersions lists the group/versions rows serve, in order.
func groupVersions(rows []*resource) []string {
	var gvs []string
	seen := map[string]bool{}
	for _, r := range rows {
		if gv := r.GroupVersion(); !seen[gv] {
			seen[gv] = true
			gvs = append(gvs, gv)
		}
	}
	return gvs
}
