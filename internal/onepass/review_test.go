package onepass

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
)

// Differential tests of the corners of encoding/json's rules, written in a
// review of onepass against encoding/json (Go 1.26, v1). Each decodes the
// same input into two targets built by the same function, once with
// json.Unmarshal and once with Unmarshal, and requires both to fail, or both
// to succeed with reflect.DeepEqual values. The review found five
// divergences (three of them panics, two endless recursions); the tests
// that pin them say so, and they pass since the fixes in plan.go (named
// pointer types, tagged unexported embedded structs) and intoInterface.

// rvDecode runs Unmarshal, turning a panic into an error-like report.
func rvDecode(data []byte, v any) (panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	return nil, Unmarshal(data, v)
}

func rvSame(t *testing.T, newTarget func() any, input string) {
	t.Helper()
	want, got := newTarget(), newTarget()
	wantErr := json.Unmarshal([]byte(input), want)
	p, gotErr := rvDecode([]byte(input), got)
	switch {
	case p != nil:
		t.Errorf("%T <- %.80q: onepass panicked: %v (encoding/json: err=%v, value %s)", want, input, p, wantErr, rvShow(want))
	case (wantErr == nil) != (gotErr == nil):
		t.Errorf("%T <- %.80q:\n encoding/json: %v\n onepass:       %v", want, input, wantErr, gotErr)
	case wantErr == nil && !reflect.DeepEqual(want, got):
		t.Errorf("%T <- %.80q: values differ\n encoding/json: %s\n onepass:       %s", want, input, rvShow(want), rvShow(got))
	}
}

func rvShow(v any) string {
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%+v", v)
}

func rvAll(t *testing.T, newTarget func() any, inputs ...string) {
	t.Helper()
	for _, in := range inputs {
		rvSame(t, newTarget, in)
	}
	t.Logf("%d inputs into %T: the same result as encoding/json", len(inputs), newTarget())
}

// ---- types ----

// rvU records what UnmarshalJSON was handed.
type rvU struct{ Got string }

func (u *rvU) UnmarshalJSON(b []byte) error { u.Got = "U:" + string(b); return nil }

// rvVU has a value-receiver UnmarshalJSON (it cannot store anything).
type rvVU struct{ Got string }

func (rvVU) UnmarshalJSON(b []byte) error {
	if string(b) == `"fail"` {
		return errors.New("rvVU fails")
	}
	return nil
}

// rvText is a string kind with a pointer-receiver UnmarshalText.
type rvText string

func (s *rvText) UnmarshalText(b []byte) error { *s = rvText("T:" + string(b)); return nil }

// rvTextS is a struct with a pointer-receiver UnmarshalText.
type rvTextS struct{ S string }

func (s *rvTextS) UnmarshalText(b []byte) error { s.S = "T:" + string(b); return nil }

// Named pointer types: they have no methods, whatever their element has.
type (
	rvPtrU     *rvU
	rvPtrVU    *rvVU
	rvPtrText  *rvText
	rvPtrPlain *rvPlain
)

type rvPlain struct {
	A int
	B string
}

type rvNamedPtrs struct {
	PU    rvPtrU     `json:"pu"`
	PVU   rvPtrVU    `json:"pvu"`
	PText rvPtrText  `json:"pt"`
	Plain rvPtrPlain `json:"pp"`
}

// Unexported embedded structs that carry a tag: encoding/json lists them
// as fields, but reaches them read-only, so it cannot call their methods.
// Both embedded types have UnmarshalJSON, so neither is promoted to the
// outer struct (ambiguous selector), which stays a plain struct.
type rvHidU struct{ X int }

func (h *rvHidU) UnmarshalJSON(b []byte) error { h.X = len(b); return nil }

type rvHidU2 struct{ Y int }

func (h *rvHidU2) UnmarshalJSON(b []byte) error { h.Y = len(b); return nil }

type rvHiddenUnmarshalers struct {
	rvHidU  `json:"h"`
	rvHidU2 `json:"h2"`
	Name    string
}

type rvHidT struct{ X int }

func (h *rvHidT) UnmarshalText(b []byte) error { h.X = len(b); return nil }

