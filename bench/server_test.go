package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// The benchmarks' API server: prebuilt bytes, served as a real API server
// frames them, for both informers.
//
//   - A LIST (the articles' informer's first request) gets the list's body.
//   - A watch with sendInitialEvents=true (a streaming list, today's
//     informer's first request) gets an ADDED frame for every item of the
//     list, then the BOOKMARK annotated k8s.io/initial-events-end at the
//     list's resourceVersion, then, as any watch, the watch's frames: a list
//     and a watch in one response.
//   - A plain watch (the articles' informer's second request) gets the
//     watch's frames.
//
// Only the first watch of a run gets the watch's frames (watches counts
// them; a benchmark resets it between runs); later ones stay open, quiet,
// until the client goes. Frames are written and flushed chunkSize bytes at
// a time, cut at frame ends (as an API server flushes after each event it
// has encoded, many events to a flush when they come fast). Nothing is
// encoded or copied: the server's cost is the kernel's copy to a socket,
// the same for both informers.
type server struct {
	*httptest.Server
	watches        atomic.Int32
	streamingLists atomic.Int32 // watches with sendInitialEvents=true served
}

// chunkSize is how much the server writes between flushes.
const chunkSize = 32 << 10

func newServer(list *listData, frames [][]byte) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		if q.Get("watch") != "true" {
			_, _ = w.Write(list.body)
			return
		}
		c, err := hijackChunked(w)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer c.conn.Close()
		first := s.watches.Add(1) == 1
		if q.Get("sendInitialEvents") == "true" {
			s.streamingLists.Add(1)
			for _, item := range list.items {
				c.frame(addedPrefix, item, frameEnd)
			}
			if q.Get("allowWatchBookmarks") == "true" { // as fakeapiserver: no bookmark unless asked
				c.frame(initialEventsEnd(list.rv))
			}
		}
		if first {
			for _, f := range frames {
				c.frame(f)
			}
		}
		if c.flush() {
			c.waitForClose()
		}
	}))
	return s
}

// The frames of a streaming list, byte for byte as fakeapiserver writes
// them (fakeapiserver/watch_stream.go) and kube-apiserver 1.36 sent them
// (testdata/kube-apiserver-1.36/12-watch-bookmark-initial-events.txt):
// TestStreamingListFramesAreTheServersBytes holds them to both.
var (
	addedPrefix = []byte(`{"type":"ADDED","object":`)
	frameEnd    = []byte("}\n")
)

// initialEventsEnd is the bookmark that ends a streaming list's initial
// events: an empty pod whose metadata holds only the version and the
// annotation.
func initialEventsEnd(rv int) []byte {
	return fmt.Appendf(nil, `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}`+"\n", rv)
}

// streamingListBytes is how many bytes a streaming list of l sends before
// the watch's frames.
func streamingListBytes(l *listData) int {
	n := len(initialEventsEnd(l.rv))
	for _, item := range l.items {
		n += len(addedPrefix) + len(item) + len(frameEnd)
	}
	return n
}

// chunker writes frames in chunks of about chunkSize, each flushed: in
// HTTP/1.1's chunked encoding, on the connection itself (hijacked), each
// chunk's size line, bytes and end in one write. Through net/http's
// ResponseWriter each chunk took three system calls (its 4 KiB buffer
// filled and written, the rest written past it, the flush), a third of the
// benchmark server's CPU, which shares the two cores with the informer it
// serves; the client receives the same bytes either way.
//
// The frames are not copied into a chunk: a chunk is the list of the
// prebuilt frames' own slices, written with one writev (net.Buffers), so
// the kernel's copy into the socket is the only one. Copying them first
// cost about 15 % of the server's CPU, taken from the informer's two cores
// (docs/performance.md).
type chunker struct {
	conn  net.Conn
	parts net.Buffers // the size line, then the chunk's frames
	out   net.Buffers // what a writev has left to write (a field: no allocation a chunk)
	n     int         // bytes of frames in parts
	line  []byte      // room for the size line ("8000\r\n")
	err   error
}

// hijackChunked takes w's connection and writes a 200 response with
// chunked encoding's headers, the chunks to follow.
func hijackChunked(w http.ResponseWriter) (*chunker, error) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("hijack: %w", err)
	}
	if rw.Reader.Buffered() > 0 {
		conn.Close()
		return nil, errors.New("hijack: the client sent more than its request")
	}
	c := &chunker{conn: conn, line: make([]byte, 0, 16)}
	_, c.err = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
	return c, nil
}

// frame adds one frame, given in parts, which must not change until the
// chunk is written; the chunk so far goes out first if the frame would
// take it past chunkSize.
func (c *chunker) frame(parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if c.n > 0 && c.n+n > chunkSize {
		c.flush()
	}
	if c.n == 0 {
		c.parts = append(c.parts[:0], nil) // the size line's place
	}
	c.parts = append(c.parts, parts...)
	c.n += n
}

// crlf ends a chunk.
var crlf = []byte("\r\n")

// flush writes what is buffered as one chunk; false once the client has
// gone (every later write is dropped).
func (c *chunker) flush() bool {
	if c.err == nil && c.n > 0 {
		c.line = fmt.Appendf(c.line[:0], "%x\r\n", c.n)
		c.parts[0] = c.line
		c.parts = append(c.parts, crlf)
		c.out = c.parts
		_, c.err = c.out.WriteTo(c.conn) // writev; it may shorten the slices in c.parts, reset next
	}
	c.n = 0
	c.parts = c.parts[:0]
	return c.err == nil
}

// waitForClose returns once the client has closed the connection (the
// informer stopped), reading and dropping anything it sends.
func (c *chunker) waitForClose() {
	_, _ = io.Copy(io.Discard, c.conn)
}
