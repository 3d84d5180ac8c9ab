package clock

import (
	"context"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestFakeClock_TimerFiresOnlyWhenStepped(t *testing.T) {
	c := NewFakeClock(epoch)
	tm := c.NewTimer(time.Second)
	if fired(tm.C()) {
		t.Fatal("timer fired before time moved")
	}
	c.Step(999 * time.Millisecond)
	if fired(tm.C()) {
		t.Fatal("timer fired before its deadline")
	}
	c.Step(time.Millisecond)
	if !fired(tm.C()) {
		t.Fatal("timer did not fire at its deadline")
	}
	if c.HasWaiters() {
		t.Fatal("fired timer still counted as a waiter")
	}
}

func TestFakeClock_StopAndReset(t *testing.T) {
	c := NewFakeClock(epoch)
	tm := c.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of an armed timer reported false")
	}
	c.Step(time.Hour)
	if fired(tm.C()) {
		t.Fatal("stopped timer fired")
	}
	if tm.Reset(time.Minute) {
		t.Fatal("Reset of a stopped timer reported it was active")
	}
	c.Step(time.Minute)
	if !fired(tm.C()) {
		t.Fatal("reset timer did not fire")
	}
}

func TestFakeClock_TickerDropsMissedTicks(t *testing.T) {
	c := NewFakeClock(epoch)
	tk := c.NewTicker(time.Second)
	defer tk.Stop()
	c.Step(5 * time.Second)
	if !fired(tk.C()) {
		t.Fatal("ticker did not tick")
	}
	if fired(tk.C()) {
		t.Fatal("ticker queued more than one tick")
	}
	c.Step(time.Second)
	if !fired(tk.C()) {
		t.Fatal("ticker stopped ticking after a big step")
	}
}

func TestFakeClock_BlockUntilWaiters(t *testing.T) {
	c := NewFakeClock(epoch)
	done := make(chan struct{})
	go func() {
		<-c.After(time.Minute)
		close(done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c.Step(time.Minute)
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("goroutine never woke")
	}
}

func TestFakeClock_ZeroTimerFiresAtOnce(t *testing.T) {
	c := NewFakeClock(epoch)
	if !fired(c.NewTimer(0).C()) {
		t.Fatal("NewTimer(0) did not fire immediately")
	}
	if got := c.Since(epoch.Add(-time.Second)); got != time.Second {
		t.Fatalf("Since = %v", got)
	}
}
