package bench

import (
	"bytes"
	"os"
	"strconv"
)

// machineCPU is the machine's time so far, in clock ticks summed over its
// cores, as the kernel counts it in /proc/stat's first line: idle (idle
// and waiting for I/O) and in soft interrupts, which no process's CPU time
// includes (on loopback, much of the network's receiving). ok is false if
// it cannot be read.
func machineCPU() (idle, softirq float64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line) // cpu user nice system idle iowait irq softirq ...
	if len(f) < 8 || string(f[0]) != "cpu" {
		return 0, 0, false
	}
	var v [7]float64
	for i := range v {
		if v[i], err = strconv.ParseFloat(string(f[i+1]), 64); err != nil {
			return 0, 0, false
		}
	}
	return v[3] + v[4], v[6], true
}
