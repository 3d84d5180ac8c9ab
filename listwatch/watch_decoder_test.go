package listwatch

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// Decoder tests against hand-made servers that write the stream exactly as
// each test needs: split anywhere, packed together, broken, cut.

func podFrame(typ api.EventType, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q},"spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Pending"}}}`+"\n",
		typ, name, rv)
}

const expiredFrame = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (44624)","reason":"Expired","code":410}}` + "\n"

// streamServer serves one watch response: it writes the 200 headers, then
// calls write with a function that writes and flushes; after write returns
// it holds the connection open until the client goes (as a watch does).
func streamServer(t *testing.T, write func(send func(string))) *Client {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		write(func(s string) {
			t.Logf("server (hand-made, played by the test): sends %d bytes %.50q", len(s), s)
			_, _ = io.WriteString(w, s)
			_ = rc.Flush()
		})
		<-r.Context().Done()
	}))
	t.Cleanup(hs.Close)
	c, err := NewClient(Config{Server: hs.URL, MaxWatchFrameSize: 1024, Tracer: trace.ForTest(t)})
	require.NoError(t, err)
	return c
}

func openWatch(t *testing.T, c *Client) Watch {
	t.Helper()
	w, err := For[*api.Pod](c, Pods).Watch(context.Background(), "default", ListOptions{})
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	return w
}

// Article: informer notes §1.2-1.3 — the server sends chunks, the client
// must unpack frames from them. Every frame here arrives one byte per
// chunk, and is still decoded whole.
func TestWatchDecoderFramesSplitByteByByte(t *testing.T) {
	stream := podFrame(api.Added, "a", "10") + podFrame(api.Modified, "a", "11") + expiredFrame
	c := streamServer(t, func(send func(string)) {
		for i := range len(stream) {
			send(stream[i : i+1])
		}
	})
	w := openWatch(t, c)

	ev := next(t, w)
	assert.Equal(t, api.Added, ev.Type)
	assert.Equal(t, "10", ev.Object.GetResourceVersion())
	ev = next(t, w)
	assert.Equal(t, api.Modified, ev.Type)
	assert.Equal(t, "11", ev.Object.(*api.Pod).ResourceVersion)
	ev = next(t, w)
	assert.Equal(t, api.Error, ev.Type)
	assert.True(t, IsResourceExpired(ev.Err))
	requireClosed(t, w) // an ERROR frame ends the stream even though the server keeps it open
}

// Several frames in one chunk are several events, in order.
func TestWatchDecoderSeveralFramesInOneChunk(t *testing.T) {
	c := streamServer(t, func(send func(string)) {
		send(podFrame(api.Added, "a", "1") + podFrame(api.Added, "b", "2") + podFrame(api.Deleted, "a", "3") +
			podFrame(api.Bookmark, "", "4")[:40]) // and the start of a fourth
		send(podFrame(api.Bookmark, "", "4")[40:])
	})
	w := openWatch(t, c)
	for _, want := range []struct {
		typ  api.EventType
		name string
	}{{api.Added, "a"}, {api.Added, "b"}, {api.Deleted, "a"}, {api.Bookmark, ""}} {
		ev := next(t, w)
		assert.Equal(t, want.typ, ev.Type)
		assert.Equal(t, want.name, ev.Object.GetName())
	}
}

// Garbage ends the stream with one Error event that wraps
// ErrMalformedFrame and quotes the frame.
func TestWatchDecoderGarbageEndsStream(t *testing.T) {
	c := streamServer(t, func(send func(string)) {
		send(podFrame(api.Added, "a", "1"))
		send("<html>502 Bad Gateway</html>\n")
		send(podFrame(api.Added, "never", "2"))
	})
	w := openWatch(t, c)
	assert.Equal(t, api.Added, next(t, w).Type)
	ev := next(t, w)
	require.Equal(t, api.Error, ev.Type)
	assert.ErrorIs(t, ev.Err, ErrMalformedFrame)
	assert.Contains(t, ev.Err.Error(), "502 Bad Gateway")
	assert.Contains(t, ev.Err.Error(), "frame 2")
	requireClosed(t, w)
}

// A frame longer than MaxWatchFrameSize (1 KiB here) ends the stream with
// ErrFrameTooLarge, whether or not its newline ever comes.
func TestWatchDecoderOverlongFrame(t *testing.T) {
	huge := `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 4096) + `"}}}` + "\n"
	for name, stream := range map[string]string{
		"with its newline":    huge,
		"that never ends":     huge[:2000],
		"after a good frame":  podFrame(api.Added, "a", "1") + huge,
		"split across chunks": huge[:700] + "\x00" + huge[700:],
	} {
		t.Run(name, func(t *testing.T) {
			c := streamServer(t, func(send func(string)) {
				for chunk := range strings.SplitSeq(stream, "\x00") {
					send(chunk)
				}
			})
			w := openWatch(t, c)
			ev := next(t, w)
			if ev.Type == api.Added {
				ev = next(t, w)
			}
			require.Equal(t, api.Error, ev.Type)
			assert.ErrorIs(t, ev.Err, ErrFrameTooLarge)
			requireClosed(t, w)
		})
	}
}

