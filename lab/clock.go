package lab

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
)

// Clock is the lab's clock, a clock.Clock for every timer of the pipeline
// (the Reflector's backoff and watch timeouts, the informer's resync, the
// work queue's delays, the server's bookmarks). While the lab runs, its
// time runs at Speed times the wall clock; while the lab is paused it
// stands still, so a backoff that was 5 s from its end when the learner
// paused is still 5 s from its end an hour later; and Jump moves it to its
// next timer at once, which is how a step reaches a hop that waits for
// time.
//
// Run drives it: without Run, time only moves by Jump (as a FakeClock).
type Clock struct {
	mu       sync.Mutex
	speed    float64
	paused   bool
	virtBase time.Time // the clock's time at realBase
	realBase time.Time
	waiters  []*waiter
	kick     chan struct{} // wakes Run: a timer, a pause or a speed changed
}

var _ clock.Clock = (*Clock)(nil)

// NewClock returns a running Clock at start, at the wall clock's speed.
func NewClock(start time.Time) *Clock {
	return &Clock{speed: 1, virtBase: start, realBase: time.Now(), kick: make(chan struct{}, 1)}
}

func (c *Clock) nowLocked() time.Time {
	if c.paused {
		return c.virtBase
	}
	return c.virtBase.Add(time.Duration(float64(time.Since(c.realBase)) * c.speed))
}

// rebaseLocked makes now the base, before the speed or the pause changes.
func (c *Clock) rebaseLocked() {
	c.virtBase = c.nowLocked()
	c.realBase = time.Now()
}

func (c *Clock) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Now is the lab's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

// Since is Now().Sub(t).
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// After is NewTimer(d).C().
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

// NewTimer returns a timer that fires when the lab's time reaches now+d.
func (c *Clock) NewTimer(d time.Duration) clock.Timer { return c.add(d, 0) }

// NewTicker returns a ticker on the lab's time.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("lab: non-positive interval for NewTicker")
	}
	return ticker{c.add(d, d)}
}

// Pause stops the lab's time; Resume starts it again from where it stood.
func (c *Clock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		c.rebaseLocked()
		c.paused = true
	}
	c.wake()
}

// Resume starts the lab's time again.
func (c *Clock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		c.realBase = time.Now()
		c.paused = false
	}
	c.wake()
}

// SetSpeed sets how many seconds of lab time pass per second of wall
// clock while the clock runs (0.25: four times slower).
func (c *Clock) SetSpeed(speed float64) {
	if speed <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rebaseLocked()
	c.speed = speed
	c.wake()
}

// Speed is the clock's speed.
func (c *Clock) Speed() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speed
}

// Next is when the next timer fires, if one is set.
func (c *Clock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return time.Time{}, false
	}
	return c.waiters[0].when, true
}

// Jump moves the lab's time to its next timer and fires it (and any other
// due then). It reports how far time moved, and false if no timer is set.
func (c *Clock) Jump() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return 0, false
	}
	now := c.nowLocked()
	moved := max(0, c.waiters[0].when.Sub(now))
	c.virtBase = now.Add(moved)
	c.realBase = time.Now()
	c.fireLocked(c.virtBase)
	c.wake()
	return moved, true
}

// Run fires the timers as the lab's time reaches them, until ctx ends.
func (c *Clock) Run(ctx context.Context) {
	for {
		c.mu.Lock()
		now := c.nowLocked()
		c.fireLocked(now)
		var due <-chan time.Time
		var t *time.Timer
		if !c.paused && len(c.waiters) > 0 {
			t = time.NewTimer(time.Duration(float64(c.waiters[0].when.Sub(now)) / c.speed))
			due = t.C
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			if t != nil {
				t.Stop()
			}
			return
		case <-c.kick:
		case <-due:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// fireLocked fires every timer due at now, re-arming tickers.
func (c *Clock) fireLocked(now time.Time) {
	for len(c.waiters) > 0 && !c.waiters[0].when.After(now) {
		w := c.waiters[0]
		c.waiters = c.waiters[1:]
		select {
		case w.ch <- w.when:
		default: // a ticker's reader is behind: the tick is dropped, as time.Ticker does
		}
		if w.period > 0 {
			w.when = w.when.Add(w.period)
			if !w.when.After(now) {
				w.when = now.Add(w.period)
			}
			c.insertLocked(w)
		} else {
			w.active = false
		}
	}
}

func (c *Clock) insertLocked(w *waiter) {
	i, _ := slices.BinarySearchFunc(c.waiters, w.when, func(x *waiter, t time.Time) int {
		if x.when.After(t) {
			return 1
		}
		return -1 // equal deadlines fire in the order they were set
	})
	c.waiters = slices.Insert(c.waiters, i, w)
}

func (c *Clock) removeLocked(w *waiter) {
	if i := slices.Index(c.waiters, w); i >= 0 {
		c.waiters = slices.Delete(c.waiters, i, i+1)
	}
}

func (c *Clock) add(d, period time.Duration) *waiter {
	w := &waiter{c: c, ch: make(chan time.Time, 1), period: period}
	w.Reset(d)
	return w
}

// waiter is a timer or a ticker on the lab's clock.
type waiter struct {
	c      *Clock
	ch     chan time.Time
	when   time.Time
	period time.Duration
	active bool
}

func (w *waiter) C() <-chan time.Time { return w.ch }

// Stop stops the timer; as time.Timer's since Go 1.23, no value sent
// before Stop is received after it.
func (w *waiter) Stop() bool {
	c := w.c
	c.mu.Lock()
	defer c.mu.Unlock()
	was := w.active
	w.active = false
	c.removeLocked(w)
	drain(w.ch)
	return was
}

// Reset re-arms the timer to fire d from now.
func (w *waiter) Reset(d time.Duration) bool {
	c := w.c
	c.mu.Lock()
	defer c.mu.Unlock()
	was := w.active
	c.removeLocked(w)
	drain(w.ch)
	now := c.nowLocked()
	w.when = now.Add(d)
	w.active = true
	if d <= 0 && w.period == 0 {
		w.ch <- now
		w.active = false
		return was
	}
	c.insertLocked(w)
	c.wake()
	return was
}

func drain(ch chan time.Time) {
	select {
	case <-ch:
	default:
	}
}

type ticker struct{ w *waiter }

func (t ticker) C() <-chan time.Time { return t.w.ch }
func (t ticker) Stop()               { t.w.Stop() }
