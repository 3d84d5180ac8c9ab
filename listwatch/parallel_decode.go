package listwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/kinformer/kinformer/api"
)

// Decoding on more than one core (docs/listwatch.md, "Decoding on both
// cores"). Read the one-goroutine loops first: streamWatcher.receive with
// watchDecoder.decode, and decodeItems. This file only spreads their
// expensive step over several goroutines.
//
// Decoding JSON is nearly all the work of a watch or a list. Finding where
// one frame or item ends is cheap and stays on one goroutine, in stream
// order: frames are cut at newlines (frameReader), list items by a
// json.Decoder that only scans each item to its end (parallelItems.cut).
// Only the decoding of each frame or item into its object is handed to a
// worker. That is safe, and the caller sees exactly what the one-goroutine
// loop would have shown, because:
//
//   - each frame (item) is decoded from its own copy of its bytes into a
//     fresh object: workers share nothing but the read-only Resource (and
//     package api's decoding, which is safe for concurrent use);
//   - each frame gets a result slot when it is cut, in stream order, and
//     the slots are read back in that same order, each one waited for:
//     frame i+1 is never delivered before frame i, whichever worker
//     finished first. Events for one object cannot reorder, and neither can
//     any two events;
//   - an error is a slot too: a garbage frame's (filled by its worker), or
//     the cutter's own (a too-large frame, a cut connection, the end of the
//     stream), placed after the frames before it. Read in order, the first
//     error ends the stream at the same place, with the same message, as
//     the loop would; frames cut after it are dropped unseen;
//   - memory is bounded: at most maxPending frames (items) per worker are
//     cut and not yet delivered, and a watch's in-flight frames hold at most
//     max(Config.MaxWatchFrameSize, 1 MiB) bytes.
//
// A stream that does not need it does not pay for it: a watch switches to
// this path only once frames queue up (bytes of the next frame are already
// read when one is cut), a list only after its first parallelListAfter
// items, and a worker is started only when a frame finds every started
// worker busy. A slow watch, one frame per read, never leaves the loop.

// defaultDecodeWorkers is Config.DecodeWorkers' default: one worker per
// core, at most four (beyond that the single cutting goroutine, the
// consumer and the garbage collector leave little to gain).
func defaultDecodeWorkers() int { return min(runtime.GOMAXPROCS(0), 4) }

// maxPending is how many frames (items) per worker may be cut and not yet
// delivered: enough that a worker never waits for the slowest one before
// it, few enough to hold little memory.
const maxPending = 8

// parallelListAfter: a list's first items are decoded by the loop; lists
// of up to this many items never start a worker.
const parallelListAfter = 32

// minFrameBudget is the least byte budget of a watch's in-flight frames.
const minFrameBudget = 1 << 20

// decodePool runs decode jobs on up to max goroutines, each with its own
// workerDecoder. A worker is started only when a job finds every started
// worker busy, so a trickle of jobs keeps one worker. Jobs never block, so
// stop (which only the submitting goroutine calls) returns as soon as the
// running jobs are done.
type decodePool struct {
	max, started int
	jobs         chan func(*workerDecoder) // unbuffered: a send succeeds when a worker is idle
	quit         chan struct{}
	wg           sync.WaitGroup
}

func newDecodePool(max int) *decodePool {
	return &decodePool{max: max, jobs: make(chan func(*workerDecoder)), quit: make(chan struct{})}
}

// submit hands job to a worker, starting one if all are busy and there
// are fewer than max, else waiting for one. It returns false, without
// running job, if abort is closed first.
func (p *decodePool) submit(job func(*workerDecoder), abort <-chan struct{}) bool {
	select {
	case p.jobs <- job:
		return true
	default:
	}
	if p.started < p.max {
		p.started++
		p.wg.Add(1)
		go p.work()
	}
	select {
	case p.jobs <- job:
		return true
	case <-abort:
		return false
	}
}

