package workqueue

import (
	"testing"
	"time"

	"github.com/kinformer/kinformer/internal/leakcheck"
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
