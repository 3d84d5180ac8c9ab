// Package kubeyaml reads kubeconfig files without a YAML library: JSON
// (through encoding/json), or the subset of YAML that kubectl, kind,
// minikube and the cloud CLIs write:
//
//   - block mappings ("key: value", "key:" and a more indented block) and
//     block sequences ("- item", also at the indentation of their key, as
//     kubectl writes them), an item being a scalar, a mapping ("- name: x"
//     and more keys below it) or a sequence;
//   - plain, 'single-quoted' and "double-quoted" scalars on one line;
//   - literal (|) and folded (>) block scalars, with - or + chomping;
//   - flow collections on one line ({}, [], [a, b], {k: v});
//   - comments, blank lines, one leading "---" and a trailing "...".
//
// Anything else (anchors and aliases, tags, "? " keys, multi-line plain or
// quoted scalars, several documents, tabs in indentation, duplicate keys)
// is refused with an *Error naming the line: a kubeconfig that needs more
// can be turned into JSON with `kubectl config view --raw -o json`.
//
// Scalars keep their text: the reader does not decide that 123 is a number
// or yes a boolean; the caller, knowing which field it reads, does (as
// sigs.k8s.io/yaml, which kubectl uses, converts by the target's type).
// Plain "", "~" and "null" are Null.
package kubeyaml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a Node holds.
type Kind int

// The kinds of Node.
const (
	Null Kind = iota
	Scalar
	Mapping
	Sequence
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Scalar:
		return "a scalar"
	case Mapping:
		return "a mapping"
	case Sequence:
		return "a sequence"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Node is one value of the document.
type Node struct {
	Kind Kind
	// Line is where the node starts, from 1; 0 for a node read from JSON.
	Line int
	// Value is a Scalar's text (quotes removed, escapes resolved).
	Value string
	// Keys and Values are a Mapping's entries, in the document's order
	// (JSON objects: sorted by key).
	Keys   []string
	Values []*Node
	// Items are a Sequence's elements.
	Items []*Node
}

// Get returns the value of key in a Mapping, or nil if n is not a Mapping
// or has no such key.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Mapping {
		return nil
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Values[i]
		}
	}
	return nil
}

// Error is a document the reader refuses, with the line (from 1) at fault.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func errorf(line int, format string, args ...any) error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a kubeconfig document: JSON if its first non-blank character
// is "{", else the YAML subset described in the package comment. An empty
// document is a Null node.
func Parse(data []byte) (*Node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if !utf8.Valid(data) {
		return nil, errors.New("the document is not UTF-8")
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return parseJSON(data)
	}
	p := &parser{}
	for i, raw := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		p.lines = append(p.lines, newLine(i+1, raw))
	}
	return p.document()
}

// parseJSON reads a JSON document into Nodes.
func parseJSON(data []byte) (*Node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, errorf(1+bytes.Count(data[:se.Offset], []byte("\n")), "JSON: %v", err)
		}
		return nil, fmt.Errorf("JSON: %w", err)
	}
	if d.More() {
		return nil, errors.New("JSON: more than one value in the document")
	}
	return fromJSON(v), nil
}

func fromJSON(v any) *Node {
	switch v := v.(type) {
	case nil:
		return &Node{Kind: Null}
	case map[string]any:
		n := &Node{Kind: Mapping}
		for k := range v {
			n.Keys = append(n.Keys, k)
		}
		sort.Strings(n.Keys)
		for _, k := range n.Keys {
			n.Values = append(n.Values, fromJSON(v[k]))
		}
		return n
	case []any:
		n := &Node{Kind: Sequence, Items: []*Node{}}
		for _, e := range v {
			n.Items = append(n.Items, fromJSON(e))
		}
		return n
	case string:
		return &Node{Kind: Scalar, Value: v}
	case bool:
		return &Node{Kind: Scalar, Value: strconv.FormatBool(v)}
	case json.Number:
		return &Node{Kind: Scalar, Value: v.String()}
	}
	panic(fmt.Sprintf("kubeyaml: unexpected JSON value %T", v))
}

// line is one line of the document: its indentation (spaces) and the text
// after it. A sequence item's content is re-read as a line of its own,
// indented to its column (see sequence).
type line struct {
	num    int
	indent int
	text   string // after the indentation, trailing blanks removed
	raw    string
	tabErr bool // a tab in the indentation
}

func newLine(num int, raw string) line {
	n := 0
	for n < len(raw) && raw[n] == ' ' {
		n++
	}
	l := line{num: num, indent: n, raw: raw, text: strings.TrimRight(raw[n:], " \t\r")}
	if strings.HasPrefix(raw[n:], "\t") && strings.TrimSpace(raw) != "" && !strings.HasPrefix(strings.TrimSpace(raw), "#") {
		l.tabErr = true
	}
	return l
}

// blank says the line holds nothing but blanks or a comment.
func (l line) blank() bool { return l.text == "" || strings.HasPrefix(l.text, "#") }

type parser struct {
	lines []line
	i     int // the next line to read
}

// peek returns the next line that is not blank, without consuming it.
func (p *parser) peek() (*line, error) {
	for p.i < len(p.lines) {
		l := &p.lines[p.i]
		if l.tabErr {
			return nil, errorf(l.num, "a tab in the indentation: YAML indents with spaces")
		}
		if !l.blank() {
			return l, nil
		}
		p.i++
	}
	return nil, nil
}

