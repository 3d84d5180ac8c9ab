package bench

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

// What a cache is made of: with $BENCH_HEAP_PROFILE set to a path prefix,
// BenchmarkListSync50k writes, for each informer, the heap profile of the
// moment it measures cache-MB (the sync over, two GCs, the informer still
// running), to <prefix>-<informer>.pprof. Every allocation is sampled (a
// heap profile's default samples one per 512 KiB), so the sites are
// exact:
//
//	BENCH_HEAP_PROFILE=/tmp/cache go test ./bench -run '^$' -bench 'ListSync50k/Today$' -benchtime 1x -o bench.test
//	go tool pprof -sample_index=inuse_space -top bench.test /tmp/cache-Today.pprof
//
// docs/performance.md quotes them.
var heapProfilePrefix = os.Getenv("BENCH_HEAP_PROFILE")

func init() {
	if heapProfilePrefix != "" {
		runtime.MemProfileRate = 1
	}
}

// writeCacheProfile writes the heap profile of b's informer, if asked.
func writeCacheProfile(b *testing.B) {
	if heapProfilePrefix == "" {
		return
	}
	name := b.Name()[strings.LastIndexByte(b.Name(), '/')+1:]
	f, err := os.Create(heapProfilePrefix + "-" + name + ".pprof")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
