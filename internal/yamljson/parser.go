package yamljson

import (
	"fmt"
	"strconv"
)

// maxDepth is how deeply collections may nest, the limit the real server's
// YAML library sets (and encoding/json's too).
const maxDepth = 10000

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	mappingNode
	sequenceNode
	aliasNode
)

// node is one parsed YAML node. Mappings keep their keys and values
// interleaved in children (k0, v0, k1, v1, ...); an alias points at the
// node its anchor named.
type node struct {
	kind     nodeKind
	line     int    // 1-based line the node starts on
	tag      string // "" when none; "!!x" for the core schema's tags
	value    string // a scalar's text
	plain    bool   // a plain (unquoted) scalar: its type comes from its text
	multi    bool   // a scalar that spans lines (so it cannot be a key)
	children []*node
	target   *node  // an alias's node
	name     string // an alias's anchor name
}

func emptyScalar(line int) *node { return &node{kind: scalarNode, line: line, plain: true} }

// Error is a YAML syntax error, worded as the real server's YAML library
// (go-yaml v2) words it: "yaml: line 3: mapping values are not allowed in
// this context".
type Error struct {
	Line int // 0 when the message names no line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return "yaml: line " + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return "yaml: " + e.Msg
}

// props are the properties written before a node: an anchor and a tag.
type props struct {
	anchor string
	tag    string
	set    bool
}

// parser reads one YAML document from src (UTF-8, line breaks normalised
// to \n) by recursive descent.
type parser struct {
	src       []byte
	pos       int
	line      int // 1-based line of pos
	lineStart int // offset of the first byte of the current line
	depth     int
	flow      int // how many flow collections enclose pos
	anchors   map[string]*node
}

// scanErr is an error found while reading characters. go-yaml names the
// line of the problem, but none when the problem is on the first line.
func (p *parser) scanErr(line int, msg string) error {
	if line <= 1 {
		line = 0
	}
	return &Error{Line: line, Msg: msg}
}

// parseErr is an error found while putting tokens together. go-yaml counts
// those lines from zero, so it names the line before the problem's, or the
// line before the collection's start when the problem is on the first line.
func (p *parser) parseErr(problemLine, contextLine int, msg string) error {
	switch {
	case problemLine > 1:
		return &Error{Line: problemLine - 1, Msg: msg}
	case contextLine > 1:
		return &Error{Line: contextLine - 1, Msg: msg}
	}
	return &Error{Msg: msg}
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

// at is the byte i places ahead, 0 past the end (the input holds no NUL:
// control characters are refused before parsing).
func (p *parser) at(i int) byte {
	if p.pos+i < len(p.src) {
		return p.src[p.pos+i]
	}
	return 0
}

func (p *parser) peek() byte { return p.at(0) }
func (p *parser) col() int   { return p.pos - p.lineStart }

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// blankz: a blank, a line break or the end of the input.
func (p *parser) blankz(i int) bool {
	b := p.at(i)
	return b == ' ' || b == '\t' || b == '\n' || p.pos+i >= len(p.src)
}

func (p *parser) newline() {
	p.pos++
	p.line++
	p.lineStart = p.pos
}

// atDocMarker: "---" or "..." at the start of a line, then a blank.
func (p *parser) atDocMarker() bool {
	if p.col() != 0 || !p.blankz(3) {
		return false
	}
	c := p.peek()
	return (c == '-' || c == '.') && p.at(1) == c && p.at(2) == c
}

func (p *parser) atDocStart() bool { return p.atDocMarker() && p.peek() == '-' }

// atSeqEntry: a "-" followed by a blank, a line break or the end.
func (p *parser) atSeqEntry() bool { return p.peek() == '-' && p.blankz(1) }

// atValue: a ":" followed by a blank, a line break or the end (block
// context; in flow context any ":" is one).
func (p *parser) atValue() bool { return p.peek() == ':' && p.blankz(1) }

// firstOnLine: only spaces stand between the line's start and pos.
func (p *parser) firstOnLine() bool {
	for i := p.lineStart; i < p.pos; i++ {
		if p.src[i] != ' ' {
			return false
		}
	}
	return true
}

// skipToToken moves past spaces, comments and line breaks to the next
// token. Tabs separate tokens only after a scalar on the same line
// (tabsOK); in indentation or right after an indicator go-yaml refuses
// them, and so does this.
func (p *parser) skipToToken(tabsOK bool) error {
	for {
		for p.peek() == ' ' || (tabsOK && p.peek() == '\t') {
			p.pos++
		}
		if p.peek() == '#' {
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		}
		if p.peek() != '\n' {
			break
		}
		p.newline()
		tabsOK = false
	}
	if p.peek() == '\t' {
		return p.scanErr(p.line, "found character that cannot start any token")
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.scanErr(p.line, fmt.Sprintf("exceeded max depth of %d", maxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// document parses the first document of the stream; whatever follows its
// end ("---" starting another, or "...") is not read, as go-yaml's
// Unmarshal does not read it.
func (p *parser) document() (*node, error) {
	if err := p.skipToToken(false); err != nil {
		return nil, err
	}
	directives := false
	for !p.eof() && p.col() == 0 && p.peek() == '%' {
		if err := p.directive(); err != nil {
			return nil, err
		}
		directives = true
		if err := p.skipToToken(false); err != nil {
			return nil, err
		}
	}
	var n *node
	var err error
	switch {
	case p.atDocStart():
		line := p.line
		p.pos += 3
		n, err = p.afterIndicator(-1, ctxDocStart)
		if n == nil && err == nil {
			n = emptyScalar(line)
		}
	case directives:
		return nil, p.parseErr(p.line, 0, "did not find expected <document start>")
	case p.eof() || p.atDocMarker():
		return emptyScalar(p.line), nil
	default:
		n, err = p.blockNode(-1, props{})
	}
	if err != nil {
		return nil, err
	}
	if !p.eof() && !p.atDocMarker() {
		if p.atValue() {
			return nil, p.scanErr(p.line, "mapping values are not allowed in this context")
		}
		return nil, p.parseErr(p.line, 0, "did not find expected <document start>")
	}
	return n, nil
}

// directive reads a "%" line. %YAML 1.1 is what go-yaml accepts (it
// refuses 1.2); %TAG would define tag handles, which this package does not
// resolve; other directives are ignored.
func (p *parser) directive() error {
	start := p.pos
	for !p.eof() && p.peek() != '\n' && p.peek() != '#' {
		p.pos++
	}
	fields := splitFields(string(p.src[start:p.pos]))
	switch fields[0] {
	case "%YAML":
		if len(fields) < 2 || fields[1] != "1.1" {
			return p.parseErr(p.line, 0, "found incompatible YAML document")
		}
	case "%TAG":
		return p.scanErr(p.line, "%TAG directives are not supported by this server")
	}
	return nil
}

func splitFields(s string) []string {
	var out []string
	field := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || isBlank(s[i]) {
			if field >= 0 {
				out = append(out, s[field:i])
				field = -1
			}
		} else if field < 0 {
			field = i
		}
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	return out
}
