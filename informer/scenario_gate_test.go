package informer

import (
	"context"
	"net"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/reflector"
)

// The two pieces of plumbing that make a scenario deterministic: an
// in-memory listener for the fake server, and a gate around the queue.

// scListener is a net.Listener whose connections are net.Pipe pairs made by
// its dial (listwatch.Config.Dial). Pipes are channels underneath, so a
// goroutine waiting on one is durably blocked for synctest.Wait, and all
// of it lives inside the bubble.
type scListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu  sync.Mutex
	all []net.Conn
}

func newScListener() *scListener {
	return &scListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *scListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *scListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *scListener) Addr() net.Addr { return scAddr{} }

func (l *scListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	l.mu.Lock()
	l.all = append(l.all, client, server)
	l.mu.Unlock()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	return nil, net.ErrClosed
}

// closeAll closes both ends of every connection ever made (the client's
// idle keep-alive connections among them).
func (l *scListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.all {
		c.Close()
	}
}

type scAddr struct{}

func (scAddr) Network() string { return "pipe" }
func (scAddr) String() string  { return "fakeapiserver" }

// scGate wraps the informer's queue (through the wrapQueue seam). Every
// write the Reflector makes waits at the gate before it runs ("write",
// "resync") and after it has run ("written", "resynced"); every Pop waits
// before it runs ("pop"). The harness opens one spot at a time, only once
// the whole pipeline has settled, so each queue operation, and what it
// sets off, happens alone. A pause keeps "pop" shut, so deltas pile up.
type scGate struct {
	inner deltafifo.Queue

	mu     sync.Mutex
	parked map[string][]chan struct{}
	paused bool

	closed    chan struct{}
	closeOnce sync.Once
}

func newScGate(inner deltafifo.Queue) *scGate {
	return &scGate{inner: inner, parked: map[string][]chan struct{}{}, closed: make(chan struct{})}
}

// wait parks the calling goroutine at spot until the harness opens it or
// the gate is opened for good.
func (g *scGate) wait(spot string) {
	ch := make(chan struct{})
	g.mu.Lock()
	g.parked[spot] = append(g.parked[spot], ch)
	g.mu.Unlock()
	select {
	case <-ch:
	case <-g.closed:
	}
}

// open lets the first goroutine parked at spot go on; false if none is.
func (g *scGate) open(spot string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	waiting := g.parked[spot]
	if len(waiting) == 0 {
		return false
	}
	close(waiting[0])
	g.parked[spot] = waiting[1:]
	return true
}

func (g *scGate) setPaused(p bool) {
	g.mu.Lock()
	g.paused = p
	g.mu.Unlock()
}

func (g *scGate) isPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

// openForGood lets everything through from now on (teardown).
func (g *scGate) openForGood() { g.closeOnce.Do(func() { close(g.closed) }) }

// len is the number of items queued.
func (g *scGate) len() int {
	if l, ok := g.inner.(interface{ Len() int }); ok {
		return l.Len()
	}
	return 0
}

// next opens the next spot, in the order that lets the informer keep up:
// a Pop (if something is queued and the pop is not paused), then the
// Reflector after its write, then the Reflector's next write, then a
// resync. It reports whether it opened one.
func (g *scGate) next() bool {
	if !g.isPaused() && g.len() > 0 && g.open("pop") {
		return true
	}
	for _, spot := range []string{"written", "resynced", "write", "resync"} {
		if g.open(spot) {
			return true
		}
	}
	return false
}

func (g *scGate) write(op func() error) error {
	g.wait("write")
	err := op()
	g.wait("written")
	return err
}

func (g *scGate) Add(obj api.Object) error { return g.write(func() error { return g.inner.Add(obj) }) }
func (g *scGate) Update(obj api.Object) error {
	return g.write(func() error { return g.inner.Update(obj) })
}
func (g *scGate) Delete(obj api.Object) error {
	return g.write(func() error { return g.inner.Delete(obj) })
}
func (g *scGate) Replace(list []api.Object, rv string) error {
	return g.write(func() error { return g.inner.Replace(list, rv) })
}

func (g *scGate) Resync() error {
	g.wait("resync")
	err := g.inner.Resync()
	g.wait("resynced")
	return err
}

func (g *scGate) Pop(process deltafifo.PopProcessFunc) (deltafifo.Deltas, error) {
	g.wait("pop")
	return g.inner.Pop(process)
}

func (g *scGate) HasSynced() bool { return g.inner.HasSynced() }

func (g *scGate) HasSyncedChecker() deltafifo.DoneChecker { return g.inner.HasSyncedChecker() }

func (g *scGate) Close() {
	g.openForGood()
	g.inner.Close()
}

// scModesGate is the gate around a RealFIFO with client-go 1.36's modes
// (today's informer): it also lets through, one step at a time as the
// others, the watch's bookmarks the Reflector hands the queue (a write)
// and the batch pops of the processLoop (a pop), so a script sees today's
// informer whole.
type scModesGate struct {
	*scGate
}

func (g scModesGate) Bookmark(rv string) error {
	return g.write(func() error { return g.inner.(reflector.ReflectorBookmarkStore).Bookmark(rv) })
}

func (g scModesGate) PopBatch(processBatch deltafifo.ProcessBatchFunc, processSingle deltafifo.PopProcessFunc) error {
	g.wait("pop")
	return g.inner.(deltafifo.QueueWithBatch).PopBatch(processBatch, processSingle)
}
