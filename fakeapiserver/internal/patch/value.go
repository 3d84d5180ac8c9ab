package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// maxDepth is the deepest nesting of objects and arrays this package accepts,
// the same limit encoding/json enforces while decoding. Every function here
// that recurses does so along a value that is either freshly decoded (so
// encoding/json has already refused anything deeper) or checked against this
// limit first (the caller's document, a value a JSON patch inserts at a deep
// path). So a hostile body cannot grow the stack without bound, not even
// over many requests that each nest a little deeper.
const maxDepth = 10000

// decodeJSON decodes exactly one JSON value from data, keeping numbers as
// json.Number so that "1.50" and large integers survive unchanged. what
// names the patch type in error messages.
func decodeJSON(what string, data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, malformedf("%s: the body is empty", what)
		}
		return nil, malformedf("%s: the body is not valid JSON: %w", what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, malformedf("%s: the body has data after its JSON value", what)
	}
	return v, nil
}

// jsonType names the JSON type of a decoded value, for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	if _, ok := numberString(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a Go %T", v)
}

// copyObject returns a deep copy of doc that shares no map or slice with it.
// The server's stored objects are read by other goroutines, so every patch
// works on such a copy and never writes into the caller's maps. A nil doc
// is treated as the empty object.
func copyObject(doc map[string]any) (map[string]any, error) {
	if doc == nil {
		return map[string]any{}, nil
	}
	c, err := deepCopy(doc, 1)
	if err != nil {
		return nil, err
	}
	return c.(map[string]any), nil
}

// deepCopy copies v, whose outermost container sits at nesting level depth.
// It accepts only what encoding/json produces (plus Go numbers, which tests
// and hand-built documents use) and refuses anything nested deeper than
// maxDepth.
func deepCopy(v any, depth int) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if depth > maxDepth {
			return nil, notApplicablef("the document nests objects and arrays deeper than %d levels", maxDepth)
		}
		m := make(map[string]any, len(v))
		for k, e := range v {
			c, err := deepCopy(e, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		if depth > maxDepth {
			return nil, notApplicablef("the document nests objects and arrays deeper than %d levels", maxDepth)
		}
		s := make([]any, len(v))
		for i, e := range v {
			c, err := deepCopy(e, depth+1)
			if err != nil {
				return nil, err
			}
			s[i] = c
		}
		return s, nil
	case nil, bool, string:
		return v, nil
	}
	if _, ok := numberString(v); ok {
		return v, nil
	}
	return nil, notApplicablef("the document holds a Go %T, which is not a JSON value", v)
}

// depthOf returns how deeply v nests objects and arrays: 0 for a scalar, 1
// for {} or [], 2 for {"a":{}}. Only called on values already known to be at
// most maxDepth deep.
func depthOf(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			deepest = max(deepest, depthOf(e))
		}
	case []any:
		for _, e := range v {
			deepest = max(deepest, depthOf(e))
		}
	default:
		return 0
	}
	return deepest + 1
}

// equalJSON reports whether a and b are the same JSON value, as RFC 6902's
// "test" operation defines it: objects with the same members (in any
// order), arrays with equal elements in the same order, equal strings, equal
// literals, and numbers equal as numbers, so 1, 1.0 and 1e0 are equal.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equalJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	}
	as, aok := numberString(a)
	bs, bok := numberString(b)
	return aok && bok && canonicalNumber(as) == canonicalNumber(bs)
}

// scalarKey returns a string that is equal for two scalars exactly when
// equalJSON says they are equal, so scalars can be looked up in a Go map:
// the merge keys of a strategic merge patch, the members of a set-merged
// list. ok is false for objects and arrays.
func scalarKey(v any) (key string, ok bool) {
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	case nil:
		return "null", true
	case map[string]any, []any:
		return "", false
	}
	if s, ok := numberString(v); ok {
		return "n" + canonicalNumber(s), true
	}
	return "", false
}

// numberString returns the decimal text of a number: json.Number as it came
// off the wire, Go numbers formatted the shortest exact way.
func numberString(v any) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		return string(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32), true
	case int:
		return strconv.FormatInt(int64(v), 10), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint:
		return strconv.FormatUint(uint64(v), 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	}
	return "", false
}

// canonicalNumber rewrites a JSON number as sign, significant digits and a
// power of ten ("1.50" and "15e-1" both become "15e-1", "-0" becomes "0"),
// so that numbers compare by value without ever being rounded to a float64.
// It runs in time linear in the text, even for "1e999999999", which a
// big.Rat would try to expand. Text that is not a JSON number is returned
// marked so it only equals the identical text.
func canonicalNumber(s string) string {
	invalid := "?" + s
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, s := leadingDigits(s)
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return invalid
	}
	frac := ""
	if strings.HasPrefix(s, ".") {
		if frac, s = leadingDigits(s[1:]); frac == "" {
			return invalid
		}
	}
	expSign, expDigits := "", ""
	if strings.HasPrefix(s, "e") || strings.HasPrefix(s, "E") {
		s = s[1:]
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			expSign, s = s[:1], s[1:]
		}
		if expDigits, s = leadingDigits(s); expDigits == "" {
			return invalid
		}
	}
	if s != "" {
		return invalid
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0"
	}
	significant := strings.TrimRight(digits, "0")
	shift := int64(len(digits) - len(significant) - len(frac))
	return sign + significant + "e" + addExponent(expSign, expDigits, shift)
}

// addExponent returns the decimal text of the exponent expSign+expDigits
// plus shift, falling back to big.Int for exponents too long for an int64.
func addExponent(expSign, expDigits string, shift int64) string {
	if expDigits == "" {
		return strconv.FormatInt(shift, 10)
	}
	if len(expDigits) <= 18 {
		e, _ := strconv.ParseInt(expDigits, 10, 64) // at most 18 digits: cannot fail
		if expSign == "-" {
			e = -e
		}
		return strconv.FormatInt(e+shift, 10)
	}
	e, _ := new(big.Int).SetString(expSign+expDigits, 10) // digits only: cannot fail
	return e.Add(e, big.NewInt(shift)).String()
}

// leadingDigits splits s after its leading ASCII digits.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