// hijackServer writes raw HTTP/1.1 bytes and then drops the TCP
// connection, as a crashed server or a cut network does.
func hijackServer(t *testing.T, raw string) *Client {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
		_ = conn.Close()
	}))
	t.Cleanup(hs.Close)
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL})
	require.NoError(t, err)
	return c
}

// chunked encodes frames as HTTP/1.1 chunks, one per frame, as the API
// server does (reference 11-watch-chunked-raw.txt), without the final
// zero-length chunk.
func chunked(frames ...string) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
	for _, f := range frames {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(f), f)
	}
	return b.String()
}

// An abrupt close ends the stream with an Error event wrapping
// io.ErrUnexpectedEOF, after delivering every whole frame.
func TestWatchDecoderAbruptClose(t *testing.T) {
	frame := podFrame(api.Added, "a", "1")
	tests := map[string]string{
		"in the middle of a frame": chunked(frame, frame[:30]),
		"in the middle of a chunk": chunked(frame) + fmt.Sprintf("%x\r\n%s", len(frame), frame[:30]),
		"between frames":           chunked(frame),
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			w := openWatch(t, hijackServer(t, raw))
			ev := next(t, w)
			assert.Equal(t, api.Added, ev.Type)
			ev = next(t, w)
			require.Equal(t, api.Error, ev.Type)
			assert.ErrorIs(t, ev.Err, io.ErrUnexpectedEOF)
			requireClosed(t, w)
		})
	}
}

// A clean end of the body (the final chunk) closes the channel with no
// Error event, even if the last frame lacks its newline; a clean end in
// the middle of a frame is a cut stream.
func TestWatchDecoderCleanEnd(t *testing.T) {
	frame := podFrame(api.Added, "a", "1")
	t.Run("after a newline", func(t *testing.T) {
		w := openWatch(t, hijackServer(t, chunked(frame)+"0\r\n\r\n"))
		assert.Equal(t, api.Added, next(t, w).Type)
		requireClosed(t, w)
	})
	t.Run("last frame without its newline", func(t *testing.T) {
		w := openWatch(t, hijackServer(t, chunked(frame, strings.TrimSuffix(frame, "\n"))+"0\r\n\r\n"))
		assert.Equal(t, api.Added, next(t, w).Type)
		assert.Equal(t, api.Added, next(t, w).Type)
		requireClosed(t, w)
	})
	t.Run("mid-frame", func(t *testing.T) {
		w := openWatch(t, hijackServer(t, chunked(frame, frame[:50])+"0\r\n\r\n"))
		assert.Equal(t, api.Added, next(t, w).Type)
		ev := next(t, w)
		require.Equal(t, api.Error, ev.Type)
		assert.ErrorIs(t, ev.Err, io.ErrUnexpectedEOF)
		requireClosed(t, w)
	})
}

// Stop while the server is silent: the blocked read is abandoned at once.
func TestWatchDecoderStopWhileServerSilent(t *testing.T) {
	clientGone := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
		close(clientGone)
	}))
	defer hs.Close()
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL})
	require.NoError(t, err)
	w := openWatch(t, c)
	w.Stop()
	requireClosed(t, w)
	<-clientGone // the server saw the connection go
}

// decodeAll runs the plain form's loop (decodeWatchPlain) over r, on this
// goroutine, and returns a line per event ("ADDED a 1", "ERROR <err>").
func decodeAll(r io.Reader, maxFrame int) []string {
	var out []string
	decodeWatchPlain(newWatchDecoder(r, Pods, maxFrame), func(ev Event, err error) bool {
		switch {
		case err == io.EOF:
			return false
		case err != nil:
			out = append(out, "BROKEN "+err.Error())
			return false
		case ev.Type == api.Error:
			out = append(out, "ERROR "+ev.Err.Error())
			return false
		}
		out = append(out, fmt.Sprintf("%s %s %s", ev.Type, ev.Object.GetName(), ev.Object.GetResourceVersion()))
		return true
	})
	return out
}

