//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used so far, user and
// system, on every thread: the informer's, the test server's and the
// garbage collector's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
