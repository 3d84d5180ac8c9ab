package kubeyaml

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toAny turns a Node into plain Go values for comparison: mappings are
// map[string]any, sequences []any, scalars string, null nil.
func toAny(n *Node) any {
	switch n.Kind {
	case Mapping:
		m := map[string]any{}
		for i, k := range n.Keys {
			m[k] = toAny(n.Values[i])
		}
		return m
	case Sequence:
		s := []any{}
		for _, it := range n.Items {
			s = append(s, toAny(it))
		}
		return s
	case Scalar:
		return n.Value
	}
	return nil
}

type m = map[string]any
type s = []any

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"empty", "", nil},
		{"comments only", "# nothing\n\n  # here\n", nil},
		{"document markers", "---\na: b\n...\n", m{"a": "b"}},
		{"plain scalars keep their text", "a: 123\nb: true\nc: yes\nd: 0x1F\n", m{"a": "123", "b": "true", "c": "yes", "d": "0x1F"}},
		{"nulls", "a:\nb: ~\nc: null\nd: 'null'\n", m{"a": nil, "b": nil, "c": nil, "d": "null"}},
		{"colons and hashes inside plain scalars", "server: https://127.0.0.1:6443\nlast-update: Mon, 23 Nov 2026 01:20:58 UTC\nx: a#b # a comment\n",
			m{"server": "https://127.0.0.1:6443", "last-update": "Mon, 23 Nov 2026 01:20:58 UTC", "x": "a#b"}},
		{"single quotes", `a: '{.credential.token_expiry}'` + "\n" + `b: 'it''s # not a comment'`, m{"a": "{.credential.token_expiry}", "b": "it's # not a comment"}},
		{"double quotes", `a: "x\ty\n\u00e9\"\\" # c`, m{"a": "x\ty\n\u00e9\"\\"}},
		{"quoted keys", `"a b": 1` + "\n'c': 2", m{"a b": "1", "c": "2"}},
		{"nested mappings", "a:\n  b:\n    c: d\n  e: f\ng: h\n", m{"a": m{"b": m{"c": "d"}, "e": "f"}, "g": "h"}},
		{"sequence at the key's indentation (kubectl)", "clusters:\n- cluster:\n    server: https://x\n  name: kind\n- name: other\ncurrent-context: kind\n",
			m{"clusters": s{m{"cluster": m{"server": "https://x"}, "name": "kind"}, m{"name": "other"}}, "current-context": "kind"}},
		{"indented sequence", "args:\n  - --region\n  - 'eu-west-1'\n  -\n  - - nested\n    - seq\n", m{"args": s{"--region", "eu-west-1", nil, s{"nested", "seq"}}}},
		{"item on the next line", "a:\n-\n  b: c\n", m{"a": s{m{"b": "c"}}}},
		{"flow collections", "preferences: {}\nusers: []\nargs: [a, 'b c', \"d\"]\nm: {k: v, n: [1, 2], e: }\n",
			m{"preferences": m{}, "users": s{}, "args": s{"a", "b c", "d"}, "m": m{"k": "v", "n": s{"1", "2"}, "e": nil}}},
		{"literal block scalar", "a: |\n  line 1\n\n  line 2\n    indented\nb: |-\n  x\nc: |+\n  y\n\nd: z\n",
			m{"a": "line 1\n\nline 2\n  indented\n", "b": "x", "c": "y\n\n", "d": "z"}},
		{"folded block scalar", "a: >\n  one\n  two\n\n  three\nb: c\n", m{"a": "one two\nthree\n", "b": "c"}},
		{"block scalar in a sequence", "- |\n  pem\n- x\n", s{"pem\n", "x"}},
		{"value on its own line", "a:\n  value\nb: c", m{"a": "value", "b": "c"}},
		{"CRLF and a byte order mark", "\xef\xbb\xbfa: b\r\nc: d\r\n", m{"a": "b", "c": "d"}},
		{"JSON", `{"b": [1, true, null, "x"], "a": {"c": "d"}}`, m{"a": m{"c": "d"}, "b": s{"1", "true", nil, "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, toAny(n)); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"anchor", "a: &x b\n", 1, "anchors (&x) are not supported"},
		{"alias", "a: b\nc: *x\n", 2, "aliases (*x) are not supported"},
		{"tag", "a: !!str b\n", 1, "tags (!!str) are not supported"},
		{"complex key", "? a\n: b\n", 1, "complex keys"},
		{"tab indentation", "a:\n\tb: c\n", 2, "a tab in the indentation"},
		{"second document", "a: b\n---\nc: d\n", 2, "a second YAML document"},
		{"multi-line plain scalar", "a: b\n  c\n", 2, "a plain scalar continued"},
		{"multi-line quoted scalar", "a: b\nc: \"d\n  e\"\n", 2, "multi-line quoted scalars"},
		{"multi-line flow", "a: [b,\n  c]\n", 1, "multi-line flow collections"},
		{"duplicate key", "a: b\nc: d\na: e\n", 3, `duplicate key "a"`},
		{"bad indentation", "a:\n    b: c\n  d: e\n", 3, "unexpected indentation"},
		{"item in a mapping", "a:\n  b: c\n  - d\n", 3, "a sequence item where a mapping key was expected"},
		{"mapping in a scalar", "a: b: c\n", 1, "a mapping is not allowed here"},
		{"text after a quote", "a: 'b' c\n", 1, `unexpected "c" after a quoted scalar`},
		{"unknown escape", `a: "\q"`, 1, `unknown escape \q`},
		{"directive", "%YAML 1.2\n---\na: b\n", 1, "YAML directives"},
		{"not a key", "a: b\njust text\n", 2, "expected \"key: value\""},
		{"JSON syntax", "{\n\"a\": \n}", 3, "JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse: %v, want an *Error", err)
			}
			if e.Line != tt.line {
				t.Errorf("line %d, want %d (%v)", e.Line, tt.line, err)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error %q, want it to contain %q", e.Msg, tt.msg)
			}
		})
	}
}

// Whatever the input, Parse returns a Node or an error: it does not panic
// or loop.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"a: b\nc:\n- d: e\n  f: [g, 'h', {i: j}]\n- |\n  k\n",
		"clusters:\n- cluster:\n    server: https://x:6443\n  name: n\n",
		"a: >-\n  b\n\n  c\nd: \"\\u00e9\"\n",
		"- - a\n  - b\n-\n  c: d\n",
		`{"a": [1, {"b": null}]}`,
		"a: 'b''c'\n? d\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse(data)
		if err == nil && n == nil {
			t.Fatal("no node and no error")
		}
	})
}
