package fastdecode

import (
	"context"
	"sync"
)

// The fast watch: the plain loop (listwatch's decodeWatchPlain) with each
// frame decoded by a Decoder, and, once frames queue up, the decoding
// spread over several goroutines.
//
// Decoding JSON is nearly all the work of a watch. Finding where one frame
// ends is cheap and stays on one goroutine, in stream order: frames are cut
// at newlines (listwatch's frameReader, seen here as Frames). Only the
// decoding of each frame into its event is handed to a worker, a batch of
// consecutive frames at a time: handing work to another goroutine costs a
// wake-up or two, which is paid once per batch instead of once per frame
// (frameBatch). That is safe, and the caller sees exactly what the
// one-goroutine loop would have shown, because:
//
//   - each frame is decoded from its own copy of its bytes into a fresh
//     object: workers share nothing but what Watch.Decode reads (the
//     read-only Resource) and the interner (safe for concurrent use);
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
//     batchItems frames or about batchBytes bytes) per worker are cut and
//     not yet delivered, and their frames hold at most max(Frames.Max(),
//     1 MiB) bytes.
//
// A stream that does not need it does not pay for it: a watch switches to
// the workers only once frames queue up (bytes of the next frame are
// already read when one is cut), and a worker is started only when a batch
// finds every started worker busy. A slow watch, one frame per read, never
// leaves the loop.

// Frames is a watch body cut into frames, in stream order: listwatch's
// frameReader, counted and with its errors worded.
type Frames interface {
	// Next cuts the next frame, valid until the following call. Its error
	// ends the stream (io.EOF: cleanly) and is delivered as it is.
	Next() ([]byte, error)
	// Cut is how many frames Next has returned.
	Cut() int
	// Buffered reports whether bytes of the next frame are already read.
	Buffered() bool
	// HasFrame reports whether a whole frame is already read, so that Next
	// returns it without waiting for the reader.
	HasFrame() bool
	// Max is the most bytes one frame may have.
	Max() int
}

// Watch is one watch stream decoded on the fast path. Run decodes it.
type Watch[E any] struct {
	Frames  Frames
	Workers int // at most this many goroutines decode; 1: the loop alone
	// Decode decodes frame number n (from 1) with d, and returns what the
	// plain decode returns for that frame: the same event (compacted), or
	// the same error. Workers call it concurrently, each with its own d.
	Decode func(d *Decoder, frame []byte, n int) (E, error)
	// Send delivers an event, or the error that ends the stream (from
	// Decode or Frames.Next), and reports whether the stream goes on.
	Send func(ev E, err error) bool
	// Ctx and Done end the stream early (a cancelled context, Stop).
	Ctx  context.Context
	Done <-chan struct{}
	// Cutter counts the parallel path's cutting goroutine, which outlives
	// Run a little (until its read is aborted). Parallel, if not nil, is
	// set when Run goes parallel. Both are for tests.
	Cutter   *sync.WaitGroup
	Parallel *bool
}

// Run decodes the stream, frame by frame in the loop, until Send says
// stop; once frames queue up (and Workers > 1), it hands the rest of the
// stream to runParallel.
func (w *Watch[E]) Run() {
	var loop Decoder // the loop's own room
	for {
		if w.Workers > 1 && w.Frames.Buffered() {
			// The next frame is already (partly) read: frames arrive
			// faster than one at a time, so decode the rest of the stream
			// on workers.
			if w.Parallel != nil {
				*w.Parallel = true
			}
			w.runParallel()
			return
		}
		var ev E
		frame, err := w.Frames.Next()
		if err == nil {
			ev, err = w.Decode(&loop, frame, w.Frames.Cut())
		}
		if !w.Send(ev, err) {
			return
		}
	}
}

// frameBatch is a run of consecutive frames handed to one worker as one
// job, and their result slot: made by the cutter in stream order, filled
// by a worker, read by the delivering goroutine in the same order. The
// batch is there to pay the hand-off between goroutines once per batch
// instead of once per frame; the cutter only adds frames that have arrived
// whole already, so batching never makes a frame wait for one that has
// not.
type frameBatch[E any] struct {
	buffers batchBuffers // where raw goes back once decoded
	first   int          // the stream number (from 1) of the batch's first frame
	raw     *[]byte      // the frames' bytes, one after the other
	ends    []int        // where frame k's bytes end in raw
	end     error        // the stream ended after these frames (set by the cutter)
	events  []E
	err     error         // as the loop would send it: a frame's, or end
	ready   chan struct{} // closed once events and err are set
}

// decode decodes the batch's frames in order, stopping at the first that
// fails (which ends the stream), then releases its bytes and budget.
func (b *frameBatch[E]) decode(d *Decoder, w *Watch[E], budget *byteBudget) {
	b.events = make([]E, 0, len(b.ends))
	start := 0
	for k, end := range b.ends {
		ev, err := w.Decode(d, (*b.raw)[start:end], b.first+k)
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

// runParallel is Run's loop for the rest of a stream whose frames queue
// up. A goroutine of its own, cutFrames, cuts the frames and hands them to
// workers in batches; this goroutine delivers the results in the order the
// frames were cut, exactly as the loop does (w.Send). When it returns, the
// cutter and the workers are told to stop; the caller then cancels the
// request, which ends a read the cutter may be blocked in.
func (w *Watch[E]) runParallel() {
	pending := make(chan *frameBatch[E], batchesPerWorker*w.Workers)
	stop := make(chan struct{})
	defer close(stop)
	if w.Cutter != nil {
		w.Cutter.Add(1)
	}
	go func() {
		if w.Cutter != nil {
			defer w.Cutter.Done()
		}
		cutFrames(w, pending, stop)
	}()
	for {
		var batch *frameBatch[E]
		select {
		case batch = <-pending:
		case <-w.Done:
			return
		case <-w.Ctx.Done():
			return
		}
		select {
		case <-batch.ready:
		case <-w.Done:
			return
		case <-w.Ctx.Done():
			return
		}
		for _, ev := range batch.events {
			if !w.Send(ev, nil) {
				return
			}
		}
		if batch.err != nil {
			var zero E
			w.Send(zero, batch.err)
			return
		}
	}
}

// cutFrames cuts w's frames in stream order into batches: a batch takes
// the next frame, then more while whole frames are already read (up to
// batchItems frames or batchBytes bytes); it gets its slot in pending, then
// goes to a worker with its own copy of the bytes. The end of the stream,
// clean or not, closes the last batch. It returns then, or as soon as stop
// is closed, after its workers have stopped.
func cutFrames[E any](w *Watch[E], pending chan<- *frameBatch[E], stop <-chan struct{}) {
	pool := newDecodePool(w.Workers)
	defer pool.stop()
	frames := w.Frames
	budget := newByteBudget(max(frames.Max(), minFrameBudget))
	buffers := newBatchBuffers(w.Workers)
	for {
		batch := &frameBatch[E]{buffers: buffers, first: frames.Cut() + 1, raw: buffers.get(), ready: make(chan struct{})}
		for {
			frame, err := frames.Next()
			if err != nil {
				batch.end = err
				break
			}
			*batch.raw = append(*batch.raw, frame...)
			batch.ends = append(batch.ends, len(*batch.raw))
			if len(batch.ends) == batchItems || len(*batch.raw) >= batchBytes || !frames.HasFrame() {
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
		if !pool.submit(func(d *Decoder) { batch.decode(d, w, budget) }, stop) {
			return
		}
		if end != nil {
			return
		}
	}
}
