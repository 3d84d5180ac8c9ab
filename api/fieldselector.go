package api

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file is kinformer's copy of apimachinery's pkg/fields: the field
// selector a client sends as ?fieldSelector=metadata.name=web-0. It is much
// simpler than a label selector: terms field=value, field==value and
// field!=value joined by commas (AND), no sets, no whitespace trimming.
//
// Which fields a resource can be selected by (metadata.name and
// metadata.namespace always; status.phase, spec.nodeName ... for pods) is
// the server's business: it extracts them into Fields and answers 400 "field
// label not supported" for the rest. This file only parses and matches.

// Fields are the selectable fields of one object and their values, e.g.
// {"metadata.name": "web-0", "status.phase": "Running"}.
type Fields map[string]string

// FieldRequirement is one term of a field selector. Operator is Equals or
// NotEquals: "field==value" parses as Equals, as in apimachinery.
type FieldRequirement struct {
	Field    string
	Operator SelectionOperator
	Value    string
}

// Matches reports whether fields satisfy the term. A field absent from
// fields counts as "", so "spec.nodeName=" selects pods on no node.
func (r FieldRequirement) Matches(fields Fields) bool {
	if r.Operator == NotEquals {
		return fields[r.Field] != r.Value
	}
	return fields[r.Field] == r.Value
}

// String prints the term with the value escaped: `a=x\,y`.
func (r FieldRequirement) String() string {
	op := "="
	if r.Operator == NotEquals {
		op = "!="
	}
	return r.Field + op + fieldValueEscaper.Replace(r.Value)
}

// FieldSelector is a field selector: terms that must all hold. The zero
// FieldSelector is EverythingFields.
type FieldSelector struct {
	requirements []FieldRequirement // sorted by their String
}

// EverythingFields returns the field selector that matches every object.
// (Article: "Kubernetes Controller 实现机制深度解析" by 赵化冰, §Informer
// 机制, builds its pod ListWatch with fields.Everything().)
func EverythingFields() FieldSelector { return FieldSelector{} }

// OneTermEqualFieldSelector returns the selector field=value, the one a
// client uses to watch a single object (metadata.name=web-0).
func OneTermEqualFieldSelector(field, value string) FieldSelector {
	return FieldSelector{requirements: []FieldRequirement{{Field: field, Operator: Equals, Value: value}}}
}

// Matches reports whether fields satisfy every term of f.
func (f FieldSelector) Matches(fields Fields) bool {
	for _, r := range f.requirements {
		if !r.Matches(fields) {
			return false
		}
	}
	return true
}

// Empty reports whether f has no terms and so matches everything.
func (f FieldSelector) Empty() bool { return len(f.requirements) == 0 }

// String prints f with its terms sorted and values escaped, so that
// ParseFieldSelector(f.String()) gives back an equal selector.
func (f FieldSelector) String() string {
	parts := make([]string, len(f.requirements))
	for i, r := range f.requirements {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Requirements returns a copy of the terms of f.
func (f FieldSelector) Requirements() []FieldRequirement { return slices.Clone(f.requirements) }

// RequiresExactMatch returns the value field must equal for f to match, if a
// field=value term says so. The server uses it to serve
// metadata.name=x from one key instead of scanning.
func (f FieldSelector) RequiresExactMatch(field string) (value string, found bool) {
	for _, r := range f.requirements {
		if r.Field == field && r.Operator == Equals {
			return r.Value, true
		}
	}
	return "", false
}

// ParseFieldSelector parses a field selector as apimachinery's
// fields.ParseSelector does:
//
//	selector = "" | term { "," term }         (comma = AND; empty terms are skipped)
//	term     = field ( "=" | "==" | "!=" ) value
//
// A term is split at the first operator in it, so the field cannot hold
// "=" or "!=". In the value, "\," "\=" and "\\" stand for , = and \; any
// other backslash escape, and an unescaped "=", is an error. Nothing is
// trimmed: "a = b" is field "a " and value " b". The empty string is
// EverythingFields.
//
// A selector that does not parse is a *SelectorError whose Msg is worded as
// apimachinery words it, and whose Pos says where.
func ParseFieldSelector(s string) (FieldSelector, error) {
	var reqs []FieldRequirement
	for _, term := range splitFieldTerms(s) {
		if term.text == "" {
			continue
		}
		field, op, raw, ok := splitFieldTerm(term.text)
		if !ok {
			return FieldSelector{}, &SelectorError{Input: s, Pos: term.pos,
				Msg: fmt.Sprintf("invalid selector: '%s'; can't understand '%s'", s, term.text)}
		}
		value, bad, msg := unescapeFieldValue(raw)
		if msg != "" {
			return FieldSelector{}, &SelectorError{Input: s, Pos: term.pos + len(field) + len(op) + bad, Msg: msg}
		}
		operator := Equals
		if op == "!=" {
			operator = NotEquals
		}
		reqs = append(reqs, FieldRequirement{Field: field, Operator: operator, Value: value})
	}
	slices.SortStableFunc(reqs, func(a, b FieldRequirement) int { return strings.Compare(a.String(), b.String()) })
	return FieldSelector{requirements: reqs}, nil
}

type fieldTerm struct {
	text string
	pos  int // byte offset of text in the selector
}

// splitFieldTerms cuts s at every comma not escaped by a backslash; the
// backslashes stay in the terms for unescapeFieldValue.
func splitFieldTerms(s string) []fieldTerm {
	var terms []fieldTerm
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			terms = append(terms, fieldTerm{s[start:i], start})
			start = i + 1
		}
	}
	return append(terms, fieldTerm{s[start:], start})
}

// splitFieldTerm splits a term at the first place an operator starts,
// trying "!=" and "==" before "=" so that "a==b" is not field "a", value "=b".
func splitFieldTerm(term string) (field, op, value string, ok bool) {
	for i := range len(term) {
		for _, op := range []string{"!=", "==", "="} {
			if strings.HasPrefix(term[i:], op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeFieldValue undoes fieldValueEscaper. On failure it returns the
// byte offset of the problem in raw and apimachinery's message (which
// prints the unescaped character as a number: 61 is "=").
func unescapeFieldValue(raw string) (value string, bad int, msg string) {
	if !strings.ContainsAny(raw, `\,=`) {
		return raw, 0, ""
	}
	var sb strings.Builder
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '\\' && i+1 == len(raw):
			return "", i, `invalid field selector: invalid escape sequence: \`
		case c == '\\':
			i++
			if n := raw[i]; n != '\\' && n != ',' && n != '=' {
				r, _ := utf8.DecodeRuneInString(raw[i:])
				return "", i - 1, "invalid field selector: invalid escape sequence: " + string([]rune{'\\', r})
			}
			sb.WriteByte(raw[i])
		case c == ',' || c == '=':
			return "", i, fmt.Sprintf("invalid field selector: unescaped character in value: %d", c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), 0, ""
}

var fieldValueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)
