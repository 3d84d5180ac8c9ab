package listwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// Decoding on more than one core (docs/listwatch.md, "Decoding on both
// cores"). Read the one-goroutine loops first: streamWatcher.receive with
// watchDecoder.decode, and decodeItems. This file only spreads their
// expensive step over several goroutines.
//
// Decoding JSON is nearly all the work of a watch or a list. Finding where
// one frame or item ends is cheap and stays on one goroutine, in stream
// order: frames are cut at newlines (frameReader), list items by a
// valueCutter that looks only at brackets and quotes (list_cutter.go).
// Only the decoding of each frame or item into its object is handed to a
// worker, a batch of consecutive frames (items) at a time: handing work to
// another goroutine costs a wake-up or two, which is paid once per batch
// instead of once per object (frameBatch, itemBatch). That is safe, and
// the caller sees exactly what the one-goroutine loop would have shown,
// because:
//
//   - each frame (item) is decoded from its own copy of its bytes into a
//     fresh object: workers share nothing but the read-only Resource (and
//     package api's decoding, which is safe for concurrent use);
//   - each batch gets a result slot when it is cut, in stream order, and
//     the slots are read back in that same order, each one waited for, and
//     a batch's results in their order: frame i+1 is never delivered
//     before frame i, whichever worker finished first. Events for one
//     object cannot reorder, and neither can any two events;
//   - an error ends a batch's results: a garbage frame's (found by its
//     worker), or the cutter's own (a too-large frame, a cut connection,
//     the end of the stream), placed after the frames before it. Read in
//     order, the first error ends the stream at the same place, with the
//     same message, as the loop would; frames cut after it are dropped
//     unseen;
//   - a batch never waits for a frame that has not arrived: the cutter
//     adds frames to a batch only while whole ones are already read;
//   - memory is bounded: at most batchesPerWorker batches (of at most
//     batchItems objects or about batchBytes bytes) per worker are cut and
//     not yet delivered, and a watch's in-flight frames hold at most
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

// A batch of frames or items is handed to a worker once it holds
// batchItems of them or batchBytes bytes, whichever comes first (for a
// watch, sooner: when no whole frame is waiting).
const (
	batchItems = 16
	batchBytes = 64 << 10
)

// batchesPerWorker is how many batches per worker may be in flight: one
// being decoded, one waiting, so that a worker never waits for the cutter.
const batchesPerWorker = 2

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
	submitted    int                       // jobs handed over so far (one per batch)
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
	p.submitted++
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

// workerDecoder is what a goroutine that decodes keeps from one frame or
// item to the next: the room a pod decodes its conditions in.
//
// The decode itself is onepass.Unmarshal (internal/onepass): it stores
// exactly what json.Unmarshal would, but reads the bytes once, where
// encoding/json checks them all with its scanner before decoding and steps
// its scanner again over everything the type does not keep (most of a
// pod). On a pod it is about three times faster, and it is the largest
// part of every list and watch (docs/performance.md).
type workerDecoder struct {
	room api.DecodeRoom // lent to each pod while it is decoded (lend)
}

// roomBorrower is an object that can decode in a DecodeRoom: *api.Pod.
type roomBorrower interface {
	LendRoom(*api.DecodeRoom)
	ReturnRoom(*api.DecodeRoom)
}

// unmarshalLending is unmarshal(b, v) where obj, the new object v is or
// holds, is lent the worker's room to decode in (api.DecodeRoom: no
// garbage from slices growing), and gives it back before this returns,
// whatever happened.
func (wd *workerDecoder) unmarshalLending(b []byte, v, obj any) error {
	if rb, ok := obj.(roomBorrower); ok {
		rb.LendRoom(&wd.room)
		defer rb.ReturnRoom(&wd.room)
	}
	return wd.unmarshal(b, v)
}

// unmarshal decodes b into v. It succeeds exactly when json.Unmarshal(b, v)
// would, with the same result. On any error, callers decode again with
// json.Unmarshal into a fresh value, so that errors read exactly as
// encoding/json words them (an error ends the stream, so its cost does not
// matter).
func (wd *workerDecoder) unmarshal(b []byte, v any) error {
	return onepass.Unmarshal(b, v)
}

// batchBuffers recycles the buffers that hold one stream's batches, the
// copies of frames and items that workers decode: encoding/json never
// keeps a reference to its input (a json.Unmarshaler must copy what it
// keeps), so once a batch is decoded its buffer can hold the next one.
// This spares the garbage collector, which shares the same two cores, a
// copy of every byte of the stream. (A sync.Pool would be emptied by every
// garbage collection, and the initial list of a big cluster runs dozens.)
// Each watch or list has its own, holding at most as many buffers as it
// has batches in flight.
type batchBuffers chan *[]byte

func newBatchBuffers(workers int) batchBuffers {
	return make(batchBuffers, batchesPerWorker*workers+1)
}

