// Package onepass decodes JSON into Go values exactly as encoding/json
// does, reading the bytes once.
//
// encoding/json reads every value twice: json.Unmarshal first runs its
// scanner over the whole input to check the syntax, then decodes, and its
// decoder steps the same byte-at-a-time scanner again over everything it
// skips (a json.Decoder's first pass finds the value's end instead of
// checking it, with the same scanner). An API object is mostly skipped: a
// pod sent by a real cluster is about 3.9 KB of JSON, of which api.Pod keeps
// about 1.1 KB; the probes, environment, volumes and tolerations are read
// only to be stepped over. Unmarshal checks the syntax and decodes in the
// same pass, and steps over what it does not keep with a short loop per
// string rather than a state-machine call per byte: on a pod it is several
// times faster (BenchmarkUnmarshalPod).
//
// It is not a new set of rules. When Unmarshal returns nil, the value holds
// exactly what json.Unmarshal would have stored in it (FuzzUnmarshal checks
// this on random inputs, into fresh and into already-filled values):
//   - the same syntax is accepted, up to the same nesting limit;
//   - struct fields are matched by name as encoding/json matches them
//     (exactly, then ignoring case);
//   - slices are reused and truncated, maps filled, pointers allocated and
//     nulls stored as encoding/json does;
//   - a json.Unmarshaler is handed the same bytes.
//
// What it does not do itself it leaves to encoding/json: a value of a rare
// kind ([]byte, json.Number, arrays, an encoding.TextUnmarshaler, an empty
// interface to be filled with maps and slices, an interface holding a
// pointer that cannot be decoded through, a named pointer type to a type
// with decoding methods) is cut out and passed to json.Unmarshal; a type
// whose fields need encoding/json's subtler rules (clashing names, embedded
// pointers, the ",string" option, a tagged unexported embedded struct with
// decoding methods) is decoded by json.Unmarshal as a whole.
//
// When it returns an error, the value may hold part of the input, and the
// error is not worded as encoding/json's. A caller that wants
// encoding/json's message (and its partial results) decodes the same bytes
// with json.Unmarshal into a fresh value; package listwatch does, since a
// malformed object ends the stream and its cost no longer matters.
package onepass

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// Unmarshal decodes data, one JSON value with optional blanks around it,
// into the value v points to. It succeeds exactly when json.Unmarshal(data,
// v) would, with the same result.
func Unmarshal(data []byte, v any) error {
	return unmarshal(data, v, nil)
}

// unmarshal is Unmarshal, with the strings and string maps it stores
// given by dec's Interner when dec is not nil (interning.go).
func unmarshal(data []byte, v any, dec *Decoder) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(data, v) // its InvalidUnmarshalError
	}
	// The plan of v's pointer type: kindPointer unless the type decodes
	// itself (encoding/json would hand it the whole input) or has rules
	// only encoding/json follows.
	p := planFor(rv.Type())
	if p == nil || p.kind != kindPointer {
		return json.Unmarshal(data, v)
	}
	d := decodeState{data: data, dec: dec}
	if err := d.value(rv.Elem(), p.elem); err != nil {
		return err
	}
	d.skipBlanks()
	if d.off < len(d.data) {
		return d.unexpected("after top-level value")
	}
	return nil
}

// decodeState is one Unmarshal's position in its input.
type decodeState struct {
	data  []byte
	off   int
	depth int      // arrays and objects open at d.off
	dec   *Decoder // not nil: its Interner gives the strings stored
}

// An UnmarshalTypeError: a JSON value that cannot be stored in the Go type
// it meets (a string in an int, a number too big for an int8...).
// encoding/json would fail too, with its own *json.UnmarshalTypeError.
type UnmarshalTypeError struct {
	Value  string // "string", "number 300", "object"...
	Type   reflect.Type
	Offset int64
}

func (e *UnmarshalTypeError) Error() string {
	return "onepass: cannot unmarshal " + e.Value + " into Go value of type " + e.Type.String()
}

func (d *decodeState) typeError(what string, t reflect.Type) error {
	return &UnmarshalTypeError{Value: what, Type: t, Offset: int64(d.off)}
}

