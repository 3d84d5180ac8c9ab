package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Unstructured is any object, kept as its whole JSON: client-go's
// unstructured.Unstructured, what its dynamic client and dynamic informer
// hand out. Use it for a resource kinformer has no Go type for (a custom
// resource), or when nothing the server sent may be dropped: the typed
// teaching types keep only the fields they declare.
//
// Object is the record: every field the server sent, decoded with
// json.Decoder.UseNumber (numbers are json.Number, so int64s beyond 2^53
// survive), written back by MarshalJSON. Read it with NestedString,
// NestedMap and friends.
//
// The invariant between Object and the accessors: kind, apiVersion and the
// metadata fields ObjectMeta declares are also decoded once, when Object is
// set (UnmarshalJSON, SetUnstructuredContent), into a typed view, which
// is what GetObjectKind, GetObjectMeta and every Get accessor return (so
// the indexer and listers read them without a map lookup per call).
//
//   - The setters (SetResourceVersion, SetName, SetLabels, SetKind, ...)
//     write both the view and Object.
//   - A change made through the pointers GetObjectKind() and
//     GetObjectMeta() reaches the view only; it is merged into Object's
//     metadata whenever the object is read as a whole: MarshalJSON,
//     DeepCopy, UnstructuredContent. Only the fields that changed are
//     written; the metadata fields ObjectMeta does not declare
//     (managedFields, selfLink, ...) are never touched, so never dropped.
//   - So the view wins: after changing kind, apiVersion or a declared
//     metadata field directly in Object, call SetUnstructuredContent(u.Object)
//     to re-read the view, or the next merge puts the view's value back.
//
// Reading (accessors, MarshalJSON, DeepCopy) never writes, so a cached
// object may be read from many goroutines, as informers share it.
//
// An Unstructured built as a literal (&api.Unstructured{Object: m}) has no
// view yet: its Get accessors read Object on every call, and the first
// GetObjectKind, GetObjectMeta or setter builds the view (a write). Decoded
// objects, which is all an informer caches, always have theirs.
type Unstructured struct {
	Object map[string]any

	viewed bool       // tm and meta have been read from Object
	tm     TypeMeta   // view of Object's kind and apiVersion
	meta   ObjectMeta // view of Object's metadata
}

// NewUnstructured returns an Unstructured holding content (not a copy).
func NewUnstructured(content map[string]any) (*Unstructured, error) {
	u := &Unstructured{}
	if err := u.SetUnstructuredContent(content); err != nil {
		return nil, err
	}
	return u, nil
}

// SetUnstructuredContent makes content (not a copy) the object and
// re-reads the typed view from it. It fails, leaving u as it was, if a
// field the view declares has the wrong JSON type (a name that is a
// number).
func (u *Unstructured) SetUnstructuredContent(content map[string]any) error {
	tm, err := typeMetaFromMap(content)
	if err != nil {
		return err
	}
	meta, err := objectMetaFromMap(content)
	if err != nil {
		return err
	}
	u.Object, u.tm, u.meta, u.viewed = content, tm, meta, true
	return nil
}

// ensureView builds the view of an Unstructured built as a literal. A
// field of the wrong type reads as its zero value (MarshalJSON then leaves
// it as it is in Object unless it is changed through the view).
func (u *Unstructured) ensureView() {
	if u.viewed {
		return
	}
	u.tm, _ = typeMetaFromMap(u.Object)
	u.meta, _ = objectMetaFromMap(u.Object)
	u.viewed = true
}

// view returns the view, or one read from Object now if u has none yet
// (without storing it: reading never writes).
func (u *Unstructured) view() (*TypeMeta, *ObjectMeta) {
	if u.viewed {
		return &u.tm, &u.meta
	}
	tm, _ := typeMetaFromMap(u.Object)
	meta, _ := objectMetaFromMap(u.Object)
	return &tm, &meta
}

// UnstructuredContent merges the changes made through GetObjectKind and
// GetObjectMeta into Object (a write: not safe while others read u) and
// returns Object.
func (u *Unstructured) UnstructuredContent() map[string]any {
	u.ensureView()
	u.Object = u.merged()
	return u.Object
}

