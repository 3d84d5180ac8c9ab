package fastdecode

import (
	"runtime"
	"sync"
)

// The workers: what a watch (watch.go) and a list (list.go) share when
// they decode on several goroutines.

// DefaultWorkers is listwatch.Config.DecodeWorkers' default: one worker per
// core, at most four (beyond that the single cutting goroutine, the
// consumer and the garbage collector leave little to gain).
func DefaultWorkers() int { return min(runtime.GOMAXPROCS(0), 4) }

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

// ParallelListAfter: a list's first items are decoded by the reading
// goroutine; lists of up to this many items never start a worker.
const ParallelListAfter = 32

// minFrameBudget is the least byte budget of a watch's in-flight frames.
const minFrameBudget = 1 << 20

// decodePool runs decode jobs on up to max goroutines, each with its own
// Decoder. A worker is started only when a job finds every started worker
// busy, so a trickle of jobs keeps one worker. Jobs never block, so stop
// (which only the submitting goroutine calls) returns as soon as the
// running jobs and those waiting for a worker are done.
type decodePool struct {
	max, started int
	submitted    int                 // jobs handed over so far (one per batch)
	jobs         chan func(*Decoder) // jobs waiting for a worker, up to batchesPerWorker per worker
	quit         chan struct{}
	wg           sync.WaitGroup
}

func newDecodePool(max int) *decodePool {
	return &decodePool{max: max, jobs: make(chan func(*Decoder), batchesPerWorker*max), quit: make(chan struct{})}
}

// submit hands job to a worker. A job waits in jobs for the next worker
// free, so a worker done with a batch takes the next at once instead of
// waiting for the cutter to be scheduled: with both cores decoding, that
// wait was a worker's core idle at every batch. jobs has room for every
// batch its callers let be in flight (batchesPerWorker per worker: they
// bound what is cut and not yet delivered), so submit does not wait for a
// worker either: the cutter goes on cutting while the workers are busy,
// and when it next waits for the socket the workers have that many batches
// to go on with, where with room for one a worker each they ran dry and a
// core stood idle (measured in docs/performance.md: 1.84 cores in the
// watch benchmark with room for one, 1.91 with room for two).
// A worker is started when there is none, or when a job is still waiting
// for one (every started worker is busy) and there are fewer than max: a
// trickle of jobs keeps one worker. It returns false, without running job,
// if abort is closed first.
func (p *decodePool) submit(job func(*Decoder), abort <-chan struct{}) bool {
	p.submitted++
	if p.started < p.max && (p.started == 0 || len(p.jobs) > 0) {
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

// work runs jobs until quit, then the jobs still waiting: a job submitted
// is always run, so the batch it decodes is always ready.
func (p *decodePool) work() {
	defer p.wg.Done()
	var d Decoder
	for {
		select {
		case job := <-p.jobs:
			job(&d)
		case <-p.quit:
			for {
				select {
				case job := <-p.jobs:
					job(&d)
				default:
					return
				}
			}
		}
	}
}

// stop ends the workers, once their current jobs are done, and waits.
func (p *decodePool) stop() {
	close(p.quit)
	p.wg.Wait()
}

// batchBuffers recycles the buffers that hold one stream's batches, the
// copies of frames and items that workers decode: neither onepass nor
// encoding/json keeps a reference to its input (a json.Unmarshaler must
// copy what it keeps), so once a batch is decoded its buffer can hold the
// next one. This spares the garbage collector, which shares the same two
// cores, a copy of every byte of the stream. (A sync.Pool would be emptied
// by every garbage collection, and the initial list of a big cluster runs
// dozens.) Each watch or list has its own, holding at most as many buffers
// as it has batches in flight.
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
