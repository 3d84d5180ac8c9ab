package fakeapiserver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
)

// CustomResourceDefinitions: what apiextensions-apiserver adds to a real
// server. A CRD (apiextensions.k8s.io/v1, cluster-scoped, named
// <plural>.<group>) is itself an object of a built-in row
// (customresourcedefinitions); every change to one changes which rows the
// server serves (Server.rows):
//
//	CRD created or changed  its storage version (if served) becomes a row: discovery,
//	                        OpenAPI, list/watch/get/create/update/patch/delete,
//	                        deletecollection, /status when the version declares it
//	CRD deleted             every object of it is removed first (watchers see
//	                        DELETED), then the row goes: 404, and its watches end
//
// A custom resource is kept as JSON with no Go type. Its strategy is
// apiextensions' (pkg/registry/customresource/strategy.go): create drops
// the status when /status exists; the main resource keeps the stored
// status; /status keeps everything but the status; generation is bumped by
// any change outside metadata (and status, with /status).
//
// What is left out (see docs/fakeapiserver.md, "Custom resources"): schema
// validation beyond "the root is an object", pruning, defaulting, CEL rules,
// conversion between versions (only the storage version is served), the
// scale subresource, selectableFields, the CRD's asynchronous controllers
// (NamesAccepted and Established are True at once; a delete removes the
// custom resources at once, finalizers of custom resources ignored).

// customInfo is what a custom resource's row knows of its CRD.
type customInfo struct {
	crd       string // the CRD's name: <plural>.<group>
	signature string // the parts of the CRD the row was made from; a change rebuilds the row
}

var crdRow = lookupResource("apiextensions.k8s.io", "v1", "customresourcedefinitions")

func isCRDRow(r *resource) bool { return r == crdRow }

var crdColumns = []column{
	nameColumn,
	{Name: "Created At", Type: "date",
		Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
		Cell:        func(o map[string]any, _ time.Time) any { return valueAt(o, "metadata", "creationTimestamp") }},
}

// crdStrategy is pkg/registry/apiextensions/customresourcedefinition's
// strategy, reduced to what the fake serves.
var crdStrategy = strategy{
	Default: func(obj map[string]any) {
		spec := ensureMap(obj, "spec")
		names := ensureMap(spec, "names")
		kind := stringAt(names, "kind")
		if stringAt(names, "singular") == "" && kind != "" {
			names["singular"] = strings.ToLower(kind)
		}
		if stringAt(names, "listKind") == "" && kind != "" {
			names["listKind"] = kind + "List"
		}
		if _, ok := spec["conversion"]; !ok {
			spec["conversion"] = map[string]any{"strategy": "None"}
		}
	},
	InitialStatus: func(obj map[string]any) map[string]any {
		// The real server's controllers accept the names and establish
		// the CRD a moment after the create (a MODIFIED event); here it is
		// established at once. The times are stamped by Admit.
		return crdStatus(obj, nil)
	},
	Admit: func(obj map[string]any, now string) {
		for _, c := range mapList(valueAt(obj, "status", "conditions")) {
			c["lastTransitionTime"] = now
		}
	},
	Validate: validateCRD,
	PrepareForUpdate: func(obj, old map[string]any) {
		// The main resource keeps the stored status (done before this);
		// the names controller then accepts the new names.
		obj["status"] = crdStatus(obj, mapAt(old, "status"))
	},
	ValidateUpdate: func(obj, old map[string]any) []api.StatusCause {
		var causes []api.StatusCause
		for _, f := range []string{"group", "scope"} {
			if v := valueAt(obj, "spec", f); !jsonEqual(v, valueAt(old, "spec", f)) {
				causes = append(causes, invalid("spec."+f, v, "field is immutable"))
			}
		}
		return causes
	},
}

// crdStatus is the status of an accepted, established CRD: its names
// accepted, its storage version stored. old's conditions (and their times)
// are kept.
func crdStatus(obj, old map[string]any) map[string]any {
	conds := []any{
		map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found"},
		map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"},
	}
	if oc, ok := old["conditions"].([]any); ok && len(oc) > 0 {
		conds = deepCopy(oc).([]any)
	}
	stored := stringList(old["storedVersions"])
	if v := storageVersion(obj); v != nil {
		name := stringAt(v, "name")
		found := false
		for _, s := range stored {
			found = found || s == name
		}
		if !found {
			stored = append(stored, name)
		}
	}
	storedAny := make([]any, len(stored))
	for i, s := range stored {
		storedAny[i] = s
	}
	return map[string]any{
		"conditions":     conds,
		"acceptedNames":  deepCopy(valueAt(obj, "spec", "names")),
		"storedVersions": storedAny,
	}
}