// UnmarshalJSON decodes a JSON object (numbers as json.Number).
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("unstructured: %w", err)
	}
	if m == nil {
		return errors.New("unstructured: want a JSON object, got null")
	}
	return u.SetUnstructuredContent(m)
}

// MarshalJSON writes Object with the view's changes merged in (keys in
// sorted order, as encoding/json writes maps).
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	m := u.merged()
	if m == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(m)
}

// DeepCopy returns a copy sharing nothing with u, changes merged in. It
// panics if Object holds a value that is not JSON (map[string]any, []any,
// string, bool, nil, json.Number, a Go number), as client-go's does.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	c := &Unstructured{viewed: u.viewed, tm: u.tm, meta: *u.meta.DeepCopy()}
	if m := u.merged(); m != nil {
		c.Object = DeepCopyJSONValue(m).(map[string]any)
	}
	return c
}

// DeepCopyObject implements Object.
func (u *Unstructured) DeepCopyObject() Object { return u.DeepCopy() }

// merged returns Object with the view's changes written in: Object itself
// when there are none, else a copy of its top level and metadata (the
// rest shared), so that reading never writes.
func (u *Unstructured) merged() map[string]any {
	if !u.viewed {
		return u.Object
	}
	tm, _ := typeMetaFromMap(u.Object)
	// A field of the wrong type reads as zero here as in the view, so it
	// is left as it is unless changed through the view.
	meta, _ := objectMetaFromMap(u.Object)
	typeClean := tm == u.tm
	if typeClean && reflect.DeepEqual(meta, u.meta) {
		return u.Object
	}
	out := make(map[string]any, len(u.Object)+2)
	for k, v := range u.Object {
		out[k] = v
	}
	if !typeClean {
		setOrDelete(out, "kind", u.tm.Kind)
		setOrDelete(out, "apiVersion", u.tm.APIVersion)
	}
	want, before := metaFields(&u.meta), metaFields(&meta)
	changed := false
	for k := range unionKeys(want, before) {
		if !reflect.DeepEqual(want[k], before[k]) {
			changed = true
		}
	}
	if changed {
		oldMeta, _ := u.Object["metadata"].(map[string]any)
		newMeta := make(map[string]any, len(oldMeta)+len(want))
		for k, v := range oldMeta {
			newMeta[k] = v
		}
		for k := range unionKeys(want, before) {
			if reflect.DeepEqual(want[k], before[k]) {
				continue
			}
			if v, ok := want[k]; ok {
				newMeta[k] = v
			} else {
				delete(newMeta, k)
			}
		}
		out["metadata"] = newMeta
	}
	return out
}

// metaFields is m as JSON values (numbers as json.Number), keyed by field.
func metaFields(m *ObjectMeta) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("unstructured: encoding ObjectMeta: %v", err)) // cannot happen: plain fields
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		panic(fmt.Sprintf("unstructured: decoding ObjectMeta: %v", err))
	}
	return out
}

func unionKeys(a, b map[string]any) map[string]struct{} {
	out := make(map[string]struct{}, len(a)+len(b))
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
}

func setOrDelete(m map[string]any, key, value string) {
	if value == "" {
		delete(m, key)
	} else {
		m[key] = value
	}
}

// The accessors of Object, read from the view.

func (u *Unstructured) GetObjectKind() *TypeMeta             { u.ensureView(); return &u.tm }
func (u *Unstructured) GetObjectMeta() *ObjectMeta           { u.ensureView(); return &u.meta }
func (u *Unstructured) GetKind() string                      { tm, _ := u.view(); return tm.Kind }
func (u *Unstructured) GetAPIVersion() string                { tm, _ := u.view(); return tm.APIVersion }
func (u *Unstructured) GetName() string                      { return u.m().Name }
func (u *Unstructured) GetGenerateName() string              { return u.m().GenerateName }
func (u *Unstructured) GetNamespace() string                 { return u.m().Namespace }
func (u *Unstructured) GetUID() string                       { return u.m().UID }
func (u *Unstructured) GetResourceVersion() string           { return u.m().ResourceVersion }
func (u *Unstructured) GetGeneration() int64                 { return u.m().Generation }
func (u *Unstructured) GetCreationTimestamp() Time           { return u.m().CreationTimestamp }
func (u *Unstructured) GetDeletionTimestamp() *Time          { return u.m().DeletionTimestamp }
func (u *Unstructured) GetLabels() map[string]string         { return u.m().Labels }
func (u *Unstructured) GetAnnotations() map[string]string    { return u.m().Annotations }
func (u *Unstructured) GetOwnerReferences() []OwnerReference { return u.m().OwnerReferences }
func (u *Unstructured) GetFinalizers() []string              { return u.m().Finalizers }

