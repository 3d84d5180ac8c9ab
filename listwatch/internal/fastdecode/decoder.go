package fastdecode

import (
	"encoding/json"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// Decoder is what a goroutine that decodes keeps from one frame or item to
// the next: the room a pod decodes its conditions in (room.go). The zero
// value is ready. It is not safe for concurrent use: each decoding
// goroutine has its own (the reading goroutine one, each worker one).
//
// The decode itself is onepass.Unmarshal (internal/onepass): it stores
// exactly what json.Unmarshal would, but reads the bytes once, where
// encoding/json checks them all with its scanner before decoding and steps
// its scanner again over everything the type does not keep (most of a
// pod). On a pod it is about three times faster, and it is the largest
// part of every list and watch (docs/performance.md).
type Decoder struct {
	room room // lent to each pod while it is decoded
}

// Unmarshal decodes b into v, where obj is the new object v is or holds; a
// pod is lent the decoder's room to decode its conditions in, and gives it
// back before Unmarshal returns, whatever happened.
//
// It succeeds exactly when json.Unmarshal(b, v) would, with the same
// result. On any error, the caller decodes again with the plain decoder
// into a fresh value, so that errors read exactly as encoding/json words
// them (an error ends the stream, so its cost does not matter).
func (d *Decoder) Unmarshal(b []byte, v, obj any) error {
	if p, ok := obj.(*api.Pod); ok {
		d.room.lend(p)
		defer d.room.giveBack(p)
	}
	return onepass.Unmarshal(b, v)
}

// Value decodes raw, one JSON value with no blanks around it, into obj. It
// succeeds exactly when json.Unmarshal(raw, obj) would, with the same
// result. An object that decodes itself (json.Unmarshaler:
// api.Unstructured) is handed raw directly: json.Unmarshal would only
// check the syntax, find the value's end, and make the same call.
func (d *Decoder) Value(raw []byte, obj any) error {
	if u, ok := obj.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return d.Unmarshal(raw, obj, obj)
}
