package listwatch

import (
	"context"
	"io"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// streamWatcher is an open watch (client-go's watch.StreamWatcher): one
// goroutine, receive, reads the body frame by frame and sends each event on
// a channel of resultBuffer events. The buffer lets decoding run a little
// ahead of the consumer instead of the two goroutines waking each other for
// every event (which costs more than the decoding saves: see
// BenchmarkWatchDecode100kPods); once it is full, receive stops reading,
// and the TCP window, not this process's memory, absorbs a slow consumer.
//
// How a stream ends, and what the caller sees:
//
//	server ends it cleanly (timeoutSeconds)   channel closed
//	server sends an ERROR frame               that Error event, channel closed
//	malformed/oversized frame, cut connection one Error event saying so, channel closed
//	Stop, or the Watch's context cancelled    channel closed (no Error event)
//
// Stop and cancellation are prompt even while receive is blocked reading:
// they cancel the request's context, which makes the HTTP transport abort
// the read.
//
// receive reads and decodes through the seam (decode.go): the plain loop,
// decodeWatchPlain, or the fast one, which decodes a stream whose frames
// queue up on several goroutines and delivers them in the same order, with
// the same endings.
type streamWatcher struct {
	result   chan Event
	done     chan struct{}
	stopOnce sync.Once
	cancel   context.CancelFunc
	tracer   *trace.Tracer  // nil: off
	decoder  decoder        // Config.Decoder and DecodeWorkers
	wg       sync.WaitGroup // the fast form's frame cutter, which outlives receive a little
	parallel bool           // the fast form went parallel (for tests; read after ResultChan closes)
}

// resultBuffer is how many decoded events may wait for the consumer, as
// apimachinery's watch.DefaultChanSize.
const resultBuffer = 100

// newStreamWatcher starts receiving from body, decoding its frames (dec)
// with d. ctx is the request's context and cancel cancels it; body is
// closed when the stream ends.
func newStreamWatcher(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, dec *watchDecoder, d decoder, t *trace.Tracer) *streamWatcher {
	d.workers = max(d.workers, 1)
	w := &streamWatcher{result: make(chan Event, resultBuffer), done: make(chan struct{}), cancel: cancel, tracer: t, decoder: d}
	go w.receive(ctx, body, dec)
	return w
}

// ResultChan delivers the events; it is closed when the stream ends.
func (w *streamWatcher) ResultChan() <-chan Event { return w.result }

// Stop ends the stream. It does not wait for the receiving goroutine, which
// exits at once and closes ResultChan; events already buffered may still be
// read before the close. Stop may be called more than once.
func (w *streamWatcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.cancel()
	})
}

func (w *streamWatcher) receive(ctx context.Context, body io.ReadCloser, dec *watchDecoder) {
	defer close(w.result)
	defer body.Close()
	defer w.cancel()
	w.decoder.watch(ctx, w, dec) // decode.go
}

// send delivers what the decoder made of a frame: the event, or for an error the
// Error event that ends the stream; a clean end (io.EOF) and an error after
// Stop end it silently. It reports whether the stream goes on.
func (w *streamWatcher) send(ctx context.Context, ev Event, err error) bool {
	if err != nil {
		if err == io.EOF || w.stopped(ctx) {
			w.traceEnd(ctx, err)
			return false // a clean end, or the caller's wish: nothing to report
		}
		ev = Event{Type: api.Error, Err: err}
	}
	w.traceFrame(ev)
	select {
	case w.result <- ev:
	case <-w.done:
		return false
	case <-ctx.Done():
		return false
	}
	return ev.Type != api.Error // an ERROR frame or a broken stream is the last event
}

// traceFrame reports a decoded frame (or the error that ends the stream).
func (w *streamWatcher) traceFrame(ev Event) {
	if !w.tracer.On() {
		return
	}
	if ev.Type == api.Error {
		w.tracer.Warn("watch ended", trace.Err(ev.Err))
		return
	}
	key := ev.Object.GetName()
	if ns := ev.Object.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	if ev.Type == api.Bookmark {
		key = ""
	}
	w.tracer.Event("frame decoded", trace.Type(string(ev.Type)), trace.Key(key), trace.RV(ev.Object.GetResourceVersion()))
}

// traceEnd reports a stream that ended without an error event.
func (w *streamWatcher) traceEnd(ctx context.Context, err error) {
	if !w.tracer.On() {
		return
	}
	why := "the server ended it"
	if err != io.EOF || w.stopped(ctx) {
		why = "stopped by the client"
	}
	w.tracer.Event("watch ended", trace.Reason(why))
}

// stopped reports whether Stop was called or the context ended.
func (w *streamWatcher) stopped(ctx context.Context) bool {
	select {
	case <-w.done:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
