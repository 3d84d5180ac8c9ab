package fakeapiserver

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
	"fmt"
	"strings"
	"bytes"
	"syscall"
	"encoding/json"
)

func TestScratchLoad(t *testing.T) {
	tmplB, _ := os.ReadFile("../bench/testdata/pod.json")
	tmpl := string(bytes.TrimSpace(tmplB))
	s := New(Options{})
	runtime.GC(); runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	n := 100000
	start := time.Now()
	var jsonBytes int
	var loadTime time.Duration
	for b := 0; b < n; b += 1000 {
		batch := make([][]byte, 0, 1000)
		for i := b; i < b+1000; i++ {
			r := strings.NewReplacer("__NAME__", fmt.Sprintf("web-7d9f8b6c5d-%07d", i), "__UID__", fmt.Sprintf("%08x-6dde-4e82-83f3-%012x", i, i*7919),
				`"resourceVersion":"__RV__",`, "", "__NODE__", fmt.Sprint(i%5000))
			batch = append(batch, []byte(r.Replace(tmpl)))
			jsonBytes += len(batch[len(batch)-1])
		}
		t0 := time.Now()
		if _, err := s.Load("pods", batch); err != nil {
			t.Fatal(err)
		}
		loadTime += time.Since(t0)
	}
	el := time.Since(start)
	runtime.GC(); runtime.GC()
	runtime.ReadMemStats(&m1)
	t.Logf("%d pods in %v (load %v, %v/pod); heap %d B/pod; json %d B/pod", n, el, loadTime, loadTime/time.Duration(n), (m1.HeapAlloc-m0.HeapAlloc)/uint64(n), jsonBytes/n)
	f, _ := os.Create("/tmp/p3heap.prof"); pprof.WriteHeapProfile(f); f.Close()
	runtime.KeepAlive(s)
}

func BenchmarkScratchScan(b *testing.B) {
	tmplB, _ := os.ReadFile("../bench/testdata/pod.json")
	pod := bytes.TrimSpace(tmplB)
	want := loadWanted(lookupResource("", "v1", "pods"))
	b.SetBytes(int64(len(pod)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanLoaded(pod, want); err != nil {
			b.Fatal(err)
		}
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestScratchScanCPU(t *testing.T) {
	tmplB, _ := os.ReadFile("../bench/testdata/pod.json")
	pod := bytes.TrimSpace(tmplB)
	want := loadWanted(lookupResource("", "v1", "pods"))
	for r := 0; r < 3; r++ {
		c0 := cpuNow()
		n := 20000
		for i := 0; i < n; i++ {
			scanLoaded(pod, want)
		}
		c1 := cpuNow()
		for i := 0; i < n; i++ {
			json.Valid(pod)
		}
		c2 := cpuNow()
		t.Logf("scan %v/op cpu; json.Valid %v/op", (c1-c0)/time.Duration(n), (c2-c1)/time.Duration(n))
	}
}
