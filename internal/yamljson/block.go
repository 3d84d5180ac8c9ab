package yamljson

// Block collections: mappings ("key: value" lines at one indentation) and
// sequences ("- item" lines), and the nodes that follow an indicator.

// ctx says which indicator a node follows.
type ctx uint8

const (
	ctxMapValue ctx = iota // "key:"
	ctxSeqItem             // "- "
	ctxDocStart            // "---"
)

const complexKeyMsg = "complex mapping keys (\"? \", or a collection or alias as a key) are not supported by this server"

// afterIndicator parses the node that follows an indicator (just consumed).
// blockIndent is the indentation of the collection holding the node (-1 at
// the top). The node may start on the indicator's line or on a later,
// deeper-indented one; a mapping value may also be a sequence at the
// mapping's own indentation ("containers:\n- name: c").
func (p *parser) afterIndicator(blockIndent int, c ctx) (*node, error) {
	line := p.line
	if err := p.skipToToken(false); err != nil {
		return nil, err
	}
	if p.line == line && !p.eof() && c == ctxSeqItem {
		// "- a: 1" and "- - a": a collection may start on the dash's line.
		return p.blockNode(blockIndent, props{})
	}
	var pr props
	if p.line == line && isPropStart(p.peek()) {
		var err error
		if pr, err = p.properties(); err != nil {
			return nil, err
		}
		if err := p.skipToToken(true); err != nil {
			return nil, err
		}
	}
	if p.line != line || p.eof() || p.atDocMarker() {
		switch {
		case p.eof() || p.atDocMarker():
		case p.col() > blockIndent:
			return p.blockNode(blockIndent, pr)
		case p.col() == blockIndent && c == ctxMapValue && p.atSeqEntry():
			n, err := p.blockSequence(p.col(), true)
			return p.apply(pr, n, err)
		}
		return p.apply(pr, emptyScalar(line), nil)
	}
	switch {
	case p.atSeqEntry():
		return nil, p.scanErr(p.line, "block sequence entries are not allowed in this context")
	case p.peek() == '?' && p.blankz(1):
		return nil, p.scanErr(p.line, complexKeyMsg)
	case p.peek() == '|' || p.peek() == '>':
		n, err := p.blockScalar(blockIndent)
		return p.apply(pr, n, err)
	}
	n, err := p.inlineNode(blockIndent)
	if err == nil && p.atValue() {
		err = p.scanErr(p.line, "mapping values are not allowed in this context")
	}
	return p.apply(pr, n, err)
}

// blockNode parses a node at the current token, which is the first of its
// line or follows "- " on it; nodePr are properties written on an earlier
// line, which belong to the whole node. Properties on the token's own line
// belong to the key when the token starts a mapping, as go-yaml reads them.
func (p *parser) blockNode(blockIndent int, nodePr props) (*node, error) {
	line := p.line
	var linePr props
	if isPropStart(p.peek()) {
		var err error
		if linePr, err = p.properties(); err != nil {
			return nil, err
		}
		if err := p.skipToToken(true); err != nil {
			return nil, err
		}
		if p.line != line || p.eof() || p.atDocMarker() {
			if nodePr.set {
				return nil, p.parseErr(p.line, line, "did not find expected node content")
			}
			if p.eof() || p.atDocMarker() || p.col() <= blockIndent {
				return p.apply(linePr, emptyScalar(line), nil)
			}
			return p.blockNode(blockIndent, linePr)
		}
	}
	both := func() (props, error) {
		if nodePr.set && linePr.set {
			return props{}, p.parseErr(p.line, line, "did not find expected node content")
		}
		if nodePr.set {
			return nodePr, nil
		}
		return linePr, nil
	}
	col := p.col()
	switch {
	case p.atSeqEntry():
		pr, err := both()
		if err != nil {
			return nil, err
		}
		n, err := p.blockSequence(col, false)
		return p.apply(pr, n, err)
	case p.peek() == '?' && p.blankz(1):
		return nil, p.scanErr(p.line, complexKeyMsg)
	case p.peek() == '|' || p.peek() == '>':
		pr, err := both()
		if err != nil {
			return nil, err
		}
		n, err := p.blockScalar(blockIndent)
		return p.apply(pr, n, err)
	}
	n, err := p.inlineNode(blockIndent)
	if err != nil {
		return nil, err
	}
	if !p.atValue() {
		pr, err := both()
		if err != nil {
			return nil, err
		}
		return p.apply(pr, n, nil)
	}
	// The token is the first key of a block mapping.
	if n.line != p.line || n.multi {
		return nil, p.scanErr(p.line, "mapping values are not allowed in this context")
	}
	if n.kind != scalarNode {
		return nil, p.scanErr(p.line, complexKeyMsg)
	}
	key, err := p.apply(linePr, n, nil)
	if err != nil {
		return nil, err
	}
	m, err := p.blockMapping(col, key)
	return p.apply(nodePr, m, err)
}

