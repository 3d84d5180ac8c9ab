package api

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file is kinformer's copy of apimachinery's pkg/labels: the label
// selector a client sends as ?labelSelector=, the Requirement it is made of,
// the parser for its text form, and AsSelector for the structured form
// (a ReplicaSet's spec.selector).
//
// A Selector is a list of requirements that must all hold (AND); there is no
// OR. Requirements are kept sorted by key, as apimachinery keeps them, so
// that String prints every equal selector the same way.

// SelectionOperator is the operator of one requirement of a selector.
type SelectionOperator string

// The operators, spelled as apimachinery's selection package spells them.
const (
	Equals       SelectionOperator = "="      // key=value: the key is present with that value
	DoubleEquals SelectionOperator = "=="     // key==value: the same as =
	NotEquals    SelectionOperator = "!="     // key!=value: the key is absent or has another value
	In           SelectionOperator = "in"     // key in (a,b): the key is present with one of the values
	NotIn        SelectionOperator = "notin"  // key notin (a,b): the key is absent or has none of the values
	Exists       SelectionOperator = "exists" // key: the key is present, with any value
	DoesNotExist SelectionOperator = "!"      // !key: the key is absent
	GreaterThan  SelectionOperator = "gt"     // key>5: the value is an integer greater than 5
	LessThan     SelectionOperator = "lt"     // key<5: the value is an integer less than 5
)

// Requirement is one condition of a label selector, e.g. {tier in [api web]}.
// Values is sorted and holds no duplicates when the Requirement comes from
// NewRequirement or ParseSelector; it is empty for Exists and DoesNotExist.
type Requirement struct {
	Key      string
	Operator SelectionOperator
	Values   []string
}

// NewRequirement checks and builds one requirement, as apimachinery's
// labels.NewRequirement does: the key must be a qualified name, each value a
// valid label value, In and NotIn need at least one value, =, == and != and
// gt and lt exactly one (an integer for gt and lt), Exists and DoesNotExist
// none. The values are copied, sorted and de-duplicated (apimachinery keeps
// them as given and sorts only when printing; a sorted copy makes two equal
// requirements compare equal).
func NewRequirement(key string, op SelectionOperator, values []string) (Requirement, error) {
	var errs []string
	if msgs := isQualifiedName(key); len(msgs) > 0 {
		errs = append(errs, fieldInvalid("key", key, msgs))
	}
	switch op {
	case In, NotIn:
		if len(values) == 0 {
			errs = append(errs, fieldInvalid("values", values, []string{"for 'in', 'notin' operators, values set can't be empty"}))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			errs = append(errs, fieldInvalid("values", values, []string{"exact-match compatibility requires one single value"}))
		}
	case Exists, DoesNotExist:
		if len(values) != 0 {
			errs = append(errs, fieldInvalid("values", values, []string{"values set must be empty for exists and does not exist"}))
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			errs = append(errs, fieldInvalid("values", values, []string{"for 'Gt', 'Lt' operators, exactly one value is required"}))
		}
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, fieldInvalid(fmt.Sprintf("values[%d]", i), v, []string{"for 'Gt', 'Lt' operators, the value must be an integer"}))
			}
		}
	default:
		errs = append(errs, fmt.Sprintf("operator: Unsupported value: %q: supported values: %s", op, supportedOperators))
	}
	for i, v := range values {
		if msgs := isValidLabelValue(v); len(msgs) > 0 {
			errs = append(errs, fieldInvalid(fmt.Sprintf("values[%d][%s]", i, key), v, msgs))
		}
	}
	if len(errs) > 0 {
		return Requirement{}, aggregateError(errs)
	}
	r := Requirement{Key: key, Operator: op}
	if len(values) > 0 {
		r.Values = slices.Compact(slices.Sorted(slices.Values(values)))
	}
	return r, nil
}