func (u *Unstructured) m() *ObjectMeta { _, m := u.view(); return m }

// The setters write the view and Object ("" or nil removes the field).

func (u *Unstructured) SetKind(kind string) {
	u.ensureView()
	u.tm.Kind = kind
	u.setTop("kind", kind)
}

func (u *Unstructured) SetAPIVersion(v string) {
	u.ensureView()
	u.tm.APIVersion = v
	u.setTop("apiVersion", v)
}

func (u *Unstructured) SetName(name string) {
	u.ensureView()
	u.meta.Name = name
	u.setMeta("name", name)
}

func (u *Unstructured) SetNamespace(ns string) {
	u.ensureView()
	u.meta.Namespace = ns
	u.setMeta("namespace", ns)
}

func (u *Unstructured) SetResourceVersion(rv string) {
	u.ensureView()
	u.meta.ResourceVersion = rv
	u.setMeta("resourceVersion", rv)
}

func (u *Unstructured) SetLabels(labels map[string]string) {
	u.ensureView()
	u.meta.Labels = labels
	u.setMeta("labels", stringMapToJSON(labels))
}

func (u *Unstructured) SetAnnotations(a map[string]string) {
	u.ensureView()
	u.meta.Annotations = a
	u.setMeta("annotations", stringMapToJSON(a))
}

func (u *Unstructured) setTop(key, value string) {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	setOrDelete(u.Object, key, value)
}

// setMeta sets (or, for "" and nil, removes) one field of Object's metadata.
func (u *Unstructured) setMeta(key string, value any) {
	if value == "" || value == nil {
		_ = RemoveNestedField(u.Object, "metadata", key)
		return
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	if err := SetNestedField(u.Object, value, "metadata", key); err != nil {
		// metadata is not an object: the view could not have been read
		// from it either, so replace it.
		u.Object["metadata"] = map[string]any{key: value}
	}
}

func stringMapToJSON(m map[string]string) any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// typeMetaFromMap reads kind and apiVersion.
func typeMetaFromMap(m map[string]any) (TypeMeta, error) {
	var tm TypeMeta
	var err error
	if tm.Kind, err = stringField(m, "kind"); err != nil {
		return tm, err
	}
	tm.APIVersion, err = stringField(m, "apiVersion")
	return tm, err
}

// objectMetaFromMap reads the fields ObjectMeta declares from m's
// metadata. Strings are shared with m, not copied.
func objectMetaFromMap(obj map[string]any) (ObjectMeta, error) {
	var om ObjectMeta
	raw, ok := obj["metadata"]
	if !ok || raw == nil {
		return om, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return om, fmt.Errorf("unstructured: metadata is %T, not an object", raw)
	}
	var err error
	str := func(key string) string {
		s, e := stringField(m, key, "metadata."+key)
		err = errors.Join(err, e)
		return s
	}
	om.Name = str("name")
	om.GenerateName = str("generateName")
	om.Namespace = str("namespace")
	om.UID = str("uid")
	om.ResourceVersion = str("resourceVersion")
	if v, ok := m["generation"]; ok && v != nil {
		n, e := toInt64(v)
		om.Generation, err = n, errors.Join(err, fieldErr("metadata.generation", e))
	}
	if v, ok := m["deletionGracePeriodSeconds"]; ok && v != nil {
		n, e := toInt64(v)
		om.DeletionGracePeriodSeconds, err = &n, errors.Join(err, fieldErr("metadata.deletionGracePeriodSeconds", e))
	}
	if t, e := timeField(m, "creationTimestamp"); e != nil {
		err = errors.Join(err, e)
	} else if t != nil {
		om.CreationTimestamp = *t
	}
	if t, e := timeField(m, "deletionTimestamp"); e != nil {
		err = errors.Join(err, e)
	} else {
		om.DeletionTimestamp = t
	}
	om.Labels, err = stringMapField(m, "labels", err)
	om.Annotations, err = stringMapField(m, "annotations", err)
	if v, ok := m["finalizers"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			err = errors.Join(err, fmt.Errorf("unstructured: metadata.finalizers is %T, not an array", v))
		}
		for _, f := range list {
			s, isString := f.(string)
			if !isString {
				err = errors.Join(err, fmt.Errorf("unstructured: metadata.finalizers holds %T, not a string", f))
			}
			om.Finalizers = append(om.Finalizers, s)
		}
	}
	if v, ok := m["ownerReferences"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			err = errors.Join(err, fmt.Errorf("unstructured: metadata.ownerReferences is %T, not an array", v))
		}
		for i, item := range list {
			ref, e := ownerReferenceFromMap(item)
			err = errors.Join(err, fieldErr(fmt.Sprintf("metadata.ownerReferences[%d]", i), e))
			om.OwnerReferences = append(om.OwnerReferences, ref)
		}
	}
	return om, err
}

