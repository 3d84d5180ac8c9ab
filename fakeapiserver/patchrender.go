package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// When a JSON or merge patch's result does not decode into the object's
// type, the real server's 422 quotes the result whole (` "" is invalid:
// patch: Invalid value: "<the patched object>": ...`). That text is what
// json-patch v4 marshals, and v4 keeps the part of the document a patch did
// not walk through as the bytes it was given: the object as the real server
// encodes it, its fields in its Go structs' order. Every object the patch
// walked through was decoded into a Go map and comes out with its keys
// sorted; a value taken from the patch comes out as the patch spelt it (a
// merge patch's new members are decoded, and so sorted, first). So the
// top level is always sorted (apiVersion first), and the metadata keeps the
// struct order unless the patch touched it (15-differential:
// patch-json/rs-replicas-string, patch-invalid/labels-wrong-type,
// patch-invalid/kind-change, patch-invalid/apiversion-change).
//
// patchedJSON renders the patched object that way. Its "struct order" is
// encodeObject's keyOrder, close to the real one; and the fake keeps no
// managedFields, which the real text includes. A value a JSON patch moves
// or copies is rendered as if it had been there from the start.
func patchedJSON(pt PatchType, original, patched map[string]any, body []byte) string {
	r := patchRender{parsed: map[string]bool{"": true}, raw: map[string]json.RawMessage{}, sorted: map[string]bool{}}
	switch pt {
	case JSONPatchType:
		r.walkJSONPatch(body)
	case MergePatchType:
		r.walkMerge("", original, body)
	}
	var buf bytes.Buffer
	r.write(&buf, patched, "", nil)
	return buf.String()
}

// patchRender knows, per JSON pointer into the result, how v4 left the
// node: parsed (keys sorted), raw from the patch (its own bytes), or
// sortedAll (parsed with everything under it, as a merge patch's new
// values are). Any other node is the original's bytes.
type patchRender struct {
	parsed map[string]bool
	raw    map[string]json.RawMessage
	sorted map[string]bool
}

// walkJSONPatch marks what a JSON patch's operations walk through (v4's
// findObject decodes every container above the target) and the values
// they set.
func (r *patchRender) walkJSONPatch(body []byte) {
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  string          `json:"from"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(body, &ops) != nil {
		return
	}
	for _, op := range ops {
		path := v4Pointer(op.Path)
		r.walkParents(path)
		switch op.Op {
		case "move", "copy":
			r.walkParents(v4Pointer(op.From))
		case "test":
			r.sorted[path] = true // comparing decodes the value
		case "add", "replace":
			if op.Value != nil {
				r.raw[path] = op.Value
				delete(r.parsed, path)
				delete(r.sorted, path)
			}
		}
	}
}

// v4Pointer turns a JSON patch path into the renderer's key: "/"-joined
// unescaped tokens, as json-patch v4 splits them.
func v4Pointer(raw string) string {
	split := strings.Split(raw, "/")
	if len(split) < 2 {
		return ""
	}
	tokens := make([]string, len(split)-1)
	for i, s := range split[1:] {
		tokens[i] = v4Unescape.Replace(s)
	}
	return "/" + strings.Join(tokens, "/")
}

var v4Unescape = strings.NewReplacer("~1", "/", "~0", "~")

// walkParents marks every container above path (the root included).
func (r *patchRender) walkParents(path string) {
	for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
		r.parsed[path[:i]] = true
	}
}

// walkMerge marks what json-patch v4's MergePatch decodes, following the
// patch p at path, where the object before the patch held cur: an object
// the patch merges into is decoded (sorted); a new member, or anything
// replacing a non-object, is decoded whole (pruneNulls); a non-object
// replacing an object stays the patch's raw bytes.
func (r *patchRender) walkMerge(path string, cur any, p json.RawMessage) {
	curMap, curIsObject := cur.(map[string]any)
	var members map[string]json.RawMessage
	if json.Unmarshal(p, &members) != nil || members == nil {
		if curIsObject {
			r.raw[path] = p
		} else {
			r.sorted[path] = true
		}
		return
	}
	if !curIsObject {
		r.sorted[path] = true
		return
	}
	r.parsed[path] = true
	for k, v := range members {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue // removed
		}
		child := path + "/" + k
		if old, ok := curMap[k]; ok && old != nil {
			r.walkMerge(child, old, v)
		} else {
			r.sorted[child] = true
		}
	}
}

// write renders v at path. origin, when not nil, is the raw patch value v
// came from (for the members of a raw value the patch walked into later).
func (r *patchRender) write(buf *bytes.Buffer, v any, path string, origin json.RawMessage) {
	if raw, ok := r.raw[path]; ok {
		origin = raw
	}
	switch {
	case r.sorted[path]:
		writeSorted(buf, v)
	case r.parsed[path]:
		switch x := v.(type) {
		case map[string]any:
			writeObject(buf, sortedKeys(x), func(k string) { r.write(buf, x[k], path+"/"+k, rawMember(origin, k)) })
		case []any:
			writeArray(buf, len(x), func(i int) { r.write(buf, x[i], path+"/"+strconv.Itoa(i), rawElement(origin, i)) })
		default:
			writeJSON(buf, v)
		}
	case origin != nil && jsonEqual(decodeRaw(origin), v):
		b, err := json.Marshal(origin) // compacts, as v4's Marshal does
		if err != nil {
			writeJSON(buf, v)
			return
		}
		buf.Write(b)
	default:
		writeJSON(buf, v) // the original's encoding: keyOrder
	}
}

// writeSorted writes v as encoding/json writes decoded JSON: keys sorted
// at every level.
func writeSorted(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		writeObject(buf, sortedKeys(x), func(k string) { writeSorted(buf, x[k]) })
	case []any:
		writeArray(buf, len(x), func(i int) { writeSorted(buf, x[i]) })
	default:
		writeJSON(buf, v)
	}
}

func rawMember(origin json.RawMessage, k string) json.RawMessage {
	var m map[string]json.RawMessage
	if origin == nil || json.Unmarshal(origin, &m) != nil {
		return nil
	}
	return m[k]
}

func rawElement(origin json.RawMessage, i int) json.RawMessage {
	var a []json.RawMessage
	if origin == nil || json.Unmarshal(origin, &a) != nil || i >= len(a) {
		return nil
	}
	return a[i]
}

func decodeRaw(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}
