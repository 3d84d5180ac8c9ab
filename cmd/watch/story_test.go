package main

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
)

// story is what a test of the program tells under -v: every line the
// program prints, on stdout (the events, as a user sees them) or stderr
// (what it is doing: listed, watching, relisting), in the order printed,
// next to the fake server's trace. Written with t.Output, so a passing
// test without -v prints nothing.
type story struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

// newStory starts the story of t; lines printed after t has finished are
// dropped (testing panics on output after that).
func newStory(t *testing.T) *story {
	s := &story{t: t}
	t.Cleanup(func() {
		s.mu.Lock()
		s.done = true
		s.mu.Unlock()
	})
	return s
}

// stream returns a writer that tells each complete line written to it,
// after prefix, and copies everything to also.
func (s *story) stream(prefix string, also io.Writer) io.Writer {
	return &storyStream{s: s, prefix: prefix, also: also}
}

type storyStream struct {
	s       *story
	prefix  string
	also    io.Writer
	partial []byte
}

func (w *storyStream) Write(p []byte) (int, error) {
	n, err := w.also.Write(p)
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.partial = append(w.partial, p[:n]...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		if !w.s.done {
			fmt.Fprintf(w.s.t.Output(), "%s%s\n", w.prefix, w.partial[:i])
		}
		w.partial = w.partial[i+1:]
	}
	return n, err
}
