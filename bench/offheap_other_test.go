//go:build !unix

package bench

// offHeap: see offheap_unix_test.go. Elsewhere the body stays on the heap,
// and peak-heap-MB includes the garbage the collector lets pile up because
// of it.
func offHeap(b []byte) []byte { return b }
