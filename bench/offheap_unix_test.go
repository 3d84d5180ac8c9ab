//go:build unix

package bench

import "syscall"

// offHeap returns a copy of b in memory the Go heap does not own (an
// anonymous mmap), or b itself if that fails.
//
// The benchmarks' server runs in the same process as the informer it
// serves, and its prebuilt bytes (a 200 MB list body, a 400 MB watch
// stream) would otherwise be part of the live heap that the garbage
// collector sizes its next cycle by (GOGC: collect when the heap has grown
// by as much as was live). A real informer never holds the server's
// bytes; with them on the heap, the collector would let hundreds of MB of
// garbage pile up during a sync (or not run at all during it), and the
// peak-heap metrics would measure the benchmark, not the informer.
func offHeap(b []byte) []byte {
	m, err := syscall.Mmap(-1, 0, len(b), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return b
	}
	copy(m, b)
	return m
}