// maxRecycled: larger buffers (a batch holding one huge object) are left
// to the garbage collector.
const maxRecycled = 4 * batchBytes

// get returns an empty buffer, a recycled one if there is one.
func (bb batchBuffers) get() *[]byte {
	select {
	case p := <-bb:
		*p = (*p)[:0]
		return p
	default:
		return new([]byte)
	}
}

// put hands back a buffer whose bytes are no longer needed.
func (bb batchBuffers) put(p *[]byte) {
	if cap(*p) > maxRecycled {
		return
	}
	select {
	case bb <- p:
	default:
	}
}

// ---- watch ----

// frameBatch is a run of consecutive frames handed to one worker as one
// job, and their result slot: made by the cutter in stream order, filled
// by a worker, read by the delivering goroutine in the same order. As for
// a list (itemBatch), the batch is there to pay the hand-off between
// goroutines once per batch instead of once per frame; the cutter only
// adds frames that have arrived whole already, so batching never makes a
// frame wait for one that has not.
type frameBatch struct {
	buffers batchBuffers // where raw goes back once decoded
	first   int          // the stream number (from 1) of the batch's first frame
	raw     *[]byte      // the frames' bytes, one after the other
	ends    []int        // where frame k's bytes end in raw
	end     error        // the stream ended after these frames (set by the cutter)
	events  []Event
	err     error         // as watchDecoder.decode returns it: a frame's, or end
	ready   chan struct{} // closed once events and err are set
}

// decode decodes the batch's frames in order, stopping at the first that
// fails (which ends the stream), then releases its bytes and budget.
func (b *frameBatch) decode(wd *workerDecoder, dec *watchDecoder, budget *byteBudget) {
	start := 0
	for k, end := range b.ends {
		frame := (*b.raw)[start:end]
		ev, err := dec.decodeFrameWith(frame, wd)
		if err != nil { // the error as the loop says it
			ev, err = dec.decodeNumbered(frame, b.first+k)
		}
		if err != nil {
			b.err = err
			break
		}
		b.events = append(b.events, ev)
		start = end
	}
	if b.err == nil {
		b.err = b.end
	}
	budget.release(len(*b.raw))
	b.buffers.put(b.raw)
	close(b.ready)
}

// receiveParallel is receive's loop for the rest of a stream whose frames
// queue up. A goroutine of its own, cutFrames, cuts the frames and hands
// them to workers in batches; this goroutine delivers the results in the
// order the frames were cut, exactly as receive's loop does (w.send).
// When it returns, the cutter and the workers are told to stop; receive
// then cancels the request, which ends a read the cutter may be blocked in.
func (w *streamWatcher) receiveParallel(ctx context.Context, dec *watchDecoder) {
	pending := make(chan *frameBatch, batchesPerWorker*w.workers)
	stop := make(chan struct{})
	defer close(stop)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		cutFrames(dec, w.workers, pending, stop)
	}()
	for {
		var batch *frameBatch
		select {
		case batch = <-pending:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		}
		select {
		case <-batch.ready:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		}
		for _, ev := range batch.events {
			if !w.send(ctx, ev, nil) {
				return
			}
		}
		if batch.err != nil {
			w.send(ctx, Event{}, batch.err)
			return
		}
	}
}

