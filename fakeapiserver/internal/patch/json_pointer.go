package patch

import (
	"strconv"
	"strings"
)

// pointer is a parsed RFC 6901 JSON pointer: its reference tokens, already
// unescaped. The empty pointer (no tokens) names the whole document;
// "/spec/containers/0/image" has four tokens.
type pointer []string

// parsePointer parses the text form of a JSON pointer. Inside a token "~1"
// stands for "/" and "~0" for "~"; any other "~" is an error. Tokens are
// unescaped left to right, so "~01" is "~1" and not "/" (RFC 6901 §4).
func parsePointer(s string) (pointer, error) {
	if s == "" {
		return pointer{}, nil
	}
	if s[0] != '/' {
		return nil, malformedf("JSON pointer %q must be empty or start with \"/\"", s)
	}
	tokens := strings.Split(s[1:], "/")
	for i, t := range tokens {
		u, ok := unescapeToken(t)
		if !ok {
			return nil, malformedf("JSON pointer %q: %q is not a valid escape (only ~0 and ~1 are)", s, t)
		}
		tokens[i] = u
	}
	return tokens, nil
}

// unescapeToken turns ~1 into / and ~0 into ~.
func unescapeToken(t string) (string, bool) {
	if !strings.Contains(t, "~") {
		return t, true
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '~' {
			b.WriteByte(t[i])
			continue
		}
		if i+1 == len(t) || (t[i+1] != '0' && t[i+1] != '1') {
			return "", false
		}
		if t[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// String is the pointer's text form, escaped again; used in messages.
func (p pointer) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(tokenEscaper.Replace(t))
	}
	return b.String()
}

// isProperPrefixOf reports whether p names an ancestor of q.
func (p pointer) isProperPrefixOf(q pointer) bool {
	if len(p) >= len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses token as an index into an array of length n. RFC 6901
// allows only "0" or digits without a leading zero; "-" means "past the last
// element" and, like an index equal to n, is only meaningful to "add".
// at is the pointer to the array, for messages.
func arrayIndex(token string, n int, forAdd bool, at pointer) (int, error) {
	if token == "-" {
		if forAdd {
			return n, nil
		}
		return 0, notApplicablef("%q: index \"-\" (past the end) can only be used to add", at.String()+"/-")
	}
	digits, rest := leadingDigits(token)
	if digits == "" || rest != "" || (len(digits) > 1 && digits[0] == '0') {
		return 0, notApplicablef("%q is an array, and %q is not an array index", at.String(), token)
	}
	i, err := strconv.Atoi(digits)
	last := n - 1
	if forAdd {
		last = n
	}
	if err != nil || i > last {
		return 0, notApplicablef("index %s is out of range: the array at %q has %d elements", digits, at.String(), n)
	}
	return i, nil
}
