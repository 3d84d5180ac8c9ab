package patch

import (
	"slices"
	"testing"
)

// Parsing: "~1" is "/", "~0" is "~", unescaped left to right; anything else
// after "~" is an error, and a non-empty pointer starts with "/".
//
// RFC 6901 §3 and §4.
func TestJSONPointerEscapes(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: []string{}},
		{in: "/", want: []string{""}},
		{in: "/metadata/labels/app", want: []string{"metadata", "labels", "app"}},
		{in: "/metadata/annotations/example.com~1owner", want: []string{"metadata", "annotations", "example.com/owner"}},
		{in: "/m~0n", want: []string{"m~n"}},
		{in: "/~01", want: []string{"~1"}}, // not "/": ~0 is unescaped after ~1
		{in: "/a//b", want: []string{"a", "", "b"}},
		{in: "metadata", err: `JSON pointer "metadata" must be empty or start with "/"`},
		{in: "/a~2", err: `JSON pointer "/a~2": "a~2" is not a valid escape (only ~0 and ~1 are)`},
		{in: "/a~", err: `"a~" is not a valid escape`},
	}
	for _, c := range cases {
		p, err := parsePointer(c.in)
		if c.err != "" {
			requireKind(t, err, ErrMalformed, c.err)
			continue
		}
		if err != nil || !slices.Equal(p, c.want) {
			t.Errorf("parsePointer(%q) = %q, %v; want %q", c.in, p, err, c.want)
		}
		if p.String() != c.in {
			t.Errorf("parsePointer(%q).String() = %q", c.in, p.String())
		}
	}
}

// Every pointer of RFC 6901 §5 evaluated against its example document.
//
// RFC 6901 §5.
func TestJSONPointerRFC6901Section5(t *testing.T) {
	doc := decodeValue(t, `{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}`)
	cases := map[string]string{
		``:       `{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}`,
		`/foo`:   `["bar","baz"]`,
		`/foo/0`: `"bar"`,
		`/`:      `0`,
		`/a~1b`:  `1`,
		`/c%d`:   `2`,
		`/e^f`:   `3`,
		`/g|h`:   `4`,
		`/i\j`:   `5`,
		`/k"l`:   `6`,
		`/ `:     `7`,
		`/m~0n`:  `8`,
	}
	d := &document{root: doc}
	for ptr, want := range cases {
		p, err := parsePointer(ptr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.get(p)
		if err != nil {
			t.Errorf("get(%q): %v", ptr, err)
			continue
		}
		assertJSON(t, want, got)
	}
}

// Array indices are "0" or digits without a leading zero; "-" and the
// length itself are only for add.
func TestJSONPointerArrayIndex(t *testing.T) {
	cases := []struct {
		token  string
		forAdd bool
		want   int
		err    string
	}{
		{token: "0", want: 0},
		{token: "2", want: 2},
		{token: "3", forAdd: true, want: 3},
		{token: "-", forAdd: true, want: 3},
		{token: "3", err: `index 3 is out of range: the array at "/l" has 3 elements`},
		{token: "4", forAdd: true, err: "index 4 is out of range"},
		{token: "-", err: `"/l/-": index "-" (past the end) can only be used to add`},
		{token: "01", err: `"/l" is an array, and "01" is not an array index`},
		{token: "-1", err: `"-1" is not an array index`},
		{token: "+1", err: `"+1" is not an array index`},
		{token: "1.0", err: `"1.0" is not an array index`},
		{token: "x", err: `"x" is not an array index`},
		{token: "", err: `"" is not an array index`},
		{token: "99999999999999999999999", err: "index 99999999999999999999999 is out of range"},
	}
	for _, c := range cases {
		got, err := arrayIndex(c.token, 3, c.forAdd, pointer{"l"})
		if c.err != "" {
			requireKind(t, err, ErrNotApplicable, c.err)
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("arrayIndex(%q, add=%v) = %d, %v; want %d", c.token, c.forAdd, got, err, c.want)
		}
	}
}
