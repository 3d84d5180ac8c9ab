package onepass

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// A plan says how to decode into one Go type. It is worked out once per
// type (planFor caches it), so decoding a value only follows the plan:
// no struct tags are parsed and no field is looked up by reflection while
// the bytes are read.
type plan struct {
	kind   planKind
	typ    reflect.Type
	elem   *plan             // kindSlice, kindMap (the value), kindPointer
	fields []field           // kindStruct, in the order of their Go index
	byName map[string]*field // kindStruct: the exact JSON names
	// byUpper: kindStruct, when every JSON name is ASCII: the names in
	// upper case, each to the first field (in Go order) that has it. An
	// ASCII key that is no exact name is matched ignoring case here,
	// instead of by comparing it with every field (most keys of an API
	// object are fields the type does not have, so this is common).
	byUpper map[string]*field
}

type planKind uint8

const (
	// kindDelegate: cut the value and hand it to encoding/json. For what
	// is rare in API objects and has rules of its own: []byte (base64),
	// json.Number, arrays, encoding.TextUnmarshaler, maps keyed by
	// numbers, channels and functions (which encoding/json refuses).
	kindDelegate planKind = iota
	// kindUnmarshaler: the type decodes itself (json.Unmarshaler, as
	// api.Time does); it is handed the value's bytes, null included.
	kindUnmarshaler
	kindBool
	kindInt
	kindUint
	kindFloat
	kindString
	kindStruct
	kindSlice
	kindMap
	kindPointer
	// kindPointerUnmarshaler: a pointer whose type decodes itself: null
	// sets it to nil; anything else is handed to the (new if nil) pointee.
	kindPointerUnmarshaler
	kindInterface
)

// A field is a struct field as encoding/json sees it: its JSON name and
// the path of Go indexes that reaches it through embedded structs.
type field struct {
	name  string
	index []int
	plan  *plan
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// plans caches a *plan per reflect.Type; nil means unsupported: the
// type's decoding is left to encoding/json as a whole.
var plans sync.Map

// planFor returns t's plan, or nil when only encoding/json can decode t
// faithfully (see unsupported).
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	b := planBuilder{building: map[reflect.Type]*plan{}}
	p := b.plan(t)
	if b.unsupported {
		p = nil
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*plan)
}

// planBuilder builds the plans of a type and the types it contains.
// Recursive types (a struct holding a slice of itself) find their own plan
// in building, still being filled in.
type planBuilder struct {
	building    map[reflect.Type]*plan
	unsupported bool
}

func (b *planBuilder) plan(t reflect.Type) *plan {
	if p, ok := b.building[t]; ok {
		return p
	}
	if p, ok := plans.Load(t); ok {
		if p.(*plan) == nil {
			b.unsupported = true
			return &plan{kind: kindDelegate, typ: t}
		}
		return p.(*plan)
	}
	p := &plan{typ: t}
	b.building[t] = p
	b.fill(p)
	return p
}

