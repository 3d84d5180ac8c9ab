package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Field validation: what the server does with fields its types do not have
// and with fields a body names twice (the fieldValidation query parameter
// of create, update and patch).
//
// The real server decodes every body into its Go types. A field the type
// lacks is dropped; so is every occurrence of a duplicated field but the
// last. fieldValidation says what else happens: Strict refuses the body
// (400 on create and update, `ConfigMap in version "v1" cannot be handled
// as a ConfigMap: strict decoding error: unknown field "bogusField"`; 422 on
// the field "patch" for a patch), Warn (the default) adds a Warning header
// per field and Ignore says nothing (15-differential:
// create-invalid/unknown-field-strict, unknown-metadata-field-strict,
// duplicate-field-strict, create-invalid/unknown-field).
//
// The fake keeps objects as JSON and its api types are partial, so it
// cannot know every field of a pod's spec. It knows them where the set is
// small and fixed: the top level of each built-in kind (resource.TopFields),
// ObjectMeta, and the entries of ownerReferences and managedFields. Unknown
// fields there are dropped, or refused under Strict; unknown fields below
// spec and status are kept as sent. Duplicates are found at every depth.
// A custom resource has no schema here, so only its metadata is checked.
// No Warning header is sent (the recordings do not show one).

// objectMetaFields are the fields of ObjectMeta (k8s.io/apimachinery
// meta/v1, as served by 1.36: clusterName is gone).
var objectMetaFields = []string{"name", "generateName", "namespace", "selfLink", "uid",
	"resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
	"managedFields"}

// ownerReferenceFields and managedFieldsEntryFields are the fields of the
// two kinds of entries ObjectMeta lists.
var (
	ownerReferenceFields     = []string{"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"}
	managedFieldsEntryFields = []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
)

// knownFields returns the field names an object at path may hold, or nil
// when the fake does not know them all (anything goes). path is the field
// path of the object: "" for the top level, "metadata",
// "metadata.ownerReferences[]" for an entry of that list.
func (r *resource) knownFields(path string) []string {
	switch path {
	case "":
		if r.TopFields == nil {
			return nil
		}
		return append([]string{"kind", "apiVersion", "metadata"}, r.TopFields...)
	case "metadata":
		return objectMetaFields
	case "metadata.ownerReferences[]":
		return ownerReferenceFields
	case "metadata.managedFields[]":
		return managedFieldsEntryFields
	}
	return nil
}

// dropUnknownFields removes the fields knownFields does not list, as the
// real decoder drops them.
func (r *resource) dropUnknownFields(obj map[string]any) {
	dropUnknown(obj, r.knownFields(""))
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	dropUnknown(meta, objectMetaFields)
	for key, fields := range map[string][]string{"ownerReferences": ownerReferenceFields, "managedFields": managedFieldsEntryFields} {
		list, _ := meta[key].([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				dropUnknown(m, fields)
			}
		}
	}
}

func dropUnknown(m map[string]any, known []string) {
	if known == nil {
		return
	}
	for k := range m {
		if !slices.Contains(known, k) {
			delete(m, k)
		}
	}
}

// strictErrors lists what a Strict decode of body would refuse, in the
// order the decoder meets it: `unknown field "metadata.bogus"`, `duplicate
// field "kind"`. With unknown false only duplicates are listed (a patch
// body's: its unknown fields are those of the patched object). A body that
// is not JSON here (the caller decoded it already) yields nothing.
func (r *resource) strictErrors(body []byte, unknown bool) []string {
	sc := &strictScanner{dec: json.NewDecoder(bytes.NewReader(body)), r: r, unknown: unknown, seen: map[string]bool{}}
	sc.dec.UseNumber()
	if err := sc.value("", ""); err != nil {
		return nil
	}
	return sc.errs
}

// strictScanner walks a JSON body token by token, keeping the field path.
type strictScanner struct {
	dec     *json.Decoder
	r       *resource
	unknown bool
	errs    []string
	seen    map[string]bool // errors already reported: the decoder reports each once
}