// cutFrames cuts dec's frames in stream order into batches: a batch takes
// the next frame, then more while whole frames are already read (up to
// batchItems frames or batchBytes bytes); it gets its slot in pending, then
// goes to a worker with its own copy of the bytes. The end of the stream,
// clean or not, closes the last batch. It returns then, or as soon as stop
// is closed, after its workers have stopped.
func cutFrames(dec *watchDecoder, workers int, pending chan<- *frameBatch, stop <-chan struct{}) {
	pool := newDecodePool(workers)
	defer pool.stop()
	budget := newByteBudget(max(dec.frames.max, minFrameBudget))
	buffers := newBatchBuffers(workers)
	for {
		batch := &frameBatch{buffers: buffers, first: dec.cut + 1, raw: buffers.get(), ready: make(chan struct{})}
		for {
			line, err := dec.nextFrame()
			if err != nil {
				batch.end = err
				break
			}
			*batch.raw = append(*batch.raw, line...)
			batch.ends = append(batch.ends, len(*batch.raw))
			if len(batch.ends) == batchItems || len(*batch.raw) >= batchBytes || !dec.frames.hasFrame() {
				break
			}
		}
		select {
		case pending <- batch:
		case <-stop:
			return
		}
		if len(batch.ends) == 0 { // only the stream's end
			batch.err = batch.end
			buffers.put(batch.raw)
			close(batch.ready)
			return
		}
		if !budget.acquire(len(*batch.raw), stop) {
			return
		}
		end := batch.end // the batch is the worker's once submitted
		if !pool.submit(func(wd *workerDecoder) { batch.decode(wd, dec, budget) }, stop) {
			return
		}
		if end != nil {
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

// itemBatch is a run of consecutive list items handed to one worker as one
// job, and its result slot (as frameBatch is for a watch). Items are
// small next to the cost of handing work from one goroutine to another
// (waking a worker, waking the cutter when the result is ready), so a list
// hands them over a batch at a time: one hand-off per batch instead of per
// item. The batch's bytes are one recycled buffer; ends[k] is where item
// k's bytes end in it.
type itemBatch struct {
	buffers batchBuffers // where raw goes back once decoded
	first   int          // the list index of the batch's first item
	raw     *[]byte      // the items' bytes, one after the other
	ends    []int
	objs    []api.Object
	err     error         // the first item that failed, as the loop says it
	ready   chan struct{} // closed once objs or err is set
}

// decode decodes the batch's items in order, stopping at the first that
// fails, then releases its bytes and marks it ready.
func (b *itemBatch) decode(wd *workerDecoder, r Resource) {
	start := 0
	for k, end := range b.ends {
		obj, err := decodeItem(wd, (*b.raw)[start:end], r)
		if err != nil {
			b.err = fmt.Errorf("item %d: %w", b.first+k, err)
			break
		}
		b.objs = append(b.objs, obj)
		start = end
	}
	b.buffers.put(b.raw)
	close(b.ready)
}

// parallelItems decodes the items of one list on several goroutines. The
// goroutine that cuts the items (decodeItems) adds each one, in order;
// they are gathered into batches, and workers decode the batches; the
// results are appended to list.Items in that same order, each batch waited
// for. An item's decoding error is returned once every item before it is
// in the list, so the first error by position wins, as in the loop.
type parallelItems struct {
	pool    *decodePool
	buffers batchBuffers
	r       Resource
	list    *ObjectList
	next    *itemBatch   // being filled
	queue   []*itemBatch // handed to workers, not yet in list.Items, in order
	limit   int          // most batches in flight
}

func newParallelItems(r Resource, list *ObjectList, workers int) *parallelItems {
	return &parallelItems{pool: newDecodePool(workers), buffers: newBatchBuffers(workers), r: r, list: list, limit: batchesPerWorker * workers}
}

// add copies item i (raw, valid until add returns) into the batch being
// filled, and hands the batch to a worker once it is full. It returns the
// error of an item before i, if one failed.
func (par *parallelItems) add(i int, raw []byte) error {
	if par.next == nil {
		par.next = &itemBatch{buffers: par.buffers, first: i, raw: par.buffers.get(), ready: make(chan struct{})}
	}
	b := par.next
	*b.raw = append(*b.raw, raw...)
	b.ends = append(b.ends, len(*b.raw))
	if len(b.ends) == batchItems || len(*b.raw) >= batchBytes {
		return par.send()
	}
	return nil
}

// send hands the batch being filled to a worker, first appending the
// oldest batch's results if as many batches as allowed are in flight.
func (par *parallelItems) send() error {
	b, r := par.next, par.r
	par.next = nil
	if len(par.queue) == par.limit {
		if err := par.take(); err != nil {
			par.buffers.put(b.raw)
			return err
		}
	}
	par.pool.submit(func(wd *workerDecoder) { b.decode(wd, r) }, nil)
	par.queue = append(par.queue, b)
	return nil
}

// take appends the oldest batch's objects, waiting for them.
func (par *parallelItems) take() error {
	b := par.queue[0]
	par.queue = par.queue[1:]
	<-b.ready
	if b.err != nil {
		return b.err
	}
	par.list.Items = append(par.list.Items, b.objs...)
	return nil
}

// firstError returns the error of an item cut before the cutter's own
// err, if one failed, else err: the first error by position wins. A nil
// par (no workers started) has no items in flight.
func (par *parallelItems) firstError(err error) error {
	if par == nil {
		return err
	}
	if perr := par.finish(); perr != nil {
		return perr
	}
	return err
}

// finish hands over the last, partly filled batch, appends every result
// still in flight, in order, and returns the first error among them.
func (par *parallelItems) finish() error {
	if par == nil {
		return nil
	}
	if par.next != nil {
		if err := par.send(); err != nil {
			return err
		}
	}
	for len(par.queue) > 0 {
		if err := par.take(); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the workers once their current items are decoded.
func (par *parallelItems) stop() { par.pool.stop() }

// decodeOneValue decodes raw, one JSON value with no blanks around it,
// into obj. It succeeds exactly when json.Unmarshal(raw, obj) would, with
// the same result. An object that decodes itself (json.Unmarshaler:
// api.Unstructured) is handed raw directly: json.Unmarshal would only
// check the syntax, find the value's end, and make the same call.
func decodeOneValue(wd *workerDecoder, raw []byte, obj api.Object) error {
	if u, ok := obj.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return wd.unmarshalLending(raw, obj, obj)
}