func mapList(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// storageVersion is the version marked storage: true, or nil.
func storageVersion(crd map[string]any) map[string]any {
	for _, v := range mapList(valueAt(crd, "spec", "versions")) {
		if v["storage"] == true {
			return v
		}
	}
	return nil
}

// validateCRD is the part of apiextensions' ValidateCustomResourceDefinition
// the fake checks, with the real messages.
func validateCRD(obj map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	spec := mapAt(obj, "spec")
	names := mapAt(spec, "names")
	group, plural := stringAt(spec, "group"), stringAt(names, "plural")
	if name := stringAt(mapAt(obj, "metadata"), "name"); name != "" && name != plural+"."+group {
		causes = append(causes, invalid("metadata.name", name, `must be spec.names.plural+"."+spec.group`))
	}
	switch {
	case group == "":
		causes = append(causes, required("spec.group"))
	case !strings.Contains(group, "."):
		causes = append(causes, invalid("spec.group", group, "should be a domain with at least one dot"))
	case isDNS1123Subdomain(group) != "":
		causes = append(causes, invalid("spec.group", group, isDNS1123Subdomain(group)))
	}
	for _, f := range []string{"plural", "singular", "kind", "listKind"} {
		v := stringAt(names, f)
		if v == "" {
			causes = append(causes, required("spec.names."+f))
			continue
		}
		if msg := isDNS1035Label(strings.ToLower(v)); msg != "" {
			causes = append(causes, invalid("spec.names."+f, v, msg))
		}
	}
	if scope := stringAt(spec, "scope"); scope != "Namespaced" && scope != "Cluster" {
		if scope == "" {
			causes = append(causes, required("spec.scope"))
		} else {
			causes = append(causes, notSupported("spec.scope", scope, "Cluster", "Namespaced"))
		}
	}
	versions := mapList(spec["versions"])
	storage := 0
	if len(versions) == 0 {
		causes = append(causes, invalid("spec.versions", "[]", "must have exactly one version marked as storage version"))
	}
	for i, v := range versions {
		path := fmt.Sprintf("spec.versions[%d]", i)
		if v["storage"] == true {
			storage++
		}
		if stringAt(v, "name") == "" {
			causes = append(causes, required(path+".name"))
		} else if msg := isDNS1035Label(stringAt(v, "name")); msg != "" {
			causes = append(causes, invalid(path+".name", v["name"], msg))
		}
		schema, ok := valueAt(v, "schema", "openAPIV3Schema").(map[string]any)
		switch {
		case !ok:
			c := required(path + ".schema.openAPIV3Schema")
			c.Message += ": schemas are required"
			causes = append(causes, c)
		case stringAt(schema, "type") == "":
			c := required(path + ".schema.openAPIV3Schema.type")
			c.Message += ": must not be empty at the root"
			causes = append(causes, c)
		case stringAt(schema, "type") != "object":
			causes = append(causes, invalid(path+".schema.openAPIV3Schema.type", schema["type"], "must be object at the root"))
		}
	}
	if len(versions) > 0 && storage != 1 {
		causes = append(causes, invalid("spec.versions", fmt.Sprintf("%d versions marked storage", storage), "must have exactly one version marked as storage version"))
	}
	return causes
}

// isDNS1035Label is apimachinery's IsDNS1035Label: a lowercase RFC 1035
// label, starting with a letter.
func isDNS1035Label(s string) string {
	if msg := isDNS1123Label(s); msg != "" {
		return msg
	}
	if s[0] >= '0' && s[0] <= '9' {
		return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	}
	return ""
}

// customRow is the row a CRD makes: its storage version, if served; nil
// when it serves nothing. A CRD being deleted (finalizers) still serves.
func customRow(crd map[string]any) *resource {
	v := storageVersion(crd)
	if v == nil || v["served"] != true {
		return nil
	}
	spec := mapAt(crd, "spec")
	names := mapAt(spec, "names")
	hasStatus := valueAt(v, "subresources", "status") != nil
	sig := encodeObject(map[string]any{"names": names, "scope": spec["scope"], "group": spec["group"],
		"version": v["name"], "status": hasStatus, "columns": v["additionalPrinterColumns"]})
	r := &resource{
		Group: stringAt(spec, "group"), Version: stringAt(v, "name"),
		Name: stringAt(names, "plural"), Singular: stringAt(names, "singular"), Kind: stringAt(names, "kind"),
		ShortNames: stringList(names["shortNames"]), Categories: stringList(names["categories"]),
		Namespaced: stringAt(spec, "scope") == "Namespaced",
		HasStatus:  hasStatus, HasGeneration: true,
		Columns: customColumns(mapList(v["additionalPrinterColumns"])),
		custom:  &customInfo{crd: stringAt(mapAt(crd, "metadata"), "name"), signature: string(sig)},
	}
	r.strategy = customResourceStrategy
	return r
}

// customResourceStrategy is apiextensions' customResourceStrategy and
// statusStrategy. The generic hooks already keep the stored status on an
// update of the main resource (HasStatus).
var customResourceStrategy = strategy{
	InitialStatus: func(obj map[string]any) map[string]any {
		return nil // only set for rows with /status: create cannot set status
	},
	PrepareForStatusUpdate: func(obj, old map[string]any) {
		// /status changes the status and nothing else, metadata included.
		for k := range obj {
			if k != "status" && k != "metadata" {
				delete(obj, k)
			}
		}
		for k, v := range old {
			if k != "status" && k != "metadata" {
				obj[k] = deepCopy(v)
			}
		}
		meta, oldMeta := ensureMap(obj, "metadata"), mapAt(old, "metadata")
		for k := range meta {
			delete(meta, k)
		}
		for k, v := range oldMeta {
			meta[k] = deepCopy(v)
		}
	},
}

// contentChanged reports whether an update of the main resource changes
// what bumps metadata.generation: the spec, or for a custom resource
// anything outside metadata.
func (r *resource) contentChanged(obj, old map[string]any) bool {
	if r.custom == nil {
		return !jsonEqual(obj["spec"], old["spec"])
	}
	for k, v := range obj {
		if k != "metadata" && !jsonEqual(v, old[k]) {
			return true
		}
	}
	for k := range old {
		if _, ok := obj[k]; !ok && k != "metadata" {
			return true
		}
	}
	return false
}

// customColumns are the Table columns of a custom resource: Name, then the
// CRD's additionalPrinterColumns, or Age when it declares none.
func customColumns(defs []map[string]any) []column {
	if len(defs) == 0 {
		defs = []map[string]any{{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}}
	}
	cols := []column{nameColumn}
	for _, d := range defs {
		path := strings.Trim(stringAt(d, "jsonPath"), "{}")
		typ := stringAt(d, "type")
		desc := stringAt(d, "description")
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + stringAt(d, "jsonPath")
		}
		segs := strings.Split(strings.TrimPrefix(path, "."), ".")
		cols = append(cols, column{Name: stringAt(d, "name"), Type: typ, Format: stringAt(d, "format"),
			Description: desc, Priority: int(intAt(d, "priority")),
			Cell: func(o map[string]any, now time.Time) any { return customCell(typ, valueAt(o, segs...), now) }})
	}
	return cols
}