type rvHidT2 struct{ Y int }

func (h *rvHidT2) UnmarshalText(b []byte) error { h.Y = len(b); return nil }

type rvHiddenTexts struct {
	rvHidT  `json:"h"`
	rvHidT2 `json:"h2"`
}

// Unexported embedded struct with a tag and no methods: decoded as a field.
type rvHidPlain struct{ X, Y int }

type rvTaggedHidden struct {
	rvHidPlain `json:"hp"`
	Z          int
}

// Interfaces holding things.
type rvIface struct {
	A any
	S fmt.Stringer
}

// Struct field rules.
type rvBase struct {
	ID   string
	Kind string `json:"kind"`
}

type rvMid struct {
	rvBase
	Note string
}

//lint:ignore U1000 embedded below, to show an unexported non-struct embedded field is ignored
type rvName string

type RvExpName string

type rvFields struct {
	rvMid
	RvExpName
	//lint:ignore U1000 the field under test: an unexported non-struct embedded field is ignored
	rvName // unexported non-struct embedded: ignored
	Ümlaut string
	Sharp  string `json:"ß"`
	Long   string `json:"ſx"`
	Ohm    string `json:"Ω"`
	Tagged string `json:"ta!#$%&()*+-./:;<=>?@[]^_{|}~ g"`
	//lint:ignore SA5008 an invalid name is one of the rules under test
	Bad string `json:"b\\ad"`
	//lint:ignore SA5008 a field named "-" is one of the rules under test
	Dash  string `json:"-,omitempty"`
	Skip  string `json:"-"`
	Empty string `json:",omitempty"`
	Int   int    `json:"int"`
}

type rvASCII struct {
	Kind   string
	ID     string `json:"id"`
	Upper  string `json:"Sx"`
	Lower  string `json:"sx"`
	Mixed  string
	LongNm string `json:"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`
}

type rvNums struct {
	I   int
	I8  int8
	I64 int64
	U   uint
	U8  uint8
	U64 uint64
	UP  uintptr
	F32 float32
	F64 float64
	B   bool
	S   string
}

type rvKey string

type rvMaps struct {
	M  map[rvKey]rvPlain
	MP map[string]*rvPlain
	MU map[string]rvU
	MS map[string][]int
	MI map[string]any
}

type rvSlices struct {
	P  []rvPlain
	PP []*rvPlain
	U  []rvU
	S  [][]string
	A  [2]rvPlain
	BS []byte
	T  []rvText
	AU []struct{ RvEmbU }
}

// RvEmbU is exported, so a struct embedding it gets UnmarshalJSON promoted.
type RvEmbU struct{ Z int }

func (e *RvEmbU) UnmarshalJSON(b []byte) error { e.Z = len(b); return nil }

type rvRec struct {
	Name string
	Kids []rvRec
	Next *rvRec
	M    map[string]*rvRec
}

// ---- tests ----

// Named pointer types have no methods, so encoding/json decodes the value
// they point to as a plain value even when *T has UnmarshalJSON or
// UnmarshalText (indirect only takes the address of the value it starts
// from). onepass used to call the methods; such a type is now left to
// encoding/json.
func TestReview_NamedPointerToUnmarshaler(t *testing.T) {
	rvAll(t, func() any { return new(rvNamedPtrs) },
		`{"pu":{"Got":"x"}}`,
		`{"pvu":"fail"}`,
		`{"pvu":{"Got":"y"}}`,
		`{"pt":"hello"}`,
		`{"pp":{"A":1,"B":"b"}}`,
		`{"pu":null,"pvu":null,"pt":null,"pp":null}`,
	)
}

func TestReview_NamedPointerToUnmarshalerTopLevel(t *testing.T) {
	rvSame(t, func() any { return rvPtrU(new(rvU)) }, `{"Got":"x"}`)
	rvSame(t, func() any { return rvPtrText(new(rvText)) }, `"x"`)
}

func TestReview_NamedPointerInInterface(t *testing.T) {
	rvSame(t, func() any { return &rvIface{A: rvPtrU(new(rvU))} }, `{"A":{"Got":"z"}}`)
}

