package kubeyaml

import (
	"strings"
)

// Flow collections ({}, [], [a, b], {k: v}) written on one line.

// flow reads a flow collection written on one line.
type flow struct {
	s   string
	num int
}

func (f *flow) space() { f.s = strings.TrimLeft(f.s, " \t") }

func (f *flow) node() (*Node, error) {
	f.space()
	if f.s == "" {
		return nil, errorf(f.num, "a flow collection that does not end on its line (multi-line flow collections are not supported)")
	}
	switch f.s[0] {
	case '[':
		f.s = f.s[1:]
		n := &Node{Kind: Sequence, Line: f.num, Items: []*Node{}}
		for {
			f.space()
			if strings.HasPrefix(f.s, "]") {
				f.s = f.s[1:]
				return n, nil
			}
			item, err := f.node()
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, item)
			if err := f.sep(']'); err != nil {
				return nil, err
			}
		}
	case '{':
		f.s = f.s[1:]
		n := &Node{Kind: Mapping, Line: f.num}
		for {
			f.space()
			if strings.HasPrefix(f.s, "}") {
				f.s = f.s[1:]
				return n, nil
			}
			k, err := f.node()
			if err != nil {
				return nil, err
			}
			if k.Kind == Mapping || k.Kind == Sequence {
				return nil, errorf(f.num, "a flow mapping key must be a scalar")
			}
			f.space()
			if !strings.HasPrefix(f.s, ":") {
				return nil, errorf(f.num, "expected \":\" after a key in a flow mapping")
			}
			f.s = f.s[1:]
			f.space()
			v := &Node{Kind: Null, Line: f.num}
			if f.s != "" && f.s[0] != ',' && f.s[0] != '}' {
				if v, err = f.node(); err != nil {
					return nil, err
				}
			}
			if n.Get(k.Value) != nil {
				return nil, errorf(f.num, "duplicate key %q", k.Value)
			}
			n.Keys, n.Values = append(n.Keys, k.Value), append(n.Values, v)
			if err := f.sep('}'); err != nil {
				return nil, err
			}
		}
	case '"', '\'':
		v, after, err := quoted(f.s, f.num)
		if err != nil {
			return nil, err
		}
		f.s = after
		return &Node{Kind: Scalar, Line: f.num, Value: v}, nil
	}
	// A plain scalar ends at , ] } or ": ".
	i := 0
	for ; i < len(f.s); i++ {
		c := f.s[i]
		if c == ',' || c == ']' || c == '}' || (c == ':' && (i+1 == len(f.s) || f.s[i+1] == ' ' || f.s[i+1] == ',')) || (c == '#' && i > 0 && f.s[i-1] == ' ') {
			break
		}
		if c == '[' || c == '{' {
			return nil, errorf(f.num, "unexpected %q in a flow collection", c)
		}
	}
	v := strings.TrimSpace(f.s[:i])
	f.s = f.s[i:]
	if err := checkPlain(v, f.num); err != nil {
		return nil, err
	}
	return plain(v, f.num), nil
}

// sep consumes the "," between entries, or sees the closing bracket.
func (f *flow) sep(closing byte) error {
	f.space()
	switch {
	case strings.HasPrefix(f.s, ","):
		f.s = f.s[1:]
		return nil
	case f.s != "" && f.s[0] == closing:
		return nil
	case f.s == "" || strings.HasPrefix(f.s, "#"):
		return errorf(f.num, "a flow collection that does not end on its line (multi-line flow collections are not supported)")
	}
	return errorf(f.num, "expected \",\" or %q in a flow collection, found %q", closing, f.s)
}
