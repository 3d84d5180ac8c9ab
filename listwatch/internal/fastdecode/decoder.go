package fastdecode

import (
	"encoding/json"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// Decoder is what a goroutine that decodes keeps from one frame or item to
// the next: the room a pod decodes its lists in (room.go) and the hashes
// of the strings it allocated (intern.go). The zero value is ready. It is
// not safe for concurrent use: each decoding goroutine has its own (the
// reading goroutine one, each worker one).
//
// The decode itself is onepass (internal/onepass): it stores exactly what
// json.Unmarshal would, but reads the bytes once, where encoding/json
// checks them all with its scanner before decoding and steps its scanner
// again over everything the type does not keep (most of a pod). On a pod
// it is about three times faster, and it is the largest part of every list
// and watch (docs/performance.md). The Decoder is its onepass.Interner:
// every string onepass stores is interned (intern.go), and every labels or
// annotations map is made, or shared, by the Decoder (share.go).
type Decoder struct {
	room    room        // lent to each pod while it is decoded
	strings seenStrings // the strings it allocated, by hash
	shared  bool        // the object being decoded is for a read-only cache
	one     onepass.Decoder
}

// Unmarshal decodes b into v, where obj is the new object v is or holds,
// then compacts obj (Compact, but for its strings: they are interned as
// they are decoded). A pod is lent the decoder's room to decode its lists
// in, and gives it back before Unmarshal returns, whether or not it failed. If
// shared, obj is for a read-only cache: the maps and lists it repeats from
// recent objects are theirs (share.go).
//
// It succeeds exactly when json.Unmarshal(b, v) would, with the same
// result. On any error, the caller decodes again with the plain decoder
// into a fresh value, so that errors read exactly as encoding/json words
// them (an error ends the stream, so its cost does not matter).
func (d *Decoder) Unmarshal(b []byte, v, obj any, shared bool) error {
	if d.one.Interner == nil {
		d.one.Interner = (*interning)(d)
	}
	d.shared = shared
	d.strings.startObject()
	pod, _ := obj.(*api.Pod)
	meta, _ := obj.(*api.PartialObjectMetadata)
	switch {
	case pod != nil:
		d.room.lend(pod)
	case meta != nil:
		d.room.lendMeta(&meta.ObjectMeta)
	}
	err := d.one.Unmarshal(b, v)
	switch {
	case pod != nil:
		d.room.giveBack(pod, shared && err == nil)
	case meta != nil:
		d.room.giveBackMeta(&meta.ObjectMeta, shared && err == nil)
	}
	if err != nil {
		return err
	}
	compact(obj, false)
	return nil
}

// Value decodes raw, one JSON value with no blanks around it, into obj, as
// Unmarshal does. It succeeds exactly when json.Unmarshal(raw, obj) would,
// with the same result. An object that decodes itself (json.Unmarshaler:
// api.Unstructured) is handed raw directly: json.Unmarshal would only
// check the syntax, find the value's end, and make the same call.
func (d *Decoder) Value(raw []byte, obj any, shared bool) error {
	if u, ok := obj.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return d.Unmarshal(raw, obj, obj, shared)
}

// interning is a Decoder as onepass sees it: its onepass.Interner.
type interning Decoder

func (in *interning) String(b []byte) string { return in.strings.intern(&sharedStrings, b) }

func (in *interning) StringMap(kv []string) map[string]string {
	if in.shared {
		return sharedStringMap(kv)
	}
	return newStringMap(kv)
}