// An interface holding a non-nil *T where *T is an encoding.TextUnmarshaler
// (and not a json.Unmarshaler): onepass used to delegate the element, whose
// address it cannot take (a panic); now it delegates the whole interface.
func TestReview_InterfaceHoldingTextUnmarshalerPointer(t *testing.T) {
	rvSame(t, func() any { return &rvIface{A: new(rvText)} }, `{"A":"hello"}`)
	rvSame(t, func() any { return &rvIface{A: new(rvTextS)} }, `{"A":"hello"}`)
	rvSame(t, func() any { var a any = new(rvText); return &a }, `"top"`)
}

// Unexported embedded structs with a tag: encoding/json reaches them
// read-only and so ignores their UnmarshalJSON/UnmarshalText (decoding the
// struct's fields); onepass used to call the method (a panic). Such a
// struct is now left to encoding/json.
func TestReview_TaggedUnexportedEmbeddedUnmarshaler(t *testing.T) {
	rvAll(t, func() any { return new(rvHiddenUnmarshalers) },
		`{"h":{"X":5},"h2":{"Y":6},"Name":"n"}`,
		`{"h":null}`,
	)
	rvAll(t, func() any { return new(rvHiddenTexts) },
		`{"h":{"X":5}}`,
		`{"h":null}`,
	)
}

func TestReview_TaggedUnexportedEmbeddedPlain(t *testing.T) {
	rvAll(t, func() any { return new(rvTaggedHidden) },
		`{"hp":{"X":1,"Y":2},"Z":3}`, `{"hp":null}`, `{"hp":1}`, `{"X":1,"Y":2}`, `{"HP":{"x":4}}`,
	)
}