// customCell is a printer column's cell, as the CRD table convertor's
// cellForJSONValue makes it; nil when the path finds nothing or a value of
// another type.
func customCell(typ string, v any, now time.Time) any {
	if v == nil {
		return nil
	}
	switch typ {
	case "string":
		if s, ok := v.(string); ok {
			return s
		}
		if _, compound := v.(map[string]any); compound {
			return string(encodeObject(v))
		}
		if _, compound := v.([]any); compound {
			return string(encodeObject(v))
		}
		return scalarString(v)
	case "integer", "number", "boolean":
		if s := scalarString(v); s != "" {
			if _, isString := v.(string); !isString {
				return v
			}
		}
		return nil
	case "date":
		s, ok := v.(string)
		if !ok {
			return nil
		}
		ts, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<invalid>"
		}
		return humanDuration(now.Sub(ts))
	}
	return nil
}

// crdRowChange compares the row a CRD now asks for with the one it has.
func crdRowChange(served []*resource, crdName string, crd map[string]any) (old, want *resource) {
	for _, r := range served {
		if r.custom != nil && r.custom.crd == crdName {
			old = r
		}
	}
	if crd != nil {
		want = customRow(crd)
	}
	if old != nil && want != nil && old.custom.signature == want.custom.signature {
		want = old
	}
	return old, want
}

// onCommit is the storage's commit hook: the rows follow a CRD created or
// changed (a deleted one is handled before its DELETED is committed, see
// beforeRemoveLocked).
func (s *Server) onCommit(tx *recordTx, ev *storage.Event[*record]) {
	if ev.Type != storage.Deleted && isCRDRow(ev.Value.res) {
		s.crdChangingLocked(tx, ev.Value.name, ev.Value.object())
	}
}

// crdChangingLocked keeps the rows in step with a CRD (crd nil: deleted),
// inside a storage transaction. It runs before a CRD's DELETED event is
// committed (its custom resources go first, so the log never holds an
// object of a row that no longer exists) and after an ADDED or MODIFIED
// one.
func (s *Server) crdChangingLocked(tx *recordTx, name string, crd map[string]any) {
	old, want := crdRowChange(s.rows, name, crd)
	if old == want {
		return
	}
	if old != nil && want == nil {
		// Gone: every object goes, its watchers see DELETED, then end.
		l, _ := tx.List(old.keyPrefix(), storage.ListOptions[*record]{})
		for _, rec := range l.Items {
			s.removeLocked(tx, rec)
		}
	}
	if old != nil {
		tx.StopWatches(old.keyPrefix()) // the real server ends a CRD's watches when it changes
	}
	rows := slices.Clone(s.rows)
	i := slices.Index(rows, old)
	switch {
	case want == nil:
		rows = slices.Delete(rows, i, i+1)
	case old == nil:
		rows = append(rows, want)
	default:
		// Rebuilt (new names, columns, /status, or another storage
		// version): the objects are seen through the new row.
		rows[i] = want
		tx.Rewrite(want.keyPrefix(), func(rec *record) *record { return rekey(rec, want) })
	}
	s.setRowsLocked(rows)
}

// rekey re-makes a record of a rebuilt row for the new one.
func rekey(rec *record, r *resource) *record {
	obj := rec.object()
	obj["apiVersion"] = r.GroupVersion()
	return newRecord(r, obj, rec.rv)
}