// value decodes the value at d.off (after blanks) into v, following p.
func (d *decodeState) value(v reflect.Value, p *plan) error {
	d.skipBlanks()
	if d.off >= len(d.data) {
		return d.unexpected("looking for a value")
	}
	c := d.data[d.off]
	switch p.kind {
	case kindDelegate:
		return d.delegate(v)
	case kindUnmarshaler:
		raw, err := d.cut()
		if err != nil {
			return err
		}
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw)
	case kindInterface:
		return d.intoInterface(v, c)
	}
	if c == 'n' {
		return d.null(v, p)
	}
	switch p.kind {
	case kindPointer, kindPointerUnmarshaler:
		if v.IsNil() {
			v.Set(reflect.New(p.typ.Elem()))
		}
		if p.kind == kindPointerUnmarshaler {
			raw, err := d.cut()
			if err != nil {
				return err
			}
			return v.Interface().(json.Unmarshaler).UnmarshalJSON(raw)
		}
		return d.value(v.Elem(), p.elem)
	case kindStruct:
		if c != '{' {
			return d.mismatch(v)
		}
		return d.object(v, p)
	case kindMap:
		if c != '{' {
			return d.mismatch(v)
		}
		return d.mapObject(v, p)
	case kindSlice:
		if c != '[' {
			return d.mismatch(v)
		}
		return d.array(v, p)
	case kindString:
		if c != '"' {
			return d.mismatch(v)
		}
		s, err := d.stringValue()
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case kindBool:
		switch c {
		case 't':
			v.SetBool(true)
			return d.literal("true")
		case 'f':
			v.SetBool(false)
			return d.literal("false")
		}
		return d.mismatch(v)
	default: // numbers
		if c != '-' && (c < '0' || c > '9') {
			return d.mismatch(v)
		}
		return d.number(v, p)
	}
}

// null stores a JSON null: pointers, maps and slices become nil; values
// of other kinds keep what they held, as in encoding/json.
func (d *decodeState) null(v reflect.Value, p *plan) error {
	if err := d.literal("null"); err != nil {
		return err
	}
	switch p.kind {
	case kindPointer, kindPointerUnmarshaler, kindMap, kindSlice:
		v.SetZero()
	}
	return nil
}

// mismatch steps over a value of the wrong JSON type for v, checking its
// syntax, and fails: encoding/json would fail too (after decoding the
// rest; the caller's fresh decode with json.Unmarshal says so its way).
func (d *decodeState) mismatch(v reflect.Value) error {
	start := d.off
	if err := d.skipValue(); err != nil {
		return err
	}
	what := "number"
	switch d.data[start] {
	case '{':
		what = "object"
	case '[':
		what = "array"
	case '"':
		what = "string"
	case 't', 'f':
		what = "bool"
	}
	return d.typeError(what, v.Type())
}

// cut steps over the value at d.off, checking it, and returns its bytes.
func (d *decodeState) cut() ([]byte, error) {
	start := d.off
	if err := d.skipValue(); err != nil {
		return nil, err
	}
	return d.data[start:d.off], nil
}

// delegate hands the value at d.off to encoding/json, decoding into v.
func (d *decodeState) delegate(v reflect.Value) error {
	raw, err := d.cut()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v.Addr().Interface())
}

// intoInterface decodes into an interface. One that holds a non-nil
// pointer is decoded through, as encoding/json does: this is how a watch
// frame's "object" is decoded straight into the watched type. Anything
// else is left to encoding/json: a nil interface (filled with maps,
// slices and float64s), a null, and a pointer that cannot be decoded
// through without its address (the value in an interface has none) or
// that points at an interface (which may point back at this one: encoding/json
// checks for that loop).
func (d *decodeState) intoInterface(v reflect.Value, c byte) error {
	if !v.IsNil() && c != 'n' {
		if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() {
			p := planFor(e.Type())
			switch {
			case p == nil:
			case p.kind == kindPointerUnmarshaler,
				p.kind == kindPointer && p.elem.kind != kindInterface:
				return d.value(e, p)
			}
		}
	}
	return d.delegate(v)
}

// object decodes a JSON object into the struct v.
func (d *decodeState) object(v reflect.Value, p *plan) error {
	if err := d.enter(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := d.nextMember(first)
		if err != nil || !more {
			return err
		}
		f, err := d.fieldFor(p)
		if err != nil {
			return err
		}
		if err := d.colon(); err != nil {
			return err
		}
		if f == nil { // a field the type does not have
			if err := d.skipValue(); err != nil {
				return err
			}
			continue
		}
		fv := v
		for _, i := range f.index {
			fv = fv.Field(i)
		}
		if err := d.value(fv, f.plan); err != nil {
			return err
		}
	}
}

