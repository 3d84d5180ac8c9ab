package patch

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// StrategicMergePatch applies a Kubernetes strategic merge patch (Content-Type
// application/strategic-merge-patch+json) to doc and returns the patched
// object.
//
// It is a merge patch (see MergePatch), except for lists: a list whose path
// is declared in mergeKeys is merged element by element (containers by name,
// conditions by type, finalizers as a set) instead of being replaced, and
// the patch may carry these directives:
//
//	{"$patch": "delete", "name": "x"}     in a keyed list: remove the element named x
//	{"$patch": "replace"}                 in a list: the other patch elements replace the list
//	"$patch": "replace"                   in an object: the object is replaced, not merged
//	"$patch": "delete"                    in an object: the object becomes {}
//	"$deleteFromPrimitiveList/<f>": [..]  remove these values from the primitive list f
//	"$setElementOrder/<f>": [..]          the order the list f should end up in
//	"$retainKeys": [..]                   drop every field of this object not listed
//
// The order of a merged list follows Kubernetes: elements named in the
// patch (or in $setElementOrder) come in the patch's order, the others keep
// theirs, and an element the patch adds without a $setElementOrder comes
// before the untouched ones. A merged list given as [] in the patch is left
// as it is; send null or $patch: replace to empty it.
//
// doc is never modified; the result shares no map or slice with it. A nil
// mergeKeys merges no list by key, so only the directives differ from
// MergePatch.
func StrategicMergePatch(doc map[string]any, patch []byte, mergeKeys MergeKeys) (map[string]any, error) {
	p, err := decodeJSON("strategic merge patch", patch)
	if err != nil {
		return nil, err
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, malformedf("strategic merge patch: the body must be a JSON object, not %s", jsonType(p))
	}
	out, err := copyObject(doc)
	if err != nil {
		return nil, err
	}
	result, err := strategicMerger{keys: mergeKeys}.mergeMap(out, pm, "")
	if err != nil {
		return nil, fmt.Errorf("strategic merge patch: %w", err)
	}
	return result, nil
}

// The directive names, spelled as in k8s.io/apimachinery's strategicpatch.
const (
	directiveMarker               = "$patch"
	retainKeysDirective           = "$retainKeys"
	setElementOrderPrefix         = "$setElementOrder/"
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/"
)

// isDirective reports whether a patch key is a directive rather than a field.
func isDirective(key string) bool {
	return key == directiveMarker || key == retainKeysDirective ||
		strings.HasPrefix(key, setElementOrderPrefix) ||
		strings.HasPrefix(key, deleteFromPrimitiveListPrefix)
}

// strategicMerger carries the schema stand-in through the recursion.
type strategicMerger struct {
	keys MergeKeys
}

// mergeMap merges the patch object into original, the object at path.
// original belongs to the caller's private copy and is changed in place; nil
// means the field is absent (or was not an object), and the patch is then
// merged into an empty object, which drops its nulls and directives.
// The recursion follows the patch, which encoding/json has limited to
// maxDepth levels.
func (s strategicMerger) mergeMap(original, patch map[string]any, path string) (map[string]any, error) {
	if d, ok := patch[directiveMarker]; ok {
		switch d {
		case "replace":
			return s.mergeFields(map[string]any{}, patch, path)
		case "delete":
			return map[string]any{}, nil
		default:
			return nil, &UnknownDirectiveError{Path: where(path), Directive: d, Map: patch}
		}
	}
	if original == nil {
		original = map[string]any{}
	}
	return s.mergeFields(original, patch, path)
}

