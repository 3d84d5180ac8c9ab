package onepass

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The reading half: finding where a value ends while checking its syntax
// exactly as encoding/json's scanner does (the same whitespace, literals,
// number grammar, escapes and nesting limit), so that the decoder accepts
// precisely the inputs encoding/json accepts.

// maxDepth is encoding/json's nesting limit: 10,000 arrays and objects
// inside one another are accepted, one more is an error.
const maxDepth = 10000

// A SyntaxError says what is wrong with the input and where.
type SyntaxError struct {
	msg    string
	Offset int64 // the byte at which the error was found
}

func (e *SyntaxError) Error() string { return e.msg }

func (d *decodeState) syntaxError(format string, args ...any) error {
	return &SyntaxError{msg: "onepass: " + fmt.Sprintf(format, args...) + " at offset " + strconv.Itoa(d.off), Offset: int64(d.off)}
}

// unexpected is the error for the byte at d.off, or the input's end.
func (d *decodeState) unexpected(context string) error {
	if d.off >= len(d.data) {
		return d.syntaxError("unexpected end of JSON input %s", context)
	}
	return d.syntaxError("invalid character %q %s", d.data[d.off], context)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decodeState) skipBlanks() {
	for d.off < len(d.data) {
		if c := d.data[d.off]; c > ' ' || !isBlank(c) { // most often: no blank at all
			return
		}
		d.off++
	}
}

// skipValue steps over one value, checking its syntax.
func (d *decodeState) skipValue() error {
	d.skipBlanks()
	if d.off >= len(d.data) {
		return d.unexpected("looking for a value")
	}
	switch c := d.data[d.off]; {
	case c == '{':
		return d.skipObject()
	case c == '[':
		return d.skipArray()
	case c == '"':
		_, _, err := d.readString()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, err := d.readNumber()
		return err
	default:
		return d.unexpected("looking for the beginning of a value")
	}
}

func (d *decodeState) skipObject() error {
	if err := d.enter(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := d.nextMember(first)
		if err != nil || !more {
			return err
		}
		if _, _, err := d.readString(); err != nil {
			return err
		}
		if err := d.colon(); err != nil {
			return err
		}
		if err := d.skipValue(); err != nil {
			return err
		}
	}
}

func (d *decodeState) skipArray() error {
	if err := d.enter(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := d.nextElement(first)
		if err != nil || !more {
			return err
		}
		if err := d.skipValue(); err != nil {
			return err
		}
	}
}

// enter steps over the '{' or '[' at d.off, counting the nesting.
func (d *decodeState) enter() error {
	d.off++
	d.depth++
	if d.depth > maxDepth {
		return d.syntaxError("exceeded max depth")
	}
	return nil
}

// nextMember reads what comes before an object's next member: nothing
// before the first, a comma before the others, or the closing '}' (then
// more is false). It leaves d.off at the member's key.
func (d *decodeState) nextMember(first bool) (more bool, err error) {
	d.skipBlanks()
	if d.off < len(d.data) && d.data[d.off] == '}' && first {
		d.off++
		d.depth--
		return false, nil
	}
	if !first {
		if d.off >= len(d.data) {
			return false, d.unexpected("after object key:value pair")
		}
		switch d.data[d.off] {
		case '}':
			d.off++
			d.depth--
			return false, nil
		case ',':
			d.off++
			d.skipBlanks()
		default:
			return false, d.unexpected("after object key:value pair")
		}
	}
	if d.off >= len(d.data) || d.data[d.off] != '"' {
		return false, d.unexpected("looking for beginning of object key string")
	}
	return true, nil
}

// nextElement is nextMember for arrays: it leaves d.off at the element.
func (d *decodeState) nextElement(first bool) (more bool, err error) {
	d.skipBlanks()
	if d.off >= len(d.data) {
		return false, d.unexpected("in array")
	}
	switch c := d.data[d.off]; {
	case c == ']':
		d.off++
		d.depth--
		return false, nil
	case first:
	case c == ',':
		d.off++
	default:
		return false, d.unexpected("after array element")
	}
	return true, nil
}

// colon steps over the ':' between a key and its value.
func (d *decodeState) colon() error {
	d.skipBlanks()
	if d.off >= len(d.data) || d.data[d.off] != ':' {
		return d.unexpected("after object key")
	}
	d.off++
	return nil
}