// fieldFor reads a member's key and finds its field: the one of that exact
// name, or else the first (in Go order) whose name matches ignoring case.
// nil means the struct has no such field.
func (d *decodeState) fieldFor(p *plan) (*field, error) {
	content, plain, err := d.readString()
	if err != nil {
		return nil, err
	}
	if plain {
		if f, ok := p.byName[string(content)]; ok { // no allocation: Go looks up []byte keys as is
			return f, nil
		}
		if p.byUpper != nil && len(content) <= 64 {
			var buf [64]byte
			if upper, ok := asciiUpper(buf[:0], content); ok {
				return p.byUpper[string(upper)], nil
			}
		}
		return foldedField(p, string(content)), nil
	}
	key := unquote(content)
	if f, ok := p.byName[key]; ok {
		return f, nil
	}
	return foldedField(p, key), nil
}

func foldedField(p *plan, key string) *field {
	for i := range p.fields {
		if strings.EqualFold(p.fields[i].name, key) { // encoding/json's foldName agrees with EqualFold
			return &p.fields[i]
		}
	}
	return nil
}

// mapObject decodes a JSON object into the map v (keys of a string kind).
// Each value is decoded into a fresh element, never merged into the old
// one, as in encoding/json.
func (d *decodeState) mapObject(v reflect.Value, p *plan) error {
	if d.dec != nil && p.typ == stringMapType && v.IsNil() {
		return d.stringMap(v, p) // interning.go
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(p.typ))
	}
	if err := d.enter(); err != nil {
		return err
	}
	keyType := p.typ.Key()
	elem := reflect.New(p.typ.Elem()).Elem()
	for first := true; ; first = false {
		more, err := d.nextMember(first)
		if err != nil || !more {
			return err
		}
		key, err := d.stringValue()
		if err != nil {
			return err
		}
		if err := d.colon(); err != nil {
			return err
		}
		elem.SetZero()
		if err := d.value(elem, p.elem); err != nil {
			return err
		}
		kv := reflect.ValueOf(key)
		if kv.Type() != keyType {
			kv = kv.Convert(keyType)
		}
		v.SetMapIndex(kv, elem)
	}
}

// array decodes a JSON array into the slice v as encoding/json does: the
// elements are decoded into v's backing array while its capacity lasts
// (into the old values, which are not zeroed first), it grows by one
// element at a time as append would, and it is cut to the array's length.
// An empty JSON array gives an empty, non-nil slice.
func (d *decodeState) array(v reflect.Value, p *plan) error {
	if err := d.enter(); err != nil {
		return err
	}
	i := 0
	for first := true; ; first = false {
		more, err := d.nextElement(first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if i >= v.Cap() {
			v.Grow(1)
		}
		if i >= v.Len() {
			v.SetLen(i + 1)
		}
		if err := d.value(v.Index(i), p.elem); err != nil {
			return err
		}
		i++
	}
	if i < v.Len() {
		v.SetLen(i)
	}
	if i == 0 {
		v.Set(reflect.MakeSlice(p.typ, 0, 0))
	}
	return nil
}

// stringValue reads a string and returns its value.
func (d *decodeState) stringValue() (string, error) {
	content, plain, err := d.readString()
	if err != nil {
		return "", err
	}
	if plain {
		return d.interned(content), nil
	}
	return unquote(content), nil
}

// number reads a number into v, a number kind, with the strconv call
// encoding/json makes.
func (d *decodeState) number(v reflect.Value, p *plan) error {
	lit, err := d.readNumber()
	if err != nil {
		return err
	}
	s := string(lit)
	switch p.kind {
	case kindInt:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return d.typeError("number "+s, v.Type())
		}
		v.SetInt(n)
	case kindUint:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return d.typeError("number "+s, v.Type())
		}
		v.SetUint(n)
	case kindFloat:
		n, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return d.typeError("number "+s, v.Type())
		}
		v.SetFloat(n)
	default:
		return d.typeError("number "+s, v.Type())
	}
	return nil
}