func (sc *strictScanner) report(msg string) {
	if !sc.seen[msg] && len(sc.errs) < 100 { // the real decoder stops counting at 100
		sc.seen[msg] = true
		sc.errs = append(sc.errs, msg)
	}
}

// value reads one JSON value. path is its field path for messages
// ("spec.containers[0]"), schema its path for knownFields (list indices
// written "[]"), or "-" below an unknown field, where nothing is checked.
func (sc *strictScanner) value(path, schema string) error {
	tok, err := sc.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return sc.object(path, schema)
	case json.Delim('['):
		for i := 0; sc.dec.More(); i++ {
			if err := sc.value(fmt.Sprintf("%s[%d]", path, i), schemaChild(schema, "[]")); err != nil {
				return err
			}
		}
		_, err = sc.dec.Token() // ']'
		return err
	}
	return nil
}

func (sc *strictScanner) object(path, schema string) error {
	var known []string
	if sc.unknown && schema != "-" {
		known = sc.r.knownFields(schema)
	}
	keys := map[string]bool{}
	for sc.dec.More() {
		tok, err := sc.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		field := key
		if path != "" {
			field = path + "." + key
		}
		childSchema := schemaChild(schema, key)
		switch {
		case known != nil && !slices.Contains(known, key):
			sc.report(fmt.Sprintf("unknown field %q", field))
			childSchema = "-"
		case schema != "-" && keys[key]:
			sc.report(fmt.Sprintf("duplicate field %q", field))
		}
		keys[key] = true
		if err := sc.value(field, childSchema); err != nil {
			return err
		}
	}
	_, err := sc.dec.Token() // '}'
	return err
}

// schemaChild is the knownFields path of a member (or, with "[]", an
// element) of the value at schema.
func schemaChild(schema, key string) string {
	switch {
	case schema == "-":
		return "-"
	case key == "[]":
		return schema + "[]"
	case schema == "":
		return key
	}
	return schema + "." + key
}

// strictFieldBody is body when the request asks for
// fieldValidation=Strict, else nil.
func strictFieldBody(req *http.Request, body []byte) []byte {
	if req.URL.Query().Get("fieldValidation") != "Strict" {
		return nil
	}
	if body == nil {
		return []byte{}
	}
	return body
}

// strictDecodingError is the message of a Strict refusal.
func strictDecodingError(errs []string) string {
	return "strict decoding error: " + strings.Join(errs, ", ")
}

// checkBodyFields applies field validation to a create or update body that
// decoded: under Strict (strictBody is the raw body then) 400 if it has an
// unknown or duplicate field; otherwise the unknown fields are dropped.
func checkBodyFields(r *resource, obj map[string]any, strictBody []byte) *api.Status {
	if strictBody != nil {
		if errs := r.strictErrors(strictBody, true); len(errs) > 0 {
			return errBadRequest("%s in version %q cannot be handled as a %s: %s", r.Kind, r.Version, r.Kind, strictDecodingError(errs))
		}
	}
	r.dropUnknownFields(obj)
	return nil
}

// checkPatchedFields applies field validation to a patch's result: under
// Strict, 422 on the field "patch" (as the patch handler answers a result
// that does not decode) if the patch body names a field twice or the
// result has an unknown field; otherwise the unknown fields are dropped.
// The value shown is the patched object for a JSON or merge patch, the
// patch itself as Go prints it for a strategic merge patch (the wording of
// a patch's Strict refusal is not recorded: this is the shape
// 15-differential's patch-json/rs-replicas-string shows for a type error,
// with the strict decoder's words).
func checkPatchedFields(r *resource, pt PatchType, patched map[string]any, body []byte, strict bool) *api.Status {
	if strict {
		var errs []string
		if pt != JSONPatchType {
			errs = r.strictErrors(body, false)
		}
		errs = append(errs, r.strictErrors(encodeObject(patched), true)...)
		if len(errs) > 0 {
			value := string(encodeObject(patched))
			if pt == StrategicMergePatchType {
				value = patchMapString(body)
			}
			return errInvalid("", "", "", []api.StatusCause{invalid("patch", value, strictDecodingError(errs))})
		}
	}
	r.dropUnknownFields(patched)
	return nil
}
