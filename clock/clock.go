// Package clock lets code that waits be tested without waiting.
//
// Everything in kinformer that sleeps, times out, backs off or resyncs asks a
// Clock for the time and for timers instead of calling package time directly.
// Production code uses RealClock; tests use a FakeClock and move time forward
// by hand with Step or SetTime, so a 30-second resync or a 5-minute watch
// timeout takes no wall-clock time at all and happens exactly when the test
// says so.
//
// The package is public so a controller author can run their own tests the
// way kinformer's are run: pass a FakeClock in reflector.Options,
// informer.SharedIndexInformerOptions, informer.FactoryOptions or
// workqueue.QueueConfig and step it (informer's Example_resyncOnFakeTime
// tests a handler's resync that way).
//
// This mirrors k8s.io/utils/clock, which client-go uses for the same purpose.
// The fake clock adds BlockUntilWaiters, so a test can wait until the code under
// test is actually parked on a timer before it steps time (stepping too early is
// the classic source of flaky timer tests).
package clock

import "time"

// Clock tells the time and makes timers. RealClock is backed by package time;
// FakeClock only moves when a test moves it.
type Clock interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	// After is NewTimer(d).C() without a way to stop the timer.
	After(d time.Duration) <-chan time.Time
	NewTimer(d time.Duration) Timer
	NewTicker(d time.Duration) Ticker
}

// Timer is time.Timer behind an interface.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing. It reports whether the call stopped
	// the timer (false if it had already fired or been stopped).
	Stop() bool
	// Reset re-arms the timer to fire after d. It reports whether the timer was
	// active before the call.
	Reset(d time.Duration) bool
}

// Ticker is time.Ticker behind an interface.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// RealClock is the wall clock.
type RealClock struct{}

var _ Clock = RealClock{}

func (RealClock) Now() time.Time                         { return time.Now() }
func (RealClock) Since(t time.Time) time.Duration        { return time.Since(t) }
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (RealClock) NewTimer(d time.Duration) Timer         { return realTimer{time.NewTimer(d)} }
func (RealClock) NewTicker(d time.Duration) Ticker       { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }
