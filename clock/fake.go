package clock

import (
	"context"
	"sync"
	"time"
)

// FakeClock is a Clock whose time only changes when a test calls Step or
// SetTime. Timers and tickers made from it fire, in deadline order, during
// the Step or SetTime call that moves time past their deadline.
//
// Channels of fake timers are buffered with room for one value, like the
// channels of real timers, so firing never blocks the test. A ticker that
// misses several periods in one big Step fires once, as a real ticker drops
// ticks for a slow receiver.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeWaiter
	changed chan struct{} // closed and replaced whenever the set of waiters grows
}

type fakeWaiter struct {
	clock    *FakeClock
	deadline time.Time
	period   time.Duration // > 0 for tickers
	ch       chan time.Time
	active   bool
}

var _ Clock = (*FakeClock)(nil)

// NewFakeClock returns a fake clock that reads t until it is moved.
func NewFakeClock(t time.Time) *FakeClock {
	return &FakeClock{now: t, changed: make(chan struct{})}
}

func (f *FakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *FakeClock) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

func (f *FakeClock) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

func (f *FakeClock) NewTimer(d time.Duration) Timer {
	return f.addWaiter(d, 0)
}

func (f *FakeClock) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	return fakeTicker{f.addWaiter(d, d)}
}

func (f *FakeClock) addWaiter(d, period time.Duration) *fakeWaiter {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := &fakeWaiter{clock: f, deadline: f.now.Add(d), period: period, ch: make(chan time.Time, 1), active: true}
	if d <= 0 && period == 0 {
		// A timer for a non-positive duration fires at once, as time.NewTimer(0) does.
		w.ch <- f.now
		w.active = false
		return w
	}
	f.waiters = append(f.waiters, w)
	close(f.changed)
	f.changed = make(chan struct{})
	return w
}

// Step moves the clock forward by d and fires every timer that is due.
func (f *FakeClock) Step(d time.Duration) {
	f.SetTime(f.Now().Add(d))
}

// SetTime sets the clock to t and fires every timer whose deadline is at or
// before t.
func (f *FakeClock) SetTime(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.active {
			continue
		}
		if w.deadline.After(t) {
			kept = append(kept, w)
			continue
		}
		select {
		case w.ch <- t:
		default: // the receiver has not taken the last tick yet: drop this one
		}
		if w.period > 0 {
			for !w.deadline.After(t) {
				w.deadline = w.deadline.Add(w.period)
			}
			kept = append(kept, w)
			continue
		}
		w.active = false
	}
	// Zero the tail so dropped waiters can be collected.
	for i := len(kept); i < len(f.waiters); i++ {
		f.waiters[i] = nil
	}
	f.waiters = kept
}

// Waiters reports how many timers and tickers are armed.
func (f *FakeClock) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// HasWaiters reports whether any timer or ticker is armed.
func (f *FakeClock) HasWaiters() bool { return f.Waiters() > 0 }

// BlockUntilWaiters waits until at least n timers or tickers are armed, or ctx
// ends. Call it before Step so the code under test is already waiting when
// time moves.
func (f *FakeClock) BlockUntilWaiters(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		count, changed := len(f.waiters), f.changed
		f.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *fakeWaiter) C() <-chan time.Time { return w.ch }

func (w *fakeWaiter) Stop() bool {
	f := w.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	wasActive := w.active
	w.active = false
	f.removeLocked(w)
	return wasActive
}

func (w *fakeWaiter) Reset(d time.Duration) bool {
	f := w.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	wasActive := w.active
	f.removeLocked(w)
	w.deadline = f.now.Add(d)
	w.active = true
	if d <= 0 {
		select {
		case w.ch <- f.now:
		default:
		}
		w.active = false
		return wasActive
	}
	f.waiters = append(f.waiters, w)
	close(f.changed)
	f.changed = make(chan struct{})
	return wasActive
}

func (f *FakeClock) removeLocked(w *fakeWaiter) {
	for i, x := range f.waiters {
		if x == w {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			return
		}
	}
}

type fakeTicker struct{ w *fakeWaiter }

func (t fakeTicker) C() <-chan time.Time { return t.w.ch }
func (t fakeTicker) Stop()               { t.w.Stop() }
