package workqueue

import (
	"testing"
	"time"

	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/trace"
)

// TestMain runs the tests, then fails if any goroutine started by this
// package (a waiting loop, a metrics loop, a test's worker) is still alive:
// every queue a test makes must be shut down.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/workqueue.") }

// epoch is where every fake clock in these tests starts.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// getQueued takes an item that the test knows is queued; it fails the test
// instead of blocking if the queue is empty.
func getQueued[T comparable](t *testing.T, q Interface[T]) T {
	t.Helper()
	if q.Len() == 0 {
		t.Fatal("Get on an empty queue would block: expected an item to be queued")
	}
	item, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get reported shutdown while an item was queued")
	}
	return item
}

// traceConfig returns cfg with the queue's trace written to t.Log, so that
// `go test -run X -v` shows every add, get, done and retry and a plain `go
// test` stays quiet. A Tracer already set wins.
func traceConfig(t testing.TB, cfg QueueConfig) QueueConfig {
	if cfg.Tracer == nil {
		cfg.Tracer = trace.ForTest(t)
	}
	return cfg
}

// stepClock moves the fake clock on by d and says so in the test's log: the
// queue's trace shows what is due then.
func stepClock(t testing.TB, clk interface {
	Step(time.Duration)
	Now() time.Time
}, d time.Duration) {
	t.Helper()
	clk.Step(d)
	t.Logf("clock: +%v (now %v after the epoch)", d, clk.Now().Sub(epoch))
}

// countEvents sums recorded events by what happened: "add" 12, "get" 9 ...
func countEvents(rec *trace.Recorder) map[string]int {
	n := map[string]int{}
	for _, e := range rec.Events() {
		n[e.What]++
	}
	return n
}
