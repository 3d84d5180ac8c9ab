package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func freq(field string, op SelectionOperator, value string) FieldRequirement {
	return FieldRequirement{Field: field, Operator: op, Value: value}
}

// Every operator and escape of the field selector grammar.
func TestParseFieldSelector(t *testing.T) {
	tests := []struct {
		in        string
		want      []FieldRequirement
		canonical string
	}{
		{"metadata.name=web-0", []FieldRequirement{freq("metadata.name", Equals, "web-0")}, "metadata.name=web-0"},
		// == is the same as = (apimachinery makes both a "has" term).
		{"metadata.name==web-0", []FieldRequirement{freq("metadata.name", Equals, "web-0")}, "metadata.name=web-0"},
		{"status.phase!=Running", []FieldRequirement{freq("status.phase", NotEquals, "Running")}, "status.phase!=Running"},
		{"spec.nodeName=", []FieldRequirement{freq("spec.nodeName", Equals, "")}, "spec.nodeName="},
		// Comma is AND; terms are kept sorted.
		{"metadata.namespace=default,metadata.name=web-0",
			[]FieldRequirement{freq("metadata.name", Equals, "web-0"), freq("metadata.namespace", Equals, "default")},
			"metadata.name=web-0,metadata.namespace=default"},
		// Empty terms are skipped.
		{",a=b,,", []FieldRequirement{freq("a", Equals, "b")}, "a=b"},
		// Backslash escapes , = and \ in values.
		{`a=x\,y`, []FieldRequirement{freq("a", Equals, "x,y")}, `a=x\,y`},
		{`a=x\=y`, []FieldRequirement{freq("a", Equals, "x=y")}, `a=x\=y`},
		{`a=x\\y`, []FieldRequirement{freq("a", Equals, `x\y`)}, `a=x\\y`},
		{`a!=\=`, []FieldRequirement{freq("a", NotEquals, "=")}, `a!=\=`},
		// The term is split at the first operator; later ones are the value's.
		{"a=!b", []FieldRequirement{freq("a", Equals, "!b")}, "a=!b"},
		{`a!=!\=`, []FieldRequirement{freq("a", NotEquals, "!=")}, `a!=!\=`},
		// Nothing is trimmed.
		{"a = b", []FieldRequirement{freq("a ", Equals, " b")}, "a = b"},
		// An empty field parses; the server then says it is not supported.
		{"=b", []FieldRequirement{freq("", Equals, "b")}, "=b"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseFieldSelector(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, sel.Requirements())
			require.Equal(t, tt.canonical, sel.String())
		})
	}
	for _, in := range []string{"", ",", ",,"} {
		sel, err := ParseFieldSelector(in)
		require.NoError(t, err)
		require.True(t, sel.Empty(), "%q is everything", in)
	}
}

