package patch

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

const pkgPath = "github.com/kinformer/kinformer/fakeapiserver/internal/patch"

// TestMain runs the tests, then fails if any goroutine started from this
// package is still alive. The package starts none; the check keeps it so.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitForLeaks(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines from %s still running after the tests:\n%s\n", pkgPath, leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// waitForLeaks polls until no goroutine but the caller's mentions pkgPath,
// or the deadline passes, and then returns the stacks of those left.
func waitForLeaks(timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		leaked := leakedGoroutines()
		if leaked == "" || time.Now().After(deadline) {
			return leaked
		}
		<-tick.C
	}
}

func leakedGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	stacks := strings.Split(string(buf), "\n\n")
	var leaked []string
	for _, s := range stacks[1:] { // stacks[0] is this goroutine
		if strings.Contains(s, pkgPath) {
			leaked = append(leaked, s)
		}
	}
	return strings.Join(leaked, "\n\n")
}
