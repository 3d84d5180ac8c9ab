package onepass

import "reflect"

// Interning: where the strings a decode stores come from.
//
// Unmarshal allocates a new string for every string it stores, and a new
// map for every JSON object it decodes into a nil map, as encoding/json
// does. A program that keeps what it decodes for a long time (an informer
// keeps every object it is sent) holds many equal copies: every pod of a
// Deployment repeats its namespace, labels, image and owner. A Decoder asks
// an Interner for those values instead, which may hand out one it already
// holds. The decoded value is equal, field by field, to what Unmarshal
// stores (TestDecoder_SameAsEncodingJSON); only where its strings and maps
// live can differ.
//
// Two kinds of value go through the Interner:
//
//   - every string stored whose JSON has no escape (an escaped one is
//     unescaped into a new string, as by Unmarshal: API objects have
//     almost none), map keys included;
//   - every JSON object decoded into a nil map[string]string (the labels
//     and annotations of API objects): its keys and values, as String
//     returned them, are handed to StringMap, which returns the map to
//     store. An empty object is a new empty map, as Unmarshal makes it.

// An Interner gives a Decoder the strings and string maps it stores.
type Interner interface {
	// String returns a string equal to b. b is the decoder's input: it
	// must not be kept.
	String(b []byte) string
	// StringMap returns a map holding exactly the entries kv lists, as
	// key, value, key, value... (a key listed twice holds its later
	// value, as when a map is filled). kv is never empty. It is the
	// decoder's buffer: it must not be kept.
	StringMap(kv []string) map[string]string
}

// A Decoder decodes as Unmarshal does, with the strings and string maps it
// stores given by its Interner (nil: none, Unmarshal itself). It keeps a
// buffer from one call to the next, so it is not safe for concurrent use.
type Decoder struct {
	Interner Interner
	kv       []string // a string map's entries, while they are decoded
}

// Unmarshal is Unmarshal(data, v), with the strings and string maps it
// stores given by dec.Interner.
func (dec *Decoder) Unmarshal(data []byte, v any) error {
	if dec.Interner == nil {
		return Unmarshal(data, v)
	}
	return unmarshal(data, v, dec)
}

var stringMapType = reflect.TypeFor[map[string]string]()

// interned returns the string content holds, plain (without escapes),
// from the Interner if there is one.
func (d *decodeState) interned(content []byte) string {
	if d.dec != nil {
		return d.dec.Interner.String(content)
	}
	return string(content)
}

// stringMap decodes a JSON object into v, a nil map[string]string, through
// the Interner: its entries are collected, then StringMap makes the map.
// A value that is neither a string nor null fails as it does in mapObject.
func (d *decodeState) stringMap(v reflect.Value, p *plan) error {
	kv, err := d.stringMapEntries(d.dec.kv[:0], p)
	if err == nil {
		if len(kv) == 0 {
			v.Set(reflect.MakeMap(p.typ))
		} else {
			v.Set(reflect.ValueOf(d.dec.Interner.StringMap(kv)))
		}
	}
	clear(kv) // the buffer keeps no string alive
	d.dec.kv = kv[:0]
	return err
}

// stringMapEntries decodes the members of the JSON object at d.off into
// kv, as key, value, key, value...
func (d *decodeState) stringMapEntries(kv []string, p *plan) ([]string, error) {
	if err := d.enter(); err != nil {
		return kv, err
	}
	for first := true; ; first = false {
		more, err := d.nextMember(first)
		if err != nil || !more {
			return kv, err
		}
		key, err := d.stringValue()
		if err != nil {
			return kv, err
		}
		if err := d.colon(); err != nil {
			return kv, err
		}
		d.skipBlanks()
		value := ""
		switch {
		case d.off < len(d.data) && d.data[d.off] == '"':
			if value, err = d.stringValue(); err != nil {
				return kv, err
			}
		case d.off < len(d.data) && d.data[d.off] == 'n':
			if err := d.literal("null"); err != nil { // a null element stores ""
				return kv, err
			}
		default:
			// Anything else fails, as it does in mapObject, with the
			// same error.
			if err := d.value(reflect.New(p.elem.typ).Elem(), p.elem); err != nil {
				return kv, err
			}
			return kv, d.typeError("value", p.elem.typ) // not reached
		}
		kv = append(kv, key, value)
	}
}
