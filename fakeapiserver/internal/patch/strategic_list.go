package patch

import (
	"cmp"
	"fmt"
	"slices"
)

// mergeList merges the patch list into original, the list at path (nil if
// the field is absent or not a list). order is the $setElementOrder given for
// it, or nil. How depends on what mergeKeys declares for path:
//
//   - nothing: the patch list replaces the original, as in a merge patch;
//   - MergeAsSet: a set union of primitives (mergeSet);
//   - a field name: element-by-element merge keyed by that field (mergeByKey).
func (s strategicMerger) mergeList(original, patch []any, path string, order []any) ([]any, error) {
	key, declared := s.keys[path]
	switch {
	case !declared:
		return replaceList(patch, path)
	case key == MergeAsSet:
		return mergeSet(original, patch, path, order)
	default:
		return s.mergeByKey(original, patch, path, key, order)
	}
}

// replaceList is the merge-patch rule for a list nobody declared mergeable:
// the patch's list, verbatim. A {"$patch": "replace"} element asks for just
// that and is dropped; any other directive element needs a merge key this
// list does not have.
func replaceList(patch []any, path string) ([]any, error) {
	out := make([]any, 0, len(patch))
	for i, e := range patch {
		if m, ok := e.(map[string]any); ok {
			if d, special := m[directiveMarker]; special {
				if d == "replace" {
					continue
				}
				return nil, notApplicablef(`%s: element %d is a "$patch": %s directive, but this list is not merged by key (it has no entry in MergeKeys), so it is replaced whole`,
					path, i, brief(d))
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// listItem is one element of a merged list while its order is worked out.
type listItem struct {
	value    any
	origPos  int // position in the original list; -1 if the patch added it
	orderPos int // position in the patch's order; -1 if the patch does not name it
}

// mergeSet merges a list of primitives as a set (metadata.finalizers): the
// original values, then the patch's new values, each value once. A
// {"$patch": "replace"} element makes the patch's values replace the list.
func mergeSet(original, patch []any, path string, order []any) ([]any, error) {
	var values []any
	replace := false
	for i, e := range patch {
		if m, ok := e.(map[string]any); ok && len(m) == 1 && m[directiveMarker] == "replace" {
			replace = true
			continue
		}
		if _, ok := scalarKey(e); !ok {
			return nil, malformedf("%s is merged as a set of primitives, but element %d of the patch is %s", path, i, jsonType(e))
		}
		values = append(values, e)
	}
	if replace {
		return values, nil
	}

	var items []listItem
	index := map[string]int{} // scalarKey -> position in items
	add := func(v any, origPos int) {
		key, _ := scalarKey(v)
		if _, dup := index[key]; !dup {
			index[key] = len(items)
			items = append(items, listItem{value: v, origPos: origPos, orderPos: -1})
		}
	}
	for i, e := range original {
		if _, ok := scalarKey(e); !ok {
			return nil, notApplicablef("%s is merged as a set of primitives, but the object's element %d is %s", path, i, jsonType(e))
		}
		add(e, i)
	}
	for _, v := range values {
		add(v, -1)
	}
	if order == nil {
		order = values
	}
	orderKeys := make([]string, len(order))
	for i, e := range order {
		key, ok := scalarKey(e)
		if !ok {
			return nil, malformedf("%s: element %d of its $setElementOrder is %s, not a string or number", path, i, jsonType(e))
		}
		orderKeys[i] = key
	}
	patchKeys := make([]string, len(values))
	for i, v := range values {
		patchKeys[i], _ = scalarKey(v)
	}
	if err := checkOrder(patchKeys, orderKeys, path); err != nil {
		return nil, err
	}
	return sortItems(items, index, orderKeys), nil
}

// mergeByKey merges a list of objects element by element, matching them by
// the field key (a container's "name"). First the patch's special elements:
// {"$patch": "delete", key: k} removes the elements whose key is k, and
// {"$patch": "replace"} makes the other patch elements replace the list.
// Then each other patch element is merged into the original element with the
// same key (recursively, so the container's env is merged by name in turn),
// or added if there is none.
func (s strategicMerger) mergeByKey(original, patch []any, path, key string, order []any) ([]any, error) {
	regular, deleted, replace, err := splitSpecialElements(patch, path, key)
	if err != nil {
		return nil, err
	}
	if replace {
		out := make([]any, 0, len(regular))
		for _, e := range regular {
			merged, err := s.mergeMap(nil, e.value, path)
			if err != nil {
				return nil, err
			}
			out = append(out, merged)
		}
		return out, nil
	}

	var items []listItem
	index := map[string]int{} // merge key -> position in items
	for i, e := range original {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, notApplicablef("%s is merged by %q, but the object's element %d is %s, not an object", path, key, i, jsonType(e))
		}
		// An element without a usable key is kept but can never be matched.
		if k, ok := elementKey(m, key); ok {
			if deleted[k] {
				continue
			}
			if _, dup := index[k]; !dup { // with duplicates, the first one is matched
				index[k] = len(items)
			}
		}
		items = append(items, listItem{value: m, origPos: i, orderPos: -1})
	}
	patchKeys := make([]string, len(regular))
	for i, e := range regular {
		patchKeys[i] = e.key
		pos, found := index[e.key]
		var target map[string]any // nil: an element the patch adds
		if found {
			target = items[pos].value.(map[string]any)
		}
		merged, err := s.mergeMap(target, e.value, path)
		if err != nil {
			return nil, err
		}
		if found {
			items[pos].value = merged
			continue
		}
		index[e.key] = len(items)
		items = append(items, listItem{value: merged, origPos: -1, orderPos: -1})
	}
	orderKeys := patchKeys
	if order != nil {
		if orderKeys, err = setElementOrderKeys(order, path, key); err != nil {
			return nil, err
		}
	}
	if err := checkOrder(patchKeys, orderKeys, path); err != nil {
		return nil, err
	}
	return sortItems(items, index, orderKeys), nil
}

// keyedElement is a patch element with the lookup key of its merge key.
type keyedElement struct {
	value map[string]any
	key   string
}

// splitSpecialElements sorts a keyed patch list into its regular elements
// and its directives: the keys "$patch": "delete" elements name, and whether
// a "$patch": "replace" element is present.
func splitSpecialElements(patch []any, path, key string) (regular []keyedElement, deleted map[string]bool, replace bool, err error) {
	deleted = map[string]bool{}
	for i, e := range patch {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, nil, false, malformedf("%s is merged by %q, but element %d of the patch is %s, not an object", path, key, i, jsonType(e))
		}
		d, special := m[directiveMarker]
		switch {
		case !special || d == "delete":
			k, err := mergeKeyOf(m, key, path, fmt.Sprintf("element %d of the patch", i))
			if err != nil {
				return nil, nil, false, err
			}
			if special {
				deleted[k] = true
			} else {
				regular = append(regular, keyedElement{value: m, key: k})
			}
		case d == "replace":
			replace = true
		case d == "merge":
			return nil, nil, false, malformedf(`%s: element %d: "$patch": "merge" is not supported in a list (Kubernetes refuses it too)`, path, i)
		default:
			return nil, nil, false, &UnknownDirectiveError{Path: fmt.Sprintf("%s: element %d", path, i), Directive: d, Map: m, InList: true}
		}
	}
	return regular, deleted, replace, nil
}

// setElementOrderKeys returns the lookup keys of a keyed list's
// $setElementOrder, a list of objects holding just the merge key.
func setElementOrderKeys(order []any, path, key string) ([]string, error) {
	keys := make([]string, len(order))
	for i, e := range order {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, malformedf("%s: element %d of its $setElementOrder is %s, not an object", path, i, jsonType(e))
		}
		k, err := mergeKeyOf(m, key, path, fmt.Sprintf("element %d of its $setElementOrder", i))
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// elementKey returns the lookup key of a stored element's merge key value,
// if it has one that is a string or number.
func elementKey(m map[string]any, key string) (string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", false
	}
	return scalarKey(v)
}

// mergeKeyOf returns the lookup key of a patch element's merge key value,
// which must be present and a string or number. what names the element.
func mergeKeyOf(m map[string]any, key, path, what string) (string, error) {
	v, ok := m[key]
	if !ok {
		return "", malformedf("%s: %s has no merge key %q", path, what, key)
	}
	k, ok := scalarKey(v)
	if !ok || v == nil {
		return "", malformedf("%s: %s has %s as its merge key %q; want a string or number", path, what, jsonType(v), key)
	}
	return k, nil
}

// checkOrder makes sure a $setElementOrder names every element the patch
// list names, in the same relative order, as kubectl always sends it.
func checkOrder(patchKeys, orderKeys []string, path string) error {
	pos := make(map[string]int, len(orderKeys))
	for i, k := range orderKeys {
		if _, dup := pos[k]; !dup {
			pos[k] = i
		}
	}
	last := -1
	for i, k := range patchKeys {
		p, ok := pos[k]
		if !ok {
			return malformedf("%s: element %d of the patch is missing from its $setElementOrder", path, i)
		}
		if p < last {
			return malformedf("%s: the patch list and its $setElementOrder order element %d differently", path, i)
		}
		last = p
	}
	return nil
}

// sortItems puts a merged list in the order Kubernetes gives it
// (strategicpatch's normalizeElementOrder and mergeSortedSlice):
//
//  1. the elements the order names (the patch list, or its $setElementOrder)
//     are sorted by the order; the others keep the original list's order;
//  2. the two runs are interleaved: at each step the run of unnamed elements
//     goes first only if its head came before the named run's head in the
//     original list. A newly added element was in no original list, so it
//     wins every comparison: that is why, without a $setElementOrder, a
//     patch that adds a container puts it before the untouched ones.
//
// index maps an element's key to its position in items; elements without a
// key can only be unnamed.
func sortItems(items []listItem, index map[string]int, orderKeys []string) []any {
	for i, k := range orderKeys {
		if pos, ok := index[k]; ok && items[pos].orderPos < 0 {
			items[pos].orderPos = i
		}
	}
	var named, unnamed []listItem
	for _, it := range items {
		if it.orderPos >= 0 {
			named = append(named, it)
		} else {
			unnamed = append(unnamed, it)
		}
	}
	slices.SortStableFunc(named, func(a, b listItem) int { return cmp.Compare(a.orderPos, b.orderPos) })
	// unnamed is already in original order: original elements were appended
	// first, in order, and every added element is named by the patch.
	out := make([]any, 0, len(items))
	i, j := 0, 0
	for i < len(unnamed) || j < len(named) {
		takeUnnamed := j == len(named) ||
			(i < len(unnamed) && unnamed[i].origPos >= 0 && named[j].origPos >= 0 && unnamed[i].origPos < named[j].origPos)
		if takeUnnamed {
			out = append(out, unnamed[i].value)
			i++
		} else {
			out = append(out, named[j].value)
			j++
		}
	}
	return out
}
