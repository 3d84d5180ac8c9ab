package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// document is the value a JSON patch works on: a private copy of the
// caller's object, changed in place operation by operation. root is "any"
// because a "replace" at path "" may swap the whole document; JSONPatch
// checks at the end that the result is still an object.
//
// Three bounds keep a hostile patch from exhausting the stack, memory or
// CPU: no value in the document ever sits deeper than maxDepth (the copy
// starts that way, and every operation that puts a value deeper checks);
// copyBudget bounds the values the patch may walk to copy them or to move
// them deeper; shiftBudget bounds the array elements that inserting and
// removing may shift. Since the copy is private and every inserted value is
// fresh (decoded, deep-copied or moved), slices are changed in place.
type document struct {
	root        any
	copyBudget  int
	shiftBudget int
	copiedBytes int64 // the JSON size copied so far (see chargeCopy)
}

func newDocument(root map[string]any) *document {
	return &document{root: root, copyBudget: maxCopiedValues, shiftBudget: maxShiftedElements}
}

// maxCopiedValues is how many values (objects, arrays and scalars, counted
// one each) one JSON patch may copy, or walk to move deeper, in all. A Pod
// holds a few hundred; without a bound, thirty "copy" operations that each
// copy the whole document into itself would ask for a billion.
const maxCopiedValues = 1 << 18

// maxShiftedElements is how many array elements one JSON patch may shift
// by inserting before them or removing before them. Each such operation
// moves every later element, so 10000 insertions at the front of a
// million-element array would take over a minute; legitimate patches stay
// far below this (10000 operations on a 1000-element list shift 10 million).
const maxShiftedElements = 1 << 25

// shift charges n shifted elements to the budget.
func (d *document) shift(n int) error {
	d.shiftBudget -= n
	if d.shiftBudget < 0 {
		return tooLargef("the patch shifts more than %d array elements in all by inserting and removing", maxShiftedElements)
	}
	return nil
}

// v4Path is a JSON patch path as json-patch v4 reads it: the text is split
// at every "/", the first piece is dropped whatever it holds, and each other
// piece is unescaped ("~1" to "/", then "~0" to "~", in one pass; any other
// "~" stays as it is). A path with no "/" at all ("" or "a") names no
// parent, so every operation but "replace" and "test" at "" fails on it,
// and v4 calls it a missing path. Nothing else is checked: "a/b" is read
// as "/b".
type v4Path struct {
	raw    string
	tokens pointer // parent tokens, then the last key
	ok     bool    // false if raw holds no "/"
}

var v4Unescaper = strings.NewReplacer("~1", "/", "~0", "~")

func parseV4Path(raw string) v4Path {
	split := strings.Split(raw, "/")
	if len(split) < 2 {
		return v4Path{raw: raw}
	}
	tokens := make(pointer, len(split)-1)
	for i, s := range split[1:] {
		tokens[i] = v4Unescaper.Replace(s)
	}
	return v4Path{raw: raw, tokens: tokens, ok: true}
}

// key is the last token, the one the operation acts on in its parent.
func (p v4Path) key() string { return p.tokens[len(p.tokens)-1] }

// errInvalidIndex is v4's wording for an array index out of range
// ("Unable to access invalid index: %d" wrapping ErrInvalidIndex).
func errInvalidIndex(i int) error {
	//lint:ignore ST1005 json-patch v4's wording, which the real server answers with
	return fmt.Errorf("Unable to access invalid index: %d: invalid index referenced", i)
}

// v4Index resolves token as an index of an existing element of an array of
// length n, as v4's partialArray.get, set and remove do: strconv.Atoi reads
// it (so "01" and "+1" are 1), and a negative index counts from the end.
func v4Index(token string, n int) (int, error) {
	i, err := strconv.Atoi(token)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		if i < -n {
			return 0, errInvalidIndex(i)
		}
		i += n
	}
	if i >= n {
		return 0, errInvalidIndex(i)
	}
	return i, nil
}

