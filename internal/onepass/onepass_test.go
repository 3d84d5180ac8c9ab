package onepass

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
)

// The types below touch every rule Unmarshal follows or hands over:
// embedded structs (exported and not), named kinds, pointers, methods,
// the kinds it delegates, maps, slices, interfaces, tags and case.

type myString string

type stamp struct{ t time.Time }

// UnmarshalJSON makes stamp a json.Unmarshaler with a pointer receiver, as
// api.Time is; it records what it was handed, null included.
func (s *stamp) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		s.t = time.Time{}
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, str)
	s.t = t
	return err
}

type textish struct{ s string }

func (t *textish) UnmarshalText(b []byte) error {
	if bytes.Contains(b, []byte("bad")) {
		return errors.New("bad text")
	}
	t.s = "text:" + string(b)
	return nil
}

type Meta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion"`
}

type inner struct {
	Deep  string `json:"deep"`
	Depth int
}

type elem struct {
	Type   myString `json:"type"`
	Status string   `json:"status"`
	When   stamp    `json:"when"`
	Tags   []string `json:"tags"`
}

type everything struct {
	Meta   `json:",inline"`
	inner                    // unexported, but its exported fields are decoded
	Name   string            `json:"name"`
	Named  myString          `json:"named"`
	B      bool              `json:"b"`
	I      int               `json:"i"`
	I8     int8              `json:"i8"`
	U16    uint16            `json:"u16"`
	F32    float32           `json:"f32"`
	F      float64           `json:"f"`
	P      *string           `json:"p"`
	PP     **int             `json:"pp"`
	PT     *stamp            `json:"pt"`
	T      stamp             `json:"t"`
	Text   textish           `json:"text"`
	Bytes  []byte            `json:"bytes"`
	Num    json.Number       `json:"num"`
	Arr    [2]int            `json:"arr"`
	Any    any               `json:"any"`
	Raw    json.RawMessage   `json:"raw"`
	Elems  []elem            `json:"elems"`
	Strs   []string          `json:"strs"`
	M      map[string]int    `json:"m"`
	Labels map[string]string `json:"labels"`
	MS     map[myString]elem `json:"ms"`
	MI     map[int]string    `json:"mi"`
	Ptrs   []*elem           `json:"ptrs"`
	Next   *everything       `json:"next"`
	Str    fmt.Stringer      `json:"stringer"`
	Upper  string            `json:"Hello"`
	Lower  string            `json:"hello"`
	Kelvin string            `json:"k"` // U+212A KELVIN SIGN folds to k
	Dash   string            `json:"-"`
	//lint:ignore SA5008 a field named "-" is one of the rules under test
	DashC string `json:"-,"`
	//lint:ignore SA5008 an invalid name is one of the rules under test
	BadT  string `json:"a\"b"` // not a valid name: the Go name is used
	NoTag int
	//lint:ignore U1000 an unexported field, which decoding must leave alone
	hidden string
}

// unsupported needs rules Unmarshal leaves to encoding/json as a whole:
// an embedded pointer, the ",string" option, and two embedded structs
// whose fields "Name" clash at the same depth (encoding/json drops both).
type unsupported struct {
	*Meta
	clashA
	clashB
	N int `json:"n,string"`
}

type clashA struct{ Name string }

type clashB struct{ Name string }

