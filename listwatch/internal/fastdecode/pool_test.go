package fastdecode

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// How work reaches the workers. (That the results come back in order, with
// the errors where the one-goroutine loop has them, listwatch's tests show
// through the seam: TestParallelWatchKeepsStreamOrder and friends.)

// deadline bounds every wait in these tests; reaching it is a failure.
const deadline = 10 * time.Second

// decodePodItem is an Item: a list item into a new pod.
func decodePodItem(d *Decoder, raw []byte) (api.Object, error) {
	p := &api.Pod{}
	if err := d.Value(raw, p, false); err != nil {
		return nil, err
	}
	return p, nil
}

// Items go to the workers a batch at a time: one hand-off per batchItems
// items, not one per item, and still in order.
func TestParallelList_HandsOverBatches(t *testing.T) {
	const n = 100
	var items []api.Object
	par := newParallelItems(decodePodItem, &items, 2)
	defer par.stop()
	for i := range n {
		require.NoError(t, par.add(i, []byte(fmt.Sprintf(`{"metadata":{"name":"p-%d"}}`, i))))
	}
	require.NoError(t, par.finish())
	require.Len(t, items, n)
	for i, obj := range items {
		require.Equal(t, fmt.Sprintf("p-%d", i), obj.GetName())
	}
	want := (n + batchItems - 1) / batchItems
	require.Equal(t, want, par.pool.submitted, "hand-offs to the workers")
	t.Logf("fastdecode: %d items handed to 2 workers in %d batches of up to %d, and appended in order", n, par.pool.submitted, batchItems)
}

// chunkFrames is Frames over chunks sent on a channel, each chunk what one
// Read of the body returns: its frames are read together, so after the
// first is cut the others are already there (HasFrame), and the next chunk
// is not.
type chunkFrames struct {
	chunks <-chan string
	read   []string // frames read, not yet cut
	cut    int
}

func (f *chunkFrames) Next() ([]byte, error) {
	for len(f.read) == 0 {
		c, ok := <-f.chunks
		if !ok {
			return nil, io.EOF
		}
		f.read = strings.Split(strings.TrimSuffix(c, "\n"), "\n")
	}
	frame := f.read[0]
	f.read = f.read[1:]
	f.cut++
	return []byte(frame), nil
}

func (f *chunkFrames) Cut() int       { return f.cut }
func (f *chunkFrames) Buffered() bool { return len(f.read) > 0 }
func (f *chunkFrames) HasFrame() bool { return len(f.read) > 0 }
func (f *chunkFrames) Max() int       { return 1 << 20 }

// A watch batches only frames that have arrived whole: frames that are
// already read go together, and a frame followed by nothing is handed
// over at once, without waiting for the next one.
func TestParallelWatch_BatchesOnlyWhatHasArrived(t *testing.T) {
	chunks := make(chan string)
	w := &Watch[string]{
		Frames:  &chunkFrames{chunks: chunks},
		Workers: 2,
		Decode:  func(_ *Decoder, frame []byte, _ int) (string, error) { return string(frame), nil },
	}
	pending := make(chan *frameBatch[string], 8)
	stop := make(chan struct{})
	cut := make(chan struct{})
	go func() { defer close(cut); cutFrames(w, pending, stop) }()
	defer func() { close(stop); close(chunks); <-cut }()

	next := func() []string {
		t.Helper()
		select {
		case b := <-pending:
			<-b.ready
			return b.events
		case <-time.After(deadline):
			t.Fatal("no batch")
			return nil
		}
	}
	// Five frames in one read: they arrive together and go as one batch.
	chunks <- "a0\na1\na2\na3\na4\n"
	require.Equal(t, []string{"a0", "a1", "a2", "a3", "a4"}, next())
	t.Logf("fastdecode: five frames read at once: one batch")

	// One frame, then nothing: it is delivered alone while the cutter
	// waits for more.
	chunks <- "b\n"
	require.Equal(t, []string{"b"}, next())
	t.Logf("fastdecode: one frame and a quiet stream: a batch of one, delivered without waiting")
}

// A worker busy with a batch does not make the cutter wait: the next batch
// waits in the pool for it, so the moment the worker is done it takes that
// one, without waiting for the cutter to be scheduled (with both cores
// decoding, that wait was an idle core at every batch). And a batch handed
// over is always decoded, even if the pool is stopped first: its reader is
// waiting for it.
func TestDecodePool_NextBatchWaitsForABusyWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pool := newDecodePool(1)
		release := make(chan struct{})
		var ran []int
		require.True(t, pool.submit(func(*Decoder) { <-release; ran = append(ran, 1) }, nil))

		handed := make(chan struct{})
		go func() {
			pool.submit(func(*Decoder) { ran = append(ran, 2) }, nil)
			close(handed)
		}()
		synctest.Wait() // the worker holds batch 1; the cutter has moved on
		select {
		case <-handed:
			t.Logf("fastdecode: batch 2 handed over while the only worker decodes batch 1")
		default:
			t.Fatal("the cutter waits for the worker to finish batch 1 before it can hand over batch 2")
		}

		stopped := make(chan struct{})
		go func() { pool.stop(); close(stopped) }()
		close(release)
		<-stopped
		require.Equal(t, []int{1, 2}, ran, "batches decoded, in order, though the pool was stopped with batch 2 waiting")
		require.Equal(t, 1, pool.started, "one worker for the two batches")
		t.Logf("fastdecode: the pool stopped with batch 2 waiting; the worker decoded it first: %v", ran)
	})
}

// The cutter does not wait for a free worker: while every worker is busy,
// submit queues as many jobs as may be in flight (batchesPerWorker a
// worker), so the cutter goes back to its socket and the workers have
// them to go on with. With room for one job a worker, the cutter waited
// here, and a worker done with its batch found the queue empty.
func TestDecodePool_SubmitDoesNotWaitForAFreeWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newDecodePool(1)
		release := make(chan struct{})
		var submitted atomic.Int32
		go func() {
			for range 1 + batchesPerWorker {
				p.submit(func(*Decoder) { <-release }, nil)
				submitted.Add(1)
			}
		}()
		synctest.Wait() // the worker busy with the first job, the submitter done or stuck
		require.Equal(t, int32(1+batchesPerWorker), submitted.Load(), "one job running, %d waiting, none still being submitted", batchesPerWorker)
		t.Logf("fastdecode: one worker busy, %d more jobs queued without waiting for it", batchesPerWorker)
		close(release)
		p.stop()
	})
}
