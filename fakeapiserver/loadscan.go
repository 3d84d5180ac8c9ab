package fakeapiserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Load's reading of an object (load.go): everything it needs, found in one
// pass over the bytes, without decoding the object. Decoding a 4 KB pod into
// a map and encoding it again costs about a hundred times more than finding
// its name, labels and selectable fields, and Load exists to take a million
// of them quickly. A reader who wants to know how the server reads a request
// body should read jsonobj.go (decodeObject) instead: this file is Load's
// fast path only.

// loadView is what Load reads from an object's bytes.
type loadView struct {
	// obj is a partial object the registry's helpers read as they read a
	// decoded one: the scalar members of the top level (kind, apiVersion),
	// the members of top-level objects that loadWant names if they are
	// scalars (metadata.name, spec.nodeName, status.phase: every
	// selectable field of a built-in kind is one), and metadata.labels (a
	// map[string]string of its string members). Nothing else.
	obj map[string]any
	// metaOpen is the offset of the '{' of metadata; metaEmpty: it has no
	// member.
	metaOpen  int
	metaEmpty bool
	// rvStart and rvEnd delimit the value of metadata.resourceVersion
	// (rvStart < 0: there is none).
	rvStart, rvEnd int
}

// maxScanDepth is encoding/json's nesting limit, so that Load accepts what
// a create would.
const maxScanDepth = 10000

var errScanEnd = errors.New("unexpected end of JSON input")

// loadWant names the members of top-level objects Load reads: by the
// top-level key, the set of member names.
type loadWant map[string]map[string]bool

// loadWanted is what Load reads of an object of r: its name, namespace and
// uid, and its selectable fields.
func loadWanted(r *resource) loadWant {
	want := loadWant{"metadata": {"name": true, "namespace": true, "uid": true}}
	for _, path := range r.Fields {
		if top, member, ok := strings.Cut(path, "."); ok && !strings.Contains(member, ".") {
			if want[top] == nil {
				want[top] = map[string]bool{}
			}
			want[top][member] = true
		}
	}
	return want
}

// scanLoaded reads one JSON object as Load needs it, checking the syntax of
// all of it: what Load stores, a watch frame carries as it is.
func scanLoaded(b []byte, want loadWant) (loadView, error) {
	v := loadView{obj: map[string]any{}, metaOpen: -1, rvStart: -1}
	sc := scanner{b: b}
	sc.space()
	if sc.i >= len(b) {
		return v, errScanEnd
	}
	if b[sc.i] != '{' {
		return v, fmt.Errorf("expected a JSON object, got %q at offset %d", b[sc.i], sc.i)
	}
	err := sc.members(func(k []byte) error {
		key := string(k) // kept only where it is stored
		switch {
		case sc.peek() == '{' && string(k) == "metadata":
			v.metaOpen, v.rvStart = sc.i, -1 // a repeated metadata replaces the first
			m, empty, err := sc.scalars(&v, want[key], true)
			v.obj[key], v.metaEmpty = m, empty
			return err
		case sc.peek() == '{' && want[string(k)] != nil:
			m, _, err := sc.scalars(&v, want[string(k)], false)
			v.obj[key] = m
			return err
		case sc.peek() == '{' || sc.peek() == '[':
			delete(v.obj, string(k)) // a repeated key replaces the first
			return sc.value(1)
		default:
			val, _, err := sc.scalar(1)
			v.obj[key] = val
			return err
		}
	})
	if err != nil {
		return v, err
	}
	sc.space()
	if sc.i != len(b) {
		return v, fmt.Errorf("invalid character %q after top-level value at offset %d", b[sc.i], sc.i)
	}
	return v, nil
}

// scalars reads an object of the top level, keeping the scalar members
// want names (and for metadata, labels and where resourceVersion is).
func (sc *scanner) scalars(v *loadView, want map[string]bool, metadata bool) (map[string]any, bool, error) {
	m := map[string]any{}
	empty := true
	err := sc.members(func(key []byte) error {
		empty = false
		start := sc.i
		isRV := metadata && string(key) == "resourceVersion"
		if metadata && string(key) == "labels" && sc.peek() == '{' {
			labels, err := sc.labels()
			m["labels"] = labels
			return err
		}
		if !want[string(key)] && !isRV {
			delete(m, string(key)) // a repeated key replaces the first
			return sc.value(2)
		}
		val, ok, err := sc.scalar(2)
		if ok {
			m[string(key)] = val
		} else {
			delete(m, string(key))
		}
		if isRV {
			v.rvStart, v.rvEnd = start, sc.i
		}
		return err
	})
	return m, empty, err
}

