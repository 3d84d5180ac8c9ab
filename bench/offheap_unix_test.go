//go:build unix

package bench

import "syscall"

// offHeap returns a copy of b in memory the Go heap does not own (an
// anonymous mmap), or b itself if that fails.
//
// The list benchmark's server runs in the same process as the informer it
// serves, and its prebuilt 200 MB body would otherwise be part of the live
// heap that the garbage collector sizes its next cycle by (GOGC: collect
// when the heap has grown by as much as was live). A real informer never
// holds the server's body; with it on the heap, the collector would let
// about 200 MB more garbage pile up during the sync than it would in a
// real client, and the peak-heap metric would measure the benchmark.
func offHeap(b []byte) []byte {
	m, err := syscall.Mmap(-1, 0, len(b), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return b
	}
	copy(m, b)
	return m
}