// mergeFields does the work of mergeMap once "$patch" has been dealt with:
// first $retainKeys, then $deleteFromPrimitiveList, then the fields, then
// $setElementOrder for lists the patch reorders without changing. Keys are
// visited in sorted order so that, of several errors, the same one is
// reported every time.
func (s strategicMerger) mergeFields(original, patch map[string]any, path string) (map[string]any, error) {
	if err := applyRetainKeys(original, patch, path); err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(patch))
	for _, k := range keys {
		if field, ok := strings.CutPrefix(k, deleteFromPrimitiveListPrefix); ok {
			if err := deleteFromPrimitiveList(original, field, patch[k], join(path, field)); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range keys {
		if isDirective(k) {
			continue
		}
		if err := s.mergeField(original, patch, k, path); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		field, ok := strings.CutPrefix(k, setElementOrderPrefix)
		if !ok {
			continue
		}
		if _, inPatch := patch[field]; inPatch {
			continue // already ordered while merging the field
		}
		if err := s.reorder(original, field, patch, join(path, field)); err != nil {
			return nil, err
		}
	}
	return original, nil
}

// mergeField merges patch[k] into original[k].
func (s strategicMerger) mergeField(original, patch map[string]any, k, path string) error {
	child := join(path, k)
	switch pv := patch[k].(type) {
	case nil:
		delete(original, k) // null deletes, as in a merge patch
	case map[string]any:
		om, _ := original[k].(map[string]any) // nil if absent or not an object
		merged, err := s.mergeMap(om, pv, child)
		if err != nil {
			return err
		}
		original[k] = merged
	case []any:
		order, err := elementOrder(patch, k, child)
		if err != nil {
			return err
		}
		ol, _ := original[k].([]any) // nil if absent or not a list
		merged, err := s.mergeList(ol, pv, child, order)
		if err != nil {
			return err
		}
		original[k] = merged
	default:
		original[k] = pv
	}
	return nil
}

// reorder applies a $setElementOrder whose list the patch does not change.
// Only merged lists are reordered; for any other list, or a missing one, the
// directive has nothing to act on.
func (s strategicMerger) reorder(original map[string]any, field string, patch map[string]any, path string) error {
	order, err := elementOrder(patch, field, path)
	if err != nil {
		return err
	}
	list, isList := original[field].([]any)
	if _, declared := s.keys[path]; !declared || !isList {
		return nil
	}
	reordered, err := s.mergeList(list, nil, path, order)
	if err != nil {
		return err
	}
	original[field] = reordered
	return nil
}

// elementOrder returns the $setElementOrder list given for field, or nil.
func elementOrder(patch map[string]any, field, path string) ([]any, error) {
	v, ok := patch[setElementOrderPrefix+field]
	if !ok {
		return nil, nil
	}
	order, ok := v.([]any)
	if !ok {
		return nil, malformedf("%s: %s%s must be a list, not %s", where(path), setElementOrderPrefix, field, jsonType(v))
	}
	return order, nil
}

// applyRetainKeys honours "$retainKeys": every field of original that is
// not listed is dropped, and every field the patch sets must be listed.
// kubectl apply sends it for fields declared with the retainKeys strategy
// (a volume's source, say), so that switching from one kind of source to
// another does not leave the old one behind.
func applyRetainKeys(original, patch map[string]any, path string) error {
	v, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return malformedf("%s: $retainKeys must be a list of field names, not %s", where(path), jsonType(v))
	}
	retain := make(map[string]bool, len(list))
	for _, name := range list {
		s, ok := name.(string)
		if !ok {
			return malformedf("%s: $retainKeys must list field names, but holds %s", where(path), jsonType(name))
		}
		retain[s] = true
	}
	for k, pv := range patch {
		if pv != nil && !isDirective(k) && !retain[k] {
			return malformedf("%s: the patch sets %q, which $retainKeys does not list", where(path), k)
		}
	}
	for k := range original {
		if !retain[k] {
			delete(original, k)
		}
	}
	return nil
}

// deleteFromPrimitiveList honours "$deleteFromPrimitiveList/<field>": every
// value it lists is removed from the list original[field]. kubectl sends it
// for a set-merged list (finalizers) when a value was removed from the
// manifest, since a set merge alone can only add.
func deleteFromPrimitiveList(original map[string]any, field string, v any, path string) error {
	values, ok := v.([]any)
	if !ok {
		return malformedf("%s: %s%s must be a list, not %s", where(path), deleteFromPrimitiveListPrefix, field, jsonType(v))
	}
	remove := make(map[string]bool, len(values))
	for i, value := range values {
		key, ok := scalarKey(value)
		if !ok {
			return malformedf("%s: %s%s must list strings or numbers, but element %d is %s",
				where(path), deleteFromPrimitiveListPrefix, field, i, jsonType(value))
		}
		remove[key] = true
	}
	list, ok := original[field].([]any)
	if !ok {
		return nil // nothing to delete from
	}
	kept := make([]any, 0, len(list))
	for _, e := range list {
		if key, ok := scalarKey(e); ok && remove[key] {
			continue
		}
		kept = append(kept, e)
	}
	original[field] = kept
	return nil
}

// join appends a field name to a dotted path.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// where names a path in messages.
func where(path string) string {
	if path == "" {
		return "the top-level object"
	}
	return path
}
