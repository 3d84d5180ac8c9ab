package api

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ---- the parser: apimachinery's lexer and recursive descent, with positions ----

// ParseSelector parses a label selector, as kubectl -l and ?labelSelector=
// write it:
//
//	selector    = "" | requirement { "," requirement }      (comma = AND)
//	requirement = key                                        exists
//	            | "!" key                                    does not exist
//	            | key ( "=" | "==" | "!=" | ">" | "<" ) [value]
//	            | key ( "in" | "notin" ) "(" value { "," value } ")"
//
// e.g. "app=web,tier in (api,db),!canary". Whitespace between tokens is
// ignored; the empty (or all-blank) string is Everything. Keys must be
// qualified names ("example.com/app"), values valid label values (possibly
// empty: "a=" and "a in (x,)" hold an empty value). "in" and "notin" are
// keywords only where an operator is expected, so "in in (in)" parses.
//
// A selector that does not parse is a *SelectorError whose Msg is worded as
// apimachinery's labels.Parse words it, and whose Pos says where.
func ParseSelector(s string) (Selector, error) {
	p := &parser{input: s, items: scanSelector(s)}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, err
	}
	return Selector{}.Add(reqs...), nil
}

type token int

const (
	endOfStringToken token = iota
	closedParToken
	commaToken
	doesNotExistToken
	doubleEqualsToken
	equalsToken
	greaterThanToken
	identifierToken
	inToken
	lessThanToken
	notEqualsToken
	notInToken
	openParToken
)

var symbolTokens = map[string]token{
	")": closedParToken, ",": commaToken, "!": doesNotExistToken, "==": doubleEqualsToken, "=": equalsToken,
	">": greaterThanToken, "<": lessThanToken, "!=": notEqualsToken, "(": openParToken,
}

// scannedItem is one token with its text and its byte offset in the input.
type scannedItem struct {
	tok     token
	literal string
	pos     int
}

