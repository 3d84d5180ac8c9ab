package fakeapiserver

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// Every connection has a time limit for what the client sends, so that
// clients that open connections and stall (slowloris) cannot hold them, and
// the goroutines and file descriptors behind them, forever:
//
//	ReadHeaderTimeout  the request line and headers       (http.Server)
//	BodyTimeout        the request body, once headers are in (here)
//	IdleTimeout        a kept-alive connection between requests (http.Server)
//
// Why not just http.Server.ReadTimeout? It is "the maximum duration for
// reading the entire request, including the body", one read deadline set
// when a request starts. Measured with Go 1.26, it does not cut a watch:
// net/http clears the read deadline when it starts its background read of
// the connection (at once for a body-less request like a watch, at the end
// of the body otherwise). HTTPServer sets it anyway, to ReadHeaderTimeout +
// BodyTimeout, as a backstop; BodyTimeout itself is applied by the handler,
// so it counts from the end of the headers and also holds where the server
// runs under another http.Server (httptest.NewServer).
//
// There is no WriteTimeout: it would end every watch (a watch writes for
// minutes). A client that stops reading a watch is cut off once
// WatchBuffer events wait for it.

// Default timeouts (Options.ReadHeaderTimeout, BodyTimeout, IdleTimeout).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

func (o *Options) setTimeoutDefaults() {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
}

// HTTPServer returns an http.Server that serves s with its timeouts
// (Options.ReadHeaderTimeout and IdleTimeout, and ReadTimeout as their sum
// with BodyTimeout; the handler applies BodyTimeout). Serve uses it; a program that runs its own listener loop
// can too.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadHeaderTimeout + s.opts.BodyTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
	}
}

// limitBodyTime gives a request with a body BodyTimeout to send it: it sets
// the connection's read deadline, and clears it once the body has been
// read to its end. A client that stalls gets its read failed (the request
// answers 400) and its connection closed.
func (s *Server) limitBodyTime(w http.ResponseWriter, req *http.Request) {
	if req.Body == nil || req.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) != nil {
		return // a ResponseWriter that cannot (a test's recorder)
	}
	req.Body = &deadlineBody{ReadCloser: req.Body, rc: rc, limit: s.opts.BodyTimeout}
}

// deadlineBody clears the read deadline once the body is read through (as
// net/http itself does when it starts its background read), and says which
// limit a stalled body ran into.
type deadlineBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	limit time.Duration
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = &bodyTimeoutError{limit: b.limit}
	}
	return n, err
}

type bodyTimeoutError struct{ limit time.Duration }

func (e *bodyTimeoutError) Error() string {
	return "the client did not send the body within " + e.limit.String()
}