// findParent walks p's tokens but the last, as v4's findObject does, and
// returns the object or array that holds p's key and the function that
// stores a new value for that container (inserting into or removing from an
// array changes its slice header, which must be written back into whatever
// holds it). ok is false wherever v4 gives up: p has no "/", a member on the
// way is missing or null, an index on the way does not resolve (including
// "-"), or a value on the way is not an object or array.
func (d *document) findParent(p v4Path) (parent any, store func(any), ok bool) {
	if !p.ok {
		return nil, nil, false
	}
	parent, store = d.root, func(nv any) { d.root = nv }
	for _, token := range p.tokens[:len(p.tokens)-1] {
		var next any
		switch c := parent.(type) {
		case map[string]any:
			v, found := c[token]
			if !found {
				return nil, nil, false
			}
			next, store = v, func(nv any) { c[token] = nv }
		case []any:
			i, err := v4Index(token, len(c))
			if err != nil {
				return nil, nil, false
			}
			next, store = c[i], func(nv any) { c[i] = nv }
		default:
			return nil, nil, false
		}
		switch next.(type) {
		case map[string]any, []any:
			parent = next
		default:
			return nil, nil, false
		}
	}
	switch parent.(type) {
	case map[string]any, []any:
		return parent, store, true
	}
	return nil, nil, false
}

// getIn reads key from a container found by findParent, as v4's get does:
// a missing object member reads as null without error; an array index must
// resolve (see v4Index).
func getIn(parent any, key string) (any, error) {
	if c, ok := parent.([]any); ok {
		i, err := v4Index(key, len(c))
		if err != nil {
			return nil, err
		}
		return c[i], nil
	}
	return parent.(map[string]any)[key], nil
}

// addIn is v4's add on a container found by findParent: set an object member
// (creating or overwriting it), or insert into an array, shifting later
// elements up. "-" appends; any other key must parse with strconv.Atoi and
// lie in [-(n+1), n], a negative one counting from the end of the longer
// array. The error is the cause v4 wraps; the caller adds its context.
func (d *document) addIn(parent any, store func(any), key string, v any) error {
	c, ok := parent.([]any)
	if !ok {
		parent.(map[string]any)[key] = v
		return nil
	}
	i := len(c)
	if key != "-" {
		var err error
		if i, err = strconv.Atoi(key); err != nil {
			return fmt.Errorf("value was not a proper array index: '%s': %w", key, err)
		}
		if i > len(c) || i < -(len(c)+1) {
			return errInvalidIndex(i)
		}
		if i < 0 {
			i += len(c) + 1
		}
	}
	if err := d.shift(len(c) - i); err != nil {
		return err
	}
	c = append(c, nil) // in place: the slice is ours alone
	copy(c[i+1:], c[i:])
	c[i] = v
	store(c)
	return nil
}

// removeIn is v4's remove on a container found by findParent, returning the
// removed value. The error is the cause v4 wraps.
func (d *document) removeIn(parent any, store func(any), key string) (any, error) {
	c, ok := parent.([]any)
	if !ok {
		m := parent.(map[string]any)
		v, found := m[key]
		if !found {
			//lint:ignore ST1005 json-patch v4's wording, which the real server answers with
			return nil, fmt.Errorf("Unable to remove nonexistent key: %s: missing value", key)
		}
		delete(m, key)
		return v, nil
	}
	i, err := v4Index(key, len(c))
	if err != nil {
		return nil, err
	}
	if err := d.shift(len(c) - 1 - i); err != nil {
		return nil, err
	}
	v := c[i]
	copy(c[i:], c[i+1:])
	c[len(c)-1] = nil // drop the reference the backing array still holds
	store(c[:len(c)-1])
	return v, nil
}

// checkDepth refuses a value of the given depth (see depthOf) that would
// nest deeper than maxDepth once it sits at p. Without it, repeated patches
// could each nest a document a little deeper until walking it exhausts the
// stack.
func checkDepth(p pointer, depth int) error {
	if len(p)+depth > maxDepth {
		return notApplicablef("the result would nest objects and arrays deeper than %d levels", maxDepth)
	}
	return nil
}

// measure walks a value already in the document, charging each value it
// visits to the budget, and returns its depth (see depthOf). The recursion
// is bounded by the document's maxDepth invariant.
func (d *document) measure(v any) (int, error) {
	d.copyBudget--
	if d.copyBudget < 0 {
		return 0, tooLargef("the patch copies (or moves deeper) more than %d values in all", maxCopiedValues)
	}
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			de, err := d.measure(e)
			if err != nil {
				return 0, err
			}
			deepest = max(deepest, de)
		}
	case []any:
		for _, e := range v {
			de, err := d.measure(e)
			if err != nil {
				return 0, err
			}
			deepest = max(deepest, de)
		}
	default:
		return 0, nil
	}
	return deepest + 1, nil
}
