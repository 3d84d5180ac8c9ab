package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONPatch applies an RFC 6902 JSON patch (Content-Type
// application/json-patch+json) to doc and returns the patched object.
//
// A JSON patch is a list of operations, each naming its target with an RFC
// 6901 JSON pointer ("/metadata/labels/app", "/spec/containers/0/image";
// "~1" escapes "/" and "~0" escapes "~" inside a name, "-" means "after the
// last element" of an array):
//
//	add      set a member, or insert into an array
//	remove   delete a member or array element (it must exist)
//	replace  change an existing member or element
//	move     remove from "from", add at "path"
//	copy     add a deep copy of "from" at "path"
//	test     fail the whole patch unless the value at "path" equals "value"
//
// Operations run in order, each seeing the previous one's result. The patch
// is atomic: if any operation fails, JSONPatch returns an error and no
// result, and doc is unchanged (it is never modified in any case).
//
// The whole body is checked before anything is applied: it must be an array
// of objects, each with a known "op", a "path", and the "value" or "from"
// its op needs, and no member given twice (RFC 6902 Appendix A.13). Unknown
// members are ignored, as §4 requires. "test" compares numbers by value, so
// 1 equals 1.0.
func JSONPatch(doc map[string]any, patch []byte) (map[string]any, error) {
	ops, err := decodeOperations(patch)
	if err != nil {
		return nil, err
	}
	out, err := copyObject(doc)
	if err != nil {
		return nil, err
	}
	d := newDocument(out)
	for i, op := range ops {
		if err := d.apply(op); err != nil {
			return nil, fmt.Errorf("json patch operation %d (%s): %w", i, op, err)
		}
	}
	result, ok := d.root.(map[string]any)
	if !ok {
		return nil, notApplicablef("json patch: the result is %s, but an object must stay a JSON object", jsonType(d.root))
	}
	return result, nil
}

// maxOperations is the most operations one JSON patch may hold, as in
// kube-apiserver (maxJSONPatchOperations), which answers 413 beyond it.
const maxOperations = 10000

// operation is one decoded element of a JSON patch.
type operation struct {
	op       string
	path     pointer
	from     pointer // move and copy only
	value    any     // add, replace and test only; may be nil (JSON null)
	rawPath  string
	rawFrom  string
	hasValue bool
}

// String describes the operation in messages: `add "/a"`, `move "/a" to "/b"`.
func (op operation) String() string {
	if op.op == "move" || op.op == "copy" {
		return fmt.Sprintf("%s %q to %q", op.op, op.rawFrom, op.rawPath)
	}
	return fmt.Sprintf("%s %q", op.op, op.rawPath)
}

// apply runs one operation against the document.
func (d *document) apply(op operation) error {
	switch op.op {
	case "add":
		if err := checkDepth(op.path, depthOf(op.value)); err != nil {
			return err
		}
		return d.add(op.path, op.value)
	case "remove":
		_, err := d.remove(op.path)
		return err
	case "replace":
		if err := checkDepth(op.path, depthOf(op.value)); err != nil {
			return err
		}
		return d.replace(op.path, op.value)
	case "move":
		return d.move(op.from, op.path)
	case "copy":
		v, err := d.get(op.from)
		if err != nil {
			return err
		}
		depth, err := d.measure(v)
		if err != nil {
			return err
		}
		if err := checkDepth(op.path, depth); err != nil {
			return err
		}
		if err := d.chargeCopy(v); err != nil {
			return err
		}
		// Copy deeply: the copy must not share maps with its source, or a
		// later operation on one would change both.
		c, err := deepCopy(v, 1)
		if err != nil {
			return err
		}
		return d.add(op.path, c)
	case "test":
		v, err := d.get(op.path)
		if err != nil {
			return err
		}
		if !equalJSON(v, op.value) {
			return notApplicablef("test failed: the value at %q is %s, not %s", op.rawPath, brief(v), brief(op.value))
		}
		return nil
	}
	return malformedf("unknown op %q", op.op) // decodeOperations lets none through
}

// move is RFC 6902 §4.4: remove the value at from and add it at path. A
// value cannot move into one of its own descendants. Moving a value deeper
// than it was is checked against maxDepth (and charged to the budget, since
// that means walking it); moving it up or sideways needs no check.
func (d *document) move(from, path pointer) error {
	if from.isProperPrefixOf(path) {
		return notApplicablef("%q cannot be moved into its own child %q", from.String(), path.String())
	}
	if len(path) > len(from) {
		v, err := d.get(from)
		if err != nil {
			return err
		}
		depth, err := d.measure(v)
		if err != nil {
			return err
		}
		if err := checkDepth(path, depth); err != nil {
			return err
		}
	}
	v, err := d.remove(from)
	if err != nil {
		return err
	}
	return d.add(path, v)
}

// brief renders a value for a message, cut short if long.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// decodeOperations reads and checks the whole patch. It walks the body
// token by token (keeping numbers as json.Number) instead of decoding into
// []map[string]any so that it can see a member given twice, which a Go map
// would silently collapse.
func decodeOperations(data []byte) ([]operation, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, malformedf("json patch: the body is empty")
	}
	if err != nil {
		return nil, badJSON(err)
	}
	if tok != json.Delim('[') {
		return nil, malformedf("json patch: the body must be a JSON array of operations, not %s", tokenType(tok))
	}
	var ops []operation
	for dec.More() {
		if len(ops) == maxOperations {
			return nil, tooLargef("json patch: more than %d operations (kube-apiserver's limit too)", maxOperations)
		}
		op, err := decodeOperation(dec, len(ops))
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return nil, badJSON(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, malformedf("json patch: the body has data after its JSON array")
	}
	return ops, nil
}

// decodeOperation reads operation number i, an object, from dec.
func decodeOperation(dec *json.Decoder, i int) (operation, error) {
	var op operation
	tok, err := dec.Token()
	if err != nil {
		return op, badJSON(err)
	}
	if tok != json.Delim('{') {
		return op, malformedf("json patch operation %d: must be a JSON object, not %s", i, tokenType(tok))
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return op, badJSON(err)
		}
		name, _ := tok.(string) // inside an object the decoder only yields string keys
		if seen[name] {
			return op, malformedf("json patch operation %d: member %q appears twice", i, name)
		}
		seen[name] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return op, badJSON(err)
		}
		if err := op.setMember(name, v); err != nil {
			return op, fmt.Errorf("json patch operation %d: %w", i, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return op, badJSON(err)
	}
	if err := op.validate(seen); err != nil {
		return op, fmt.Errorf("json patch operation %d: %w", i, err)
	}
	return op, nil
}

// setMember stores one member of an operation object; members RFC 6902
// does not define are ignored (§4, Appendix A.11).
func (op *operation) setMember(name string, v any) error {
	switch name {
	case "op", "path", "from":
		s, ok := v.(string)
		if !ok {
			return malformedf("member %q must be a string, not %s", name, jsonType(v))
		}
		switch name {
		case "op":
			op.op = s
		case "path":
			op.rawPath = s
		case "from":
			op.rawFrom = s
		}
	case "value":
		op.value, op.hasValue = v, true
	}
	return nil
}

// validate checks that the operation has what its op needs and parses its
// pointers.
func (op *operation) validate(seen map[string]bool) error {
	if !seen["op"] {
		return malformedf(`missing "op" member`)
	}
	needsValue, needsFrom := false, false
	switch op.op {
	case "add", "replace", "test":
		needsValue = true
	case "move", "copy":
		needsFrom = true
	case "remove":
	default:
		return malformedf("unknown op %q (want add, remove, replace, move, copy or test)", op.op)
	}
	if !seen["path"] {
		return malformedf(`op %q is missing its "path" member`, op.op)
	}
	if needsValue && !op.hasValue {
		return malformedf(`op %q is missing its "value" member`, op.op)
	}
	if needsFrom && !seen["from"] {
		return malformedf(`op %q is missing its "from" member`, op.op)
	}
	var err error
	if op.path, err = parsePointer(op.rawPath); err != nil {
		return fmt.Errorf(`"path": %w`, err)
	}
	if needsFrom {
		if op.from, err = parsePointer(op.rawFrom); err != nil {
			return fmt.Errorf(`"from": %w`, err)
		}
	}
	return nil
}

// badJSON wraps a decoder error met after the first token.
func badJSON(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // the body ended inside the array
	}
	return malformedf("json patch: the body is not valid JSON: %w", err)
}

// tokenType names the JSON type a token starts, for messages.
func tokenType(tok json.Token) string {
	switch tok {
	case json.Delim('{'):
		return "an object"
	case json.Delim('['):
		return "an array"
	}
	return jsonType(tok)
}
