package fastdecode

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// The cutter finds where each value ends by its brackets and quotes alone:
// brackets inside strings, escaped quotes and escaped backslashes do not
// fool it, however the bytes are split across reads.
func TestValueCutter_FindsValueEnds(t *testing.T) {
	values := []string{
		`{"a":"b"}`,
		`{"a":"}]{["}`,
		`"a \" quote"`,
		`"a backslash \\"`,
		`"\\\\\\\""`,
		`{"n":[1,2,{"m":null}],"s":"x\\\"]}"}`,
		`[]`,
		`12.5e3`,
		`true`,
		`{"long":"` + strings.Repeat(`\n\"`, 5000) + `"}`,
		`{"long":"` + strings.Repeat("x", 200_000) + `"}`,
	}
	body := strings.Join(values, " , ") + " ]"
	for _, read := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(body) }},
		{"one byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) }},
		{"half reads", func() io.Reader { return iotest.HalfReader(strings.NewReader(body)) }},
	} {
		c := newValueCutter(read.r())
		for i, want := range values {
			got, err := c.next()
			require.NoError(t, err, "%s: value %d", read.name, i)
			require.Equal(t, want, string(got), "%s: value %d", read.name, i)
			b, err := c.expect(",]")
			require.NoError(t, err)
			require.Equal(t, i == len(values)-1, b == ']')
		}
	}
	t.Logf("fastdecode: %d values with brackets in strings, escapes and a 200 KB string, cut whole, byte by byte and in halves", len(values))
}

// What the cutter cannot finish is an error, never a hang: a stream that
// ends inside a value, or after it without the bracket, or a reader that
// fails.
func TestValueCutter_Errors(t *testing.T) {
	for _, in := range []string{`{"a":"b`, `{"a":"b\`, `[1,2`, `"abc`, `tru`} {
		c := newValueCutter(strings.NewReader(in))
		_, err := c.next()
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, in)
	}
	c := newValueCutter(strings.NewReader(`{} x`))
	_, err := c.next()
	require.NoError(t, err)
	_, err = c.expect(",]")
	require.ErrorContains(t, err, `want ',' or ']' at byte 3, found 'x'`)

	boom := iotest.ErrReader(io.ErrClosedPipe)
	c = newValueCutter(io.MultiReader(strings.NewReader(`{"a":`), boom))
	_, err = c.next()
	require.ErrorIs(t, err, io.ErrClosedPipe)
}

// stringEnd looks at eight bytes at a time; the first quote or backslash
// it finds in a word must be the first one there is, wherever it sits and
// whatever the bytes around it (a byte just above or below '"' or '\\'
// must not pass for one).
func TestStringEnd_FindsTheFirstQuoteOrBackslash(t *testing.T) {
	for pos := range 20 {
		for c := range 256 {
			v := []byte(strings.Repeat("a", 24))
			v[pos] = byte(c)
			v[pos+1] = '"' // a quote right after, so that every string ends
			want := pos + 2
			switch byte(c) {
			case '"':
				want = pos + 1
			case '\\':
				want = -1 // the quote after it is escaped; no other follows
			}
			got, _ := stringEnd(v, 0)
			require.Equal(t, want, got, "byte %#x at %d", c, pos)
		}
	}
	t.Log("every byte value at positions 0-19 of a string: the end found is the first quote not escaped")
}

// BenchmarkListCutter100kPods: the valueCutter alone cutting 100,000 items
// (the pod of listwatch/testdata/pod.json, as a v1.36 kube-apiserver sent
// it, each with its own name) out of a list's items array: what the
// reading goroutine does before any decoding, the serial part of a list.
func BenchmarkListCutter100kPods(b *testing.B) {
	const n = 100_000
	raw, err := os.ReadFile(podPending)
	if err != nil {
		b.Fatal(err)
	}
	raw = bytes.TrimSpace(raw)
	var buf bytes.Buffer
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(bytes.Replace(raw, []byte(`"name":"demo-d"`), fmt.Appendf(nil, `"name":"pod-%d"`, i), 1))
	}
	buf.WriteByte(']')
	items := buf.Bytes()
	b.SetBytes(int64(len(items)))
	b.ReportAllocs()
	for b.Loop() {
		c := newValueCutter(bytes.NewReader(items))
		cut := 0
		for {
			if _, err := c.next(); err != nil {
				b.Fatal(err)
			}
			cut++
			if end, err := c.expect(",]"); err != nil {
				b.Fatal(err)
			} else if end == ']' {
				break
			}
		}
		if cut != n {
			b.Fatalf("cut %d items, want %d", cut, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
}