// A struct field holding a pointer to itself: encoding/json's indirect
// stops at "an interface pointing to its own address"; onepass used to
// recurse until the stack overflowed, and now leaves an interface that
// holds a pointer to an interface to encoding/json. The decode runs in a
// child process with a small stack limit, since a stack overflow cannot be
// recovered.
func TestReview_SelfReferentialInterface(t *testing.T) {
	if os.Getenv("RV_SELFREF_CHILD") == "1" {
		debug.SetMaxStack(1 << 20)
		s := new(rvIface)
		s.A = &s.A
		err := Unmarshal([]byte(`{"A":1}`), s)
		fmt.Printf("RVRESULT err=%v A=%v\n", err, s.A)
		return
	}
	want := new(rvIface)
	want.A = &want.A
	if err := json.Unmarshal([]byte(`{"A":1}`), want); err != nil || want.A != 1.0 {
		t.Fatalf("encoding/json: err=%v A=%v", err, want.A)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReview_SelfReferentialInterface$", "-test.v")
	cmd.Env = append(os.Environ(), "RV_SELFREF_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RVRESULT err=<nil> A=1") {
		t.Fatalf("onepass in a child process: %v\n%s", err, out[:min(300, len(out))])
	}
}

func TestReview_Interfaces(t *testing.T) {
	inputs := []string{
		`{"A":{"A":1,"B":"x"}}`, `{"A":null}`, `{"A":[1,2]}`, `{"A":"s"}`, `{"A":1.5}`, `{"A":true}`,
		`{"S":null}`, `{"S":"x"}`, `{"S":{"A":1}}`,
	}
	for _, mk := range []func() any{
		func() any { return new(rvIface) },
		func() any { return &rvIface{A: &rvPlain{A: 9, B: "old"}} },
		func() any { return &rvIface{A: rvPlain{A: 9}} },
		func() any { p := &rvPlain{A: 9}; return &rvIface{A: &p} },
		func() any { var inner any = 5; return &rvIface{A: &inner} },
		func() any { return &rvIface{A: new(rvU)} },
		func() any { return &rvIface{A: new([]int)} },
		func() any { return &rvIface{A: new([2]int)} },
		func() any { return &rvIface{A: new(json.Number)} },
		func() any { return &rvIface{A: (*rvPlain)(nil)} },
		func() any { return &rvIface{A: new(map[string]int)} },
		func() any { return &rvIface{S: &rvStringer{}} },
		func() any { return &rvIface{A: rvPtrPlain(&rvPlain{})} },
	} {
		rvAll(t, mk, inputs...)
	}
}

type rvStringer struct{ A int }

func (*rvStringer) String() string { return "" }

func TestReview_FieldRules(t *testing.T) {
	rvAll(t, func() any { return new(rvFields) },
		`{"ID":"i","kind":"k","Note":"n","RvExpName":"e","rvName":"x","Ümlaut":"u","ß":"s","ſx":"l","Ω":"o"}`,
		`{"id":"i","KIND":"k","note":"n","rvexpname":"e","ümlaut":"u","ÜMLAUT":"U","ẞ":"S","SX":"l","sx":"l2","ω":"w","Ω":"ohm"}`,
		`{"ta!#$%&()*+-./:;<=>?@[]^_{|}~ g":"t","TA!#$%&()*+-./:;<=>?@[]^_{|}~ G":"T","Bad":"b","b\\ad":"x","-":"d","Dash":"x","Skip":"s","Empty":"e","int":1}`,
		`{"\u0069d":"esc","\u212Aind":"kelvin","ı":"dotless","İD":"dotted","ıd":"x"}`,
		`{"rvMid":{"Note":"x"},"rvBase":{"ID":"y"}}`,
		`{"Int":1,"INT":2,"int":3}`,
	)
	rvAll(t, func() any { return new(rvASCII) },
		`{"kind":"a","KIND":"b"}`, `{"\u212aind":"kelvin"}`, `{"ıd":"dotless i"}`, `{"İd":"dotted I"}`,
		`{"ſx":"long s"}`, `{"SX":"upper"}`, `{"sX":"mixed"}`, `{"mixed":"m","MIXED":"M"}`,
		`{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA":"long"}`,
		`{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaA":"long"}`,
		`{"Ki\u006ed":"esc"}`, "{\"K\xffind\":1}", `{"id":"1","id":"2","ID":"3"}`,
	)
}

func TestReview_Numbers(t *testing.T) {
	var in []string
	for _, f := range []string{"I", "I8", "I64", "U", "U8", "U64", "UP", "F32", "F64", "B", "S"} {
		for _, n := range []string{
			"0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256",
			"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
			"18446744073709551615", "18446744073709551616", "1.0", "1e0", "1E2", "0.5", "-0.0",
			"3.4028234663852886e38", "3.4028235e38", "3.5e38", "1e39", "-1e39", "1e308", "1e309", "1e-400", "4.9e-324",
			"0.1e+1", "01", "-", "1.", ".1", "+1", "1e", "1e+", "00", "-01", "1.5e", "0x10", "Infinity", "NaN",
			`"1"`, "true", "false", "null", `{}`, `[]`,
		} {
			in = append(in, `{"`+f+`":`+n+`}`)
		}
	}
	rvAll(t, func() any { return new(rvNums) }, in...)
	rvAll(t, func() any { return &rvNums{I: 5, S: "keep", B: true, F64: 2} }, in...)
}

func TestReview_Strings(t *testing.T) {
	var in []string
	for _, s := range []string{
		`""`, `"a"`, `"\u0000"`, `"\u001f"`, "\"\x1f\"", "\"\x7f\"", "\"\x00\"", "\"\t\"", "\"\n\"",
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, `"\ud83dx"`,
		`"\ud83d\u0041"`, `"\ud83d\\u0041"`, `"\uD83D\uDE00"`, `"\uDBFF\uDFFF"`, `"\ud800\ud800"`,
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xc0\xaf\"", "\"\xe2\x82\"", "\"ab\xffcd\"",
		"\"\xef\xbb\xbfbom\"", `"\/\"\\\b\f\n\r\t"`, `"\a"`, `"\u"`, `"\u123"`, `"\u123g"`, `"\U1234"`, `"\'"`,
		`"` + strings.Repeat("x", 100) + `\n` + strings.Repeat("é", 50) + `"`,
		`"abc`, `"abc\"`, `"\`,
	} {
		in = append(in, `{"S":`+s+`}`, `{`+s+`:1}`)
	}
	rvAll(t, func() any { return new(rvNums) }, in...)
	rvAll(t, func() any { return new(map[string]string) }, in...)
	rvAll(t, func() any { return new(map[rvKey]any) }, in...)
}

func TestReview_Syntax(t *testing.T) {
	in := []string{
		``, ` `, "\t\r\n", `null`, ` null `, "\ufeff{}", `{}`, `{} `, `{}x`, `{}{}`, `{},`, `[]`, `{"S":"x"}` + "\x00",
		"{\"S\"\v:1}", "{\"S\"\f:1}", "{\u00a0}", `{"S":"x",}`, `{"S":"x",,"I":1}`, `{"S" : "x" , "I" : 1}`,
		`{"S":tru}`, `{"S":nul}`, `{"S":nulll}`, `{"B":truex}`, `{"B":t}`, `{"B":fals}`, `{"I":1,"I":2}`,
		`{"X":[1,{"a":[true,false,null,"s",-1.5e3]}]}`, `{"X":[1,]}`, `{"X":[,1]}`, `{"X":{"a"}}`, `{"X":{"a":1,}}`,
		`{"X":[1 2]}`, `{"X":{"a":1 "b":2}}`, `{"X":'a'}`, `{"X":01}`, `{"X":-}`, `{"X":1.e1}`, `{"X":Infinity}`,
		`{"X":[[[[]]]]}`, `{"X":[[[[]]]}`, `{"X":}`, `{"X"}`, `{:1}`, `{1:1}`, `{null:1}`,
	}
	for _, mk := range []func() any{
		func() any { return new(rvNums) },
		func() any { return new(rvPlain) },
		func() any { return new(map[string]int) },
		func() any { return new([]int) },
		func() any { return new(*rvPlain) },
		func() any { return new(rvRec) },
	} {
		rvAll(t, mk, in...)
	}
}

func TestReview_Depth(t *testing.T) {
	nest := func(n int, open, close string) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	mixed := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i%2 == 0 {
				b.WriteString(`{"Kids":[`)
			}
		}
		for i := range n {
			if i%2 == 0 {
				b.WriteString(`]}`)
			}
		}
		return b.String()
	}
	in := []string{
		`{"X":` + nest(9999, "[", "]") + `}`, `{"X":` + nest(10000, "[", "]") + `}`,
		nest(10000, "[", "]"), nest(10001, "[", "]"),
		mixed(10000), mixed(9999), mixed(10001), mixed(10002),
		`{"Name":"x","Kids":[` + nest(9998, "[", "]") + `]}`,
		`{"Kids":[{"Kids":` + nest(9998, "[", "]") + `}]}`,
		`{"Kids":[{"Kids":` + nest(9997, "[", "]") + `}]}`,
	}
	rvAll(t, func() any { return new(rvRec) }, in...)
	rvAll(t, func() any { return new(rvIface) }, `{"A":`+nest(9999, "[", "]")+`}`, `{"A":`+nest(10000, "[", "]")+`}`)
}

func TestReview_MapsSlicesFilled(t *testing.T) {
	mapsIn := []string{
		`{"M":{"a":{"A":1},"b":{"B":"x"},"a":{"B":"y"}}}`, `{"M":null}`, `{"M":{}}`,
		`{"MP":{"a":{"A":1},"b":null}}`, `{"MU":{"a":{"x":1},"b":null}}`, `{"MS":{"a":[1,2],"b":[]}}`,
		`{"MI":{"a":{"b":[1,"x"]}}}`, `{"M":{"a":1}}`, `{"M":{"\u00e9":{"A":2}}}`, `{"M":[]}`,
	}
	rvAll(t, func() any { return new(rvMaps) }, mapsIn...)
	rvAll(t, func() any {
		return &rvMaps{
			M:  map[rvKey]rvPlain{"a": {A: 5, B: "old"}, "z": {A: 1}},
			MP: map[string]*rvPlain{"a": {A: 5, B: "old"}},
			MU: map[string]rvU{"a": {Got: "old"}},
			MS: map[string][]int{"a": {9, 9, 9}},
		}
	}, mapsIn...)

	slicesIn := []string{
		`{"P":[{"A":1},{"B":"x"}]}`, `{"P":[]}`, `{"P":null}`, `{"P":[{}]}`, `{"P":[{},{},{},{},{}]}`,
		`{"PP":[null,{"A":2},{}]}`, `{"U":[1,null,"x"]}`, `{"S":[["a"],[],null]}`,
		`{"A":[{"A":1}]}`, `{"A":[{"A":1},{"A":2},{"A":3}]}`, `{"A":null}`, `{"BS":"aGk="}`, `{"BS":null}`,
		`{"T":["a","b"]}`, `{"AU":[{"Z":1},null]}`, `{"P":[1]}`,
	}
	rvAll(t, func() any { return new(rvSlices) }, slicesIn...)
	rvAll(t, func() any {
		p := make([]rvPlain, 2, 4)
		p[0] = rvPlain{A: 7, B: "keep"}
		p[1] = rvPlain{A: 8}
		full := p[:4]
		full[2] = rvPlain{A: 99, B: "beyond len"}
		a, b := &rvPlain{A: 1, B: "pa"}, &rvPlain{A: 2}
		return &rvSlices{
			P:  p,
			PP: []*rvPlain{a, nil, b},
			U:  []rvU{{Got: "old"}},
			S:  [][]string{{"x", "y"}, {"z"}},
			A:  [2]rvPlain{{A: 1, B: "a"}, {A: 2, B: "b"}},
			BS: []byte("old"),
			T:  []rvText{"old"},
		}
	}, slicesIn...)

	recIn := []string{
		`{"Name":"a","Kids":[{"Name":"b","Kids":[{"Name":"c"}]}],"Next":{"Name":"n"},"M":{"k":{"Name":"m"},"n":null}}`,
		`{"Kids":[{"Kids":null}],"Next":null}`, `{"Next":{"Next":{"Next":{}}}}`,
	}
	rvAll(t, func() any { return new(rvRec) }, recIn...)
	rvAll(t, func() any {
		r := &rvRec{Name: "old", Kids: make([]rvRec, 1, 3), Next: &rvRec{Name: "next", Kids: []rvRec{{Name: "k"}}}}
		r.Kids[0].Kids = []rvRec{{Name: "deep"}}
		return r
	}, recIn...)
}

func TestReview_Unmarshalers(t *testing.T) {
	type holder struct {
		U   rvU
		PU  *rvU
		PPU **rvU
		VU  rvVU
		PVU *rvVU
		T   rvText
		PT  *rvText
		TS  rvTextS
		E   struct{ RvEmbU } // unnamed: encoding/json never takes its address
		PE  *struct{ RvEmbU }
		R   json.RawMessage
	}
	in := []string{
		`{"U":{"a":1},"PU":"x","PPU":[1, 2],"VU":{},"PVU":"y","T":"t","PT":"pt","TS":"ts","R":{"x" : 1}}`,
		`{"U":null,"PU":null,"PPU":null,"VU":null,"PVU":null,"T":null,"PT":null,"TS":null,"R":null}`,
		`{"VU":"fail"}`, `{"PVU":"fail"}`, `{"T":1}`, `{"TS":{}}`, `{"E":{"Z":5}}`, `{"E":"x"}`, `{"PE":"x"}`, `{"PE":null}`,
		`{"U": 	{ "a" : [ 1 , 2 ] } 	}`,
	}
	rvAll(t, func() any { return new(holder) }, in...)
	rvAll(t, func() any {
		u := &rvU{Got: "old"}
		return &holder{U: rvU{Got: "old"}, PU: u, PPU: &u, T: "old", PT: new(rvText), E: struct{ RvEmbU }{RvEmbU{Z: 9}}}
	}, in...)
}

func TestReview_TopLevelTargets(t *testing.T) {
	in := []string{`1`, `"s"`, `null`, `{"A":1}`, `[1]`, `true`, ` 2 `, ``}
	for _, mk := range []func() any{
		func() any { return new(int) },
		func() any { return new(*int) },
		func() any { p := new(int); *p = 3; return &p },
		func() any { return new(any) },
		func() any { var a any = &rvPlain{A: 1}; return &a },
		func() any { var a any = rvPlain{A: 1}; return &a },
		func() any { return new(rvPlain) },
		func() any { return new(rvU) },
		func() any { return new(*rvU) },
		func() any { return new(rvText) },
		func() any { return new([]rvU) },
		func() any { return new(map[string]rvU) },
		func() any { return new(fmt.Stringer) },
		func() any { return rvPtrPlain(new(rvPlain)) },
		func() any { return new(rvPtrPlain) },
	} {
		rvAll(t, mk, in...)
	}
}

type rvOdd struct {
	C  chan int
	F  func()
	X  complex128
	N  json.Number
	Ar [0]int
}

func TestReview_DelegatedKinds(t *testing.T) {
	rvAll(t, func() any { return new(rvOdd) },
		`{"C":null,"F":null,"X":null,"N":null,"Ar":null}`, `{"C":1}`, `{"F":{}}`, `{"X":1}`,
		`{"N":"12"}`, `{"N":12e5}`, `{"N":"x"}`, `{"N":""}`, `{"Ar":[1,2]}`, `{"Ar":[]}`,
	)
	rvAll(t, func() any { return &rvIface{A: new(unsupported)} }, `{"A":{"n":"5","Name":"x"}}`, `{"A":{"n":5}}`)
}

func TestReview_SlicesOfInterfaces(t *testing.T) {
	in := []string{`[{"A":1},{"B":"x"},{"A":3}]`, `[null,null]`, `[]`, `null`, `["s",1]`, `[{"A":1}]`}
	rvAll(t, func() any { return new([]any) }, in...)
	rvAll(t, func() any {
		s := make([]any, 1, 3)
		s[0] = &rvPlain{A: 7, B: "old"}
		full := s[:3]
		full[1] = &rvPlain{A: 8, B: "beyond len"}
		full[2] = rvPlain{A: 9}
		return &s
	}, in...)
	rvAll(t, func() any { return &[]fmt.Stringer{&rvStringer{A: 1}} }, `[{"A":2}]`, `[null]`, `[{"A":2},{"A":3}]`)
	rvAll(t, func() any { return &map[string]any{"a": &rvPlain{A: 1}} }, `{"a":{"B":"x"}}`, `{"b":null}`)
	rvAll(t, func() any {
		return &rvSlices{P: []rvPlain{{A: 1, B: "x"}, {A: 2}}, PP: []*rvPlain{{A: 1}}}
	}, `{"P":[null,null,null]}`, `{"PP":[null]}`, `{"PP":[{"B":"y"}]}`)
}

// A top-level *any whose value points to itself: encoding/json stores into
// it (same root cause as TestReview_SelfReferentialInterface).
func TestReview_SelfReferentialTopLevel(t *testing.T) {
	if os.Getenv("RV_SELFREF_CHILD") == "2" {
		debug.SetMaxStack(1 << 20)
		var a any
		a = &a
		err := Unmarshal([]byte(`"x"`), &a)
		fmt.Printf("RVRESULT err=%v A=%v\n", err, a)
		return
	}
	var want any
	want = &want
	if err := json.Unmarshal([]byte(`"x"`), &want); err != nil || want != "x" {
		t.Fatalf("encoding/json: err=%v a=%v", err, want)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReview_SelfReferentialTopLevel$", "-test.v")
	cmd.Env = append(os.Environ(), "RV_SELFREF_CHILD=2")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RVRESULT err=<nil> A=x") {
		t.Fatalf("onepass in a child process: %v\n%s", err, out[:min(300, len(out))])
	}
}

type rvInnerFold struct{ NAME string }

type rvFoldOrder struct {
	Name string
	rvInnerFold
}

type rvFoldOrder2 struct {
	rvInnerFold
	Name string
}

func TestReview_FoldOrderAcrossDepths(t *testing.T) {
	in := []string{`{"name":"a"}`, `{"NAME":"b"}`, `{"Name":"c"}`, `{"nAME":"d","Name":"e"}`, `{"\u212a":1}`}
	rvAll(t, func() any { return new(rvFoldOrder) }, in...)
	rvAll(t, func() any { return new(rvFoldOrder2) }, in...)
}
