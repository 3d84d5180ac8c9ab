package fastdecode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"
)

// valueCutter cuts a list body into its JSON values without decoding them.
//
// A list is one big JSON object, but what a client needs from it is a few
// small values (the metadata) and many items, each decoded on its own into
// a fresh object. Finding where an item ends takes only a look at the bytes
// that open and close objects, arrays and strings; decoding it is the
// expensive step. So the fast list is the watch's twin: the watch cuts
// frames at newlines (listwatch's frameReader) and decodes each frame; the
// list cuts items at their closing brace (valueCutter) and decodes each
// item, on the reading goroutine or on workers (list.go).
//
// The cutter checks only what it needs to find the ends: the structure
// between values (a '{' to open the list, ':' after a field name, ',' or
// the closing bracket after a value). Whatever is inside a value is checked
// by the decode that decodes it, so a malformed item is reported by
// encoding/json with the item's number (List).
//
// (encoding/json's own json.Decoder could cut too, but it scans every byte
// of a value with its full syntax checker, and the decode then scans it
// again: for a list of big objects that was a third of the work, on the
// one goroutine that cannot be parallel.)
type valueCutter struct {
	r          io.Reader
	buf        []byte
	start, end int   // buf[start:end]: read, not yet cut
	off        int64 // the stream offset of buf[0], for error messages
	eof        bool  // the reader said io.EOF
	err        error // the reader failed
}

func newValueCutter(r io.Reader) *valueCutter {
	return &valueCutter{r: r, buf: make([]byte, 64<<10)}
}

// fill reads more bytes after buf[end], first making room (moving the
// uncut bytes to the front, or growing the buffer). It returns false once
// nothing more will come: the stream ended (c.eof) or failed (c.err).
func (c *valueCutter) fill() bool {
	if c.eof || c.err != nil {
		return false
	}
	if c.end == len(c.buf) {
		if c.start > 0 {
			n := copy(c.buf, c.buf[c.start:c.end])
			c.off += int64(c.start)
			c.start, c.end = 0, n
		} else {
			if len(c.buf) > math.MaxInt/2 {
				c.err = errors.New("a value too large to buffer")
				return false
			}
			grown := make([]byte, 2*len(c.buf))
			copy(grown, c.buf[:c.end])
			c.buf = grown
		}
	}
	n, err := readSome(c.r, c.buf[c.end:])
	c.end += n
	if err == io.EOF {
		c.eof = true
	} else if err != nil {
		c.err = err
	}
	return n > 0
}

// ended is the error for a stream that stopped before what the cutter
// needed: the reader's own error, or io.ErrUnexpectedEOF.
func (c *valueCutter) ended() error {
	if c.err != nil {
		return c.err
	}
	return io.ErrUnexpectedEOF
}

// peek skips blanks and returns the next byte without consuming it.
func (c *valueCutter) peek() (byte, error) {
	for {
		for c.start < c.end {
			if b := c.buf[c.start]; !isSpace(b) {
				return b, nil
			}
			c.start++
		}
		if !c.fill() {
			if c.start < c.end {
				continue
			}
			return 0, c.ended()
		}
	}
}

// expect consumes the next non-blank byte, which must be one of want.
// (Callers add where in the list they are to an error: formatting that for
// every item would cost more than the check.)
func (c *valueCutter) expect(want string) (byte, error) {
	b, err := c.peek()
	if err != nil {
		return 0, err
	}
	if strings.IndexByte(want, b) < 0 {
		return 0, fmt.Errorf("want %s at byte %d, found %q", quoteEach(want), c.off+int64(c.start), b)
	}
	c.start++
	return b, nil
}

// quoteEach writes ",]" as "',' or ']'".
func quoteEach(s string) string {
	var b []byte
	for i := range len(s) {
		if i > 0 {
			b = append(b, " or "...)
		}
		b = append(b, '\'', s[i], '\'')
	}
	return string(b)
}

