package yamljson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// convertOK converts in and returns the JSON, failing the test on an error.
func convertOK(t *testing.T, in string) string {
	t.Helper()
	r, err := Convert([]byte(in))
	require.NoError(t, err, "input:\n%s", in)
	require.True(t, json.Valid(r.JSON), "not JSON: %s", r.JSON)
	t.Logf("%q -> %s", in, r.JSON)
	return string(r.JSON)
}

// Manifests written the way kubectl users write them.
func TestConvert_Manifests(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"pod", `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
    tier: "front"
  annotations:
    example.com/note: 'it''s: fine'
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    args: ["--port", "8080"]
    ports:
    - containerPort: 8080
      protocol: TCP
    env:
    - name: MODE
      value: "on"
    - name: EMPTY
      value: ""
    resources: {}
  restartPolicy: Always
`, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web","tier":"front"},"annotations":{"example.com/note":"it's: fine"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.25","args":["--port","8080"],"ports":[{"containerPort":8080,"protocol":"TCP"}],"env":[{"name":"MODE","value":"on"},{"name":"EMPTY","value":""}],"resources":{}}],"restartPolicy":"Always"}}`},
		{"configmap with a file", `# a config map
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: conf   # trailing comment
data:
  app.properties: |
    color=blue
    size=10

  script.sh: |-
    #!/bin/sh
    echo "hi"
  empty:
`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"conf"},"data":{"app.properties":"color=blue\nsize=10\n","script.sh":"#!/bin/sh\necho \"hi\"","empty":null}}`},
		{"namespace", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`},
		{"replicaset indented sequences", `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: rs
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: c
          image: "example.com/app:v2"
          command:
            - sh
            - -c
            - >
              echo one
              two
`, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"example.com/app:v2","command":["sh","-c","echo one two\n"]}]}}}}`},
		// The request recorded in 15-differential (create-invalid/content-type-yaml): JSON sent as YAML.
		{"json body", `{"apiVersion":"v1","binaryData":{"bin":"AAEC"},"data":{"k1":"v1","k2":"line1\nline2"},"kind":"ConfigMap","metadata":{"annotations":{"example.com/note":"{\"json\":true}"},"labels":{"app":"cache","dseq":"dt-hkjf6-5"},"name":"c5"}}`,
			`{"apiVersion":"v1","binaryData":{"bin":"AAEC"},"data":{"k1":"v1","k2":"line1\nline2"},"kind":"ConfigMap","metadata":{"annotations":{"example.com/note":"{\"json\":true}"},"labels":{"app":"cache","dseq":"dt-hkjf6-5"},"name":"c5"}}`},
		{"pretty json", "{\n  \"a\": [\n    1,\n    2.5,\n    true,\n    null\n  ],\n  \"b\": {}\n}\n", `{"a":[1,2.5,true,null],"b":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.JSONEq(t, tc.want, convertOK(t, tc.in))
		})
	}
}

