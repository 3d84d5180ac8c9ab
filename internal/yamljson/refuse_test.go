package yamljson

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Malformed YAML, and YAML this package does not take, each refused with
// an error that says what is wrong and, where go-yaml would, on which line
// (go-yaml names no line for a problem on the first one, and counts a
// parser error's line from zero: one before the problem's).
func TestConvert_Refusals(t *testing.T) {
	laughs := "a: &a [x,x,x,x,x,x,x,x,x]\n"
	for _, c := range "bcdefg" {
		prev := string(c - 1)
		laughs += string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
	}
	for _, tc := range []struct{ name, in, want string }{
		// Indentation and structure, the mistakes people make.
		{"tab indentation", "a:\n\tb: 1\n", "yaml: line 2: found character that cannot start any token"},
		{"tab after the colon", "a:\t1\n", "yaml: found character that cannot start any token"},
		{"tab in a plain scalar's indentation", "a:\n  b\n\tc", "yaml: line 3: found a tab character that violates indentation"},
		{"two values on a line", "a: b: c\n", "yaml: mapping values are not allowed in this context"},
		{"key indented too far", "metadata:\n  name: x\n   labels: y\n", "yaml: line 3: mapping values are not allowed in this context"},
		{"item in a mapping", "a: 1\n- b\n", "yaml: line 1: did not find expected key"},
		{"key in a sequence", "a:\n  - x\n  b: 1\n", "yaml: line 2: did not find expected '-' indicator"},
		{"top-level key after a sequence", "- a\nb: 1\n", "yaml: line 1: did not find expected '-' indicator"},
		{"line without a colon", "a: 1\nb\nc: 2\n", "yaml: line 3: could not find expected ':'"},
		{"deeper line after a value", "a: 1\n  # comment\n b: 2", "yaml: line 2: did not find expected key"},
		{"text after a quoted value", `a: "x"y`, "yaml: did not find expected key"},
		{"text after a flow value", "a: [1] x", "yaml: did not find expected key"},
		{"sequence on a key's line", "a: - b", "yaml: block sequence entries are not allowed in this context"},
		{"text after the document", "\"a\"\nb", "yaml: line 1: did not find expected <document start>"},
		{"directive without ---", "%YAML 1.1\na: 1", "yaml: line 1: did not find expected <document start>"},
		{"YAML 1.2 directive", "%YAML 1.2\n---\na: 1", "yaml: found incompatible YAML document"},
		// Scalars.
		{"unterminated double quote", "a: \"x\n", "yaml: line 2: found unexpected end of stream"},
		{"unterminated single quote", "a: 'x", "yaml: found unexpected end of stream"},
		{"document marker in a quote", "a: 'x\n---\n'", "yaml: line 2: found unexpected document indicator"},
		{"unknown escape", `a: "\q"`, "yaml: found unknown escape character"},
		{"escaped slash (JSON's, not go-yaml's)", `a: "\/"`, "yaml: found unknown escape character"},
		{"surrogate escape", `a: "\ud83d\ude00"`, "yaml: found invalid Unicode character escape code"},
		{"short hex escape", `a: "\u00"`, "yaml: did not find expected hexdecimal number"},
		{"reserved character", "a: @x", "yaml: found character that cannot start any token"},
		{"backquote", "a: `x", "yaml: found character that cannot start any token"},
		{"bad block scalar header", "a: |x\n  b", "yaml: did not find expected comment or line break"},
		{"indentation indicator 0", "a: |0\n  b", "yaml: found an indentation indicator equal to 0"},
		{"tab in block scalar indentation", "a: |\n  x\n\ty", "yaml: line 3: found a tab character where an indentation space is expected"},
		{"tag mismatch", "a: !!int abc", "yaml: cannot decode !!str `abc` as a !!int"},
		{"bad binary", "a: !!binary '!!'", "yaml: !!binary value contains invalid base64 data"},
		// Flow collections.
		{"unclosed sequence", "a: [1, 2", "yaml: did not find expected ',' or ']'"},
		{"unclosed mapping", "a: {b: 1\n\n", "yaml: line 2: did not find expected ',' or '}'"},
		{"empty flow entry", "[a, , b]", "yaml: did not find expected node content"},
		// What this package does not take.
		{"explicit key", "? a\n: b\n", "yaml: " + complexKeyMsg},
		{"flow sequence key", "[a]: b\n", "yaml: " + complexKeyMsg},
		{"flow mapping key", "{a: 1}: b\n", "yaml: " + complexKeyMsg},
		{"flow key in a flow mapping", "{[a]: b}", "yaml: " + complexKeyMsg},
		{"alias key", "a: &x 1\n*x : b\n", "yaml: line 2: " + complexKeyMsg},
		{"TAG directive", "%TAG !e! tag:example.com,2000:\n---\na: 1", "yaml: %TAG directives are not supported by this server"},
		{"named tag handle", "a: !e!foo 1", "yaml: found undefined tag handle"},
		// Aliases.
		{"unknown anchor", "a: *nope", "yaml: unknown anchor 'nope' referenced"},
		{"alias in its own anchor", "a: &x [*x]", "yaml: unknown anchor 'x' referenced"},
		{"merge of a scalar", "<<: 1", "yaml: map merge requires map or sequence of maps as the value"},
		{"billion laughs", laughs, "yaml: document contains excessive aliasing"},
		// What JSON cannot hold.
		{"NaN", "a: .nan", "json: unsupported value: NaN"},
		{"infinity", "a: -.inf", "json: unsupported value: -Inf"},
		{"null key", "~: 1", `unsupported map key of type: <nil>, key: "~"`},
		{"empty key", "{: 1}", `unsupported map key of type: <nil>, key: ""`},
		{"uint64 key", "18446744073709551615: x", "unsupported map key of type: uint64, key: 18446744073709551615"},
		// The input itself.
		{"control character", "a: x\x01", "yaml: control characters are not allowed"},
		{"invalid UTF-8", "a: \xff", "yaml: invalid leading UTF-8 octet"},
		{"odd UTF-16", "\xff\xfea\x00:", "yaml: incomplete UTF-16 character sequence"},
		{"nested too deep (flow)", strings.Repeat("[", 10001), "yaml: exceeded max depth of 10000"},
		{"nested too deep (block)", strings.Repeat("- ", 10001) + "x", "yaml: exceeded max depth of 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Convert([]byte(tc.in))
			require.EqualError(t, err, tc.want, "input %q gave %s", tc.in, r.JSON)
			t.Logf("%q: %v", tc.in, err)
		})
	}
}

// A value a later key replaces is still decoded, as go-yaml decodes it:
// its syntax and tags are checked, but what JSON cannot hold (a NaN) goes
// with it.
func TestConvert_ReplacedValues(t *testing.T) {
	r, err := Convert([]byte("a: .nan\na: 1\n"))
	require.NoError(t, err)
	require.Equal(t, `{"a":1}`, string(r.JSON))

	_, err = Convert([]byte("a: !!int x\na: 1\n"))
	require.EqualError(t, err, "yaml: cannot decode !!str `x` as a !!int")
}
