package patch

// document is the value a JSON patch works on: a private copy of the
// caller's object, changed in place operation by operation. root is "any"
// because RFC 6902 lets an operation replace the whole document (path "");
// JSONPatch checks at the end that the result is still an object.
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

// step goes from container to its child named token. It also returns a
// function that stores a new value for that child: inserting into or
// removing from an array changes its slice header (the length, and the
// backing array when append grows it), which must be written back into the
// container that holds the array. at is the pointer up to and including
// token, for messages.
func step(container any, token string, at pointer) (child any, store func(any), err error) {
	switch c := container.(type) {
	case map[string]any:
		v, ok := c[token]
		if !ok {
			return nil, nil, notApplicablef("%q does not exist", at.String())
		}
		return v, func(nv any) { c[token] = nv }, nil
	case []any:
		i, err := arrayIndex(token, len(c), false, at[:len(at)-1])
		if err != nil {
			return nil, nil, err
		}
		return c[i], func(nv any) { c[i] = nv }, nil
	default:
		return nil, nil, notApplicablef("%q is %s, not an object or array, so it has no %q",
			at[:len(at)-1].String(), jsonType(container), token)
	}
}

// get returns the value p points at.
func (d *document) get(p pointer) (any, error) {
	cur := d.root
	for i, token := range p {
		next, _, err := step(cur, token, p[:i+1])
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// parentOf returns the container holding p's last token, and the function
// that replaces that container inside its own parent. p must not be empty.
func (d *document) parentOf(p pointer) (parent any, store func(any), err error) {
	parent, store = d.root, func(nv any) { d.root = nv }
	for i, token := range p[:len(p)-1] {
		if parent, store, err = step(parent, token, p[:i+1]); err != nil {
			return nil, nil, err
		}
	}
	return parent, store, nil
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

// add is RFC 6902 §4.1: set an object member (creating or replacing it) or
// insert into an array, shifting later elements up. The parent must exist.
//
// The caller has checked the value's depth.
func (d *document) add(p pointer, v any) error {
	if len(p) == 0 {
		d.root = v
		return nil
	}
	parent, store, err := d.parentOf(p)
	if err != nil {
		return err
	}
	last, at := p[len(p)-1], p[:len(p)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = v
	case []any:
		i, err := arrayIndex(last, len(c), true, at)
		if err != nil {
			return err
		}
		if err := d.shift(len(c) - i); err != nil {
			return err
		}
		c = append(c, nil) // in place: the slice is ours alone
		copy(c[i+1:], c[i:])
		c[i] = v
		store(c)
	default:
		return notApplicablef("%q is %s, not an object or array, so nothing can be added to it", at.String(), jsonType(parent))
	}
	return nil
}

// remove is RFC 6902 §4.2: the target must exist; array elements after it
// shift down. It returns the removed value (move needs it).
func (d *document) remove(p pointer) (any, error) {
	if len(p) == 0 {
		return nil, notApplicablef("the whole document cannot be removed")
	}
	parent, store, err := d.parentOf(p)
	if err != nil {
		return nil, err
	}
	last, at := p[len(p)-1], p[:len(p)-1]
	switch c := parent.(type) {
	case map[string]any:
		v, ok := c[last]
		if !ok {
			return nil, notApplicablef("%q does not exist", p.String())
		}
		delete(c, last)
		return v, nil
	case []any:
		i, err := arrayIndex(last, len(c), false, at)
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
	default:
		return nil, notApplicablef("%q is %s, not an object or array, so it has no %q", at.String(), jsonType(parent), last)
	}
}

// replace is RFC 6902 §4.3: like remove then add, but the target must exist
// and an array keeps its length. The caller has checked the value's depth.
func (d *document) replace(p pointer, v any) error {
	if len(p) == 0 {
		d.root = v
		return nil
	}
	parent, _, err := d.parentOf(p)
	if err != nil {
		return err
	}
	_, store, err := step(parent, p[len(p)-1], p)
	if err != nil {
		return err
	}
	store(v)
	return nil
}