// Each construct of the subset, alone.
func TestConvert_Constructs(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		// Collections.
		{"nested mappings", "a:\n  b:\n    c: 1\n  d: 2\ne: 3", `{"a":{"b":{"c":1},"d":2},"e":3}`},
		{"sequence at its key's indentation", "a:\n- 1\n- 2\nb: 3", `{"a":[1,2],"b":3}`},
		{"sequence of mappings", "- name: a\n  image: i\n-   name: b\n    image: j\n", `[{"name":"a","image":"i"},{"name":"b","image":"j"}]`},
		{"nested sequences", "- - a\n  - b\n- - c\n", `[["a","b"],["c"]]`},
		{"empty values", "a:\nb: ~\nc: null\nd: []\ne: {}\n- \n", ""},
		{"empty values in a mapping", "a:\nb: ~\nc: null\nd: []\ne: {}\n", `{"a":null,"b":null,"c":null,"d":[],"e":{}}`},
		{"empty sequence items", "-\n- \n-  # comment\n", `[null,null,null]`},
		{"value on the next line", "a:\n  text\nb:\n  [1, 2]\n", `{"a":"text","b":[1,2]}`},
		{"keys with spaces and colons", "a b: 1\nhttp://x: 2\n\"q: k\": 3\n'sq': 4\na:b: 5\n", `{"a b":1,"http://x":2,"q: k":3,"sq":4,"a:b":5}`},
		{"space before the colon", "a   : 1\n", `{"a":1}`},
		{"tabs after a value", "a: 1\t# c\nb: x\t\n", `{"a":1,"b":"x"}`},
		// Flow collections.
		{"flow mapping", "{a: 1, b: [x, z], c: {d: e}}", `{"a":1,"b":["x","z"],"c":{"d":"e"}}`},
		{"y is a boolean (YAML 1.1)", "[x, y]", `["x",true]`},
		{"flow over lines with comments", "a: [1, # one\n  2,\n  3,]\n", `{"a":[1,2,3]}`},
		{"flow entry without value", "{a, b: 1}", `{"a":null,"b":1}`},
		{"flow pair in a sequence", "[a: 1, b]", `[{"a":1},"b"]`},
		{"flow plain with colon", "[http://x, a:b]", `["http://x","a:b"]`},
		// Plain scalars.
		{"plain folded over lines", "a: one\n  two\n\n  three\nb: x", `{"a":"one two\nthree","b":"x"}`},
		{"plain keeps inner hash", "a: x#y\nb: x #comment", `{"a":"x#y","b":"x"}`},
		{"top-level scalar", "hello", `"hello"`},
		{"top-level sequence", "- 1\n- 2", `[1,2]`},
		// Quoted scalars.
		{"single quoted", `a: 'it''s "x" \n'`, `{"a":"it's \"x\" \\n"}`},
		{"double quoted escapes", `a: "\0\a\b\t\	\n\v\f\r\e\ \"\\\'\N\_\L\P\x41\u00e9\U0001F600"`, "{\"a\":\"\\u0000\\u0007\\u0008\\t\\t\\n\\u000b\\u000c\\r\\u001b \\\"\\\\'\u0085\u00a0\u2028\u2029A\u00e9\U0001F600\"}"},
		{"quoted folded over lines", "a: \"one\n  two\n\n  three\"\nb: 'x\n  y'", `{"a":"one two\nthree","b":"x y"}`},
		{"escaped line break", "a: \"one\\\n  two\"", `{"a":"onetwo"}`},
		// Block scalars.
		{"literal clip", "a: |\n  x\n  y\n\n\nb: 1", `{"a":"x\ny\n","b":1}`},
		{"literal strip", "a: |-\n  x\n\n", `{"a":"x"}`},
		{"literal keep", "a: |+\n  x\n\n\nb: 1", `{"a":"x\n\n\n","b":1}`},
		{"literal keeps indentation", "a: |\n  x\n    y\n  z\n", `{"a":"x\n  y\nz\n"}`},
		{"indentation indicator", "a: |2\n    x\n  y\n", `{"a":"  x\ny\n"}`},
		{"indicators either order", "a: |-2\n   x\nb: >+1\n  y\n\n", `{"a":" x","b":" y\n\n"}`},
		{"folded", "a: >\n  one\n  two\n\n  three\n    indented\n  four\n", `{"a":"one two\nthree\n  indented\nfour\n"}`},
		{"block scalar header comment", "a: | # text follows\n  x\n", `{"a":"x\n"}`},
		{"block scalar in a sequence", "- |\n  x\n- z\n", `["x\n","z"]`},
		{"empty block scalar", "a: |\nb: 1\n", `{"a":"","b":1}`},
		// Documents.
		{"document start and end", "%YAML 1.1\n---\na: 1\n...\nignored: [", `{"a":1}`},
		{"only the first document", "a: 1\n---\nb: 2\n", `{"a":1}`},
		{"second document never read", "a: 1\n---\nb: : : [\n", `{"a":1}`},
		{"scalar after document start", "--- text\n", `"text"`},
		{"empty", "", `null`},
		{"comments only", "# nothing\n\n   # here\n", `null`},
		{"document start only", "---\n", `null`},
		{"byte order mark and CRLF", "\ufeffa: 1\r\nb: |\r\n  x\r\n", `{"a":1,"b":"x\n"}`},
		{"UTF-16LE", "\xff\xfea\x00:\x00 \x001\x00", `{"a":1}`},
		{"UTF-16BE", "\xfe\xff\x00a\x00:\x00 \x00\xe9", `{"a":"é"}`},
		// Anchors, aliases, merge keys.
		{"alias", "a: &x {k: v}\nb: *x\nc: [*x]", `{"a":{"k":"v"},"b":{"k":"v"},"c":[{"k":"v"}]}`},
		{"anchor on a block collection", "a: &x\n  k: v\nb: *x", `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{"anchor on a key", "- &k name: x\n- *k", `[{"name":"x"},"name"]`},
		{"merge", "base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3\n", `{"base":{"a":1,"b":2},"m":{"a":1,"b":3}}`},
		{"merge of several, the first wins", "p: &x {a: 1}\nq: &y {a: 2, b: 2}\nm:\n  <<: [*x, *y]\n", `{"p":{"a":1},"q":{"a":2,"b":2},"m":{"a":1,"b":2}}`},
		{"merge is in order (go-yaml v2)", "m: {a: 1, <<: {a: 2}}", `{"m":{"a":2}}`},
		{"quoted << is a key", "'<<': 1", `{"<<":1}`},
		// Tags.
		{"core tags", "a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: !!bool yes\ne: !!null ''\nf: !!str\n", `{"a":"123","b":7,"c":1,"d":true,"e":null,"f":""}`},
		{"other tags leave a string", "a: !custom 12\nb: !<tag:example.com,2000:x> true\nc: ! 1\nd: !!map {a: 1}", `{"a":"12","b":"true","c":"1","d":{"a":1}}`},
		{"verbatim core tag", "a: !<tag:yaml.org,2002:str> 1", `{"a":"1"}`},
		{"binary", "a: !!binary aGk=", `{"a":"hi"}`},
		{"timestamp", "a: !!timestamp 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00", `{"a":"2001-12-14","b":"2001-12-14t21:59:43.10-05:00"}`},
		{"tag and anchor before a block", "a: !!map &m\n  k: v\nb: *m", `{"a":{"k":"v"},"b":{"k":"v"}}`},
	} {
		if tc.want == "" {
			continue // documents the input only
		}
		t.Run(tc.name, func(t *testing.T) {
			require.JSONEq(t, tc.want, convertOK(t, tc.in))
		})
	}
}

// Scalar types as go-yaml v2 resolves them (YAML 1.1), which is what the
// real server sends on, not YAML 1.2's core schema.
func TestConvert_ScalarTypes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"true", "true"}, {"True", "true"}, {"TRUE", "true"}, {"false", "false"},
		{"yes", "true"}, {"Yes", "true"}, {"YES", "true"}, {"on", "true"}, {"On", "true"}, {"ON", "true"}, {"y", "true"}, {"Y", "true"},
		{"no", "false"}, {"No", "false"}, {"off", "false"}, {"OFF", "false"}, {"n", "false"}, {"N", "false"},
		{"yEs", `"yEs"`}, {"'yes'", `"yes"`}, {`"on"`, `"on"`},
		{"~", "null"}, {"null", "null"}, {"Null", "null"}, {"NULL", "null"}, {"nUll", `"nUll"`},
		{"0", "0"}, {"-17", "-17"}, {"+17", "17"}, {"1_000", "1000"},
		{"0755", "493"}, {"0o755", "493"}, {"0x1F", "31"}, {"-0x1F", "-31"}, {"0b101", "5"},
		{"08", "8"}, {"09.5", "9.5"},
		{"9223372036854775807", "9223372036854775807"}, {"18446744073709551615", "18446744073709551615"},
		{"18446744073709551616", "18446744073709552000"},
		{"0x1FFFFFFFFFFFFFFFFF", "590295810358705651711"},
		{"1.5", "1.5"}, {"1.0", "1"}, {"-0.0", "-0"}, {".5", "0.5"}, {"1e3", "1000"}, {"1.", "1"}, {"6.02e+23", "6.02e+23"}, {"1e-7", "1e-7"},
		{"1e400", `"1e400"`}, {"1.2.3", `"1.2.3"`}, {"0x", `"0x"`}, {"+", `"+"`},
		{"2001-12-14", `"2001-12-14"`}, {"12:30", `"12:30"`}, {"1:20", `"1:20"`},
		{"'123'", `"123"`}, {`"1.5"`, `"1.5"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			require.Equal(t, `{"v":`+tc.want+`}`, convertOK(t, "v: "+tc.in))
		})
	}
}

