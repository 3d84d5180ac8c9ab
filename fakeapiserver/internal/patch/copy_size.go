package patch

import "encoding/json"

// maxCopiedBytes is how much one JSON patch may grow a document through
// "copy" operations, counted as the JSON size of every value copied:
// kube-apiserver's --json-patch-max-copy-bytes default (3 MiB, twice
// etcd's 1.5 MiB request limit), checked the same way by the json-patch
// module it uses. The value count budget (maxCopiedValues) does not see
// this: copying one long string is one value, and strings are shared, not
// copied, so four thousand copies of a 1 MiB annotation cost nothing here
// and four gigabytes when the result is encoded.
const maxCopiedBytes = 3 << 20

// chargeCopy charges the JSON size of a value about to be copied to the
// patch's copy-size budget. The error is ErrNotApplicable, as
// kube-apiserver answers it (422), worded as the json-patch module words it.
func (d *document) chargeCopy(v any) error {
	d.copiedBytes += jsonSize(v, maxCopiedBytes-d.copiedBytes+1)
	if d.copiedBytes > maxCopiedBytes {
		return notApplicablef("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d",
			d.copiedBytes, maxCopiedBytes)
	}
	return nil
}

// jsonSize is the length of v encoded as compact JSON, or a number above
// limit once the walk has seen that much (so a huge value is not walked to
// the end). String escapes are counted as one byte each but for control
// characters, quotes and backslashes, close enough for a budget.
func jsonSize(v any, limit int64) int64 {
	switch x := v.(type) {
	case nil:
		return 4
	case bool:
		if x {
			return 4
		}
		return 5
	case json.Number:
		return int64(len(x))
	case string:
		return stringSize(x)
	case []any:
		n := int64(2 + max(len(x)-1, 0))
		for _, e := range x {
			if n > limit {
				break
			}
			n += jsonSize(e, limit-n)
		}
		return n
	case map[string]any:
		n := int64(2 + max(len(x)-1, 0))
		for k, e := range x {
			if n > limit {
				break
			}
			n += stringSize(k) + 1 + jsonSize(e, limit-n)
		}
		return n
	}
	return 0 // float64 and the like never reach a decoded document
}

// stringSize is the length of s as a JSON string, quotes included.
func stringSize(s string) int64 {
	n := int64(len(s) + 2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			n++
		case c < 0x20:
			n += 5 // \u00XX
		}
	}
	return n
}
