package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
)

// The server keeps every object as decoded JSON (map[string]any, numbers as
// json.Number), never as a typed struct, so that any field a client sends
// (kubectl sends many this package knows nothing about) comes back exactly.
// This file holds the small helpers for reading and writing such maps.

// decodeObject parses a request body into a JSON object. It rejects anything
// that is not exactly one JSON object, except null, which is an empty
// object: the real server's decoder reads it into an empty one (a create
// with the body null is refused for its missing name, 15-differential:
// create-invalid/json-null). Malformed JSON gets json.Unmarshal's wording
// ("unexpected end of JSON input"), which is the real server's too.
func decodeObject(body []byte) (map[string]any, error) {
	if err := json.Unmarshal(body, new(json.RawMessage)); err != nil {
		return nil, err
	}
	if string(bytes.TrimSpace(body)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			// What the real decoder says when it looks for apiVersion and
			// kind in an array, a string, a number or a boolean
			// (15-differential: create-invalid/json-array).
			if err := versionKindError(body); err != nil {
				return nil, err
			}
		}
		return nil, fmt.Errorf("expected a JSON object, got %s", jsonTypeName(v))
	}
	return obj, nil
}

// versionKindError decodes a body the way the real server's JSON
// serializer first looks at it (its meta factory's Interpret, with
// encoding/json and an anonymous struct), and returns that decoder's error:
// for a body that is not an object, the real server's words are
// "json: cannot unmarshal array into Go value of type struct { APIVersion
// string "json:\"apiVersion,omitempty\""; Kind string
// "json:\"kind,omitempty\"" }", Go's own rendering of this very type.
func versionKindError(body []byte) error {
	var findKind struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	return json.Unmarshal(body, &findKind)
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// keyOrder is the order the real API server writes an object's fields in
// (its Go structs' field order). Fields named here come first, in this order;
// others follow alphabetically. It makes curl output look like a real
// cluster's; clients do not care.
var keyOrder = map[string]int{}

func init() {
	for i, k := range []string{
		"type", "kind", "apiVersion", "metadata", "spec", "data", "binaryData", "immutable", "status",
		"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
		"annotations", "ownerReferences", "finalizers", "managedFields",
		"replicas", "selector", "template", "containers", "image", "phase", "conditions",
		"object",
	} {
		keyOrder[k] = i
	}
}

// encodeObject writes v as compact JSON with keys in keyOrder. The bytes
// are exactly as long as the JSON: a record keeps them for as long as the
// object lives, and a buffer grown by doubling is up to twice as long
// (encodeBuffers lends the buffer it is written in).
func encodeObject(v any) []byte {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	writeJSON(buf, v)
	out := bytes.Clone(buf.Bytes())
	if buf.Cap() <= maxObjectBytes {
		encodeBuffers.Put(buf)
	}
	return out
}

var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func writeJSON(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			oi, iok := keyOrder[keys[i]]
			oj, jok := keyOrder[keys[j]]
			switch {
			case iok && jok:
				return oi < oj
			case iok != jok:
				return iok
			default:
				return keys[i] < keys[j]
			}
		})
		writeObject(buf, keys, func(k string) { writeJSON(buf, x[k]) })
	case []any:
		writeArray(buf, len(x), func(i int) { writeJSON(buf, x[i]) })
	case string:
		writeString(buf, x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			// Only json.Number, bool, nil and the types above reach here.
			panic(fmt.Sprintf("fakeapiserver: cannot encode %T: %v", x, err))
		}
		buf.Write(b)
	}
}

// writeObject writes {"k":value,...} for keys in the order given; value
// writes the member's value.
func writeObject(buf *bytes.Buffer, keys []string, value func(k string)) {
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		value(k)
	}
	buf.WriteByte('}')
}

// writeArray writes [elem 0,...,elem n-1]; elem writes one element.
func writeArray(buf *bytes.Buffer, n int, elem func(i int)) {
	buf.WriteByte('[')
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		elem(i)
	}
	buf.WriteByte(']')
}

// sortedKeys returns m's keys in byte order, as encoding/json writes them.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // cannot fail for a string
	buf.Write(b)
}

// deepCopy copies decoded JSON so the copy can be changed freely.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	default:
		return x
	}
}

func copyObject(obj map[string]any) map[string]any { return deepCopy(obj).(map[string]any) }

// mapAt returns obj[key] if it is an object, else nil.
func mapAt(obj map[string]any, key string) map[string]any {
	m, _ := obj[key].(map[string]any)
	return m
}

// ensureMap returns obj[key], creating an empty object there if it is not one.
func ensureMap(obj map[string]any, key string) map[string]any {
	if m, ok := obj[key].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	obj[key] = m
	return m
}

func stringAt(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return s
}

// valueAt follows a path of object keys; nil if any step is missing.
func valueAt(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// scalarString renders a JSON scalar as a field selector compares it.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	default:
		return ""
	}
}

// stringMap reads a JSON object of strings (labels, annotations); non-string
// values are skipped (validation rejects them before they are stored).
func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		if s, ok := e.(string); ok {
			out[k] = s
		}
	}
	return out
}

func jsonInt(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// intAt reads an integer field (0 if absent or not an integer).
func intAt(obj map[string]any, key string) int64 {
	n, ok := obj[key].(json.Number)
	if !ok {
		return 0
	}
	i, err := n.Int64()
	if err != nil {
		return 0
	}
	return i
}

// stringList reads a JSON array of strings.
func stringList(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	return bytes.Equal(encodeObject(a), encodeObject(b))
}

// setDefault sets m[key] to v when m has no such key.
func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

// remarshal converts decoded JSON into a typed value.
func remarshal(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// mapTyped are the keys whose values are Go maps with omitempty in the real
// types (labels, annotations, a ConfigMap's data, a selector's
// matchLabels...): an empty one is not stored, as the real server decodes
// into its types and encodes them again. An empty struct ({}: resources,
// securityContext) is a value and stays.
var mapTyped = map[string]bool{"labels": true, "annotations": true, "data": true,
	"binaryData": true, "nodeSelector": true, "matchLabels": true}

// pruneEmpty drops what the real server's round trip through its Go types
// drops: null values, empty lists, and empty maps under mapTyped keys. So a
// body with "labels": {} or "finalizers": [] stores the same object as one
// without, and a patch that adds only such an empty value writes nothing.
// creationTimestamp stays even when null (a zero metav1.Time encodes as
// null, as in a pod template).
func pruneEmpty(obj map[string]any) {
	for k, v := range obj {
		switch v := v.(type) {
		case nil:
			if k != "creationTimestamp" {
				delete(obj, k)
			}
		case []any:
			if len(v) == 0 {
				delete(obj, k)
				continue
			}
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					pruneEmpty(m)
				}
			}
		case map[string]any:
			pruneEmpty(v)
			if len(v) == 0 && mapTyped[k] {
				delete(obj, k)
			}
		}
	}
}
