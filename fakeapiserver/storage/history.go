package storage

import "sort"

// ring is the bounded history: the last len(buf) events, oldest first.
type ring[O Object] struct {
	buf   []*Event[O]
	start int
	n     int
	bytes int64 // the size of the values the events carry
}

func eventBytes[O Object](ev *Event[O]) int64 { return int64(len(ev.Value.Bytes())) }

// push appends ev and returns the event that fell off the front, if any.
func (r *ring[O]) push(ev *Event[O]) (evicted *Event[O]) {
	if len(r.buf) == 0 {
		return ev
	}
	r.bytes += eventBytes(ev)
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = ev
		r.n++
		return nil
	}
	evicted = r.buf[r.start]
	r.bytes -= eventBytes(evicted)
	r.buf[r.start] = ev
	r.start = (r.start + 1) % len(r.buf)
	return evicted
}

// popOldest removes and returns the oldest event; the ring is not empty.
func (r *ring[O]) popOldest() *Event[O] {
	ev := r.buf[r.start]
	r.buf[r.start] = nil
	r.start = (r.start + 1) % len(r.buf)
	r.n--
	r.bytes -= eventBytes(ev)
	return ev
}

func (r *ring[O]) at(i int) *Event[O] { return r.buf[(r.start+i)%len(r.buf)] }

func (r *ring[O]) clear() {
	for i := range r.buf {
		r.buf[i] = nil
	}
	r.start, r.n, r.bytes = 0, 0, 0
}

// eachNewestFirst calls fn for events from newest to oldest until fn
// returns false.
func (r *ring[O]) eachNewestFirst(fn func(*Event[O]) bool) {
	for i := r.n - 1; i >= 0; i-- {
		if !fn(r.at(i)) {
			return
		}
	}
}

// since returns the events with Rev > after, oldest first.
func (r *ring[O]) since(after uint64) []*Event[O] {
	i := sort.Search(r.n, func(i int) bool { return r.at(i).Rev > after })
	out := make([]*Event[O], 0, r.n-i)
	for ; i < r.n; i++ {
		out = append(out, r.at(i))
	}
	return out
}
