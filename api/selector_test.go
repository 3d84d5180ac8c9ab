package api

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The exact wording apimachinery's validation gives a bad key and a bad
// value, double spaces included.
const (
	badKeyMsg = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
		`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	badValueMsg = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
		`(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
)

func req(key string, op SelectionOperator, values ...string) Requirement {
	if len(values) == 0 {
		values = nil
	}
	return Requirement{Key: key, Operator: op, Values: values}
}

// Every operator of the grammar parses to its requirement and prints back in
// canonical form.
func TestParseSelector_EveryOperator(t *testing.T) {
	tests := []struct {
		in        string
		want      []Requirement
		canonical string
	}{
		{"app=web", []Requirement{req("app", Equals, "web")}, "app=web"},
		{"app==web", []Requirement{req("app", DoubleEquals, "web")}, "app==web"},
		{"app!=web", []Requirement{req("app", NotEquals, "web")}, "app!=web"},
		{"app in (web,api)", []Requirement{req("app", In, "api", "web")}, "app in (api,web)"},
		{"app notin (web)", []Requirement{req("app", NotIn, "web")}, "app notin (web)"},
		{"app", []Requirement{req("app", Exists)}, "app"},
		{"!app", []Requirement{req("app", DoesNotExist)}, "!app"},
		{"replicas>2", []Requirement{req("replicas", GreaterThan, "2")}, "replicas>2"},
		{"replicas<2", []Requirement{req("replicas", LessThan, "2")}, "replicas<2"},
		// Empty values.
		{"app=", []Requirement{req("app", Equals, "")}, "app="},
		{"app in ()", []Requirement{req("app", In, "")}, "app in ()"},
		{"app in (,web)", []Requirement{req("app", In, "", "web")}, "app in (,web)"},
		{"app in (web,)", []Requirement{req("app", In, "", "web")}, "app in (,web)"},
		{"app in (a,,b)", []Requirement{req("app", In, "", "a", "b")}, "app in (,a,b)"},
		// Values are a set: sorted, duplicates dropped.
		{"app in (b,a,b)", []Requirement{req("app", In, "a", "b")}, "app in (a,b)"},
		// Keys with a DNS-subdomain prefix.
		{"example.com/app=web", []Requirement{req("example.com/app", Equals, "web")}, "example.com/app=web"},
		// "in" and "notin" are keywords only where an operator is expected.
		{"in in (in,notin)", []Requirement{req("in", In, "in", "notin")}, "in in (in,notin)"},
		{"notin=in", []Requirement{req("notin", Equals, "in")}, "notin=in"},
		// Comma is AND; requirements are kept sorted by key.
		{"tier=api,app=web,!canary", []Requirement{req("app", Equals, "web"), req("canary", DoesNotExist), req("tier", Equals, "api")},
			"app=web,!canary,tier=api"},
		{"a=1,a=2", []Requirement{req("a", Equals, "1"), req("a", Equals, "2")}, "a=1,a=2"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseSelector(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, sel.Requirements())
			require.Equal(t, tt.canonical, sel.String())
			require.False(t, sel.Empty())
		})
	}
}

// Blanks (space, tab, CR, LF) between tokens do not matter; the empty or
// all-blank selector is Everything.
func TestParseSelector_Whitespace(t *testing.T) {
	for _, in := range []string{
		"app=web,tier in (api,db),!canary",
		"  app = web , tier  in(api , db ) ,\t! canary ",
		"app\n=\nweb,\r\ntier in\t(api,db),!canary",
	} {
		sel, err := ParseSelector(in)
		require.NoError(t, err, in)
		require.Equal(t, "app=web,!canary,tier in (api,db)", sel.String(), in)
	}
	for _, in := range []string{"", "   ", "\t\n"} {
		sel, err := ParseSelector(in)
		require.NoError(t, err)
		require.True(t, sel.Empty(), "%q is Everything", in)
		require.True(t, sel.Matches(nil))
	}
}

