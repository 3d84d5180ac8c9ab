package yamljson

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// What a scalar means: go-yaml v2's resolution (YAML 1.1 flavoured), which
// the real server's YAML decoding inherits.

type valueKind uint8

const (
	vNull valueKind = iota
	vBool
	vInt
	vUint
	vBig
	vFloat
	vString
)

// value is a resolved scalar.
type value struct {
	kind valueKind
	b    bool
	i    int64
	u    uint64
	big  *big.Int
	f    float64
	s    string
}

// tagOf names a value's type as go-yaml's error messages do.
func (v value) tagOf() string {
	switch v.kind {
	case vNull:
		return "!!null"
	case vBool:
		return "!!bool"
	case vInt, vUint, vBig:
		return "!!int"
	case vFloat:
		return "!!float"
	}
	return "!!str"
}

// words are the plain scalars resolved by their spelling: YAML 1.1's
// booleans (yes/no/on/off and y/n included), nulls, infinities and NaN.
var words = map[string]value{}

func init() {
	for _, w := range []string{"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"} {
		words[w] = value{kind: vBool, b: true}
	}
	for _, w := range []string{"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"} {
		words[w] = value{kind: vBool}
	}
	for _, w := range []string{"", "~", "null", "Null", "NULL"} {
		words[w] = value{kind: vNull}
	}
	for _, w := range []string{".nan", ".NaN", ".NAN"} {
		words[w] = value{kind: vFloat, f: math.NaN()}
	}
	for _, w := range []string{".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"} {
		words[w] = value{kind: vFloat, f: math.Inf(1)}
	}
	for _, w := range []string{"-.inf", "-.Inf", "-.INF"} {
		words[w] = value{kind: vFloat, f: math.Inf(-1)}
	}
}

var floatSyntax = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolvePlain is the type of an untagged plain scalar: a word above, or
// for text starting with a digit, sign or dot, an integer (decimal, 0x
// hex, 0o or leading-0 octal, 0b binary, _ separators ignored; beyond 64
// bits a big integer for non-decimal forms) or a float; else a string.
func resolvePlain(in string) value {
	if v, ok := words[in]; ok {
		return v
	}
	str := value{kind: vString, s: in}
	switch c := in[0]; {
	case c == '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return value{kind: vFloat, f: f}
		}
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return value{kind: vInt, i: i}
		}
		u, uerr := strconv.ParseUint(plain, 0, 64)
		if uerr == nil {
			return value{kind: vUint, u: u}
		}
		if floatSyntax.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return value{kind: vFloat, f: f}
			}
		}
		if errors.Is(uerr, strconv.ErrRange) {
			if b, ok := new(big.Int).SetString(plain, 0); ok {
				return value{kind: vBig, big: b}
			}
		}
	}
	return str
}

// scalarValue resolves a scalar node: a quoted one without a tag is a
// string, a plain one by resolvePlain, a tagged one as its tag says. Tags
// outside the core schema leave the text a string, as go-yaml does.
func scalarValue(n *node) (value, error) {
	switch {
	case n.tag == "" && !n.plain, n.tag == "!!str":
		return value{kind: vString, s: n.value}, nil
	case n.tag == "":
		return resolvePlain(n.value), nil
	case n.tag == "!!binary":
		data, err := base64.StdEncoding.DecodeString(n.value)
		if err != nil {
			return value{}, &Error{Msg: "!!binary value contains invalid base64 data"}
		}
		return value{kind: vString, s: string(data)}, nil
	case n.tag == "!!timestamp":
		if isTimestamp(n.value) {
			return value{kind: vString, s: n.value}, nil
		}
	case n.tag != "!!bool" && n.tag != "!!int" && n.tag != "!!float" && n.tag != "!!null":
		return value{kind: vString, s: n.value}, nil
	}
	v := resolvePlain(n.value)
	switch {
	case v.tagOf() == n.tag:
		return v, nil
	case n.tag == "!!float" && v.kind == vInt:
		return value{kind: vFloat, f: float64(v.i)}, nil
	}
	return value{}, &Error{Msg: fmt.Sprintf("cannot decode %s `%s` as a %s", v.tagOf(), n.value, n.tag)}
}

// isTimestamp: the forms go-yaml accepts for !!timestamp.
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// isMerge: the "<<" key, whose value's entries merge into its mapping.
func isMerge(k *node) bool {
	return k.kind == scalarNode && k.value == "<<" && (k.plain && k.tag == "" || k.tag == "!!merge")
}

// keyString turns a key into the JSON member name the real server gives
// it (sigs.k8s.io/yaml: booleans and numbers become their text, floats as
// 32-bit ones print); id tells keys apart as go-yaml does (1 and "1" are
// different keys there). keyErr is set for a key JSON cannot name (null,
// or an integer past int64); err for a key go-yaml cannot decode.
func keyString(k *node) (name string, id any, keyErr, err error) {
	v, err := scalarValue(k)
	if err != nil {
		return "", nil, nil, err
	}
	switch v.kind {
	case vString:
		return v.s, v.s, nil, nil
	case vBool:
		return strconv.FormatBool(v.b), v.b, nil, nil
	case vInt:
		return strconv.FormatInt(v.i, 10), v.i, nil, nil
	case vFloat:
		s := strconv.FormatFloat(v.f, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, v.f, nil, nil
	case vUint:
		return "", v.u, fmt.Errorf("unsupported map key of type: uint64, key: %s", k.value), nil
	case vBig:
		return "", v.big, fmt.Errorf("unsupported map key of type: *big.Int, key: %s", k.value), nil
	}
	return "", nil, fmt.Errorf("unsupported map key of type: <nil>, key: %q", k.value), nil
}
