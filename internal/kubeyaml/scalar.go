package kubeyaml

import (
	"strconv"
	"strings"
)

// Scalars: keys, plain, quoted and block scalars, one line at a time.

// splitKey splits "key: rest" (or "key:" at the end of the line); ok is
// false if text is not a mapping entry.
func splitKey(text string, num int) (key, rest string, ok bool, err error) {
	if text == "" {
		return "", "", false, nil
	}
	switch text[0] {
	case '"', '\'':
		k, after, err := quoted(text, num)
		if err != nil {
			return "", "", false, err
		}
		if after == ":" || strings.HasPrefix(after, ": ") || strings.HasPrefix(after, ":\t") {
			return k, strings.TrimSpace(after[1:]), true, nil
		}
		return "", "", false, nil
	case '?':
		if text == "?" || strings.HasPrefix(text, "? ") {
			return "", "", false, errorf(num, "complex keys (? ) are not supported")
		}
	case '{', '[', '|', '>', '#':
		return "", "", false, nil
	}
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == ' ' && i+1 < len(text) && text[i+1] == '#':
			return "", "", false, nil // a comment starts before any ": "
		case text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t'):
			key = strings.TrimRight(text[:i], " ")
			if err := checkPlain(key, num); err != nil {
				return "", "", false, err
			}
			return key, strings.TrimSpace(text[i+1:]), true, nil
		}
	}
	return "", "", false, nil
}

// checkPlain refuses a plain scalar that starts with an indicator the
// reader does not support.
func checkPlain(s string, num int) error {
	if s == "" {
		return nil
	}
	switch s[0] {
	case '&':
		return errorf(num, "anchors (%s) are not supported", firstWord(s))
	case '*':
		return errorf(num, "aliases (%s) are not supported", firstWord(s))
	case '!':
		return errorf(num, "tags (%s) are not supported", firstWord(s))
	case '@', '`', '%':
		return errorf(num, "a plain scalar may not start with %q", s[0])
	}
	return nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

// inline reads a value written on its line (after "key:" or "- "), parent
// being the indentation of its collection (for block scalars).
func (p *parser) inline(text string, num, parent int) (*Node, error) {
	switch text[0] {
	case '|', '>':
		return p.blockScalar(text, num, parent)
	case '"', '\'':
		v, after, err := quoted(text, num)
		if err != nil {
			return nil, err
		}
		if after != "" && !strings.HasPrefix(after, "#") {
			return nil, errorf(num, "unexpected %q after a quoted scalar", after)
		}
		return &Node{Kind: Scalar, Line: num, Value: v}, nil
	case '{', '[':
		f := &flow{s: text, num: num}
		n, err := f.node()
		if err != nil {
			return nil, err
		}
		f.space()
		if f.s != "" && !strings.HasPrefix(f.s, "#") {
			return nil, errorf(num, "unexpected %q after a flow collection (flow collections must end on their line)", f.s)
		}
		return n, nil
	}
	if isItem(text) {
		return nil, errorf(num, "a sequence item is not allowed here")
	}
	v := text
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimRight(v[:i], " \t")
	}
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") {
		return nil, errorf(num, "a mapping is not allowed here (quote the value if it holds \": \")")
	}
	if err := checkPlain(v, num); err != nil {
		return nil, err
	}
	return plain(v, num), nil
}

func plain(v string, num int) *Node {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return &Node{Kind: Null, Line: num}
	}
	return &Node{Kind: Scalar, Line: num, Value: v}
}

// quoted reads the quoted scalar text starts with and returns it and what
// follows it on the line, trimmed.
func quoted(text string, num int) (value, after string, err error) {
	q := text[0]
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		c := text[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(text) && text[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), strings.TrimSpace(text[i+1:]), nil
		case q == '"' && c == '"':
			return b.String(), strings.TrimSpace(text[i+1:]), nil
		case q == '"' && c == '\\':
			n, err := escape(text[i+1:], &b, num)
			if err != nil {
				return "", "", err
			}
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errorf(num, "a quoted scalar that does not end on its line (multi-line quoted scalars are not supported)")
}

// escape writes the character of the escape sequence s starts with (after
// the backslash) and returns its length.
func escape(s string, b *strings.Builder, num int) (int, error) {
	if s == "" {
		return 0, errorf(num, "a backslash at the end of the line (multi-line quoted scalars are not supported)")
	}
	simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v",
		'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0",
		'L': "\u2028", 'P': "\u2029"}
	if r, ok := simple[s[0]]; ok {
		b.WriteString(r)
		return 1, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if digits == 0 || len(s) < 1+digits {
		return 0, errorf(num, "unknown escape \\%c in a double-quoted scalar", s[0])
	}
	r, err := strconv.ParseUint(s[1:1+digits], 16, 32)
	if err != nil {
		return 0, errorf(num, "bad escape \\%s in a double-quoted scalar", s[:1+digits])
	}
	b.WriteRune(rune(r))
	return 1 + digits, nil
}

// blockScalar reads a | or > scalar: header is its indicator line's text,
// parent the indentation of the collection holding it.
func (p *parser) blockScalar(header string, num, parent int) (*Node, error) {
	style, chomp := header[0], byte(0)
	h := header[1:]
	if h != "" && (h[0] == '-' || h[0] == '+') {
		chomp, h = h[0], h[1:]
	}
	if h != "" && h[0] >= '1' && h[0] <= '9' {
		return nil, errorf(num, "block scalar indentation indicators (%s) are not supported", header)
	}
	if h = strings.TrimSpace(h); h != "" && !strings.HasPrefix(h, "#") {
		return nil, errorf(num, "unexpected %q after a block scalar indicator", h)
	}
	var content []string
	indent := -1
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if strings.TrimSpace(l.raw) == "" {
			content = append(content, "")
			continue
		}
		if l.indent <= parent {
			break
		}
		if indent < 0 {
			indent = l.indent
		}
		if l.indent < indent {
			return nil, errorf(l.num, "a block scalar line indented less than its first line")
		}
		content = append(content, strings.TrimRight(l.raw[indent:], "\r"))
	}
	// Trailing blank lines belong to the chomping, not the text.
	trailing := 0
	for len(content) > 0 && content[len(content)-1] == "" {
		content, trailing = content[:len(content)-1], trailing+1
	}
	// Blank lines after the scalar belong to the document: hand them back.
	// (They are blank: p.peek skips them; nothing else to undo.)
	var text string
	if style == '|' {
		text = strings.Join(content, "\n")
	} else {
		text = fold(content)
	}
	switch {
	case len(content) == 0:
		text = ""
		if chomp == '+' {
			text = strings.Repeat("\n", trailing)
		}
	case chomp == '-':
	case chomp == '+':
		text += "\n" + strings.Repeat("\n", trailing)
	default:
		text += "\n"
	}
	return &Node{Kind: Scalar, Line: num, Value: text}, nil
}

// fold joins the lines of a > scalar: a line break between two text lines
// becomes a space, blank lines are line breaks, and more indented lines
// keep their breaks.
func fold(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			switch {
			case l == "" && prev != "":
				// the break ending a text line before blank lines is folded away
			case l == "" || prev == "":
				b.WriteByte('\n')
			case strings.HasPrefix(l, " ") || strings.HasPrefix(prev, " "):
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
