package bench

import (
	"fmt"
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
// encoded: the server's cost is a copy to a socket, the same for both
// informers.
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
		c := &chunker{w: w, rc: http.NewResponseController(w), buf: make([]byte, 0, chunkSize+8<<10)}
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
			<-r.Context().Done()
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

// chunker writes frames in chunks of about chunkSize, each flushed.
type chunker struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
	err error
}

// frame adds one frame, given in parts; the chunk so far goes out first if
// the frame would take it past chunkSize.
func (c *chunker) frame(parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if len(c.buf) > 0 && len(c.buf)+n > chunkSize {
		c.flush()
	}
	for _, p := range parts {
		c.buf = append(c.buf, p...)
	}
}

// flush writes and flushes what is buffered; false once the client has
// gone (every later write is dropped).
func (c *chunker) flush() bool {
	if c.err == nil && len(c.buf) > 0 {
		_, c.err = c.w.Write(c.buf)
	}
	if c.err == nil {
		c.err = c.rc.Flush()
	}
	c.buf = c.buf[:0]
	return c.err == nil
}
