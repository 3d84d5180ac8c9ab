package listwatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/kinformer/kinformer/api"
)

// The ways a watch stream can break, besides the server's own ERROR frame.
// The Err of the stream's last Event wraps one of them (or the transport's
// error), so callers can tell them apart with errors.Is.
var (
	// ErrMalformedFrame: a frame is not a watch event (not JSON, an unknown
	// type, no object, an object of the wrong shape).
	ErrMalformedFrame = errors.New("malformed watch frame")
	// ErrFrameTooLarge: a frame is longer than Config.MaxWatchFrameSize.
	ErrFrameTooLarge = errors.New("watch frame too large")
)

// A cut connection ends the stream with an error wrapping
// io.ErrUnexpectedEOF: either the transport reported it (a chunked body
// that stops without its final chunk) or the body ended in the middle of a
// frame.

// frameReader splits a watch body into frames.
//
// The API server writes one JSON object per event followed by a newline
// ("newline-delimited JSON"), flushed as one HTTP chunk. But chunks are a
// transport detail: a proxy may re-chunk, and a client's Read may return a
// piece of a frame or several frames at once. So frames are found by the
// newline, never by the chunk: bytes are accumulated until a newline
// arrives, and what came before it is one frame.
//
// (client-go finds frame ends with a json.Decoder instead, which also
// accepts frames with no newline between them. Every server writes the
// newline, and looking for one byte is far cheaper than a second JSON scan.)
//
// Memory is bounded: the buffer never grows past max+1 bytes, and a frame
// that has not ended by then fails with ErrFrameTooLarge.
type frameReader struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end]: read, not yet returned
	scanned    int // buf[start:scanned] is known to hold no newline
	max        int
	eof        bool  // the reader said io.EOF
	err        error // the reader failed; reported once the buffered frames are out
}

// initialFrameBuffer is the buffer a watch starts with; most objects fit.
const initialFrameBuffer = 32 << 10

// maxEmptyReads guards against a Reader that returns 0, nil forever.
const maxEmptyReads = 100

func newFrameReader(r io.Reader, max int) *frameReader {
	max = min(max, math.MaxInt/2) // so that max+1, and doubling the buffer, cannot overflow
	return &frameReader{r: r, buf: make([]byte, min(initialFrameBuffer, max+1)), max: max}
}

// errPartialFrame: the stream ended cleanly, but bytes without a final
// newline were left; next returns them with this error so the caller can
// decide whether they are a whole frame.
var errPartialFrame = errors.New("the stream ended without a newline after the last frame")

// next returns the next non-blank frame, without its newline. The slice is
// valid until the following call. At a clean end of stream it returns
// io.EOF, or the unterminated rest with errPartialFrame; an error of the
// underlying reader is returned as is, once the frames before it are out.
func (f *frameReader) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(f.buf[f.scanned:f.end], '\n'); i >= 0 {
			// The buffer holds at most max+1 bytes, so a frame with its
			// newline is never longer than max.
			frame := f.buf[f.start : f.scanned+i]
			f.start = f.scanned + i + 1
			f.scanned = f.start
			if frame = trimSpace(frame); len(frame) > 0 {
				return frame, nil
			}
			continue
		}
		f.scanned = f.end
		if f.end-f.start > f.max {
			return nil, fmt.Errorf("%w: more than %d bytes without a newline", ErrFrameTooLarge, f.max)
		}
		if f.err != nil {
			return nil, f.err
		}
		if f.eof {
			rest := trimSpace(f.buf[f.start:f.end])
			f.start = f.end
			if len(rest) == 0 {
				return nil, io.EOF
			}
			return rest, errPartialFrame
		}
		f.fill()
	}
}

// buffered reports whether bytes after the last frame returned are already
// read: the next frame has (at least partly) arrived.
func (f *frameReader) buffered() bool { return f.end > f.start }

// hasFrame reports whether a whole frame (its newline) is already read, so
// that next returns it without waiting for the reader. What it looked at
// counts as scanned, so next does not search those bytes again.
func (f *frameReader) hasFrame() bool {
	i := bytes.IndexByte(f.buf[f.scanned:f.end], '\n')
	if i < 0 {
		f.scanned = f.end
		return false
	}
	f.scanned += i // the bytes before the newline hold none
	return true
}

