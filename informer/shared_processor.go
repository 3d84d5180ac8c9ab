package informer

import (
	"fmt"
	"sync"

	"github.com/kinformer/kinformer/clock"
)

// sharedProcessor fans the informer's notifications out to its listeners,
// one per registered handler: the observer pattern of the "informer" notes,
// §2.6. It also decides, at each resync tick, which listeners are due for a
// resync (each handler can ask for its own period).
//
// Life cycle: listeners added before start are started by start; listeners
// added after start are started at once; stop closes every listener and
// waits for their goroutines. The informer starts the processor before its
// controller and stops it after the controller returns, so nothing is
// distributed to a processor that is not running.
type sharedProcessor struct {
	clock clock.Clock

	mu sync.RWMutex
	// listeners maps each listener to whether it is due for a resync in
	// the current round (set by shouldResync, read by distribute).
	listeners map[*processorListener]bool
	started   bool

	wg sync.WaitGroup // the listeners' pop and run goroutines
}

func newSharedProcessor(clk clock.Clock) *sharedProcessor {
	return &sharedProcessor{clock: clk, listeners: map[*processorListener]bool{}}
}

// addListener registers a listener, starting it if the processor runs. A
// new listener is not due for a resync until its first period has passed
// (client-go marks it due at once, so a listener added between a resync
// decision and the resync's notifications gets those too; it has just been
// sent every cached object anyway).
func (p *sharedProcessor) addListener(l *processorListener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners[l] = false
	if p.started {
		p.startListenerLocked(l)
	}
}

func (p *sharedProcessor) startListenerLocked(l *processorListener) {
	p.wg.Go(l.run)
	p.wg.Go(l.pop)
}

// removeListener unregisters the listener behind handle and stops it.
// Removing a handle twice, or one this processor never had, is not an
// error; a handle of a foreign type is.
func (p *sharedProcessor) removeListener(handle ResourceEventHandlerRegistration) error {
	l, ok := handle.(*processorListener)
	if !ok {
		return fmt.Errorf("informer: RemoveEventHandler: %T is not a registration returned by AddEventHandler", handle)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, exists := p.listeners[l]; !exists {
		return nil
	}
	delete(p.listeners, l)
	if p.started {
		l.stop()
	}
	return nil
}

// distribute gives a notification to every listener, or, for a resync
// (an update in which nothing changed), only to the listeners due for one.
func (p *sharedProcessor) distribute(n notification) {
	sync := isResync(n)
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l, dueForResync := range p.listeners {
		if !sync || dueForResync {
			l.add(n)
		}
	}
}

// hasListeners reports whether any listener is registered: with none, the
// informer keeps its cache and makes no notifications (HandleDeltas).
func (p *sharedProcessor) hasListeners() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.listeners) > 0
}

// start starts every listener registered so far; later ones start as they
// are added.
func (p *sharedProcessor) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.listeners {
		p.startListenerLocked(l)
	}
	p.started = true
}

// stop stops every listener (notifications still buffered are dropped) and
// waits until their goroutines have returned, which includes waiting for
// any handler call in progress.
func (p *sharedProcessor) stop() {
	p.mu.Lock()
	if p.started {
		for l := range p.listeners {
			l.stop()
		}
	}
	p.listeners = map[*processorListener]bool{}
	p.started = false
	p.mu.Unlock()
	p.wg.Wait()
}

// shouldResync is the Reflector's ShouldResync: at each resync tick it marks
// the listeners whose own period has elapsed as due (and schedules their
// next one) and reports whether any is, so the Reflector only resyncs when
// someone will receive it.
func (p *sharedProcessor) shouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	resyncNeeded := false
	now := p.clock.Now()
	for l := range p.listeners {
		due := l.shouldResync(now)
		p.listeners[l] = due
		if due {
			resyncNeeded = true
			l.determineNextResync(now)
		}
	}
	return resyncNeeded
}