// Keys become member names as sigs.k8s.io/yaml makes them.
func TestConvert_Keys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"yes: 1", `{"true":1}`},
		{"on: 1\noff: 2", `{"true":1,"false":2}`},
		{"0x10: a", `{"16":"a"}`},
		{"1.5: a\n3.14159265358979: b", `{"1.5":"a","3.1415927":"b"}`},
		{".inf: a\n-.inf: b\n.nan: c", `{".inf":"a","-.inf":"b",".nan":"c"}`},
		{"2001-12-14: a", `{"2001-12-14":"a"}`},
		{"'on': 1", `{"on":1}`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			require.Equal(t, tc.want, convertOK(t, tc.in))
		})
	}
}

// A key given twice keeps its last value; Duplicates words each repeat as
// go-yaml's strict decoder does.
func TestConvert_DuplicateKeys(t *testing.T) {
	r, err := Convert([]byte("a: 1\nb:\n  c: 1\n  c: 2\na:\n  x: z\ntrue: 1\nyes: 2\n1: a\n'1': b\n"))
	require.NoError(t, err)
	require.JSONEq(t, `{"a":{"x":"z"},"b":{"c":2},"true":2,"1":"b"}`, string(r.JSON))
	require.Equal(t, []string{
		`line 4: key "c" already set in map`,
		`line 6: key "a" already set in map`,
		`line 8: key true already set in map`,
	}, r.Duplicates)
	require.EqualError(t, r.StrictError(), "yaml: unmarshal errors:\n  line 4: key \"c\" already set in map\n  line 6: key \"a\" already set in map\n  line 8: key true already set in map")

	r, err = Convert([]byte("a: 1"))
	require.NoError(t, err)
	require.NoError(t, r.StrictError())
}