// Matches reports whether labels satisfy the requirement. A key that labels
// lack satisfies != and notin (and !) and fails every other operator: "not
// equal to web" is true of a pod with no such label at all.
func (r Requirement) Matches(labels map[string]string) bool {
	value, has := labels[r.Key]
	switch r.Operator {
	case Equals, DoubleEquals, In:
		return has && slices.Contains(r.Values, value)
	case NotEquals, NotIn:
		return !has || !slices.Contains(r.Values, value)
	case Exists:
		return has
	case DoesNotExist:
		return !has
	case GreaterThan, LessThan:
		if !has || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(value, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (r.Operator == GreaterThan && have > want) || (r.Operator == LessThan && have < want)
	}
	return false
}

// String prints the requirement in selector syntax: "a=b", "!a",
// "a in (x,y)". Values are printed sorted.
func (r Requirement) String() string {
	var sb strings.Builder
	if r.Operator == DoesNotExist {
		sb.WriteString("!")
	}
	sb.WriteString(r.Key)
	switch r.Operator {
	case Equals, DoubleEquals, NotEquals:
		sb.WriteString(string(r.Operator))
	case GreaterThan:
		sb.WriteString(">")
	case LessThan:
		sb.WriteString("<")
	case In, NotIn:
		sb.WriteString(" " + string(r.Operator) + " (")
	default: // Exists, DoesNotExist
		return sb.String()
	}
	sb.WriteString(strings.Join(slices.Sorted(slices.Values(r.Values)), ","))
	if r.Operator == In || r.Operator == NotIn {
		sb.WriteString(")")
	}
	return sb.String()
}

// Selector is a label selector: requirements that must all hold. The zero
// Selector is Everything.
type Selector struct {
	requirements []Requirement // sorted by key
	nothing      bool          // Nothing(): matches no labels at all
}

// Everything returns the selector that matches all labels, the one an empty
// labelSelector means. (Article: "Kubernetes-Informer" by smartkeyerror, §3
// lists every pod with labels.Everything().)
func Everything() Selector { return Selector{} }

// Nothing returns the selector that matches no labels, the one a nil
// *LabelSelector converts to. It has no text form: String returns "".
func Nothing() Selector { return Selector{nothing: true} }

// SelectorFromSet returns the selector that matches labels holding every
// pair of set (a=x,b=y). Like apimachinery's SelectorFromSet it does not
// validate set; an empty set gives Everything.
func SelectorFromSet(set map[string]string) Selector {
	reqs := make([]Requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, Requirement{Key: k, Operator: Equals, Values: []string{v}})
	}
	return Selector{}.Add(reqs...)
}

// Add returns a copy of s with reqs added, still sorted by key. Adding to
// Nothing gives Nothing.
func (s Selector) Add(reqs ...Requirement) Selector {
	if s.nothing {
		return s
	}
	all := make([]Requirement, 0, len(s.requirements)+len(reqs))
	all = append(all, s.requirements...)
	all = append(all, reqs...)
	slices.SortStableFunc(all, func(a, b Requirement) int { return strings.Compare(a.Key, b.Key) })
	if len(all) == 0 {
		all = nil
	}
	return Selector{requirements: all}
}

// Matches reports whether labels satisfy every requirement of s. labels may
// be nil (an object without labels).
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for _, r := range s.requirements {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether s is Everything (no requirements). Nothing is not
// empty.
func (s Selector) Empty() bool { return !s.nothing && len(s.requirements) == 0 }

// String prints s in the canonical selector syntax, requirements sorted by
// key and joined by commas, so that ParseSelector(s.String()) gives back an
// equal selector. Everything and Nothing both print as "".
func (s Selector) String() string {
	parts := make([]string, len(s.requirements))
	for i, r := range s.requirements {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Requirements returns a copy of the requirements of s, sorted by key.
func (s Selector) Requirements() []Requirement {
	out := make([]Requirement, len(s.requirements))
	for i, r := range s.requirements {
		r.Values = slices.Clone(r.Values)
		out[i] = r
	}
	return out
}

// AsSelector converts the structured selector of an object (a ReplicaSet's
// spec.selector) into a Selector, as apimachinery's
// metav1.LabelSelectorAsSelector does: a nil *LabelSelector selects nothing,
// an empty one everything; each matchLabels pair becomes an = requirement and
// each matchExpressions entry an in, notin, exists or ! requirement. An
// invalid key, value or operator is an error naming the entry.
func (ls *LabelSelector) AsSelector() (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for _, k := range slices.Sorted(maps.Keys(ls.MatchLabels)) {
		r, err := NewRequirement(k, Equals, []string{ls.MatchLabels[k]})
		if err != nil {
			return Selector{}, fmt.Errorf("matchLabels[%q]: %w", k, err)
		}
		reqs = append(reqs, r)
	}
	for i, e := range ls.MatchExpressions {
		var op SelectionOperator
		switch e.Operator {
		case LabelSelectorOpIn:
			op = In
		case LabelSelectorOpNotIn:
			op = NotIn
		case LabelSelectorOpExists:
			op = Exists
		case LabelSelectorOpDoesNotExist:
			op = DoesNotExist
		default:
			return Selector{}, fmt.Errorf("matchExpressions[%d]: %q is not a valid label selector operator", i, e.Operator)
		}
		r, err := NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return Selector{}, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
		reqs = append(reqs, r)
	}
	return Selector{}.Add(reqs...), nil
}

// SelectorError is a label or field selector that does not parse.
//
// Msg is the bare message, worded as apimachinery words it, which is what a
// real kube-apiserver puts in the 400 Status it answers a bad selector with
// (e.g. "found '==', expected: !, identifier, or 'end of string'" for
// labelSelector "==="). The fake API server returns Msg. Error() adds where
// the input went wrong: Msg + ` at position 0 of "==="`, Pos being the byte
// offset into Input.
type SelectorError struct {
	Input string
	Pos   int
	Msg   string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("%s at position %d of %q", e.Msg, e.Pos, e.Input)
}