func isWhitespace(c byte) bool    { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
func isSpecialSymbol(c byte) bool { return strings.IndexByte("=!(),<>", c) >= 0 }

// scanSelector cuts s into tokens and ends them with endOfStringToken. A
// symbol is "!=" or "==" if those two bytes stand there, else one of
// = ! ( ) , < >; an identifier is a run of anything but symbols and blanks.
// (apimachinery's lexer treats a NUL byte as the end of the input; this one
// treats it as an ordinary byte, which validation then rejects.)
func scanSelector(s string) []scannedItem {
	var items []scannedItem
	i := 0
	for {
		for i < len(s) && isWhitespace(s[i]) {
			i++
		}
		if i == len(s) {
			return append(items, scannedItem{endOfStringToken, "", i})
		}
		start := i
		if isSpecialSymbol(s[i]) {
			i++
			if _, ok := symbolTokens[s[start:min(i+1, len(s))]]; ok {
				i = min(i+1, len(s))
			}
			items = append(items, scannedItem{symbolTokens[s[start:i]], s[start:i], start})
			continue
		}
		for i < len(s) && !isSpecialSymbol(s[i]) && !isWhitespace(s[i]) {
			i++
		}
		tok := identifierToken
		switch s[start:i] {
		case "in":
			tok = inToken
		case "notin":
			tok = notInToken
		}
		items = append(items, scannedItem{tok, s[start:i], start})
	}
}

// parserContext says what the parser expects next: where a key or value is
// expected, the keywords "in" and "notin" are plain identifiers.
type parserContext int

const (
	keyAndOperator parserContext = iota
	values
)

type parser struct {
	input    string
	items    []scannedItem
	position int
}

func (p *parser) lookahead(ctx parserContext) scannedItem {
	it := p.items[p.position]
	if ctx == values && (it.tok == inToken || it.tok == notInToken) {
		it.tok = identifierToken
	}
	return it
}

func (p *parser) consume(ctx parserContext) scannedItem {
	it := p.lookahead(ctx)
	if p.position < len(p.items)-1 { // never step past endOfStringToken
		p.position++
	}
	return it
}

func (p *parser) errorAt(pos int, format string, args ...any) *SelectorError {
	return &SelectorError{Input: p.input, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// parse reads requirement { "," requirement } up to the end of the input.
func (p *parser) parse() ([]Requirement, error) {
	var reqs []Requirement
	for {
		it := p.lookahead(values)
		switch it.tok {
		case identifierToken, doesNotExistToken:
			r, err := p.parseRequirement()
			if err != nil {
				err.Msg = "unable to parse requirement: " + err.Msg
				return nil, err
			}
			reqs = append(reqs, r)
			switch next := p.consume(values); next.tok {
			case endOfStringToken:
				return reqs, nil
			case commaToken:
				if t := p.lookahead(values); t.tok != identifierToken && t.tok != doesNotExistToken {
					return nil, p.errorAt(t.pos, "found '%s', expected: identifier after ','", t.literal)
				}
			default:
				return nil, p.errorAt(next.pos, "found '%s', expected: ',' or 'end of string'", next.literal)
			}
		case endOfStringToken:
			return reqs, nil
		default:
			return nil, p.errorAt(it.pos, "found '%s', expected: !, identifier, or 'end of string'", it.literal)
		}
	}
}

func (p *parser) parseRequirement() (Requirement, *SelectorError) {
	key, op, err := p.parseKeyAndInferOperator()
	if err != nil {
		return Requirement{}, err
	}
	if op == Exists || op == DoesNotExist {
		return Requirement{Key: key.literal, Operator: op}, nil
	}
	if op, err = p.parseOperator(); err != nil {
		return Requirement{}, err
	}
	var vals []scannedItem
	if op == In || op == NotIn {
		vals, err = p.parseValues()
	} else {
		vals, err = p.parseExactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	return p.newRequirement(key, op, vals)
}

// parseKeyAndInferOperator reads [!]key. A key followed by "," or the end
// is an exists requirement; "!" makes it does-not-exist.
func (p *parser) parseKeyAndInferOperator() (scannedItem, SelectionOperator, *SelectorError) {
	var op SelectionOperator
	it := p.consume(values)
	if it.tok == doesNotExistToken {
		op = DoesNotExist
		it = p.consume(values)
	}
	if it.tok != identifierToken {
		return it, "", p.errorAt(it.pos, "found '%s', expected: identifier", it.literal)
	}
	if msgs := isQualifiedName(it.literal); len(msgs) > 0 {
		// apimachinery's parser has no field path here, and prints it as <nil>.
		return it, "", p.errorAt(it.pos, "%s", fieldInvalid("<nil>", it.literal, msgs))
	}
	if next := p.lookahead(values); (next.tok == endOfStringToken || next.tok == commaToken) && op != DoesNotExist {
		op = Exists
	}
	return it, op, nil
}

func (p *parser) parseOperator() (SelectionOperator, *SelectorError) {
	it := p.consume(keyAndOperator)
	switch it.tok {
	case inToken:
		return In, nil
	case notInToken:
		return NotIn, nil
	case equalsToken:
		return Equals, nil
	case doubleEqualsToken:
		return DoubleEquals, nil
	case notEqualsToken:
		return NotEquals, nil
	case greaterThanToken:
		return GreaterThan, nil
	case lessThanToken:
		return LessThan, nil
	}
	return "", p.errorAt(it.pos, "found '%s', expected: in, notin, =, ==, !=, gt, lt", it.literal)
}

// parseValues reads "(" values ")" after in or notin. "()" holds one
// empty value, as in apimachinery.
func (p *parser) parseValues() ([]scannedItem, *SelectorError) {
	if it := p.consume(values); it.tok != openParToken {
		return nil, p.errorAt(it.pos, "found '%s' expected: '('", it.literal)
	}
	switch next := p.lookahead(values); next.tok {
	case identifierToken, commaToken:
		vals, err := p.parseIdentifiersList()
		if err != nil {
			return nil, err
		}
		p.consume(values) // the ")" parseIdentifiersList stopped at
		return vals, nil
	case closedParToken:
		p.consume(values)
		return []scannedItem{{identifierToken, "", next.pos}}, nil
	default:
		return nil, p.errorAt(next.pos, "found '%s', expected: ',', ')' or identifier", next.literal)
	}
}

// parseIdentifiersList reads comma-separated values up to ")". A missing
// value between, before or after commas is the empty value: "(,x)" is
// {"", x}.
func (p *parser) parseIdentifiersList() ([]scannedItem, *SelectorError) {
	var vals []scannedItem
	for {
		it := p.consume(values)
		switch it.tok {
		case identifierToken:
			vals = append(vals, it)
			switch next := p.lookahead(values); next.tok {
			case commaToken:
			case closedParToken:
				return vals, nil
			default:
				return nil, p.errorAt(next.pos, "found '%s', expected: ',' or ')'", next.literal)
			}
		case commaToken:
			empty := scannedItem{identifierToken, "", it.pos}
			if len(vals) == 0 {
				vals = append(vals, empty)
			}
			switch next := p.lookahead(values); next.tok {
			case closedParToken:
				return append(vals, empty), nil
			case commaToken:
				p.consume(values)
				vals = append(vals, empty)
			}
		default:
			return nil, p.errorAt(it.pos, "found '%s', expected: ',', or identifier", it.literal)
		}
	}
}

// parseExactValue reads the one value after =, ==, !=, > or <; nothing
// before "," or the end is the empty value.
func (p *parser) parseExactValue() ([]scannedItem, *SelectorError) {
	if next := p.lookahead(values); next.tok == endOfStringToken || next.tok == commaToken {
		return []scannedItem{{identifierToken, "", next.pos}}, nil
	}
	it := p.consume(values)
	if it.tok != identifierToken {
		return nil, p.errorAt(it.pos, "found '%s', expected: identifier", it.literal)
	}
	return []scannedItem{it}, nil
}

// newRequirement validates the parsed values (sorted and de-duplicated, as
// apimachinery's parser hands them to NewRequirement) and, if one is bad,
// points the error at the first bad one.
func (p *parser) newRequirement(key scannedItem, op SelectionOperator, vals []scannedItem) (Requirement, *SelectorError) {
	strs := make([]string, len(vals))
	for i, v := range vals {
		strs[i] = v.literal
	}
	strs = slices.Compact(slices.Sorted(slices.Values(strs)))
	r, err := NewRequirement(key.literal, op, strs)
	if err == nil {
		return r, nil
	}
	pos := key.pos
	for _, s := range strs {
		_, notInt := strconv.ParseInt(s, 10, 64)
		if len(isValidLabelValue(s)) > 0 || ((op == GreaterThan || op == LessThan) && notInt != nil) {
			pos = vals[slices.IndexFunc(vals, func(v scannedItem) bool { return v.literal == s })].pos
			break
		}
	}
	return Requirement{}, p.errorAt(pos, "%s", err.Error())
}

// ---- validation, worded as apimachinery's util/validation ----

var (
	qualifiedNameRegexp  = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRegexp     = regexp.MustCompile("^(" + qualifiedNameFmt + ")?$")
	dns1123SubdomainRegx = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	supportedOperators   = `"in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`
)

const (
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueErrMsg    = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
)

// isQualifiedName checks a label key: an optional DNS-subdomain prefix (at
// most 253 characters) and "/", then a name of at most 63 characters. It
// returns what is wrong, empty if nothing.
func isQualifiedName(value string) []string {
	var errs []string
	name := value
	switch parts := strings.Split(value, "/"); len(parts) {
	case 1:
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			if len(prefix) > 253 {
				errs = append(errs, "prefix part must be no more than 253 bytes")
			}
			if !dns1123SubdomainRegx.MatchString(prefix) {
				errs = append(errs, "prefix part "+regexError(dns1123SubdomainMsg, dns1123SubdomainFmt, "example.com"))
			}
		}
	default:
		return []string{"a qualified name " + regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part must be no more than 63 bytes")
	}
	if !qualifiedNameRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// isValidLabelValue checks a label value: empty, or at most 63 characters
// of the qualified-name alphabet.
func isValidLabelValue(value string) []string {
	var errs []string
	if len(value) > 63 {
		errs = append(errs, "must be no more than 63 bytes")
	}
	if !labelValueRegexp.MatchString(value) {
		errs = append(errs, regexError(labelValueErrMsg, "("+qualifiedNameFmt+")?", "MyValue", "my_value", "12345"))
	}
	return errs
}

// regexError words a pattern mismatch as apimachinery does, double spaces
// included: "... (e.g. 'MyName',  or 'my.name', regex used for validation is '...')".
func regexError(msg, pattern string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + pattern + "')"
}

// fieldInvalid words one invalid field as apimachinery's field.Invalid does:
// `key: Invalid value: "-a": name part must ...`.
func fieldInvalid(path string, value any, msgs []string) string {
	var shown string
	switch v := value.(type) {
	case string:
		shown = strconv.Quote(v)
	case []string:
		quoted := make([]string, len(v))
		for i, s := range v {
			quoted[i] = strconv.Quote(s)
		}
		shown = "[" + strings.Join(quoted, ",") + "]"
	}
	return fmt.Sprintf("%s: Invalid value: %s: %s", path, shown, strings.Join(msgs, "; "))
}

// aggregateError joins messages as apimachinery's errors.Aggregate does: one
// message alone, several as "[a, b]", duplicates dropped.
func aggregateError(msgs []string) error {
	var unique []string
	for _, m := range msgs {
		if !slices.Contains(unique, m) {
			unique = append(unique, m)
		}
	}
	msgs = unique
	if len(msgs) == 1 {
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}