func ownerReferenceFromMap(v any) (OwnerReference, error) {
	var ref OwnerReference
	m, ok := v.(map[string]any)
	if !ok {
		return ref, fmt.Errorf("is %T, not an object", v)
	}
	var err error
	for key, dst := range map[string]*string{"apiVersion": &ref.APIVersion, "kind": &ref.Kind, "name": &ref.Name, "uid": &ref.UID} {
		s, e := stringField(m, key)
		*dst, err = s, errors.Join(err, e)
	}
	for key, dst := range map[string]**bool{"controller": &ref.Controller, "blockOwnerDeletion": &ref.BlockOwnerDeletion} {
		if b, ok := m[key]; ok && b != nil {
			bb, isBool := b.(bool)
			if !isBool {
				err = errors.Join(err, fmt.Errorf("%s is %T, not a bool", key, b))
			}
			*dst = &bb
		}
	}
	return ref, err
}

// stringField returns m[key] as a string ("" if absent or null); name is
// how an error names the field (key if not given).
func stringField(m map[string]any, key string, name ...string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		n := key
		if len(name) > 0 {
			n = name[0]
		}
		return "", fmt.Errorf("unstructured: %s is %T, not a string", n, v)
	}
	return s, nil
}

func stringMapField(m map[string]any, key string, err error) (map[string]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, err
	}
	src, isMap := v.(map[string]any)
	if !isMap {
		return nil, errors.Join(err, fmt.Errorf("unstructured: metadata.%s is %T, not an object", key, v))
	}
	out := make(map[string]string, len(src))
	for k, val := range src {
		s, isString := val.(string)
		if !isString {
			err = errors.Join(err, fmt.Errorf("unstructured: metadata.%s[%q] is %T, not a string", key, k, val))
		}
		out[k] = s
	}
	return out, err
}

func timeField(m map[string]any, key string) (*Time, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("unstructured: metadata.%s is %T, not a string", key, v)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, fmt.Errorf("unstructured: metadata.%s: %w", key, err)
	}
	return &Time{t.Local()}, nil
}

func fieldErr(field string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("unstructured: %s: %w", field, err)
}

// toInt64 converts a JSON number (json.Number, or a Go integer or
// integral float put there by code) to int64.
func toInt64(v any) (int64, error) {
	switch n := v.(type) {
	case json.Number:
		return n.Int64()
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case float64:
		if n != float64(int64(n)) {
			return 0, fmt.Errorf("%v is not an integer", n)
		}
		return int64(n), nil
	default:
		return 0, fmt.Errorf("is %T, not a number", v)
	}
}

var _ Object = (*Unstructured)(nil)