// labels reads metadata.labels: its string members (stringMap keeps no
// other kind).
func (sc *scanner) labels() (map[string]string, error) {
	labels := map[string]string{}
	err := sc.members(func(key []byte) error {
		start := sc.i
		if sc.peek() != '"' {
			delete(labels, string(key))
			return sc.value(3)
		}
		escaped, err := sc.str()
		if err != nil {
			return err
		}
		val, err := unquote(sc.b[start:sc.i], escaped)
		labels[string(key)] = val
		return err
	})
	return labels, err
}

// scanner steps through JSON, checking it as encoding/json's scanner does.
type scanner struct {
	b []byte
	i int
}

func (sc *scanner) space() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// peek is the next byte that is not space (0 at the end).
func (sc *scanner) peek() byte {
	sc.space()
	if sc.i < len(sc.b) {
		return sc.b[sc.i]
	}
	return 0
}

func (sc *scanner) syntax(what string) error {
	if sc.i >= len(sc.b) {
		return errScanEnd
	}
	return fmt.Errorf("invalid character %q %s at offset %d", sc.b[sc.i], what, sc.i)
}

// members reads an object at sc.i ('{'), calling member with each key
// (unquoted, valid only during the call) once sc.i is at its value; member
// must step over the value.
func (sc *scanner) members(member func(key []byte) error) error {
	sc.i++ // '{'
	if sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		if sc.peek() != '"' {
			return sc.syntax("looking for beginning of object key string")
		}
		start := sc.i
		escaped, err := sc.str()
		if err != nil {
			return err
		}
		key := sc.b[start+1 : sc.i-1]
		if escaped {
			s, err := unquote(sc.b[start:sc.i], escaped)
			if err != nil {
				return err
			}
			key = []byte(s)
		}
		if sc.peek() != ':' {
			return sc.syntax("after object key")
		}
		sc.i++
		sc.space()
		if err := member(key); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.syntax("after object key:value pair")
		}
	}
}

// scalar reads the value at sc.i and returns it decoded if it is a scalar
// (a string, a number as json.Number, a bool, null); an object or an array
// is stepped over (ok false).
func (sc *scanner) scalar(depth int) (any, bool, error) {
	start := sc.i
	switch sc.peek() {
	case '{', '[':
		return nil, false, sc.value(depth)
	case '"':
		escaped, err := sc.str()
		if err != nil {
			return nil, false, err
		}
		s, err := unquote(sc.b[start:sc.i], escaped)
		return s, err == nil, err
	}
	if err := sc.value(depth); err != nil {
		return nil, false, err
	}
	switch lit := sc.b[start:sc.i]; lit[0] {
	case 't':
		return true, true, nil
	case 'f':
		return false, true, nil
	case 'n':
		return nil, true, nil
	default:
		return json.Number(lit), true, nil
	}
}

// value steps over one value, checking its syntax.
func (sc *scanner) value(depth int) error {
	if depth > maxScanDepth {
		return errors.New("exceeded max depth")
	}
	switch c := sc.peek(); {
	case c == '{':
		return sc.skipObject(depth)
	case c == '[':
		sc.i++
		if sc.peek() == ']' {
			sc.i++
			return nil
		}
		for {
			if err := sc.value(depth + 1); err != nil {
				return err
			}
			switch sc.peek() {
			case ',':
				sc.i++
			case ']':
				sc.i++
				return nil
			default:
				return sc.syntax("after array element")
			}
		}
	case c == '"':
		_, err := sc.str()
		return err
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return sc.number()
	}
	return sc.syntax("looking for beginning of value")
}

// skipObject steps over an object at sc.i ('{'): members without the
// callback, for the objects nobody reads (most of a pod).
func (sc *scanner) skipObject(depth int) error {
	sc.i++ // '{'
	if sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		if sc.peek() != '"' {
			return sc.syntax("looking for beginning of object key string")
		}
		if _, err := sc.str(); err != nil {
			return err
		}
		if sc.peek() != ':' {
			return sc.syntax("after object key")
		}
		sc.i++
		if err := sc.value(depth + 1); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.syntax("after object key:value pair")
		}
	}
}

