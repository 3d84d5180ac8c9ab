package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxOutput bounds the JSON a document may expand to through aliases.
const maxOutput = 64 << 20

// Result is a converted document.
type Result struct {
	// JSON is the document as JSON: mappings become objects (a key given
	// twice keeps its last value), sequences arrays, scalars what they
	// resolve to.
	JSON []byte
	// Duplicates lists the keys given twice in one mapping, worded as
	// go-yaml's strict decoder words them: `line 4: key "a" already set in
	// map` (the line of the second value).
	Duplicates []string
	// Lines maps the JSON Pointer (RFC 6901) of every value in JSON to
	// the line its YAML node starts on: "" is the document,
	// "/clusters/0/cluster" the member cluster of the first element of
	// the member clusters. A value reached through an alias or a "<<"
	// merge has the line of the node its anchor names. Only
	// ConvertWithLines fills it: a caller that checks the JSON it decodes
	// (a kubeconfig reader) names the line of a bad value with it.
	Lines map[string]int
}

// StrictError is what the real server's strict YAML decoding says of the
// document's duplicate keys (fieldValidation=Strict), or nil if it has none.
func (r Result) StrictError() error {
	if len(r.Duplicates) == 0 {
		return nil
	}
	return errors.New("yaml: unmarshal errors:\n  " + strings.Join(r.Duplicates, "\n  "))
}

// Convert converts the first YAML document in src to JSON. A syntax error
// is an *Error naming the line; a document JSON cannot hold (a NaN, a null
// key) is another error. It never panics, and its work is linear in the
// input (plus what aliases expand to, which is bounded).
func Convert(src []byte) (Result, error) {
	return convert(src, false)
}

// ConvertWithLines is Convert, and also fills Result.Lines.
func ConvertWithLines(src []byte) (Result, error) {
	return convert(src, true)
}

func convert(src []byte, lines bool) (Result, error) {
	text, err := prepare(src)
	if err != nil {
		return Result{}, err
	}
	p := &parser{src: text, line: 1}
	doc, err := p.document()
	if err != nil {
		return Result{}, err
	}
	e := &emitter{}
	if lines {
		e.lines = map[string]int{}
	}
	if err := e.node(doc); err != nil {
		return Result{}, err
	}
	return Result{JSON: e.out, Duplicates: e.dups, Lines: e.lines}, nil
}

// prepare decodes src to UTF-8 (it may be UTF-16 with a byte order mark),
// refuses what YAML does not allow in a stream, and turns CR LF and lone CR
// line breaks into LF.
func prepare(src []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}), bytes.HasPrefix(src, []byte{0xFF, 0xFE}):
		if len(src)%2 != 0 {
			return nil, &Error{Msg: "incomplete UTF-16 character sequence"}
		}
		units := make([]uint16, 0, len(src)/2-1)
		for i := 2; i+1 < len(src); i += 2 {
			if src[0] == 0xFE {
				units = append(units, uint16(src[i])<<8|uint16(src[i+1]))
			} else {
				units = append(units, uint16(src[i+1])<<8|uint16(src[i]))
			}
		}
		var b []byte
		for _, r := range utf16.Decode(units) {
			if r == utf8.RuneError {
				return nil, &Error{Msg: "invalid Unicode character"}
			}
			b = utf8.AppendRune(b, r)
		}
		src = b
	case bytes.HasPrefix(src, []byte{0xEF, 0xBB, 0xBF}):
		src = src[3:]
	}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			return nil, &Error{Msg: "invalid leading UTF-8 octet"}
		}
		if !(r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
			(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000) {
			return nil, &Error{Msg: "control characters are not allowed"}
		}
		i += size
	}
	if bytes.IndexByte(src, '\r') >= 0 {
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		src = bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
	}
	return src, nil
}

// emitter writes a parsed document as JSON. It visits every node in
// document order, as go-yaml decodes them, so that errors and duplicate
// keys come out in go-yaml's order; a value a later key replaces is
// visited without being written (discard).
type emitter struct {
	out        []byte
	dups       []string
	decodes    int // nodes visited (and keys merged)
	aliases    int // of those, reached through an alias
	aliasDepth int
	discard    int
	lines      map[string]int // nil unless ConvertWithLines
	ptr        []byte         // with lines: the JSON Pointer of the node being written
}

// enter extends the JSON Pointer with one reference token (a member name
// or an index), escaped as RFC 6901 says ("~" is "~0", "/" is "~1"), and
// returns the length to cut it back to.
func (e *emitter) enter(token string) int {
	n := len(e.ptr)
	e.ptr = append(e.ptr, '/')
	for i := 0; i < len(token); i++ {
		switch token[i] {
		case '~':
			e.ptr = append(e.ptr, '~', '0')
		case '/':
			e.ptr = append(e.ptr, '~', '1')
		default:
			e.ptr = append(e.ptr, token[i])
		}
	}
	return n
}

func (e *emitter) write(b ...byte) {
	if e.discard == 0 {
		e.out = append(e.out, b...)
	}
}

// count charges one node, refusing documents whose aliases multiply their
// size, as go-yaml does: past 1000 nodes and 100 through aliases, the share
// reached through aliases may not pass 99% (falling to 10% for a document
// of 4 million nodes).
func (e *emitter) count() error {
	e.decodes++
	if e.aliasDepth > 0 {
		e.aliases++
	}
	if e.aliases > 100 && e.decodes > 1000 {
		ratio := 0.99
		switch {
		case e.decodes >= 4000000:
			ratio = 0.10
		case e.decodes > 400000:
			ratio = 0.99 - 0.89*float64(e.decodes-400000)/3600000
		}
		if float64(e.aliases)/float64(e.decodes) > ratio {
			return &Error{Msg: "document contains excessive aliasing"}
		}
	}
	if len(e.out) > maxOutput {
		return &Error{Msg: fmt.Sprintf("document expands to more than %d bytes of JSON", maxOutput)}
	}
	return nil
}