// Every error carries apimachinery's message and the byte offset where the
// input went wrong.
func TestParseFieldSelector_Errors(t *testing.T) {
	tests := []struct {
		in  string
		msg string
		pos int
	}{
		{"metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'", 0},
		{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'", 4},
		{"a=b,c!d", "invalid selector: 'a=b,c!d'; can't understand 'c!d'", 4},
		// apimachinery prints the unescaped character as a number: 61 is '='.
		{"a=b=c", "invalid field selector: unescaped character in value: 61", 3},
		{"x=1,a==b=c", "invalid field selector: unescaped character in value: 61", 8},
		{`a=b\n`, `invalid field selector: invalid escape sequence: \n`, 3},
		{`a=b\é`, `invalid field selector: invalid escape sequence: \é`, 3},
		{`a=b\`, `invalid field selector: invalid escape sequence: \`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseFieldSelector(tt.in)
			var se *SelectorError
			require.True(t, errors.As(err, &se), "want a *SelectorError, got %v", err)
			require.Equal(t, tt.msg, se.Msg)
			require.Equal(t, tt.pos, se.Pos, "position")
			require.Equal(t, tt.in, se.Input)
		})
	}
}

// A field the object does not have counts as "": "spec.nodeName=" selects
// unscheduled pods, "spec.nodeName!=" scheduled ones. (The real server
// answered ?fieldSelector=spec.nodeName%3D with all four unscheduled pods,
// the repository's testdata/kube-apiserver-1.36/06-selectors.txt.)
func TestFieldSelector_MatchesAbsentFieldAsEmpty(t *testing.T) {
	unscheduled := Fields{"metadata.name": "web-0", "status.phase": "Pending"}
	scheduled := Fields{"metadata.name": "web-1", "spec.nodeName": "node-1"}

	sel, err := ParseFieldSelector("spec.nodeName=")
	require.NoError(t, err)
	require.True(t, sel.Matches(unscheduled))
	require.False(t, sel.Matches(scheduled))

	sel, err = ParseFieldSelector("spec.nodeName!=")
	require.NoError(t, err)
	require.False(t, sel.Matches(unscheduled))
	require.True(t, sel.Matches(scheduled))

	sel, err = ParseFieldSelector("status.phase!=Running")
	require.NoError(t, err)
	require.True(t, sel.Matches(scheduled), "no phase is not Running")
}

func TestFieldSelector_Matches(t *testing.T) {
	pod := Fields{"metadata.name": "web-0", "metadata.namespace": "default", "status.phase": "Running", "spec.nodeName": "n1"}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web-0", true}, {"metadata.name==web-0", true}, {"metadata.name=web-1", false},
		{"metadata.name!=web-0", false}, {"metadata.name!=web-1", true},
		{"metadata.name=web-0,metadata.namespace=default", true},
		{"metadata.name=web-0,metadata.namespace=kube-system", false},
		{"status.phase=Running,spec.nodeName!=n2", true},
	}
	for _, tt := range tests {
		sel, err := ParseFieldSelector(tt.sel)
		require.NoError(t, err)
		require.Equal(t, tt.want, sel.Matches(pod), tt.sel)
	}
	require.True(t, EverythingFields().Matches(nil))
	require.True(t, EverythingFields().Empty())
}

// RequiresExactMatch finds the value an = term pins a field to; != terms
// and other fields do not count.
func TestFieldSelector_RequiresExactMatch(t *testing.T) {
	sel, err := ParseFieldSelector("metadata.namespace!=kube-system,metadata.name==web-0")
	require.NoError(t, err)
	v, ok := sel.RequiresExactMatch("metadata.name")
	require.True(t, ok)
	require.Equal(t, "web-0", v)
	_, ok = sel.RequiresExactMatch("metadata.namespace")
	require.False(t, ok, "!= is not an exact match")
	_, ok = sel.RequiresExactMatch("status.phase")
	require.False(t, ok)
	_, ok = EverythingFields().RequiresExactMatch("metadata.name")
	require.False(t, ok)
}

// OneTermEqualFieldSelector escapes its value when printed, so the text
// parses back to the same selector.
func TestOneTermEqualFieldSelector(t *testing.T) {
	sel := OneTermEqualFieldSelector("metadata.name", `a,b=c\d`)
	require.Equal(t, `metadata.name=a\,b\=c\\d`, sel.String())
	back, err := ParseFieldSelector(sel.String())
	require.NoError(t, err)
	require.Equal(t, sel, back)
	require.True(t, sel.Matches(Fields{"metadata.name": `a,b=c\d`}))
	v, ok := sel.RequiresExactMatch("metadata.name")
	require.True(t, ok)
	require.Equal(t, `a,b=c\d`, v)
}

func TestFieldSelector_StringRoundTrip(t *testing.T) {
	for _, in := range []string{
		"", "a=b", "a==b", "a!=b", "a=", `a=\,\=\\`, "z=1,y!=2,x==3", "a!!=b", `a\,b=c`, "a = b ", "=", "!=",
	} {
		sel, err := ParseFieldSelector(in)
		require.NoError(t, err, in)
		back, err := ParseFieldSelector(sel.String())
		require.NoError(t, err, sel.String())
		require.Equal(t, sel, back, in)
		require.Equal(t, sel.String(), back.String())
	}
}

// FuzzParseFieldSelector: no input panics; an error is a *SelectorError
// pointing into the input; whatever parses prints to a text that parses
// back to an equal selector.
func FuzzParseFieldSelector(f *testing.F) {
	for _, seed := range []string{
		"", "a=b", "a==b", "a!=b", "a=", ",", "a=b,c=d", `a=x\,y`, `a=\\`, `a=b\`, "a=b=c", `a=\n`, "a", "a!!=b", `a\,b=c`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := ParseFieldSelector(in)
		if err != nil {
			var se *SelectorError
			require.ErrorAs(t, err, &se)
			require.Equal(t, in, se.Input)
			require.True(t, se.Pos >= 0 && se.Pos <= len(in), "position %d outside %q", se.Pos, in)
			require.NotEmpty(t, se.Msg)
			return
		}
		text := sel.String()
		back, err := ParseFieldSelector(text)
		require.NoError(t, err, "String() of %q printed %q", in, text)
		require.Equal(t, sel, back, "%q printed as %q", in, text)
		require.Equal(t, text, back.String())
		sel.Matches(nil)
	})
}

func BenchmarkFieldSelector_Matches(b *testing.B) {
	sel, err := ParseFieldSelector("metadata.namespace=default,status.phase=Running,spec.nodeName!=")
	require.NoError(b, err)
	pod := Fields{"metadata.name": "web-0", "metadata.namespace": "default", "status.phase": "Running", "spec.nodeName": "n1"}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(pod) {
			b.Fatal("no match")
		}
	}
}