// blockMapping parses the mapping whose keys are at column m, from the
// ":" after its first key.
func (p *parser) blockMapping(m int, key *node) (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	n := &node{kind: mappingNode, line: key.line}
	for {
		p.pos++ // the ':'
		v, err := p.afterIndicator(m, ctxMapValue)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, key, v)
		if p.eof() || p.atDocMarker() {
			return n, nil
		}
		if !p.firstOnLine() {
			if p.atValue() {
				return nil, p.scanErr(p.line, "mapping values are not allowed in this context")
			}
			return nil, p.parseErr(p.line, n.line, "did not find expected key")
		}
		switch col := p.col(); {
		case col < m:
			return n, nil
		case col > m, p.atSeqEntry():
			return nil, p.parseErr(p.line, n.line, "did not find expected key")
		}
		if key, err = p.mappingKey(m); err != nil {
			return nil, err
		}
	}
}

// mappingKey parses a key after the first one of a mapping at column m:
// a scalar on one line followed by ":".
func (p *parser) mappingKey(m int) (*node, error) {
	line := p.line
	var pr props
	if isPropStart(p.peek()) {
		var err error
		if pr, err = p.properties(); err != nil {
			return nil, err
		}
		if err := p.skipToToken(true); err != nil {
			return nil, err
		}
	}
	switch {
	case p.peek() == '?' && p.blankz(1):
		return nil, p.scanErr(p.line, complexKeyMsg)
	case p.peek() == '|' || p.peek() == '>' || p.line != line || p.eof():
		return nil, p.parseErr(p.line, line, "did not find expected key")
	}
	k, err := p.inlineNode(m)
	if err != nil {
		return nil, err
	}
	if !p.atValue() || p.line != line || k.multi {
		return nil, p.scanErr(p.line, "could not find expected ':'")
	}
	if k.kind != scalarNode {
		return nil, p.scanErr(p.line, complexKeyMsg)
	}
	return p.apply(pr, k, nil)
}

// blockSequence parses the sequence whose "- " are at column s. An
// indentless sequence (a mapping value at the mapping's indentation) ends
// at the next key; any other ends at a line indented less than s.
func (p *parser) blockSequence(s int, indentless bool) (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	n := &node{kind: sequenceNode, line: p.line}
	for {
		p.pos++ // the '-'
		item, err := p.afterIndicator(s, ctxSeqItem)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, item)
		if p.eof() || p.atDocMarker() {
			return n, nil
		}
		if !p.firstOnLine() {
			if p.atValue() {
				return nil, p.scanErr(p.line, "mapping values are not allowed in this context")
			}
			return nil, p.parseErr(p.line, n.line, "did not find expected '-' indicator")
		}
		col := p.col()
		switch {
		case col < s, col == s && !p.atSeqEntry() && indentless:
			return n, nil
		case col == s && p.atSeqEntry():
			continue
		}
		return nil, p.parseErr(p.line, n.line, "did not find expected '-' indicator")
	}
}

// inlineNode parses a node that fits in flow syntax (a flow collection, a
// quoted or plain scalar, an alias), then moves to the next token.
func (p *parser) inlineNode(blockIndent int) (*node, error) {
	var n *node
	var err error
	switch p.peek() {
	case '[', '{':
		n, err = p.flowCollection()
	case '"', '\'':
		n, err = p.quoted()
	case '*':
		n, err = p.alias()
	case ',', ']', '}':
		err = p.parseErr(p.line, 0, "did not find expected node content")
	default:
		n, err = p.plain(blockIndent, false)
	}
	if err != nil {
		return nil, err
	}
	return n, p.skipToToken(true)
}

// apply gives n the properties written before it: its tag, and its anchor
// (an alias names the node from then on). An alias takes no properties.
func (p *parser) apply(pr props, n *node, err error) (*node, error) {
	if err != nil || !pr.set {
		return n, err
	}
	if n.kind == aliasNode {
		return nil, p.parseErr(n.line, 0, "did not find expected node content")
	}
	if pr.tag != "" {
		n.tag = pr.tag
	}
	if pr.anchor != "" {
		if p.anchors == nil {
			p.anchors = map[string]*node{}
		}
		p.anchors[pr.anchor] = n
	}
	return n, nil
}