func (e *emitter) node(n *node) error {
	if err := e.count(); err != nil {
		return err
	}
	if e.lines != nil && e.discard == 0 && n.kind != aliasNode {
		e.lines[string(e.ptr)] = n.line
	}
	switch n.kind {
	case aliasNode:
		e.aliasDepth++
		err := e.node(n.target)
		e.aliasDepth--
		return err
	case sequenceNode:
		e.write('[')
		for i, c := range n.children {
			if i > 0 {
				e.write(',')
			}
			if e.lines != nil {
				cut := e.enter(strconv.Itoa(i))
				err := e.node(c)
				e.ptr = e.ptr[:cut]
				if err != nil {
					return err
				}
				continue
			}
			if err := e.node(c); err != nil {
				return err
			}
		}
		e.write(']')
		return nil
	case mappingNode:
		return e.mapping(n)
	}
	v, err := scalarValue(n)
	if err != nil {
		return err
	}
	if e.discard > 0 {
		return nil
	}
	return e.scalar(v)
}

func (e *emitter) scalar(v value) error {
	switch v.kind {
	case vNull:
		e.out = append(e.out, "null"...)
	case vBool:
		e.out = strconv.AppendBool(e.out, v.b)
	case vInt:
		e.out = strconv.AppendInt(e.out, v.i, 10)
	case vUint:
		e.out = strconv.AppendUint(e.out, v.u, 10)
	case vBig:
		e.out = v.big.Append(e.out, 10)
	case vFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(v.f, 'g', -1, 64))
		}
		b, err := json.Marshal(v.f)
		if err != nil {
			return fmt.Errorf("writing %v as JSON: %w", v.f, err)
		}
		e.out = append(e.out, b...)
	default:
		e.out = appendString(e.out, v.s)
	}
	return nil
}

// setOp is one entry set into a mapping being written.
type setOp struct {
	name     string // the JSON member name
	id       any    // the key as go-yaml tells keys apart
	keyErr   error  // the key has no JSON name
	val      *node
	viaAlias bool
}

// mapping writes a mapping as an object. Entries are set in order, a later
// one replacing an earlier with the same key; a "<<" merge key sets, where
// it stands, every entry of the mapping (or mappings, the first winning)
// it names, as go-yaml v2 does.
func (e *emitter) mapping(n *node) error {
	var ops []setOp
	var walk func(m *node, viaAlias bool) error
	merge := func(v *node, viaAlias bool) error {
		if v.kind == aliasNode {
			v, viaAlias = v.target, true
		}
		switch v.kind {
		case mappingNode:
			return walk(v, viaAlias)
		case sequenceNode:
			for i := len(v.children) - 1; i >= 0; i-- {
				m, itemAlias := v.children[i], viaAlias
				if m.kind == aliasNode {
					m, itemAlias = m.target, true
				}
				if m.kind != mappingNode {
					return &Error{Msg: "map merge requires map or sequence of maps as the value"}
				}
				if err := walk(m, itemAlias); err != nil {
					return err
				}
			}
			return nil
		}
		return &Error{Msg: "map merge requires map or sequence of maps as the value"}
	}
	walk = func(m *node, viaAlias bool) error {
		if viaAlias {
			e.aliasDepth++
			defer func() { e.aliasDepth-- }()
		}
		for i := 0; i+1 < len(m.children); i += 2 {
			k, v := m.children[i], m.children[i+1]
			if isMerge(k) {
				if err := merge(v, viaAlias); err != nil {
					return err
				}
				continue
			}
			if err := e.count(); err != nil {
				return err
			}
			name, id, keyErr, err := keyString(k)
			if err != nil {
				return err
			}
			ops = append(ops, setOp{name, id, keyErr, v, viaAlias})
		}
		return nil
	}
	if err := walk(n, false); err != nil {
		return err
	}
	last := map[string]int{}
	for i, op := range ops {
		if op.keyErr != nil && e.discard == 0 {
			return op.keyErr
		}
		last[op.name] = i
	}
	seen := map[any]bool{}
	e.write('{')
	first := true
	for i, op := range ops {
		win := last[op.name] == i
		if win {
			if !first {
				e.write(',')
			}
			first = false
			if e.discard == 0 {
				e.out = appendString(e.out, op.name)
			}
			e.write(':')
		} else {
			e.discard++
		}
		if op.viaAlias {
			e.aliasDepth++
		}
		cut := len(e.ptr)
		if e.lines != nil && win {
			cut = e.enter(op.name)
		}
		err := e.node(op.val)
		e.ptr = e.ptr[:cut]
		if op.viaAlias {
			e.aliasDepth--
		}
		if !win {
			e.discard--
		}
		if err != nil {
			return err
		}
		if seen[op.id] {
			e.dups = append(e.dups, fmt.Sprintf("line %d: key %#v already set in map", op.val.line, op.id))
		}
		seen[op.id] = true
	}
	e.write('}')
	return nil
}

// appendString writes s as a JSON string; invalid UTF-8 (only a !!binary
// value holds any) becomes U+FFFD, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