func (d *decodeState) literal(want string) error {
	end := d.off + len(want)
	if end > len(d.data) || string(d.data[d.off:end]) != want {
		// Point at the first byte that differs, as encoding/json does.
		for i := 0; i < len(want); i++ {
			if d.off >= len(d.data) || d.data[d.off] != want[i] {
				return d.unexpected("in literal " + want)
			}
			d.off++
		}
	}
	d.off = end
	return nil
}

// readNumber steps over a number, checking its grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decodeState) readNumber() ([]byte, error) {
	start := d.off
	if d.data[d.off] == '-' {
		d.off++
	}
	switch {
	case d.off < len(d.data) && d.data[d.off] == '0':
		d.off++
	case d.digits() == 0:
		return nil, d.unexpected("in numeric literal")
	}
	if d.off < len(d.data) && d.data[d.off] == '.' {
		d.off++
		if d.digits() == 0 {
			return nil, d.unexpected("after decimal point in numeric literal")
		}
	}
	if d.off < len(d.data) && (d.data[d.off] == 'e' || d.data[d.off] == 'E') {
		d.off++
		if d.off < len(d.data) && (d.data[d.off] == '+' || d.data[d.off] == '-') {
			d.off++
		}
		if d.digits() == 0 {
			return nil, d.unexpected("in exponent of numeric literal")
		}
	}
	return d.data[start:d.off], nil
}

func (d *decodeState) digits() int {
	start := d.off
	for d.off < len(d.data) && '0' <= d.data[d.off] && d.data[d.off] <= '9' {
		d.off++
	}
	return d.off - start
}

// readString steps over the string starting at d.off and returns its
// content, between the quotes and still escaped. plain reports that the
// content is its own value: no escapes and valid UTF-8.
func (d *decodeState) readString() (content []byte, plain bool, err error) {
	start := d.off + 1
	escaped, ascii := false, true
	for i := start; i < len(d.data); i++ {
		// The loops that run most: eight bytes at a time while none of
		// them needs a look, then byte by byte up to the one that does.
		for i+8 <= len(d.data) && !needsLook(binary.LittleEndian.Uint64(d.data[i:])) {
			i += 8
		}
		for i < len(d.data) && stringByte[d.data[i]] == plainByte {
			i++
		}
		if i >= len(d.data) {
			break
		}
		switch stringByte[d.data[i]] {
		case quoteByte:
			d.off = i + 1
			content = d.data[start:i]
			plain = !escaped && (ascii || utf8.Valid(content))
			return content, plain, nil
		case backslashByte:
			escaped = true
			n, ok := escapeLength(d.data[i:])
			if !ok {
				d.off = i + 1
				return nil, false, d.unexpected("in string escape code")
			}
			i += n - 1
		case controlByte:
			d.off = i
			return nil, false, d.unexpected("in string literal")
		case nonASCIIByte:
			ascii = false
		}
	}
	d.off = len(d.data)
	return nil, false, d.unexpected("in string literal")
}

// needsLook reports whether any of the eight bytes in w is one that
// readString must look at: a quote, a backslash, a control character or a
// byte of a non-ASCII character. (The classic tests for "a byte below n" and
// "a byte equal to c" in a word, which are exact for whether any byte
// matches, though not for which.)
func needsLook(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x uint64, n uint64) uint64 { return (x - ones*n) & ^x & highs }
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return (w&highs)|below(w, 0x20)|below(quote, 1)|below(backslash, 1) != 0
}

// stringByte sorts the bytes that can appear in a string.
var stringByte = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == '"':
			t[c] = quoteByte
		case c == '\\':
			t[c] = backslashByte
		case c < 0x20:
			t[c] = controlByte
		case c >= utf8.RuneSelf:
			t[c] = nonASCIIByte
		}
	}
	return t
}()

const (
	plainByte = iota
	quoteByte
	backslashByte
	controlByte
	nonASCIIByte
)

// escapeLength returns the length of the escape at the start of b (which
// starts with a backslash): 2, or 6 for \uXXXX.
func escapeLength(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if len(b) < 6 {
			return 0, false
		}
		for _, c := range b[2:6] {
			if !isHex(c) {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquote turns a string's content, whose escapes readString has checked,
// into its value as encoding/json does: bytes that are not UTF-8, and
// \u escapes of lone surrogates, become U+FFFD.
func unquote(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if s[i+1] != 'u' {
				out = append(out, unescape(s[i+1]))
				i += 2
				continue
			}
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					r = dec
					i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r) // RuneError for a byte that is not UTF-8
			i += n
		}
	}
	return string(out)
}

func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