func (p *decodePool) work() {
	defer p.wg.Done()
	var wd workerDecoder
	for {
		select {
		case job := <-p.jobs:
			job(&wd)
		case <-p.quit:
			return
		}
	}
}

// stop ends the workers, once their current jobs are done, and waits.
func (p *decodePool) stop() {
	close(p.quit)
	p.wg.Wait()
}

// workerDecoder is a worker's own json.Decoder, fed one frame or item at a
// time. It keeps its decoding state from one to the next, where
// json.Unmarshal would build it anew (about ten allocations) and scan the
// bytes once more to check them before decoding.
type workerDecoder struct {
	in  bytes.Reader
	dec *json.Decoder
	fed int64 // bytes given to dec so far
}

// errNotOneValue: the bytes held more than one JSON value.
var errNotOneValue = errors.New("more than one JSON value")

// unmarshal decodes b, which has no blanks around it, into v. It succeeds
// exactly when json.Unmarshal(b, v) would, with the same result: the
// decoder has scanned all of b as one valid value and decoded it. On any
// error, callers decode again with json.Unmarshal into a fresh value, so
// that errors read exactly as on the one-goroutine path (an error ends the
// stream, so its cost does not matter).
func (wd *workerDecoder) unmarshal(b []byte, v any) error {
	if wd.dec == nil {
		wd.dec, wd.fed = json.NewDecoder(&wd.in), 0
	}
	wd.in.Reset(b)
	wd.fed += int64(len(b))
	err := wd.dec.Decode(v)
	if err == nil && wd.dec.InputOffset() != wd.fed {
		err = errNotOneValue
	}
	if err != nil {
		wd.dec = nil // start afresh: the decoder may hold a broken state or leftovers
	}
	return err
}

// copies recycles the copies of frames and items that workers decode:
// encoding/json never keeps a reference to its input (a json.Unmarshaler
// must copy what it keeps), so once a frame is decoded its copy can hold
// the next one. This spares the garbage collector, which shares the same
// two cores, a copy of every byte of the stream.
var copies = sync.Pool{New: func() any { return new([]byte) }}

// maxRecycled: larger copies are left to the garbage collector.
const maxRecycled = 64 << 10

// copyOf returns a copy of b, in a recycled buffer if there is one.
func copyOf(b []byte) *[]byte {
	p := copies.Get().(*[]byte)
	*p = append((*p)[:0], b...)
	return p
}

// recycle returns a copy whose bytes are no longer needed.
func recycle(p *[]byte) {
	if cap(*p) <= maxRecycled {
		copies.Put(p)
	}
}

// ---- watch ----

// pendingEvent is one frame's result slot: made by the cutter in stream
// order, filled by a worker (or by the cutter, for the stream's end),
// read by the delivering goroutine in the same order.
type pendingEvent struct {
	ev    Event
	err   error         // as watchDecoder.decode returns it
	ready chan struct{} // closed once ev and err are set
}

// receiveParallel is receive's loop for the rest of a stream whose frames
// queue up. A goroutine of its own, cutFrames, cuts the frames and hands
// them to workers; this goroutine delivers the results in the order the
// frames were cut, exactly as receive's loop does (w.send). When it
// returns, the cutter and the workers are told to stop; receive then
// cancels the request, which ends a read the cutter may be blocked in.
func (w *streamWatcher) receiveParallel(ctx context.Context, dec *watchDecoder) {
	pending := make(chan *pendingEvent, maxPending*w.workers)
	stop := make(chan struct{})
	defer close(stop)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		cutFrames(dec, w.workers, pending, stop)
	}()
	for {
		var slot *pendingEvent
		select {
		case slot = <-pending:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		}
		select {
		case <-slot.ready:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		}
		if !w.send(ctx, slot.ev, slot.err) {
			return
		}
	}
}

