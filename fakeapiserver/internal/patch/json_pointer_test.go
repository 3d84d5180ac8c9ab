package patch

import (
	"slices"
	"testing"
)

// Paths are split and unescaped as json-patch v4's findObject and
// decodePatchKey do: split at "/", drop the first piece whatever it is,
// replace "~1" and "~0" in one left-to-right pass, leave any other "~".
func TestV4PathParsing(t *testing.T) {
	cases := []struct {
		in   string
		want []string // nil: no "/", so v4 finds no parent
	}{
		{in: ""},                      // v4: len(split) < 2
		{in: "metadata"},              // v4: len(split) < 2
		{in: "/", want: []string{""}}, // the member named ""
		{in: "/metadata/labels/app", want: []string{"metadata", "labels", "app"}},
		{in: "/metadata/annotations/example.com~1owner", want: []string{"metadata", "annotations", "example.com/owner"}},
		{in: "/m~0n", want: []string{"m~n"}},
		{in: "/~01", want: []string{"~1"}}, // strings.NewReplacer: one pass
		{in: "/a//b", want: []string{"a", "", "b"}},
		{in: "a/b", want: []string{"b"}},    // v4 drops split[0] unread
		{in: "/a~2", want: []string{"a~2"}}, // v4 leaves a bad escape as it is
		{in: "/a~", want: []string{"a~"}},
	}
	for _, c := range cases {
		p := parseV4Path(c.in)
		if p.ok != (c.want != nil) || !slices.Equal(p.tokens, c.want) {
			t.Errorf("parseV4Path(%q) = %q (ok %v); want %q", c.in, p.tokens, p.ok, c.want)
		}
	}
}

// Every pointer of RFC 6901 §5 but "" (which v4's test special-cases)
// resolves, checked through a passing "test" operation.
//
// RFC 6901 §5.
func TestJSONPointerRFC6901Section5(t *testing.T) {
	doc := decodeObject(t, `{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}`)
	cases := map[string]string{
		``:       `{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}`,
		`/foo`:   `["bar","baz"]`,
		`/foo/0`: `"bar"`,
		`/`:      `0`,
		`/a~1b`:  `1`,
		`/c%d`:   `2`,
		`/e^f`:   `3`,
		`/g|h`:   `4`,
		`/i\\j`:  `5`,
		`/k\"l`:  `6`,
		`/ `:     `7`,
		`/m~0n`:  `8`,
	}
	for ptr, want := range cases {
		if _, err := JSONPatch(doc, []byte(`[{"op":"test","path":"`+ptr+`","value":`+want+`}]`)); err != nil {
			t.Errorf("test %q == %s: %v", ptr, want, err)
		}
	}
}

// Indices of existing elements are read as v4's partialArray.get, set and
// remove read them: strconv.Atoi, then a negative index counts from the end
// (v4's SupportNegativeIndices defaults to true).
func TestV4Index(t *testing.T) {
	cases := []struct {
		token string
		want  int
		err   string
	}{
		{token: "0", want: 0},
		{token: "2", want: 2},
		{token: "01", want: 1}, // Atoi accepts leading zeros
		{token: "+1", want: 1}, // and a sign
		{token: "-1", want: 2}, // the last element
		{token: "-3", want: 0},
		{token: "-4", err: "Unable to access invalid index: -4: invalid index referenced"},
		{token: "3", err: "Unable to access invalid index: 3: invalid index referenced"},
		{token: "-", err: `strconv.Atoi: parsing "-": invalid syntax`},
		{token: "x", err: `strconv.Atoi: parsing "x": invalid syntax`},
		{token: "99999999999999999999999", err: `strconv.Atoi: parsing "99999999999999999999999": value out of range`},
	}
	for _, c := range cases {
		got, err := v4Index(c.token, 3)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("v4Index(%q) = %d, %v; want error %q", c.token, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("v4Index(%q) = %d, %v; want %d", c.token, got, err, c.want)
		}
	}
}
