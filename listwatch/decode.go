package listwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kinformer/kinformer/api"
)

// Decoding: the seam between reading a response and the objects in it.
//
// The readers decode through one value, a decoder, made once by NewClient
// from Config.Decoder: the watch reader (streamWatcher.receive) calls its
// watch, the list reader (Client.listObjects) its list, a single answer
// (TypedClient's Get, Create, Update...) its object. Each has two forms:
//
//   - the plain form, right below: encoding/json on the reading goroutine,
//     and nothing else. Read it first: it is all a list or a watch needs,
//     and it is the reference the other form is held to;
//   - the fast form (decode_fast.go), the default: the same work, handed
//     to listwatch/internal/fastdecode, which decodes in one pass, on
//     several goroutines, with reusable room and compacted objects, and
//     shows the caller exactly what the plain form shows
//     (TestDecode_FastSameAsPlain).

// ---- the plain form ----

// decodeWatchPlain decodes a watch: article 004's loop, which calls
// json.NewDecoder(resp.Body).Decode(&event) for each event, made to end
// well. It hands each event to send, then the error that ends the stream
// (io.EOF if the server ended it cleanly), and stops when send says so.
func decodeWatchPlain(d *watchDecoder, send func(Event, error) bool) {
	for {
		// 1. Read a frame: the bytes up to the next newline, however the
		// body was chunked, and at most Config.MaxWatchFrameSize of them.
		line, err := d.nextFrame()
		if err != nil {
			send(Event{}, err) // io.EOF: the server ended the stream; anything else broke it
			return
		}
		// 2 and 3: the event, and its object into the watched type.
		if !send(d.decodeFrame(line, d.cut)) {
			return // an ERROR frame or a malformed one ends the stream, and so does Stop
		}
	}
}

// decodeFrame decodes line, the stream's frame number n (from 1), into its
// Event, and says which frame it was if it is malformed. It only reads
// d.resource, so several goroutines may call it at once.
func (d *watchDecoder) decodeFrame(line []byte, n int) (Event, error) {
	// 2. The event, whose Object is already a new object of the watched
	// type (Resource.New): encoding/json decodes into the pointer an
	// interface holds, so 3. one call unmarshals the event and, straight
	// into that object, its object: no json.RawMessage, no second pass.
	f := frame{Object: d.resource.New()}
	err := json.Unmarshal(line, &f)
	ev, err := d.event(f, line, err)
	if err != nil {
		return Event{}, fmt.Errorf("%w (frame %d: %s): %w", ErrMalformedFrame, n, snippet(line), err)
	}
	return ev, nil
}

// event makes the Event of f, line decoded (with err, the decode's error):
// a server's ERROR frame is an Event of type Error whose Err is a
// *StatusError; a frame without a known type or an object is an error.
func (d *watchDecoder) event(f frame, line []byte, err error) (Event, error) {
	if f.Type == api.Error {
		// The object is a Status, not the watched type: decode it again
		// as one (rare, and the stream ends here anyway).
		return decodeErrorFrame(line)
	}
	if err != nil {
		return Event{}, err
	}
	switch f.Type {
	case api.Added, api.Modified, api.Deleted, api.Bookmark:
	case "":
		return Event{}, errors.New("the frame has no event type")
	default:
		return Event{}, fmt.Errorf("unknown event type %q", f.Type)
	}
	obj, ok := f.Object.(api.Object)
	if !ok || obj == nil {
		return Event{}, errors.New("the frame has no object")
	}
	d.resource.setKind(obj)
	return Event{Type: f.Type, Object: obj}, nil
}

// decodeListPlain decodes a list response: 1. the whole body, its items
// kept raw, then 2. each item into a new object of the listed type.
func decodeListPlain(body io.Reader, r Resource) (*ObjectList, error) {
	var l struct {
		Metadata api.ListMeta      `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(body).Decode(&l); err != nil {
		return nil, err
	}
	list := &ObjectList{ListMeta: l.Metadata}
	for i, raw := range l.Items {
		obj, err := decodeItem(raw, r)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		list.Items = append(list.Items, obj)
	}
	return list, nil
}

// decodeItem decodes one list item into a new object of r.
func decodeItem(raw []byte, r Resource) (api.Object, error) {
	obj := r.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, err
	}
	r.setKind(obj)
	return obj, nil
}

// decodeObjectPlain decodes a single object, a Get's or a write's answer,
// into obj, a new object of r.
func decodeObjectPlain(body io.Reader, obj api.Object, r Resource) error {
	if err := json.NewDecoder(body).Decode(obj); err != nil {
		return err
	}
	r.setKind(obj)
	return nil
}

// ---- the seam ----

// Decoder chooses how a Client decodes the lists, watches and objects it
// reads (Config.Decoder). Both decoders give the same objects, events and
// errors; they differ in speed, memory, and how much code a reader has to
// follow.
type Decoder int

const (
	// DecodeFast, the default: listwatch/internal/fastdecode. Frames and
	// items are decoded in one pass (internal/onepass), on up to
	// Config.DecodeWorkers goroutines once they queue up, each pod in a
	// reusable room for its conditions, and every object compacted for a
	// long life in a cache (exact-length slices, the strings objects
	// repeat stored once). A list is decoded as it streams in, its items
	// cut out of the body one by one. About three times faster than
	// DecodePlain on one core, and it uses two.
	DecodeFast Decoder = iota
	// DecodePlain: encoding/json on the reading goroutine and nothing
	// else, the plain form of decode.go (a list is decoded whole, then its
	// items). For reading along, for comparing, or to rule the fast path
	// out. Config.DecodeWorkers does not apply.
	DecodePlain
)

// String is "fast" or "plain".
func (d Decoder) String() string {
	switch d {
	case DecodeFast:
		return "fast"
	case DecodePlain:
		return "plain"
	}
	return fmt.Sprintf("Decoder(%d)", int(d))
}

// decoder is the seam: Config.Decoder, and the fast form's workers
// (Config.DecodeWorkers, defaulted), as NewClient resolved them.
type decoder struct {
	kind    Decoder
	workers int  // DecodeFast: goroutines per watch or list; 1: the reading goroutine alone
	shared  bool // the objects are for a read-only cache (ForReadOnlyCache)
}

// forRequest is d for a list or watch made with ctx: for a read-only cache
// if ctx says so (ForReadOnlyCache).
func (d decoder) forRequest(ctx context.Context) decoder {
	d.shared = forReadOnlyCache(ctx)
	return d
}

// watch decodes w's stream, frames (its body), into events, delivered with
// w.send: the events in order, then the error that ends the stream.
func (d decoder) watch(ctx context.Context, w *streamWatcher, frames *watchDecoder) {
	if d.kind == DecodePlain {
		decodeWatchPlain(frames, func(ev Event, err error) bool { return w.send(ctx, ev, err) })
		return
	}
	decodeWatchFast(ctx, w, frames, d.workers, d.shared)
}

// list decodes a list response body into objects of r.
func (d decoder) list(body io.Reader, r Resource) (*ObjectList, error) {
	if d.kind == DecodePlain {
		return decodeListPlain(body, r)
	}
	return decodeListFast(body, r, d.workers, d.shared)
}

// object decodes a single answer into obj, a new object of r.
func (d decoder) object(body io.Reader, obj api.Object, r Resource) error {
	if d.kind == DecodePlain {
		return decodeObjectPlain(body, obj, r)
	}
	return decodeObjectFast(body, obj, r)
}