// Every error says what was found, what was expected (in apimachinery's
// words) and where.
func TestParseSelector_Errors(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		in  string
		msg string
		pos int
	}{
		// The exact message a real kube-apiserver 1.36 answered labelSelector=== with
		// (the repository's testdata/kube-apiserver-1.36/06-selectors.txt).
		{"===", "found '==', expected: !, identifier, or 'end of string'", 0},
		{"!=a", "found '!=', expected: !, identifier, or 'end of string'", 0},
		{",a", "found ',', expected: !, identifier, or 'end of string'", 0},
		{"app=web,", "found '', expected: identifier after ','", 8},
		{"a,,b", "found ',', expected: identifier after ','", 2},
		{"app=web tier", "found 'tier', expected: ',' or 'end of string'", 8},
		{"!a=b", "found '=', expected: ',' or 'end of string'", 2},
		{"a=b=c", "found '=', expected: ',' or 'end of string'", 3},
		{"!", "unable to parse requirement: found '', expected: identifier", 1},
		{"!!a", "unable to parse requirement: found '!', expected: identifier", 1},
		{"app web", "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt", 4},
		{"app (web)", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt", 4},
		{"app in web", "unable to parse requirement: found 'web' expected: '('", 7},
		{"app in (", "unable to parse requirement: found '', expected: ',', ')' or identifier", 8},
		{"app in (=", "unable to parse requirement: found '=', expected: ',', ')' or identifier", 8},
		{"app in (web", "unable to parse requirement: found '', expected: ',' or ')'", 11},
		{"app in (web api)", "unable to parse requirement: found 'api', expected: ',' or ')'", 12},
		{"app in (web,=)", "unable to parse requirement: found '=', expected: ',', or identifier", 12},
		{"app=(web)", "unable to parse requirement: found '(', expected: identifier", 4},
		{"a>=1", "unable to parse requirement: found '=', expected: identifier", 2},
		{"-app=web", `unable to parse requirement: <nil>: Invalid value: "-app": ` + badKeyMsg, 0},
		{"x,!" + long, `unable to parse requirement: <nil>: Invalid value: "` + long + `": name part must be no more than 63 bytes`, 3},
		{"a/b/c", `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', ` +
			`and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ` +
			`'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`, 0},
		{"Example.com/app", `unable to parse requirement: <nil>: Invalid value: "Example.com/app": prefix part a lowercase RFC 1123 subdomain must consist of ` +
			`lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', ` +
			`regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`, 0},
		{"/app", `unable to parse requirement: <nil>: Invalid value: "/app": prefix part must be non-empty`, 0},
		{"app=-web", `unable to parse requirement: values[0][app]: Invalid value: "-web": ` + badValueMsg, 4},
		{"app in (ok, bad_)", `unable to parse requirement: values[0][app]: Invalid value: "bad_": ` + badValueMsg, 12},
		{"app=" + long, `unable to parse requirement: values[0][app]: Invalid value: "` + long + `": must be no more than 63 bytes`, 4},
		{"n>x", `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseSelector(tt.in)
			require.Error(t, err)
			var se *SelectorError
			require.True(t, errors.As(err, &se), "want a *SelectorError, got %T", err)
			require.Equal(t, tt.msg, se.Msg)
			require.Equal(t, tt.pos, se.Pos, "position")
			require.Equal(t, tt.in, se.Input)
		})
	}
}

// Error() is the bare message plus where; Msg alone is what the fake API
// server puts in its 400 Status, as the real server does.
func TestSelectorError_BareMessageForStatus(t *testing.T) {
	_, err := ParseSelector("===")
	require.EqualError(t, err, `found '==', expected: !, identifier, or 'end of string' at position 0 of "==="`)
	var se *SelectorError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "found '==', expected: !, identifier, or 'end of string'", se.Msg)
}

// != and notin (and !) match an object that lacks the key; =, in, exists
// and the integer comparisons do not.
func TestSelector_MatchesAbsentKeys(t *testing.T) {
	noTier := map[string]string{"app": "web"}
	for sel, want := range map[string]bool{
		"tier!=api":        true,
		"tier notin (api)": true,
		"!tier":            true,
		"tier=api":         false,
		"tier==api":        false,
		"tier in (api)":    false,
		"tier":             false,
		"tier>1":           false,
		"tier<1":           false,
		"tier=":            false, // an empty value is a value: the key must be there
	} {
		s, err := ParseSelector(sel)
		require.NoError(t, err)
		require.Equal(t, want, s.Matches(noTier), sel)
		require.Equal(t, want, s.Matches(nil), "%s on an object without labels", sel)
	}
}

func TestSelector_Matches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "api", "replicas": "3", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"app=web", true}, {"app=api", false},
		{"app==web", true}, {"app==api", false},
		{"app!=web", false}, {"app!=api", true},
		{"tier in (api,db)", true}, {"tier in (db)", false},
		{"tier notin (api,db)", false}, {"tier notin (db)", true},
		{"app", true}, {"!app", false},
		{"empty=", true}, {"empty", true}, {"empty in ()", true}, {"empty!=", false},
		{"replicas>2", true}, {"replicas>3", false}, {"replicas<4", true}, {"replicas<3", false},
		{"app>1", false}, // a value that is not an integer never compares
		// Comma is AND.
		{"app=web,tier=api", true}, {"app=web,tier=db", false}, {"app=web,!canary", true},
		{"", true},
	}
	for _, tt := range tests {
		s, err := ParseSelector(tt.sel)
		require.NoError(t, err)
		require.Equal(t, tt.want, s.Matches(labels), tt.sel)
	}
}

// Everything matches all and is empty; Nothing matches none, not even an
// object without labels, and is not empty.
func TestEverythingAndNothing(t *testing.T) {
	require.True(t, Everything().Matches(nil))
	require.True(t, Everything().Matches(map[string]string{"a": "b"}))
	require.True(t, Everything().Empty())
	require.True(t, Selector{}.Empty(), "the zero Selector is Everything")

	require.False(t, Nothing().Matches(nil))
	require.False(t, Nothing().Matches(map[string]string{"a": "b"}))
	require.False(t, Nothing().Empty())
	require.False(t, Nothing().Add(req("a", Exists)).Matches(map[string]string{"a": "b"}), "Nothing stays Nothing")
}

func TestSelectorFromSet(t *testing.T) {
	s := SelectorFromSet(map[string]string{"tier": "api", "app": "web"})
	require.Equal(t, "app=web,tier=api", s.String())
	require.True(t, s.Matches(map[string]string{"app": "web", "tier": "api", "x": "y"}))
	require.False(t, s.Matches(map[string]string{"app": "web"}))
	require.True(t, SelectorFromSet(nil).Empty())
}

// Requirements hands out a copy: changing it does not change the selector.
func TestSelector_RequirementsIsACopy(t *testing.T) {
	s, err := ParseSelector("tier in (api,db)")
	require.NoError(t, err)
	r := s.Requirements()
	r[0].Values[0] = "web"
	require.Equal(t, "tier in (api,db)", s.String())
}

func TestNewRequirement_Validation(t *testing.T) {
	tests := []struct {
		key    string
		op     SelectionOperator
		values []string
		err    string
	}{
		{"a", In, nil, "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"},
		{"a", NotIn, []string{}, "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"},
		{"a", Equals, []string{"x", "y"}, `values: Invalid value: ["x","y"]: exact-match compatibility requires one single value`},
		{"a", NotEquals, nil, "values: Invalid value: []: exact-match compatibility requires one single value"},
		{"a", Exists, []string{"x"}, `values: Invalid value: ["x"]: values set must be empty for exists and does not exist`},
		{"a", GreaterThan, []string{"1", "2"}, `values: Invalid value: ["1","2"]: for 'Gt', 'Lt' operators, exactly one value is required`},
		{"a", "like", []string{"x"}, `operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`},
		{"-a", Exists, nil, `key: Invalid value: "-a": ` + badKeyMsg},
		{"a", In, []string{"-x", "-y"}, `[values[0][a]: Invalid value: "-x": ` + badValueMsg + `, values[1][a]: Invalid value: "-y": ` + badValueMsg + `]`},
	}
	for _, tt := range tests {
		_, err := NewRequirement(tt.key, tt.op, tt.values)
		require.EqualError(t, err, tt.err)
	}
	r, err := NewRequirement("a", In, []string{"y", "x", "y"})
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y"}, r.Values, "values are sorted and de-duplicated")
}

// A ReplicaSet's structured selector converts as metav1.LabelSelectorAsSelector
// does: nil selects nothing, empty selects everything.
func TestLabelSelector_AsSelector(t *testing.T) {
	tests := []struct {
		name string
		ls   *LabelSelector
		want string
	}{
		{"matchLabels", &LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "api"}}, "app=web,tier=api"},
		{"In", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"db", "api"}}}}, "tier in (api,db)"},
		{"NotIn", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpNotIn, Values: []string{"db"}}}}, "tier notin (db)"},
		{"Exists", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpExists}}}, "tier"},
		{"DoesNotExist", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "canary", Operator: LabelSelectorOpDoesNotExist}}}, "!canary"},
		{"both, sorted by key", &LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []LabelSelectorRequirement{{Key: "canary", Operator: LabelSelectorOpDoesNotExist}},
		}, "app=web,!canary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.ls.AsSelector()
			require.NoError(t, err)
			require.Equal(t, tt.want, s.String())
			back, err := ParseSelector(s.String())
			require.NoError(t, err)
			require.Equal(t, s, back)
		})
	}

	var nilSel *LabelSelector
	s, err := nilSel.AsSelector()
	require.NoError(t, err)
	require.False(t, s.Matches(map[string]string{"app": "web"}), "nil selects nothing")
	require.False(t, s.Empty())

	s, err = (&LabelSelector{}).AsSelector()
	require.NoError(t, err)
	require.True(t, s.Matches(map[string]string{"app": "web"}), "empty selects everything")
	require.True(t, s.Empty())
}

func TestLabelSelector_AsSelectorErrors(t *testing.T) {
	tests := []struct {
		ls  LabelSelector
		err string
	}{
		{LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpExists}, {Key: "b", Operator: "Equals"}}},
			`matchExpressions[1]: "Equals" is not a valid label selector operator`},
		{LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpIn}}},
			`matchExpressions[0]: values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`},
		{LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpExists, Values: []string{"x"}}}},
			`matchExpressions[0]: values: Invalid value: ["x"]: values set must be empty for exists and does not exist`},
		{LabelSelector{MatchLabels: map[string]string{"-a": "x"}},
			`matchLabels["-a"]: key: Invalid value: "-a": ` + badKeyMsg},
		{LabelSelector{MatchLabels: map[string]string{"a": "x y"}},
			`matchLabels["a"]: values[0][a]: Invalid value: "x y": ` + badValueMsg},
	}
	for _, tt := range tests {
		_, err := tt.ls.AsSelector()
		require.EqualError(t, err, tt.err)
	}
}

// String prints a text that parses back to an equal selector, and printing
// that again gives the same text.
func TestSelector_StringRoundTrip(t *testing.T) {
	for _, in := range []string{
		"", "a", "!a", "a=b", "a==b", "a!=b", "a=", "a in ()", "a in (,x)", "a notin (z,y,x)", "n>5", "n<5",
		" z = 1 , y in ( 2 , 1 ) , x , ! w ", "example.com/a=b,in in (in),notin notin (notin)",
	} {
		sel, err := ParseSelector(in)
		require.NoError(t, err, in)
		back, err := ParseSelector(sel.String())
		require.NoError(t, err, sel.String())
		require.Equal(t, sel, back, in)
		require.Equal(t, sel.String(), back.String())
	}
}

// FuzzParseSelector: no input panics; an error is a *SelectorError pointing
// into the input; whatever parses prints to a text that parses back to an
// equal selector.
func FuzzParseSelector(f *testing.F) {
	for _, seed := range []string{
		"", "a", "!a", "a=b", "a==b", "a!=b", "a in (x,y)", "a notin (x)", "a in ()", "a in (,)", "a in (x,,y)",
		"a>1", "a<1", "===", "a,b", "a=b,", "example.com/a=b", "in in (in)", " a = b ", "a=b\x00c", "a in (x", "!",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := ParseSelector(in)
		if err != nil {
			var se *SelectorError
			require.ErrorAs(t, err, &se)
			require.Equal(t, in, se.Input)
			require.True(t, se.Pos >= 0 && se.Pos <= len(in), "position %d outside %q", se.Pos, in)
			require.NotEmpty(t, se.Msg)
			return
		}
		text := sel.String()
		back, err := ParseSelector(text)
		require.NoError(t, err, "String() of %q printed %q", in, text)
		require.Equal(t, sel, back, "%q printed as %q", in, text)
		require.Equal(t, text, back.String())
		sel.Matches(nil)
		sel.Matches(map[string]string{"a": "b"})
	})
}

// BenchmarkSelector_Matches: one 3-requirement selector against a pod's labels,
// the check the fake server does per object on a filtered list or watch.
func BenchmarkSelector_Matches(b *testing.B) {
	sel, err := ParseSelector("app=web,tier in (api,db),!canary")
	require.NoError(b, err)
	labels := map[string]string{"app": "web", "tier": "db", "pod-template-hash": "7f9c6d", "release": "stable"}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(labels) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkParseSelector(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSelector("app=web,tier in (api,db),!canary"); err != nil {
			b.Fatal(err)
		}
	}
}
