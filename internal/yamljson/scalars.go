package yamljson

import (
	"fmt"
	"unicode/utf8"
)

// Scalars: plain, single- and double-quoted, literal and folded block
// scalars, folded across lines as YAML (and go-yaml) fold them.

// canStartPlain: c may begin a plain scalar. Indicators cannot, except
// "-" (and, in block context, "?" and ":") before a non-blank.
func (p *parser) canStartPlain(flow bool) bool {
	switch p.peek() {
	case '-':
		return !p.blankz(1)
	case '?', ':':
		return !flow && !p.blankz(1)
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return !p.blankz(0)
}

// plain reads a plain scalar. In block context it continues on following
// lines indented deeper than blockIndent; a single line break between two
// lines folds to a space, n+1 breaks to n newlines. It ends before ": ",
// " #", a document marker, and in flow context before ",?[]{}".
func (p *parser) plain(blockIndent int, flow bool) (*node, error) {
	if !p.canStartPlain(flow) {
		return nil, p.scanErr(p.line, "found character that cannot start any token")
	}
	n := &node{kind: scalarNode, line: p.line, plain: true}
	indent := blockIndent + 1
	var s, ws []byte
	leading := false // a line break since the last text
	breaks := 0      // line breaks after the first one
	for {
		if p.atDocMarker() || p.peek() == '#' {
			break
		}
		for !p.blankz(0) {
			c := p.peek()
			if c == ':' && p.blankz(1) {
				break
			}
			if flow && (c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}') {
				break
			}
			if leading {
				if breaks == 0 {
					s = append(s, ' ')
				}
				for ; breaks > 0; breaks-- {
					s = append(s, '\n')
				}
				leading = false
				n.multi = true
			} else if len(ws) > 0 {
				s = append(s, ws...)
				ws = ws[:0]
			}
			s = append(s, c)
			p.pos++
		}
		if !isBlank(p.peek()) && p.peek() != '\n' {
			break
		}
		for isBlank(p.peek()) || p.peek() == '\n' {
			if isBlank(p.peek()) {
				if leading && p.col() < indent && p.peek() == '\t' {
					return nil, p.scanErr(p.line, "found a tab character that violates indentation")
				}
				if !leading {
					ws = append(ws, p.peek())
				}
				p.pos++
				continue
			}
			if !leading {
				ws = ws[:0]
				leading = true
			} else {
				breaks++
			}
			p.newline()
		}
		if !flow && p.col() < indent {
			break
		}
	}
	n.value = string(s)
	return n, nil
}

// quoted reads a single- or double-quoted scalar, which may span lines
// (folded as plain scalars are) and, double-quoted, hold escapes.
func (p *parser) quoted() (*node, error) {
	single := p.peek() == '\''
	n := &node{kind: scalarNode, line: p.line}
	p.pos++
	var s, ws []byte
	for {
		if p.atDocMarker() {
			return nil, p.scanErr(p.line, "found unexpected document indicator")
		}
		if p.eof() {
			return nil, p.scanErr(p.line, "found unexpected end of stream")
		}
		leading, escapedBreak := false, false
		for !p.blankz(0) {
			c := p.peek()
			switch {
			case single && c == '\'' && p.at(1) == '\'':
				s = append(s, '\'')
				p.pos += 2
				continue
			case single && c == '\'', !single && c == '"':
			case !single && c == '\\' && p.at(1) == '\n':
				p.pos++
				p.newline()
				leading, escapedBreak = true, true
			case !single && c == '\\':
				var err error
				if s, err = p.escape(s); err != nil {
					return nil, err
				}
				continue
			default:
				s = append(s, c)
				p.pos++
				continue
			}
			break
		}
		if (single && p.peek() == '\'') || (!single && p.peek() == '"') {
			break
		}
		ws = ws[:0]
		trailing := 0
		for isBlank(p.peek()) || p.peek() == '\n' {
			if isBlank(p.peek()) {
				if !leading {
					ws = append(ws, p.peek())
				}
				p.pos++
				continue
			}
			if !leading {
				leading = true
			} else {
				trailing++
			}
			p.newline()
		}
		switch {
		case leading && !escapedBreak && trailing == 0:
			s = append(s, ' ')
		case leading:
			for ; trailing > 0; trailing-- {
				s = append(s, '\n')
			}
		default:
			s = append(s, ws...)
		}
		if leading {
			n.multi = true
		}
	}
	p.pos++ // the closing quote
	n.value = string(s)
	return n, nil
}