// A JSON document converts to the same value encoding/json reads.
func TestConvert_JSONIsYAML(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":{"b":[1,-2,3.25,1e-3,"s",true,false,null]}}`,
		`{"esc":"\"\\\b\f\n\r\t\u00e9\u0001"}`,
		"{\"nested\" : [ { } , [ ] , { \"x\" : 1 } ]\n}",
	} {
		t.Run(in, func(t *testing.T) {
			var want, got any
			require.NoError(t, json.Unmarshal([]byte(in), &want))
			require.NoError(t, json.Unmarshal([]byte(convertOK(t, in)), &got))
			require.Equal(t, want, got)
		})
	}
}

// A document near the 3 MiB body limit converts in linear time.
func TestConvert_Large(t *testing.T) {
	var b strings.Builder
	b.WriteString("items:\n")
	for range 50000 {
		b.WriteString("- name: item\n  value: \"some text\"\n  list: [1, 2, 3]\n")
	}
	r, err := Convert([]byte(b.String()))
	require.NoError(t, err)
	require.True(t, json.Valid(r.JSON))
}

// ConvertWithLines tells, for every value of the JSON, the line its YAML
// node starts on, by JSON Pointer: what a reader that checks the decoded
// JSON (listwatch's kubeconfig reader) needs to name the line of a bad
// value. A replaced value has no entry; a value reached through an alias
// or a merge has its anchor's node's line.
func TestConvertWithLines_EveryValueHasItsLine(t *testing.T) {
	in := `clusters:
- name: a
  cluster:
    server: https://a
    "odd/key~": 1
- {name: b,
   cluster: {server: https://b}}
base: &base
  server: https://base
users:
- user: *base
- user:
    <<: *base
    token: t
dup: 1
dup: 2
`
	r, err := ConvertWithLines([]byte(in))
	require.NoError(t, err)
	require.Equal(t, map[string]int{
		"": 1, "/clusters": 2,
		"/clusters/0": 2, "/clusters/0/name": 2, "/clusters/0/cluster": 4, "/clusters/0/cluster/server": 4, "/clusters/0/cluster/odd~1key~0": 5,
		"/clusters/1": 6, "/clusters/1/name": 6, "/clusters/1/cluster": 7, "/clusters/1/cluster/server": 7,
		"/base": 9, "/base/server": 9,
		"/users": 11, "/users/0": 11, "/users/0/user": 9, "/users/0/user/server": 9,
		"/users/1": 12, "/users/1/user": 13, "/users/1/user/server": 9, "/users/1/user/token": 14,
		"/dup": 16,
	}, r.Lines)
	plain, err := Convert([]byte(in))
	require.NoError(t, err)
	require.Equal(t, string(plain.JSON), string(r.JSON), "the same JSON as Convert")
	require.Nil(t, plain.Lines, "only ConvertWithLines fills Lines")
}
