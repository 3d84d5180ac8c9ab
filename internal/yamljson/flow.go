package yamljson

import "strings"

// Flow collections ([a, b] and {a: 1}, hence JSON itself) and node
// properties (&anchor, !tag).

// skipFlow moves past blanks, comments and line breaks inside a flow
// collection, where tabs are whitespace too.
func (p *parser) skipFlow() {
	for {
		switch p.peek() {
		case ' ', '\t':
			p.pos++
		case '\n':
			p.newline()
		case '#':
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// flowCollection reads a flow sequence or mapping. Inside one, any ":"
// after a key is its value indicator, so {"a":1} reads as JSON does; a
// mapping entry without ":" has a null value, and "[a: 1]" is a sequence
// holding a one-entry mapping.
func (p *parser) flowCollection() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.flow++
	defer func() { p.flow-- }()
	isMap := p.peek() == '{'
	closer := byte(']')
	n := &node{kind: sequenceNode, line: p.line}
	if isMap {
		closer = '}'
		n.kind = mappingNode
	}
	expected := "did not find expected ',' or '" + string(closer) + "'"
	p.pos++
	for {
		p.skipFlow()
		if p.eof() || p.atDocMarker() {
			return nil, p.parseErr(p.line, n.line, expected)
		}
		if p.peek() == closer {
			p.pos++
			return n, nil
		}
		if p.peek() == '?' && p.blankz(1) {
			return nil, p.scanErr(p.line, complexKeyMsg)
		}
		var key *node
		var err error
		if isMap && p.peek() == ':' {
			key = emptyScalar(p.line)
		} else if key, err = p.flowNode(); err != nil {
			return nil, err
		}
		p.skipFlow()
		if p.peek() == ':' {
			p.pos++
			p.skipFlow()
			val := emptyScalar(p.line)
			if p.peek() != ',' && p.peek() != closer {
				if val, err = p.flowNode(); err != nil {
					return nil, err
				}
			}
			if key.kind != scalarNode {
				return nil, p.scanErr(key.line, complexKeyMsg)
			}
			if isMap {
				n.children = append(n.children, key, val)
			} else {
				n.children = append(n.children, &node{kind: mappingNode, line: key.line, children: []*node{key, val}})
			}
		} else if isMap {
			if key.kind != scalarNode {
				return nil, p.scanErr(key.line, complexKeyMsg)
			}
			n.children = append(n.children, key, emptyScalar(key.line))
		} else {
			n.children = append(n.children, key)
		}
		p.skipFlow()
		switch p.peek() {
		case ',':
			p.pos++
		case closer:
			p.pos++
			return n, nil
		default:
			return nil, p.parseErr(p.line, n.line, expected)
		}
	}
}

// flowNode reads one node inside a flow collection.
func (p *parser) flowNode() (*node, error) {
	var pr props
	if isPropStart(p.peek()) {
		var err error
		if pr, err = p.properties(); err != nil {
			return nil, err
		}
		p.skipFlow()
	}
	var n *node
	var err error
	switch c := p.peek(); {
	case c == '[' || c == '{':
		n, err = p.flowCollection()
	case c == '"' || c == '\'':
		n, err = p.quoted()
	case c == '*':
		n, err = p.alias()
	case c == ',' || c == ']' || c == '}' || c == ':':
		if !pr.set {
			return nil, p.parseErr(p.line, 0, "did not find expected node content")
		}
		n = emptyScalar(p.line)
	case p.atSeqEntry() || p.eof():
		return nil, p.parseErr(p.line, 0, "did not find expected node content")
	default:
		n, err = p.plain(-1, true)
	}
	return p.apply(pr, n, err)
}

func isPropStart(c byte) bool { return c == '&' || c == '!' }

// properties reads an anchor and a tag, in either order, before a node.
func (p *parser) properties() (props, error) {
	var pr props
	for {
		switch {
		case p.peek() == '&' && pr.anchor == "":
			p.pos++
			name, err := p.anchorName()
			if err != nil {
				return pr, err
			}
			pr.anchor = name
		case p.peek() == '!' && pr.tag == "":
			tag, err := p.tag()
			if err != nil {
				return pr, err
			}
			pr.tag = tag
		default:
			return pr, nil
		}
		pr.set = true
		save := p.pos
		for isBlank(p.peek()) {
			p.pos++
		}
		if !isPropStart(p.peek()) {
			p.pos = save
			return pr, nil
		}
	}
}

func isURIChar(b byte) bool {
	return isWordChar(b) || strings.IndexByte(";/?:@&=+$,.!~*'()[]%", b) >= 0
}

// tag reads a tag: !!x (the core schema's, kept as "!!x"), a local !x, the
// non-specific "!", or a verbatim !<uri>. Named handles (!e!x) need a %TAG
// directive, which this package does not read.
func (p *parser) tag() (string, error) {
	p.pos++ // the '!'
	var tag string
	switch {
	case p.peek() == '<':
		p.pos++
		uri := p.uri()
		if p.peek() != '>' || uri == "" {
			return "", p.scanErr(p.line, "did not find the expected '>'")
		}
		p.pos++
		tag = uri
		if rest, ok := strings.CutPrefix(uri, "tag:yaml.org,2002:"); ok {
			tag = "!!" + rest
		}
	default:
		start := p.pos
		for isWordChar(p.peek()) {
			p.pos++
		}
		if p.peek() == '!' {
			if p.pos > start {
				return "", p.parseErr(p.line, 0, "found undefined tag handle")
			}
			p.pos++
			suffix := p.uri()
			if suffix == "" {
				return "", p.scanErr(p.line, "did not find expected tag URI")
			}
			tag = "!!" + suffix
		} else {
			p.pos = start
			tag = "!" + p.uri()
		}
	}
	if !p.blankz(0) && !(p.flow > 0 && p.peek() == ',') {
		return "", p.scanErr(p.line, "did not find expected whitespace or line break")
	}
	return tag, nil
}

// uri reads a tag's URI characters, decoding %XX escapes.
func (p *parser) uri() string {
	var b strings.Builder
	for isURIChar(p.peek()) {
		if c := p.peek(); c == '%' && hexValue(p.at(1)) >= 0 && hexValue(p.at(2)) >= 0 {
			b.WriteByte(byte(hexValue(p.at(1))<<4 | hexValue(p.at(2))))
			p.pos += 3
			continue
		}
		b.WriteByte(p.peek())
		p.pos++
	}
	return b.String()
}