// escape decodes the escape sequence at pos (a backslash) onto s.
func (p *parser) escape(s []byte) ([]byte, error) {
	digits := 0
	switch e := p.at(1); e {
	case '0':
		s = append(s, 0)
	case 'a':
		s = append(s, '\a')
	case 'b':
		s = append(s, '\b')
	case 't', '\t':
		s = append(s, '\t')
	case 'n':
		s = append(s, '\n')
	case 'v':
		s = append(s, '\v')
	case 'f':
		s = append(s, '\f')
	case 'r':
		s = append(s, '\r')
	case 'e':
		s = append(s, 0x1b)
	case ' ', '"', '\'', '\\':
		s = append(s, e)
	case 'N':
		s = utf8.AppendRune(s, 0x85)
	case '_':
		s = utf8.AppendRune(s, 0xA0)
	case 'L':
		s = utf8.AppendRune(s, 0x2028)
	case 'P':
		s = utf8.AppendRune(s, 0x2029)
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		// go-yaml knows no "\/" (JSON's escaped slash) either.
		return nil, p.scanErr(p.line, "found unknown escape character")
	}
	p.pos += 2
	if digits == 0 {
		return s, nil
	}
	v := 0
	for k := 0; k < digits; k++ {
		d := hexValue(p.at(k))
		if d < 0 {
			return nil, p.scanErr(p.line, "did not find expected hexdecimal number")
		}
		v = v<<4 | d
	}
	if (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF {
		return nil, p.scanErr(p.line, "found invalid Unicode character escape code")
	}
	p.pos += digits
	return utf8.AppendRune(s, rune(v)), nil
}

func hexValue(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}

// blockScalar reads a literal (|) or folded (>) block scalar, with its
// chomping indicator (- strip, + keep, clip by default) and indentation
// indicator; its content is indented deeper than blockIndent.
func (p *parser) blockScalar(blockIndent int) (*node, error) {
	literal := p.peek() == '|'
	n := &node{kind: scalarNode, line: p.line, multi: true}
	p.pos++
	chomp, increment := 0, 0
	indicator := func() error {
		switch c := p.peek(); {
		case c == '+' && chomp == 0:
			chomp = 1
		case c == '-' && chomp == 0:
			chomp = -1
		case c == '0' && increment == 0:
			return p.scanErr(p.line, "found an indentation indicator equal to 0")
		case c >= '1' && c <= '9' && increment == 0:
			increment = int(c - '0')
		default:
			return nil
		}
		p.pos++
		return nil
	}
	for range 2 {
		if err := indicator(); err != nil {
			return nil, err
		}
	}
	for isBlank(p.peek()) {
		p.pos++
	}
	if p.peek() == '#' {
		for !p.eof() && p.peek() != '\n' {
			p.pos++
		}
	}
	if !p.eof() && p.peek() != '\n' {
		return nil, p.scanErr(p.line, "did not find expected comment or line break")
	}
	if !p.eof() {
		p.newline()
	}
	indent := 0
	if increment > 0 {
		indent = max(blockIndent, 0) + increment
	}
	trailing, err := p.blockBreaks(&indent, blockIndent)
	if err != nil {
		return nil, err
	}
	var s []byte
	leadingBreak, leadingBlank := false, false
	for p.col() == indent && !p.eof() {
		trailingBlank := isBlank(p.peek())
		if !literal && !leadingBlank && !trailingBlank && leadingBreak {
			if trailing == 0 {
				s = append(s, ' ')
			}
		} else if leadingBreak {
			s = append(s, '\n')
		}
		for ; trailing > 0; trailing-- {
			s = append(s, '\n')
		}
		leadingBlank = trailingBlank
		start := p.pos
		for !p.eof() && p.peek() != '\n' {
			p.pos++
		}
		s = append(s, p.src[start:p.pos]...)
		leadingBreak = !p.eof()
		if leadingBreak {
			p.newline()
		}
		if trailing, err = p.blockBreaks(&indent, blockIndent); err != nil {
			return nil, err
		}
	}
	if chomp != -1 && leadingBreak {
		s = append(s, '\n')
	}
	if chomp == 1 {
		for ; trailing > 0; trailing-- {
			s = append(s, '\n')
		}
	}
	n.value = string(s)
	return n, p.skipToToken(false)
}

// blockBreaks moves past the indentation and the empty lines before a
// block scalar's next line, counting the empty lines; when *indent is 0 it
// sets it from the first non-empty line (at least blockIndent+1).
func (p *parser) blockBreaks(indent *int, blockIndent int) (int, error) {
	breaks, maxIndent := 0, 0
	for {
		for (*indent == 0 || p.col() < *indent) && p.peek() == ' ' {
			p.pos++
		}
		maxIndent = max(maxIndent, p.col())
		if (*indent == 0 || p.col() < *indent) && p.peek() == '\t' {
			return 0, p.scanErr(p.line, "found a tab character where an indentation space is expected")
		}
		if p.peek() != '\n' {
			break
		}
		p.newline()
		breaks++
	}
	if *indent == 0 {
		*indent = max(maxIndent, blockIndent+1, 1)
	}
	return breaks, nil
}

// alias reads "*name", which stands for the node the anchor "&name" was
// last put on.
func (p *parser) alias() (*node, error) {
	line := p.line
	p.pos++
	name, err := p.anchorName()
	if err != nil {
		return nil, err
	}
	target := p.anchors[name]
	if target == nil {
		return nil, &Error{Msg: fmt.Sprintf("unknown anchor '%s' referenced", name)}
	}
	return &node{kind: aliasNode, line: line, target: target, name: name}, nil
}

func isWordChar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '-'
}

// anchorName reads an anchor's or alias's name (letters, digits, _ and -,
// as go-yaml allows).
func (p *parser) anchorName() (string, error) {
	start := p.pos
	for isWordChar(p.peek()) {
		p.pos++
	}
	ok := p.pos > start
	switch c := p.peek(); {
	case p.blankz(0), c == '?', c == ':', c == ',', c == ']', c == '}', c == '%', c == '@', c == '`':
	default:
		ok = false
	}
	if !ok {
		return "", p.scanErr(p.line, "did not find expected alphabetic or numeric character")
	}
	return string(p.src[start:p.pos]), nil
}
