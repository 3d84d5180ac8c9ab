//go:build !linux

package bench

// machineCPU is not measured here: the machine-idle and softirq metrics
// are not reported.
func machineCPU() (idle, softirq float64, ok bool) { return 0, 0, false }