// targets builds the values decoded into: fresh, and already filled (so
// that merging into old values, reusing slices and keeping or nil-ing
// fields are compared too).
var targets = map[string]func() any{
	"everything": func() any { return new(everything) },
	"filled": func() any {
		s, n := "old", 7
		pn := &n
		e := &everything{Name: "old", P: &s, PP: &pn, Any: &elem{Type: "held"},
			Elems: make([]elem, 2, 5), M: map[string]int{"keep": 1}, Labels: map[string]string{"keep": "1"}, Next: &everything{Name: "next"}}
		e.Elems[0].Tags = []string{"a", "b", "c"}
		e.Elems = e.Elems[:1]
		return e
	},
	"unsupported": func() any { return new(unsupported) },
	"any":         func() any { return new(any) },
	"map":         func() any { return new(map[string]any) },
	"elems":       func() any { return new([]elem) },
	"string":      func() any { return new(string) },
	"stamp":       func() any { return new(stamp) },
	"pointer":     func() any { p := new(*everything); return p },
	"pod":         func() any { return new(api.Pod) },
	// A watch frame as listwatch decodes it: the object is decoded
	// through the interface, straight into the pod it holds.
	"frame": func() any {
		return &struct {
			Type   api.EventType `json:"type"`
			Object any           `json:"object"`
		}{Object: new(api.Pod)}
	},
}

