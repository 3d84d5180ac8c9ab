// Package leakcheck finds goroutines a package's tests left running. Every
// package that starts goroutines calls it from TestMain:
//
//	func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/deltafifo.") }
//
// A goroutine counts as leaked if its stack mentions the marker (the
// package's import path suffix and a dot) once the tests are done; the check
// gives stragglers a few seconds to exit first. It does what
// go.uber.org/goleak does, in a page, without the extra module.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Main runs the tests and then fails the binary if goroutines whose stacks
// mention marker are still running.
func Main(m *testing.M, marker string) {
	code := m.Run()
	if code == 0 {
		if leaked := Find(marker, 5*time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "leakcheck: goroutines left running after the tests:\n\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// Find waits up to grace for goroutines mentioning marker to exit and
// returns the stacks of those still running ("" if none).
func Find(marker string, grace time.Duration) string {
	deadline := time.Now().Add(grace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		leaked := matching(marker)
		if len(leaked) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		<-tick.C
	}
}

func matching(marker string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, marker) && !strings.Contains(g, "internal/leakcheck.") && !strings.Contains(g, ".TestMain(") {
			out = append(out, g)
		}
	}
	return out
}