// next cuts the next JSON value (after blanks) and returns its bytes,
// valid until the following call. It finds the value's end by its first
// byte: an object or array ends at the bracket that brings the nesting
// back to zero (brackets inside strings do not count), a string at its
// unescaped closing quote, anything else (a number, true, false, null, or
// garbage for json.Unmarshal to report) at the next blank or delimiter.
func (c *valueCutter) next() ([]byte, error) {
	if _, err := c.peek(); err != nil {
		return nil, err
	}
	var s scanState
	scanned := 0 // bytes of the value looked at, from c.start
	for {
		n, done := s.scan(c.buf[c.start:c.end], scanned)
		if done {
			v := c.buf[c.start : c.start+n]
			c.start += n
			return v, nil
		}
		scanned = n
		if !c.fill() {
			// Every value of a list body is inside the list's object, so
			// the stream cannot end in one, not even after a literal.
			return nil, c.ended()
		}
	}
}

// scanState is how far next has looked into a value: enough to resume
// after more bytes arrive.
type scanState struct {
	started  bool
	literal  bool // a number, true, false, null (or garbage)
	depth    int  // open objects and arrays
	inString bool
	escaped  bool // the byte before was a backslash, in a string
}

// scan looks at v[from:] and returns where it stopped: the end of the value
// (done), or len(v) if the value goes on.
func (s *scanState) scan(v []byte, from int) (int, bool) {
	i := from
	if !s.started {
		s.started = true
		switch v[0] {
		case '{', '[':
			s.depth = 1
		case '"':
			s.inString = true
		default:
			s.literal = true
		}
		i = 1
	}
	for i < len(v) {
		if s.literal {
			switch v[i] {
			case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
				return i, true
			}
			i++
			continue
		}
		if s.inString {
			if s.escaped {
				s.escaped = false
				i++
				continue
			}
			end, escaped := stringEnd(v, i)
			if end < 0 {
				s.escaped = escaped
				return len(v), false
			}
			i = end
			s.inString = false
			if s.depth == 0 {
				return i, true // a top-level string
			}
			continue
		}
		switch v[i] {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return len(v), false
}

// stringEnd returns the index just past the closing quote of the string
// whose content goes on at v[i], or -1 if v ends first; then escaped
// reports that v ended right after a backslash, so the next byte read is
// escaped.
//
// The content of strings is most of a Kubernetes object, and most strings
// are short (keys, names, a few words), so they are searched eight bytes
// at a time for a quote or a backslash (quoteOrBackslash), without a call
// per string; only escapes, rare in Kubernetes objects, are stepped over
// one by one.
func stringEnd(v []byte, i int) (end int, escaped bool) {
	for {
		for i+8 <= len(v) {
			if m := quoteOrBackslash(binary.LittleEndian.Uint64(v[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8 // the first such byte
				break
			}
			i += 8
		}
		for i < len(v) && v[i] != '"' && v[i] != '\\' {
			i++
		}
		switch {
		case i >= len(v):
			return -1, false
		case v[i] == '"':
			return i + 1, false
		}
		i += 2 // the backslash and the byte it escapes
		if i > len(v) {
			return -1, true
		}
	}
}

// quoteOrBackslash marks, in the high bit of each byte, the bytes of w
// that are a quote or a backslash. The lowest mark is exact (a mark above
// a real one may be false, from the borrow), which is all stringEnd uses.
func quoteOrBackslash(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones) & ^q | (b-ones) & ^b) & highs
}

// readSome reads into p until something arrives: bytes, the end of the
// stream or an error. A Reader that keeps returning 0, nil is given up on
// after maxEmptyReads tries, with io.ErrNoProgress. (listwatch's
// frameReader reads the same way.)
func readSome(r io.Reader, p []byte) (int, error) {
	for range maxEmptyReads {
		if n, err := r.Read(p); n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// maxEmptyReads guards against a Reader that returns 0, nil forever.
const maxEmptyReads = 100

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
