package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONPatch applies a JSON patch (Content-Type application/json-patch+json)
// to doc and returns the patched object, with the semantics of
// gopkg.in/evanphx/json-patch.v4, which kube-apiserver 1.36 uses, rather
// than RFC 6902's where the two differ (see the package documentation).
//
// A JSON patch is a list of operations, each naming its target with a JSON
// pointer ("/metadata/labels/app", "/spec/containers/0/image"; "~1" escapes
// "/" and "~0" escapes "~" inside a name, "-" means "after the last
// element" of an array):
//
//	add      set a member, or insert into an array
//	remove   delete a member or array element (it must exist)
//	replace  set a member (it need not exist), or change an array element
//	move     remove from "from", add at "path"
//	copy     add a deep copy of "from" at "path"
//	test     fail the whole patch unless the value at "path" equals "value"
//
// Operations run in order, each seeing the previous one's result. The patch
// is atomic: if any operation fails, JSONPatch returns an error and no
// result, and doc is unchanged (it is never modified in any case).
//
// The body must be a JSON array of objects whose "op", "path" and "from",
// when present, are strings, and no member may be given twice; anything
// else is ErrMalformed. An operation that cannot be applied (an unknown op
// included) is ErrNotApplicable, and its message is the one json-patch v4
// gives. "test" compares numbers by value, so 1 equals 1.0.
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
	for _, op := range ops {
		if err := d.apply(op); err != nil {
			return nil, err
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

// operation is one decoded element of a JSON patch. A member that is
// missing or null counts as absent, as in v4.
type operation struct {
	op       string // "unknown" if absent, as v4's Operation.Kind says
	path     v4Path
	from     v4Path
	value    any // may be nil (JSON null, or no "value" member)
	hasPath  bool
	hasFrom  bool
	hasValue bool
}

// missingValue: an "add" or "replace" without a "value" member (a "value"
// of null is a value) is refused, as kube-apiserver 1.36 refuses it: 422
// (reported from a comparison with the real server, not recorded in
// testdata; the server answers it as every other refused operation, the
// text here goes to its log only). json-patch v4 itself would add a null.
// A "test" without one fails as a failed test.

// failf returns an ErrNotApplicable error worded as v4 words it. A cause
// that is ErrTooLarge (a budget ran out) is returned as it is.
func failf(format string, args ...any) error {
	for _, a := range args {
		if e, ok := a.(error); ok && errors.Is(e, ErrTooLarge) {
			return e
		}
	}
	return notApplicablef(format, args...)
}

// apply runs one operation against the document. Each refusal carries the
// text json-patch v4's Patch.Apply returns for it.
func (d *document) apply(op operation) error {
	switch op.op {
	case "add":
		if !op.hasPath {
			return failf("add operation failed to decode path: missing value")
		}
		if !op.hasValue {
			return failf("add operation has no \"value\" member") // see missingValue
		}
		return d.add(op, "add", op.value, depthOf(op.value))
	case "remove":
		if !op.hasPath {
			return failf("remove operation failed to decode path: missing value")
		}
		parent, store, ok := d.findParent(op.path)
		if !ok {
			return failf("remove operation does not apply: doc is missing path: \"%s\": missing value", op.path.raw)
		}
		if _, err := d.removeIn(parent, store, op.path.key()); err != nil {
			return failf("error in remove for path: '%s': %w", op.path.raw, err)
		}
		return nil
	case "replace":
		return d.replace(op)
	case "move":
		return d.move(op)
	case "copy":
		return d.copy(op)
	case "test":
		return d.test(op)
	}
	return failf("Unexpected kind: %s", op.op)
}

// add is v4's add, also the last step of copy and move (name says which, for
// messages). The parent must exist; see addIn for the key. depth is v's
// depth (see depthOf), checked against maxDepth at the destination.
func (d *document) add(op operation, name string, v any, depth int) error {
	parent, store, ok := d.findParent(op.path)
	if !ok {
		if name == "add" {
			return failf("add operation does not apply: doc is missing path: \"%s\": missing value", op.path.raw)
		}
		return failf("%s operation does not apply: doc is missing destination path: %s: missing value", name, op.path.raw)
	}
	if err := checkDepth(op.path.tokens, depth); err != nil {
		return err
	}
	if err := d.addIn(parent, store, op.path.key(), v); err != nil {
		switch name {
		case "add":
			return failf("error in add for path: '%s': %w", op.path.raw, err)
		case "copy":
			return failf("error while adding value during copy: %w", err)
		}
		return failf("error in move for path: '%s': %w", op.path.raw, err)
	}
	return nil
}

// replace is v4's replace. At path "" an object or array value becomes the
// whole document and any other value changes nothing. Elsewhere the parent
// must exist; an object member need not (v4 reads a missing member as null,
// so replace then acts as add), an array element must.
func (d *document) replace(op operation) error {
	if !op.hasPath {
		return failf("replace operation failed to decode path: operation missing path field: missing value")
	}
	if !op.hasValue {
		return failf("replace operation has no \"value\" member") // see missingValue
	}
	if op.path.raw == "" {
		switch op.value.(type) {
		case map[string]any, []any:
			d.root = op.value
		}
		return nil
	}
	parent, _, ok := d.findParent(op.path)
	if !ok {
		return failf("replace operation does not apply: doc is missing path: %s: missing value", op.path.raw)
	}
	if err := checkDepth(op.path.tokens, depthOf(op.value)); err != nil {
		return err
	}
	switch c := parent.(type) {
	case map[string]any:
		c[op.path.key()] = op.value
	case []any:
		i, err := v4Index(op.path.key(), len(c))
		if err != nil {
			return failf("replace operation does not apply: doc is missing key: %s: missing value", op.path.raw)
		}
		c[i] = op.value
	}
	return nil
}

// move is v4's move: read and remove the value at from, then add it at
// path. Its errors about from name only from's last token, as v4's do. A
// value moved into its own child is gone from the document by the time the
// destination is looked up, so that is a missing destination path. Moving
// a value deeper than it was is checked against maxDepth.
func (d *document) move(op operation) error {
	if !op.hasFrom {
		return failf("move operation failed to decode from: operation, missing from field: missing value")
	}
	parent, store, ok := d.findParent(op.from)
	if !ok {
		return failf("move operation does not apply: doc is missing from path: %s: missing value", op.from.raw)
	}
	key := op.from.key()
	moved, err := getIn(parent, key)
	if err != nil {
		return failf("error in move for path: '%s': %w", key, err)
	}
	// Moving a value deeper is checked against maxDepth, which means walking
	// it (charged to the budget); moving it up or sideways needs no check.
	depth := 0
	if op.hasPath && op.path.ok && len(op.path.tokens) > len(op.from.tokens) {
		if depth, err = d.measure(moved); err != nil {
			return err
		}
	}
	v, err := d.removeIn(parent, store, key)
	if err != nil {
		return failf("error in move for path: '%s': %w", key, err)
	}
	if !op.hasPath {
		return failf("move operation failed to decode path: operation missing path field: missing value")
	}
	return d.add(op, "move", v, depth)
}

// copy is v4's copy: a deep copy of the value at from is added at path. A
// missing object member at from reads as null, so null is what gets added.
func (d *document) copy(op operation) error {
	if !op.hasFrom {
		return failf("copy operation failed to decode from: operation, missing from field: missing value")
	}
	parent, _, ok := d.findParent(op.from)
	if !ok {
		return failf("copy operation does not apply: doc is missing from path: %s: missing value", op.from.raw)
	}
	v, err := getIn(parent, op.from.key())
	if err != nil {
		return failf("error in copy for from: '%s': %w", op.from.raw, err)
	}
	if !op.hasPath {
		return failf("copy operation failed to decode path: missing value")
	}
	if _, _, ok := d.findParent(op.path); !ok {
		return failf("copy operation does not apply: doc is missing destination path: %s: missing value", op.path.raw)
	}
	depth, err := d.measure(v)
	if err != nil {
		return err
	}
	if v != nil {
		if err := d.chargeCopy(v); err != nil {
			return err
		}
	}
	// Copy deeply: the copy must not share maps with its source, or a
	// later operation on one would change both.
	c, err := deepCopy(v, 1)
	if err != nil {
		return err
	}
	return d.add(op, "copy", c, depth)
}

// test is v4's test. At path "" it compares the whole document. A missing
// object member reads as null, so it passes a test for null.
func (d *document) test(op operation) error {
	if !op.hasPath {
		return failf("test operation failed to decode path: operation missing path field: missing value")
	}
	var v any
	if op.path.raw == "" {
		v = d.root
	} else {
		parent, _, ok := d.findParent(op.path)
		if !ok {
			return failf("test operation does not apply: is missing path: %s: missing value", op.path.raw)
		}
		var err error
		if v, err = getIn(parent, op.path.key()); err != nil {
			return failf("error in test for path: '%s': %w", op.path.raw, err)
		}
	}
	// Without a "value" member v4 fails the test (or, on a null target,
	// panics; kube-apiserver would answer 500 there).
	if !op.hasValue || !equalJSON(v, op.value) {
		return failf("testing value %s failed: test failed", op.path.raw)
	}
	return nil
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
	if !seen["op"] {
		op.op = "unknown"
	}
	return op, nil
}

// setMember stores one member of an operation object; other members are
// ignored. "op", "path" and "from" must be strings or null (kube-apiserver
// decodes the body into a struct with string fields first, and answers 400
// to any other type); null counts as absent, as in v4.
func (op *operation) setMember(name string, v any) error {
	switch name {
	case "op", "path", "from":
		if v == nil {
			if name == "op" {
				op.op = "unknown"
			}
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return malformedf("member %q must be a string, not %s", name, jsonType(v))
		}
		switch name {
		case "op":
			op.op = s
		case "path":
			op.path, op.hasPath = parseV4Path(s), true
		case "from":
			op.from, op.hasFrom = parseV4Path(s), true
		}
	case "value":
		op.value, op.hasValue = v, true
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