// The frame decoder on its own, table-driven: what each input decodes to,
// by the plain form and by the fast one.
func TestWatchDecoderFrames(t *testing.T) {
	const prefix, suffix = `{"type":"ADDED","object":{"metadata":{"name":"`, `"}}}`
	atLimit := strings.Repeat("y", 64-len(prefix)-len(suffix)) // the frame is exactly 64 bytes
	tests := []struct {
		name     string
		maxFrame int // 0: 64 KiB
		input    string
		want     []string
	}{
		{"empty stream", 0, "", nil},
		{"blank lines and CRLF are skipped", 0, "\n\r\n" + strings.TrimSuffix(podFrame(api.Added, "a", "1"), "\n") + "\r\n\n",
			[]string{"ADDED a 1"}},
		{"every event type", 0, podFrame(api.Added, "a", "1") + podFrame(api.Modified, "a", "2") + podFrame(api.Deleted, "a", "3") +
			podFrame(api.Bookmark, "", "4"), []string{"ADDED a 1", "MODIFIED a 2", "DELETED a 3", "BOOKMARK  4"}},
		{"an ERROR frame ends with the Status", 0, expiredFrame, []string{"ERROR too old resource version: 1 (44624)"}},
		{"unknown type", 0, `{"type":"RENAMED","object":{}}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"type\":\"RENAMED\",\"object\":{}}"): unknown event type "RENAMED"`}},
		{"no type", 0, `{"object":{}}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"object\":{}}"): the frame has no event type`}},
		{"null object", 0, `{"type":"ADDED","object":null}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"type\":\"ADDED\",\"object\":null}"): the frame has no object`}},
		{"object of the wrong shape", 0, `{"type":"ADDED","object":{"metadata":"oops"}}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"type\":\"ADDED\",\"object\":{\"metadata\":\"oops\"}}"): json: cannot unmarshal string into Go struct field Pod.object.metadata of type api.ObjectMeta`}},
		{"ERROR without a Status", 0, `{"type":"ERROR","object":null}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"type\":\"ERROR\",\"object\":null}"): an ERROR frame without a Status`}},
		{"two objects on one line", 0, `{"type":"ADDED","object":{}}{"type":"ADDED","object":{}}` + "\n",
			[]string{`BROKEN malformed watch frame (frame 1: "{\"type\":\"ADDED\",\"object\":{}}{\"type\":\"ADDED\",\"object\":{}}"): invalid character '{' after top-level value`}},
		{"a frame exactly at the limit", 64, prefix + atLimit + suffix + "\n", []string{"ADDED " + atLimit + " "}},
		{"a frame one byte over the limit", 64, prefix + atLimit + "y" + suffix + "\n",
			[]string{"BROKEN watch stream broken after 0 events: watch frame too large: more than 64 bytes without a newline"}},
		{"a limit as large as an int can be", math.MaxInt, podFrame(api.Added, "a", "1"), []string{"ADDED a 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxFrame := cmp.Or(tt.maxFrame, 64<<10)
			got := sameStructName(decodeAll(strings.NewReader(tt.input), maxFrame))
			t.Logf("listwatch: %d bytes in, frame limit %d: decoded %q", len(tt.input), maxFrame, got)
			assert.Equal(t, tt.want, got)
			// Chunking never matters: one byte per Read gives the same events.
			assert.Equal(t, tt.want, sameStructName(decodeAll(iotest.OneByteReader(strings.NewReader(tt.input)), maxFrame)))
			// Nor does the decoder: the fast form gives the same events too.
			assert.Equal(t, tt.want, sameStructName(decodeThroughWatcher(t, []byte(tt.input), maxFrame, fast(1))))
		})
	}
}

// sameStructName reads encoding/json's "Go struct field frame.object..."
// as "Pod.object...": which struct a type error names depends on whether
// api.Pod has an UnmarshalJSON of its own (the outermost decoder then
// names its own struct, frame), which is package api's business.
func sameStructName(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.Replace(l, "Go struct field frame.object.", "Go struct field Pod.object.", 1)
	}
	return lines
}

// Memory per frame is bounded: the buffer never grows past the limit,
// however long the line the server sends.
func TestWatchDecoderMemoryPerFrameIsBounded(t *testing.T) {
	const limit = 100_000
	endless := io.MultiReader(strings.NewReader(`{"type":"ADDED","object":{"metadata":{"name":"`), infiniteX{})
	fr := newFrameReader(bufio.NewReaderSize(endless, 4096), limit)
	_, err := fr.next()
	require.ErrorIs(t, err, ErrFrameTooLarge)
	assert.LessOrEqual(t, cap(fr.buf), limit+1)
	t.Logf("listwatch: an endless line with a %d byte frame limit: %v; buffer capacity %d", limit, err, cap(fr.buf))
}

// infiniteX is an endless stream of 'x'.
type infiniteX struct{}

func (infiniteX) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A transport error other than EOF is reported, wrapped.
func TestWatchDecoderReadError(t *testing.T) {
	boom := errors.New("connection reset by peer")
	got := decodeAll(iotest.DataErrReader(io.MultiReader(strings.NewReader(podFrame(api.Added, "a", "1")), iotest.ErrReader(boom))), 1<<20)
	t.Logf("listwatch: one frame, then the connection is reset: decoded %q", got)
	assert.Equal(t, []string{"ADDED a 1", "BROKEN watch stream broken after 1 events: connection reset by peer"}, got)
}
