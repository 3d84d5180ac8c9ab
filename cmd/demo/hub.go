package main

import "sync"

// hub wakes the SSE streams. publish (every tick of the page's clock)
// wakes every subscriber; close ends every stream, as the demo stops.
type hub struct {
	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	done   chan struct{}
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan struct{}]struct{}{}, done: make(chan struct{})} }

// subscribe returns a channel woken at each publish, and the function that
// removes it.
func (h *hub) subscribe() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[c] = struct{}{}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	}
}

// publish wakes every subscriber; one already awake is not woken twice.
func (h *hub) publish() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// subscribers is how many streams are open.
func (h *hub) subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// close ends every stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}
