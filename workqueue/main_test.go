package workqueue

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain runs the tests, then fails if any goroutine started by this
// package (a waiting loop, a metrics loop, a test's worker) is still alive:
// every queue a test makes must be shut down.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitForPackageGoroutines(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "workqueue: goroutines still running after the tests:\n\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

const packagePath = "github.com/kinformer/kinformer/workqueue"

// waitForPackageGoroutines polls until no goroutine other than TestMain's
// has this package on its stack, or the deadline passes; it returns the
// stacks still alive then.
func waitForPackageGoroutines(timeout time.Duration) string {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		leaked := packageGoroutines()
		if leaked == "" {
			return ""
		}
		select {
		case <-deadline.C:
			return leaked
		case <-tick.C:
		}
	}
}

func packageGoroutines() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, packagePath) && !strings.Contains(g, packagePath+".TestMain") {
			leaked = append(leaked, g)
		}
	}
	return strings.Join(leaked, "\n\n")
}

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