func (p *parser) document() (*Node, error) {
	l, err := p.peek()
	if err != nil || l == nil {
		return &Node{Kind: Null}, err
	}
	if strings.HasPrefix(l.text, "%") {
		return nil, errorf(l.num, "YAML directives (%s) are not supported", l.text)
	}
	if l.indent == 0 && (l.text == "---" || strings.HasPrefix(l.text, "--- ")) {
		if rest := strings.TrimSpace(l.text[3:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, errorf(l.num, "content after --- is not supported: start it on the next line")
		}
		p.i++
		if l, err = p.peek(); err != nil || l == nil {
			return &Node{Kind: Null}, err
		}
	}
	if l.text == "..." && l.indent == 0 {
		return &Node{Kind: Null}, p.end()
	}
	n, err := p.block(l.indent, -1)
	if err != nil {
		return nil, err
	}
	return n, p.end()
}

// end checks that nothing but a "..." follows the document.
func (p *parser) end() error {
	l, err := p.peek()
	if err != nil || l == nil {
		return err
	}
	switch {
	case l.indent == 0 && (l.text == "---" || strings.HasPrefix(l.text, "--- ")):
		return errorf(l.num, "a second YAML document: a kubeconfig is one document")
	case l.indent == 0 && l.text == "...":
		p.i++
		if l, err = p.peek(); err != nil || l == nil {
			return err
		}
		return errorf(l.num, "content after the end of the document (...)")
	}
	return errorf(l.num, "unexpected indentation or text: %q", l.text)
}

// block reads the node whose first line is the next non-blank one,
// indented by indent; parent is the indentation of the collection it
// belongs to (-1 at the top).
func (p *parser) block(indent, parent int) (*Node, error) {
	l, err := p.peek()
	if err != nil {
		return nil, err
	}
	if isItem(l.text) {
		return p.sequence(indent)
	}
	if _, _, ok, err := splitKey(l.text, l.num); err != nil {
		return nil, err
	} else if ok {
		return p.mapping(indent)
	}
	// A scalar on a line of its own (key:\n  value).
	p.i++
	n, err := p.inline(l.text, l.num, parent)
	if err != nil {
		return nil, err
	}
	return n, p.notDeeper(indent)
}

// isMarker says l is a document marker, "---" or "...".
func isMarker(l *line) bool {
	return l.indent == 0 && (l.text == "..." || l.text == "---" || strings.HasPrefix(l.text, "--- "))
}

func isItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// notDeeper checks that the next line is not indented deeper than indent:
// a scalar has no continuation lines here.
func (p *parser) notDeeper(indent int) error {
	l, err := p.peek()
	if err != nil || l == nil {
		return err
	}
	if l.indent > indent {
		return errorf(l.num, "unexpected indentation (a plain scalar continued on the next line is not supported: quote it on one line, or use |)")
	}
	return nil
}

func (p *parser) mapping(indent int) (*Node, error) {
	n := &Node{Kind: Mapping}
	seen := map[string]bool{}
	for {
		l, err := p.peek()
		if err != nil {
			return nil, err
		}
		if l == nil || l.indent < indent || isMarker(l) {
			return n, nil
		}
		if l.indent > indent {
			return nil, errorf(l.num, "unexpected indentation")
		}
		if n.Line == 0 {
			n.Line = l.num
		}
		if isItem(l.text) {
			return nil, errorf(l.num, "a sequence item where a mapping key was expected")
		}
		key, rest, ok, err := splitKey(l.text, l.num)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(l.num, "expected \"key: value\", found %q", l.text)
		}
		if seen[key] {
			return nil, errorf(l.num, "duplicate key %q", key)
		}
		seen[key] = true
		p.i++
		v, err := p.value(rest, l.num, indent)
		if err != nil {
			return nil, err
		}
		n.Keys, n.Values = append(n.Keys, key), append(n.Values, v)
	}
}

// value reads a mapping's value: rest is what follows "key:" on line num,
// indent the mapping's indentation.
func (p *parser) value(rest string, num, indent int) (*Node, error) {
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return p.inlineThenCheck(rest, num, indent)
	}
	next, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case next != nil && next.indent > indent:
		return p.block(next.indent, indent)
	case next != nil && next.indent == indent && isItem(next.text):
		return p.sequence(indent) // kubectl's "clusters:\n- cluster:"
	}
	return &Node{Kind: Null, Line: num}, nil
}

// inlineThenCheck reads a value that starts on its key's or item's line.
func (p *parser) inlineThenCheck(text string, num, parent int) (*Node, error) {
	n, err := p.inline(text, num, parent)
	if err != nil {
		return nil, err
	}
	return n, p.notDeeper(parent)
}

func (p *parser) sequence(indent int) (*Node, error) {
	n := &Node{Kind: Sequence, Items: []*Node{}}
	for {
		l, err := p.peek()
		if err != nil {
			return nil, err
		}
		if l == nil || l.indent < indent || (l.indent == indent && !isItem(l.text)) {
			return n, nil
		}
		if l.indent > indent {
			return nil, errorf(l.num, "unexpected indentation")
		}
		if n.Line == 0 {
			n.Line = l.num
		}
		content := strings.TrimLeft(l.text[1:], " ")
		column := indent + len(l.text) - len(content)
		var item *Node
		switch {
		case content == "" || strings.HasPrefix(content, "#"):
			p.i++
			next, err := p.peek()
			if err != nil {
				return nil, err
			}
			if next != nil && next.indent > indent {
				item, err = p.block(next.indent, indent)
			} else {
				item = &Node{Kind: Null, Line: l.num}
			}
			if err != nil {
				return nil, err
			}
		default:
			_, _, isKey, err := splitKey(content, l.num)
			if err != nil {
				return nil, err
			}
			if isKey || isItem(content) {
				// Re-read the item's content as a line indented to its column.
				l.indent, l.text = column, content
				item, err = p.block(column, indent)
			} else {
				p.i++
				item, err = p.inlineThenCheck(content, l.num, indent)
			}
			if err != nil {
				return nil, err
			}
		}
		n.Items = append(n.Items, item)
	}
}