// cutFrames cuts dec's frames in stream order: each gets its slot in
// pending, then goes to a worker with its own copy of the bytes. The end
// of the stream, clean or not, is a last slot, filled here. It returns
// then, or as soon as stop is closed, after its workers have stopped.
func cutFrames(dec *watchDecoder, workers int, pending chan<- *pendingEvent, stop <-chan struct{}) {
	pool := newDecodePool(workers)
	defer pool.stop()
	budget := newByteBudget(max(dec.frames.max, minFrameBudget))
	for {
		line, err := dec.nextFrame()
		slot := &pendingEvent{ready: make(chan struct{})}
		if err != nil {
			slot.err = err
			close(slot.ready)
		}
		select {
		case pending <- slot:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
		if !budget.acquire(len(line), stop) {
			return
		}
		frame, n := copyOf(line), dec.cut
		decode := func(wd *workerDecoder) {
			slot.ev, slot.err = dec.decodeFrameWith(*frame, wd.unmarshal)
			if slot.err != nil { // the error as the loop says it
				slot.ev, slot.err = dec.decodeNumbered(*frame, n)
			}
			budget.release(len(*frame))
			recycle(frame)
			close(slot.ready)
		}
		if !pool.submit(decode, stop) {
			return
		}
	}
}

// byteBudget bounds the bytes of frames in flight. One goroutine acquires
// (the cutter); any releases. A request larger than the whole budget is
// granted when nothing else is in flight.
type byteBudget struct {
	mu          sync.Mutex
	free, total int
	wake        chan struct{} // a release since the acquirer last looked
}

func newByteBudget(total int) *byteBudget {
	return &byteBudget{free: total, total: total, wake: make(chan struct{}, 1)}
}

// acquire waits until n bytes are free; false if abort is closed first.
func (b *byteBudget) acquire(n int, abort <-chan struct{}) bool {
	for {
		b.mu.Lock()
		if n <= b.free || b.free == b.total {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		b.mu.Unlock()
		select {
		case <-b.wake:
		case <-abort:
			return false
		}
	}
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// ---- list ----

// pendingItem is one list item's result slot, as pendingEvent.
type pendingItem struct {
	obj   api.Object
	err   error
	ready chan struct{} // closed once obj or err is set
}

// parallelItems decodes the items of one list on several goroutines.
type parallelItems struct {
	workers int
	rec     *recordingReader // the body, as the json.Decoder reads it
}

// newParallelItems prepares to decode a list read from body; the list's
// json.Decoder must read par.rec instead of body.
func newParallelItems(body io.Reader, workers int) *parallelItems {
	return &parallelItems{workers: workers, rec: &recordingReader{r: body}}
}

// decodeRest decodes the rest of a list's items array (decodeItems has read
// its '[' and the first items) on up to par.workers goroutines.
//
// This goroutine cuts: dec scans each item to its end without decoding it
// (which checks its syntax, so a malformed body fails here, at the same
// offset and with the same message as in decodeItems), and the item's
// bytes are copied out of the recorded stream. Workers decode the copies;
// the results are appended to list.Items in order, each waited for. An
// item's decoding error is returned once every item before it is in the
// list, so the first error by position wins, as in decodeItems.
func (par *parallelItems) decodeRest(dec *json.Decoder, r Resource, list *ObjectList) error {
	pool := newDecodePool(par.workers)
	defer pool.stop()
	par.rec.start(dec)
	var queue []*pendingItem // cut, not yet in list.Items, in order
	take := func() error {   // appends the oldest, waiting for it
		slot := queue[0]
		queue = queue[1:]
		<-slot.ready
		if slot.err != nil {
			return slot.err
		}
		list.Items = append(list.Items, slot.obj)
		return nil
	}
	drain := func() error {
		for len(queue) > 0 {
			if err := take(); err != nil {
				return err
			}
		}
		return nil
	}
	for dec.More() {
		if len(queue) == maxPending*par.workers {
			if err := take(); err != nil {
				return err
			}
		}
		i := len(list.Items) + len(queue)
		raw, err := par.cut(dec)
		if err != nil {
			if err := drain(); err != nil {
				return err
			}
			return fmt.Errorf("item %d: %w", i, err)
		}
		slot := &pendingItem{ready: make(chan struct{})}
		pool.submit(func(wd *workerDecoder) {
			obj := r.New()
			if err := decodeCheckedItem(wd, *raw, obj); err != nil {
				obj = r.New() // the error as decodeItems says it
				err = json.Unmarshal(*raw, obj)
				slot.err = fmt.Errorf("item %d: %w", i, err)
			} else {
				r.decoded(obj)
				slot.obj = obj
			}
			recycle(raw)
			close(slot.ready)
		}, nil)
		queue = append(queue, slot)
	}
	if err := drain(); err != nil {
		return err
	}
	return expectDelim(dec, ']')
}

// cut reads the next item with dec and returns a copy of its bytes (to
// recycle once decoded).
//
// dec.Decode with a nil pointer reads and scans one whole value, then
// refuses to store it (InvalidUnmarshalError): the cheapest way to have encoding/json find
// a value's end and check its syntax, exactly as Decode(obj) would. (A
// json.RawMessage would scan it twice.) The value's bytes are those
// between dec's input offsets before and after, found in the recorded
// stream, less the comma and blanks before it.
func (par *parallelItems) cut(dec *json.Decoder) (*[]byte, error) {
	from := dec.InputOffset()
	var nowhere *json.InvalidUnmarshalError
	if err := dec.Decode((*struct{})(nil)); !errors.As(err, &nowhere) {
		if err == nil {
			err = errors.New("listwatch: json.Decoder.Decode into a nil pointer did not fail")
		}
		return nil, err
	}
	to := dec.InputOffset()
	item := bytes.TrimLeft(par.rec.between(from, to), ", \t\r\n")
	if len(item) == 0 {
		// An encoding/json that refuses before reading the value (not Go
		// 1.26's): read it the plain way, scanned twice.
		var msg json.RawMessage
		if err := dec.Decode(&msg); err != nil {
			return nil, err
		}
		item, to = msg, dec.InputOffset()
	}
	raw := copyOf(item)
	par.rec.discard(to)
	return raw, nil
}

// decodeCheckedItem decodes raw, one item whose syntax the cutter has
// checked, into obj. It succeeds exactly when json.Unmarshal(raw, obj)
// would, with the same result. An object that decodes itself
// (json.Unmarshaler: api.Unstructured) is handed raw directly:
// json.Unmarshal would only check the syntax again, find the value's end
// again, and make the same call.
func decodeCheckedItem(wd *workerDecoder, raw []byte, obj api.Object) error {
	if u, ok := obj.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return wd.unmarshal(raw, obj)
}

// recordingReader passes a body through to a json.Decoder and, once
// started, keeps what was read, from the decoder's input offset on, so
// that an item's bytes can be found by their offsets.
type recordingReader struct {
	r         io.Reader
	recording bool
	buf       []byte // the stream's bytes from offset base on
	base      int64
}

func (rr *recordingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if rr.recording {
		rr.buf = append(rr.buf, p[:n]...)
	}
	return n, err
}

// start records from dec's input offset on: what dec has read ahead, and
// what it reads from now.
func (rr *recordingReader) start(dec *json.Decoder) {
	ahead, _ := io.ReadAll(dec.Buffered())
	rr.buf, rr.base, rr.recording = ahead, dec.InputOffset(), true
}

// between returns the stream's bytes [from, to).
func (rr *recordingReader) between(from, to int64) []byte {
	return rr.buf[from-rr.base : to-rr.base]
}

// discard forgets the bytes before off (moving the rest to the front once
// they are the larger part).
func (rr *recordingReader) discard(off int64) {
	if drop := int(off - rr.base); drop > len(rr.buf)/2 {
		rr.buf = rr.buf[:copy(rr.buf, rr.buf[drop:])]
		rr.base = off
	}
}
