package patch

// MergePatch applies an RFC 7386 JSON merge patch (Content-Type
// application/merge-patch+json) to doc and returns the patched object.
//
// A merge patch is a sparse copy of the object: every member it names is
// set to the patch's value, a member set to null is removed, and nested
// objects merge the same way, member by member. Anything that is not an
// object (a string, a number, an array) simply replaces what was there:
// a merge patch cannot change one element of an array, only the whole array.
//
// The patch must be a JSON object, because the result must be one: RFC 7386
// would let a patch like ["c"] replace the whole document by an array, which
// no Kubernetes object can be. doc is never modified; the result shares no
// map or slice with it.
func MergePatch(doc map[string]any, patch []byte) (map[string]any, error) {
	p, err := decodeJSON("merge patch", patch)
	if err != nil {
		return nil, err
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, malformedf("merge patch: the body must be a JSON object, not %s", jsonType(p))
	}
	out, err := copyObject(doc)
	if err != nil {
		return nil, err
	}
	return mergeValue(out, pm).(map[string]any), nil
}

// mergeValue is RFC 7386 §2's MergePatch(Target, Patch) pseudocode, line for
// line. target is owned by the caller (a private copy) and is updated in
// place; patch values are moved into it without copying, because they come
// from a freshly decoded body nobody else holds.
//
// The recursion follows the patch, which encoding/json has limited to
// maxDepth levels.
func mergeValue(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{} // ignore the contents and set it to an empty object
	}
	for name, value := range pm {
		if value == nil {
			delete(tm, name)
			continue
		}
		tm[name] = mergeValue(tm[name], value)
	}
	return tm
}
