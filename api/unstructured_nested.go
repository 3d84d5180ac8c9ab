package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Helpers to read and write fields deep inside an Unstructured's Object,
// as client-go's unstructured.NestedString and friends:
//
//	phase, found, err := api.NestedString(u.Object, "status", "phase")
//	labels, found, err := api.NestedStringMap(u.Object, "metadata", "labels")
//
// A path names object fields only (no array indexes). found is false when a
// field on the path is missing or null; err is set when a value on the path
// has the wrong JSON type. The Nested* readers of maps and slices return
// deep copies; NestedFieldNoCopy returns the value itself (do not change
// what it returns from a cached object).
//
// Writing a declared metadata field (metadata.name, metadata.labels, ...)
// this way bypasses Unstructured's typed view: use its setters instead, or
// call SetUnstructuredContent afterwards (see Unstructured).

// NestedFieldNoCopy returns the value at path, not copied.
func NestedFieldNoCopy(obj map[string]any, path ...string) (any, bool, error) {
	var v any = obj
	for i, field := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s is %T, not an object", jsonPath(path[:i]), v)
		}
		if v, ok = m[field]; !ok || v == nil {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// NestedString returns the string at path.
func NestedString(obj map[string]any, path ...string) (string, bool, error) {
	v, found, err := NestedFieldNoCopy(obj, path...)
	if !found || err != nil {
		return "", found, err
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("%s is %T, not a string", jsonPath(path), v)
	}
	return s, true, nil
}

// NestedBool returns the bool at path.
func NestedBool(obj map[string]any, path ...string) (bool, bool, error) {
	v, found, err := NestedFieldNoCopy(obj, path...)
	if !found || err != nil {
		return false, found, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, false, fmt.Errorf("%s is %T, not a bool", jsonPath(path), v)
	}
	return b, true, nil
}

// NestedInt64 returns the integer at path (a json.Number as decoded, or a
// Go integer set by code).
func NestedInt64(obj map[string]any, path ...string) (int64, bool, error) {
	v, found, err := NestedFieldNoCopy(obj, path...)
	if !found || err != nil {
		return 0, found, err
	}
	n, err := toInt64(v)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", jsonPath(path), err)
	}
	return n, true, nil
}

// NestedStringMap returns a copy of the object of strings at path (labels,
// annotations, a ConfigMap's data).
func NestedStringMap(obj map[string]any, path ...string) (map[string]string, bool, error) {
	m, found, err := NestedMap(obj, path...)
	if !found || err != nil {
		return nil, found, err
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false, fmt.Errorf("%s[%q] is %T, not a string", jsonPath(path), k, v)
		}
		out[k] = s
	}
	return out, true, nil
}

// NestedMap returns a deep copy of the object at path.
func NestedMap(obj map[string]any, path ...string) (map[string]any, bool, error) {
	v, found, err := NestedFieldNoCopy(obj, path...)
	if !found || err != nil {
		return nil, found, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("%s is %T, not an object", jsonPath(path), v)
	}
	return DeepCopyJSONValue(m).(map[string]any), true, nil
}

// NestedSlice returns a deep copy of the array at path.
func NestedSlice(obj map[string]any, path ...string) ([]any, bool, error) {
	v, found, err := NestedFieldNoCopy(obj, path...)
	if !found || err != nil {
		return nil, found, err
	}
	s, ok := v.([]any)
	if !ok {
		return nil, false, fmt.Errorf("%s is %T, not an array", jsonPath(path), v)
	}
	return DeepCopyJSONValue(s).([]any), true, nil
}

// SetNestedField sets the value at path, creating the objects on the way
// that are missing. It fails if a value on the way is not an object.
func SetNestedField(obj map[string]any, value any, path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("SetNestedField: empty path")
	}
	m := obj
	for i, field := range path[:len(path)-1] {
		next, ok := m[field]
		if !ok || next == nil {
			created := map[string]any{}
			m[field] = created
			m = created
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("%s is %T, not an object", jsonPath(path[:i+1]), next)
		}
	}
	m[path[len(path)-1]] = value
	return nil
}

// RemoveNestedField removes the field at path, if it is there. It fails if
// a value on the way is not an object.
func RemoveNestedField(obj map[string]any, path ...string) error {
	if len(path) == 0 || obj == nil {
		return nil
	}
	parent, found, err := NestedFieldNoCopy(obj, path[:len(path)-1]...)
	if !found || err != nil {
		return err
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return fmt.Errorf("%s is %T, not an object", jsonPath(path[:len(path)-1]), parent)
	}
	delete(m, path[len(path)-1])
	return nil
}

// DeepCopyJSONValue copies a JSON value: map[string]any, []any, string,
// bool, nil, json.Number and Go numbers. Any other type panics, as in
// client-go: an Object holding one could not have come from JSON.
func DeepCopyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = DeepCopyJSONValue(val)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = DeepCopyJSONValue(val)
		}
		return out
	case string, bool, nil, json.Number, int64, int, int32, float64:
		return x
	default:
		panic(fmt.Sprintf("DeepCopyJSONValue: %T is not a JSON value", v))
	}
}

func jsonPath(path []string) string {
	if len(path) == 0 {
		return "the object"
	}
	return "." + strings.Join(path, ".")
}