// sameAsEncodingJSON decodes data into three new targets, with
// json.Unmarshal, with Unmarshal and with a Decoder that interns
// (interning_test.go), and fails t unless all three fail, or all succeed
// with the same value.
func sameAsEncodingJSON(t *testing.T, name string, data []byte) {
	t.Helper()
	want, got, interned := targets[name](), targets[name](), targets[name]()
	wantErr := json.Unmarshal(data, want)
	gotErr := Unmarshal(data, got)
	internedErr := (&Decoder{Interner: newTestInterner()}).Unmarshal(data, interned)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%s <- %q:\n encoding/json: %v\n onepass:       %v", name, data, wantErr, gotErr)
	case (wantErr == nil) != (internedErr == nil):
		t.Fatalf("%s <- %q:\n encoding/json:     %v\n onepass, interned: %v", name, data, wantErr, internedErr)
	case wantErr == nil && !reflect.DeepEqual(want, got):
		t.Fatalf("%s <- %q: values differ\n encoding/json: %s\n onepass:       %s", name, data, show(want), show(got))
	case wantErr == nil && !reflect.DeepEqual(want, interned):
		t.Fatalf("%s <- %q: values differ\n encoding/json:     %s\n onepass, interned: %s", name, data, show(want), show(interned))
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// seeds are inputs that exercise one rule each; FuzzUnmarshal starts from
// them and the table test runs them all into every target.
var seeds = []string{
	`{}`, ` { } `, `null`, `[]`, `"x"`, `12`, `true`, ``, ` `, `{`, `}`, `{"name":"a"} x`, `{"name":"a"}{}`,
	`{"kind":"Pod","apiVersion":"v1","deep":"d","Depth":3,"name":"n","named":"nn"}`,
	`{"b":true,"i":-12,"i8":127,"u16":65535,"f32":1.5e3,"f":-0.25E-2}`,
	`{"i8":128}`, `{"u16":-1}`, `{"i":1.0}`, `{"i":1e2}`, `{"f32":1e39}`, `{"i":-0}`, `{"i":01}`, `{"i":-}`, `{"i":1.}`, `{"i":1e}`, `{"i":"1"}`,
	`{"p":"s","pp":5,"pt":"2026-11-23T05:00:00Z","t":"2026-11-23T05:00:00Z"}`,
	`{"p":null,"pp":null,"pt":null,"t":null,"elems":null,"m":null,"any":null,"next":null,"name":null,"i":null}`,
	`{"pt":"not a time"}`, `{"t":5}`,
	`{"text":"hello","bytes":"aGVsbG8=","num":12.5,"arr":[1,2,3],"raw":{"a":[1,"x"]}}`,
	`{"text":"bad"}`, `{"text":5}`, `{"bytes":"!!"}`, `{"bytes":[1,2]}`, `{"num":"12"}`, `{"num":"x"}`,
	`{"any":{"a":[1,"x",true,null,{"b":2.5}]}}`, `{"any":"s"}`, `{"any":[1]}`,
	`{"elems":[{"type":"Ready","status":"True","when":"2026-11-23T05:00:00Z","tags":["x"]},{"type":"B"}]}`,
	`{"elems":[]}`, `{"elems":[{},{},{},{},{},{}]}`, `{"elems":[1]}`, `{"elems":{}}`, `{"elems":[{"tags":[]}]}`,
	`{"strs":["a","b"],"m":{"x":1,"y":2},"ms":{"k":{"type":"t"}},"mi":{"1":"a","-2":"b"}}`,
	`{"labels":{"app":"web","tier":"a\"b","app":"again","e":null}}`, `{"labels":{}}`, `{"labels":null}`, `{"labels":{"a":1}}`,
	`{"labels":{"a":[]}}`, `{"labels":{"a":{}}}`, `{"labels":{"a":"b",}}`, `{"labels":{"a" "b"}}`, `{"labels":{"a":nul}}`, `{"labels":{"a":"b"`,
	`{"labels":{"a":`, `{"labels":["a"]}`, `{"labels":"a"}`, `{"labels":{"\u0061":"\u0062"}}`,
	`{"mi":{"x":"a"}}`, `{"m":{"x":"1"}}`, `{"m":[]}`, `{"ms":{"k":null}}`,
	`{"ptrs":[null,{"type":"t"}],"next":{"name":"n2","next":{"i":3}}}`,
	`{"stringer":null}`, `{"stringer":"x"}`,
	`{"Hello":"H","hello":"h","HELLO":"x","K":"k1","\u212a":"kelvin","NAME":"upper","nAmE":"mixed"}`,
	`{"-":"dash","Dash":"d","DashC":"d2","a\"b":"bad","BadT":"good","NoTag":4,"hidden":"h"}`,
	`{"name":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800 \udc00 \ud800\u0041 \ud800x"}`,
	"{\"name\":\"raw \xff \xc3\xa9 \xed\xa0\x80\"}", "{\"name\":\"ctl \x01\"}", `{"name":"\x"}`, `{"name":"\u12"}`, `{"name":"\u12g4"}`,
	`{"na\u006de":"escaped key","\u00e9":1}`, "{\"\xff\":1}",
	`{"name":"a","name":"b","elems":[{"type":"1"}],"elems":[{"status":"2"}]}`,
	`{"n":"5","name":"x"}`, `{"n":5}`,
	`{"name" : "spaces" , "i" : 1 }`, "{\n\t\"name\":\r\"x\"}", `{"name":"a",}`, `{,}`, `{"name"}`, `{"name":}`, `{"name" "a"}`, `{1:2}`,
	`[1,2,]`, `[,]`, `[1 2]`, `tru`, `nul`, `falsey`, `"`, `"abc`, `{"a":[}`,
	`{"any":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"any":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// TestUnmarshal_SameAsEncodingJSON runs every seed into every target.
func TestUnmarshal_SameAsEncodingJSON(t *testing.T) {
	inputs := append(recordedPods(t), seeds...)
	for name := range targets {
		for _, in := range inputs {
			sameAsEncodingJSON(t, name, []byte(in))
		}
	}
	t.Logf("%d inputs into %d targets: onepass and encoding/json agree on every one", len(inputs), len(targets))
}

// recordedPods returns pods as a real API server sent them, alone and in
// a watch frame.
func recordedPods(tb testing.TB) []string {
	var pods []string
	for _, name := range []string{"../../api/testdata/pod-from-apiserver.json", "../../bench/testdata/pod.json"} {
		pod, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		pods = append(pods, string(pod), `{"type":"MODIFIED","object":`+string(pod)+`}`)
	}
	return pods
}

// FuzzUnmarshal: on any input, into any target, Unmarshal fails exactly
// when json.Unmarshal fails and otherwise stores the same value.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range append(recordedPods(f), seeds...) {
		if len(s) < 1000 {
			f.Add(s)
		}
	}
	names := make([]string, 0, len(targets))
	for name := range targets {
		names = append(names, name)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, name := range names {
			sameAsEncodingJSON(t, name, []byte(in))
		}
	})
}