// fill reads more bytes, first making room: moving the unread bytes to the
// front, or growing the buffer (up to max+1). The end of the stream, or a
// read error, is remembered for next to act on once the bytes already
// read are used up.
func (f *frameReader) fill() {
	if f.end == len(f.buf) {
		if f.start > 0 {
			n := copy(f.buf, f.buf[f.start:f.end])
			f.scanned -= f.start
			f.start, f.end = 0, n
		} else {
			grown := make([]byte, min(2*len(f.buf), f.max+1))
			copy(grown, f.buf[:f.end])
			f.buf = grown
		}
	}
	n, err := readSome(f.r, f.buf[f.end:])
	f.end += n
	if err == io.EOF {
		f.eof = true
	} else if err != nil {
		f.err = err
	}
}

// readSome reads into p until something arrives: bytes, the end of the
// stream or an error. A Reader that keeps returning 0, nil is given up on
// after maxEmptyReads tries, with io.ErrNoProgress. (The fast path's list
// cutter reads the same way.)
func readSome(r io.Reader, p []byte) (int, error) {
	for range maxEmptyReads {
		if n, err := r.Read(p); n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// watchDecoder is one watch body as frames: the frameReader, what the
// frames decode into (the Resource), and how many were cut, for messages.
// The decoding itself is the seam's (decode.go).
type watchDecoder struct {
	frames   *frameReader
	resource Resource
	cut      int // frames cut so far, for error messages
}

// newWatchDecoder decodes body, a watch of r, with frames of at most
// maxFrameSize bytes (NewClient has defaulted it).
func newWatchDecoder(body io.Reader, r Resource, maxFrameSize int) *watchDecoder {
	return &watchDecoder{frames: newFrameReader(body, maxFrameSize), resource: r}
}

// nextFrame cuts the next frame and counts it. The slice is valid until the
// following call. At a clean end of stream it returns io.EOF; any other
// error means the stream is broken and says how. (The count in its
// messages is the frames cut before: they were all decoded, since a frame
// that does not decode ends the stream.)
func (d *watchDecoder) nextFrame() ([]byte, error) {
	line, err := d.frames.next()
	switch {
	case err == errPartialFrame:
		// The body ended cleanly but mid-line: a whole frame merely missing
		// its newline is accepted; anything else is a cut connection.
		if !json.Valid(line) {
			return nil, fmt.Errorf("watch stream ended in the middle of a frame after %d events (%d bytes of it received): %w",
				d.cut, len(line), io.ErrUnexpectedEOF)
		}
	case err == io.EOF:
		return nil, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("watch connection cut after %d events: %w", d.cut, err)
	case err != nil:
		return nil, fmt.Errorf("watch stream broken after %d events: %w", d.cut, err)
	}
	d.cut++
	return line, nil
}

// frame is one watch event as it travels. Object is set to a new object of
// the watched type before decoding: encoding/json decodes into the pointer
// an interface field already holds, so the object is decoded in the same
// single pass as the frame, with no intermediate json.RawMessage.
type frame struct {
	Type   api.EventType `json:"type"`
	Object any           `json:"object"`
}

// decodeErrorFrame decodes an ERROR frame's Status into a *StatusError:
//
//	{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},
//	 "status":"Failure","message":"too old resource version: 1 (44624)","reason":"Expired","code":410}}
func decodeErrorFrame(line []byte) (Event, error) {
	var f struct {
		Object *api.Status `json:"object"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		return Event{}, fmt.Errorf("an ERROR frame whose object is not a Status: %w", err)
	}
	if f.Object == nil {
		return Event{}, errors.New("an ERROR frame without a Status")
	}
	return Event{Type: api.Error, Err: &StatusError{ErrStatus: f.Object}}, nil
}

// snippet quotes the start of a frame for an error message.
func snippet(b []byte) string {
	const n = 64
	if len(b) > n {
		return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
	}
	return fmt.Sprintf("%q", b)
}