// fill works out p.typ's plan. It follows encoding/json's order of checks:
// a named type's methods first (encoding/json takes the address of a named
// value to find pointer methods; of an unnamed one it does not), then the
// kind.
func (b *planBuilder) fill(p *plan) {
	t := p.typ
	if t.Kind() != reflect.Pointer && t.Name() != "" {
		pt := reflect.PointerTo(t)
		switch {
		case pt.Implements(unmarshalerType):
			p.kind = kindUnmarshaler
			return
		case pt.Implements(textUnmarshalerType), t == numberType:
			p.kind = kindDelegate
			return
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		p.kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = kindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = kindUint
	case reflect.Float32, reflect.Float64:
		p.kind = kindFloat
	case reflect.String:
		p.kind = kindString
	case reflect.Interface:
		p.kind = kindInterface
	case reflect.Pointer:
		switch {
		case t.Implements(unmarshalerType):
			p.kind = kindPointerUnmarshaler
		case t.Implements(textUnmarshalerType):
			p.kind = b.delegate(t)
		case t.Name() != "" && decodesItself(t.Elem()):
			// A named pointer type (type P *T) has no methods, and
			// encoding/json, having followed it, decodes the T as a plain
			// value, never calling T's methods; T's plan would call them.
			p.kind = b.delegate(t)
		default:
			p.kind, p.elem = kindPointer, b.plan(t.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p.kind = b.delegate(t) // base64 strings as well as arrays
			return
		}
		p.kind, p.elem = kindSlice, b.plan(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			p.kind = b.delegate(t)
			return
		}
		p.kind, p.elem = kindMap, b.plan(t.Elem())
	case reflect.Struct:
		p.kind = kindStruct
		b.fillFields(p)
	default: // arrays, complex numbers, channels, functions
		p.kind = b.delegate(t)
	}
}

// decodesItself reports whether encoding/json would hand a value of type
// t, reached by address, to its UnmarshalJSON or UnmarshalText method.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

// delegate returns kindDelegate for t, unless handing a *t to encoding/json
// could differ from what it does inline: an unnamed type whose pointer has
// methods (promoted from an embedded field), which inline it never looks
// for. Such a type is left to encoding/json as a whole.
func (b *planBuilder) delegate(t reflect.Type) planKind {
	if t.Name() == "" && reflect.PointerTo(t).NumMethod() > 0 {
		b.unsupported = true
	}
	return kindDelegate
}

// fillFields lists a struct's fields as encoding/json does: exported
// fields by their tag name (or Go name), and the fields of embedded
// structs as if they were the outer struct's own. encoding/json also has
// rules for names that clash (the shallowest, or the one tagged, wins),
// for embedded pointers (allocated as needed) and for the ",string"
// option; a struct that needs any of them is left to encoding/json
// (unsupported), which keeps this plan short and exactly right.
func (b *planBuilder) fillFields(p *plan) {
	b.addFields(p, p.typ, nil)
	p.byName = make(map[string]*field, len(p.fields))
	p.byUpper = make(map[string]*field, len(p.fields))
	for i := range p.fields {
		f := &p.fields[i]
		if _, dup := p.byName[f.name]; dup {
			b.unsupported = true
		}
		p.byName[f.name] = f
		upper, ok := asciiUpper(nil, f.name)
		if !ok {
			p.byUpper = nil // a name outside ASCII: match case by comparing (foldedField)
		}
		if _, taken := p.byUpper[string(upper)]; !taken && p.byUpper != nil {
			p.byUpper[string(upper)] = f
		}
	}
}

// asciiUpper appends s in upper case to buf; ok is false if s is not all
// ASCII. (For ASCII, that is what "equal ignoring case" compares: Unicode
// folds two non-ASCII letters onto ASCII ones, the Kelvin sign onto k and
// the long s onto s, which is why non-ASCII names and keys take the slow
// path.)
func asciiUpper[S string | []byte](buf []byte, s S) (upper []byte, ok bool) {
	for i := range len(s) {
		c := s[i]
		if c >= 0x80 {
			return buf, false
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, true
}

func (b *planBuilder) addFields(p *plan, t reflect.Type, prefix []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		ft := sf.Type
		if sf.Anonymous {
			if ft.Kind() == reflect.Pointer {
				if sf.IsExported() || ft.Elem().Kind() == reflect.Struct {
					b.unsupported = true // embedded pointer: allocated on demand, or an error
				}
				continue
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = ""
		}
		if hasOption(opts, "string") {
			b.unsupported = true
		}
		index := append(append([]int(nil), prefix...), i)
		if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
			if len(index) > 16 {
				b.unsupported = true // deep or recursive embedding: encoding/json's rules decide
				continue
			}
			b.addFields(p, ft, index)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if sf.Anonymous && !sf.IsExported() && decodesItself(ft) {
			// A tagged, unexported embedded struct is a field that
			// reflection reaches read-only: encoding/json cannot call its
			// methods and decodes its fields instead. Left to encoding/json.
			b.unsupported = true
		}
		p.fields = append(p.fields, field{name: name, index: index, plan: b.plan(ft)})
	}
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validTagName is the set of names encoding/json accepts in a tag; with
// any other, it uses the Go field name.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