func (sc *scanner) literal(lit string) error {
	if !bytes.HasPrefix(sc.b[sc.i:], []byte(lit)) {
		for j := 0; j < len(lit) && sc.i < len(sc.b) && sc.b[sc.i] == lit[j]; j++ {
			sc.i++
		}
		return sc.syntax("in literal " + lit)
	}
	sc.i += len(lit)
	return nil
}

// number steps over a number as JSON's grammar has it.
func (sc *scanner) number() error {
	b := sc.b
	digits := func() int {
		n := 0
		for sc.i < len(b) && b[sc.i] >= '0' && b[sc.i] <= '9' {
			sc.i++
			n++
		}
		return n
	}
	if b[sc.i] == '-' {
		sc.i++
	}
	switch {
	case sc.i < len(b) && b[sc.i] == '0':
		sc.i++
	case digits() == 0:
		return sc.syntax("in numeric literal")
	}
	if sc.i < len(b) && b[sc.i] == '.' {
		sc.i++
		if digits() == 0 {
			return sc.syntax("after decimal point in numeric literal")
		}
	}
	if sc.i < len(b) && (b[sc.i] == 'e' || b[sc.i] == 'E') {
		sc.i++
		if sc.i < len(b) && (b[sc.i] == '+' || b[sc.i] == '-') {
			sc.i++
		}
		if digits() == 0 {
			return sc.syntax("in exponent of numeric literal")
		}
	}
	return nil
}

// str steps over a string at sc.i ('"'), and says whether it has escapes.
func (sc *scanner) str() (escaped bool, err error) {
	b := sc.b
	sc.i++
	for sc.i < len(b) {
		// Most of an object is strings without escapes: eight bytes at a
		// time while none of them needs a look.
		for sc.i+8 <= len(b) && !strNeedsLook(binary.LittleEndian.Uint64(b[sc.i:])) {
			sc.i += 8
		}
		if sc.i >= len(b) {
			break
		}
		c := b[sc.i]
		switch {
		case c == '"':
			sc.i++
			return escaped, nil
		case c < 0x20:
			return escaped, sc.syntax("in string literal")
		case c == '\\':
			escaped = true
			sc.i++
			if sc.i >= len(b) {
				return escaped, errScanEnd
			}
			switch b[sc.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i++
			case 'u':
				sc.i++
				for range 4 {
					if sc.i >= len(b) {
						return escaped, errScanEnd
					}
					if !isHex(b[sc.i]) {
						return escaped, sc.syntax("in \\u hexadecimal character escape")
					}
					sc.i++
				}
			default:
				return escaped, sc.syntax("in string escape code")
			}
		default:
			sc.i++
		}
	}
	return escaped, errScanEnd
}

// strNeedsLook reports whether any of the eight bytes in w is a quote, a
// backslash or a control character (the classic tests for "a byte below n"
// and "a byte equal to c" in a word: exact for whether any byte matches).
func strNeedsLook(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (w - ones*0x20) & ^w
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return (control | (quote-ones) & ^quote | (backslash-ones) & ^backslash)&highs != 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote is the string a quoted JSON string holds.
func unquote(q []byte, escaped bool) (string, error) {
	if !escaped {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// stampLoaded returns a copy of raw with metadata.resourceVersion set to rv.
func stampLoaded(raw []byte, v *loadView, rv uint64) []byte {
	q := strconv.AppendQuote(make([]byte, 0, 24), strconv.FormatUint(rv, 10))
	if v.rvStart >= 0 {
		out := make([]byte, 0, len(raw)-(v.rvEnd-v.rvStart)+len(q))
		out = append(out, raw[:v.rvStart]...)
		out = append(out, q...)
		return append(out, raw[v.rvEnd:]...)
	}
	at := v.metaOpen + 1
	member := append([]byte(`"resourceVersion":`), q...)
	if !v.metaEmpty {
		member = append(member, ',')
	}
	out := make([]byte, 0, len(raw)+len(member))
	out = append(out, raw[:at]...)
	out = append(out, member...)
	return append(out, raw[at:]...)
}
