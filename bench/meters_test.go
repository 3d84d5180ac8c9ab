package bench

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// What the pipeline benchmarks (pipeline_test.go) measure besides time:
// the CPU they used, and how busy the Go scheduler kept its processors
// (cpuMeter); the heap during and after a sync (peakSampler, liveHeap).

// cpuMeter adds up, over the timed parts of a benchmark (resume where the
// timer starts, pause where it stops), the process's CPU time as the OS
// counts it (processCPU), and, as the Go runtime estimates them
// (runtime/metrics' /cpu/classes), the time its processors (Ps, GOMAXPROCS
// of them) were idle, with no goroutine to run, and the time they spent
// collecting garbage.
type cpuMeter struct {
	start, total time.Duration
	at, sum      cpuClasses
	// The machine's idle and soft-interrupt ticks (machineCPU); not
	// reported if a read of them failed (machineBad).
	idleAt, softAt, idle, soft float64
	machineBad                 bool
}

func (m *cpuMeter) resume() {
	m.start, m.at = processCPU(), readCPUClasses()
	var ok bool
	m.idleAt, m.softAt, ok = machineCPU()
	m.machineBad = m.machineBad || !ok
}

func (m *cpuMeter) pause() {
	m.total += processCPU() - m.start
	if idle, soft, ok := machineCPU(); ok {
		m.idle += idle - m.idleAt
		m.soft += soft - m.softAt
	} else {
		m.machineBad = true
	}
	now := readCPUClasses()
	m.sum.idle += now.idle - m.at.idle
	m.sum.gc += now.gc - m.at.gc
	m.sum.all += now.all - m.at.all
}

// report adds four metrics:
//
//	cores         CPU time ÷ wall time, as the OS counts it: at most 2 on
//	              this machine, less when other processes take the cores
//	busy-Ps       GOMAXPROCS minus the Ps' idle time ÷ wall time: how many
//	              of its cores the process had work for (2: both, always;
//	              above cores when the OS gave the cores to others)
//	gc-share      the Ps' time collecting garbage ÷ their busy time
//	cpu-ns/event  the OS's CPU time per event
//
// They count every thread of the process: the test server's writing too.
// On Linux two more say what the kernel saw of the whole machine meanwhile
// (/proc/stat), which Go's count cannot: busy-Ps near 2 while the machine
// sat idle means goroutines waiting on each other or on the socket.
//
//	machine-idle  cores the machine left idle ÷ wall time
//	softirq       cores in the kernel's soft interrupts ÷ wall time (on
//	              loopback much of the network's receiving, which cores
//	              does not include)
func (m *cpuMeter) report(b *testing.B, events int) {
	wall := b.Elapsed().Seconds()
	if m.total <= 0 || wall <= 0 {
		return // not measured on this platform
	}
	b.ReportMetric(m.total.Seconds()/wall, "cores")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0))-m.sum.idle/wall, "busy-Ps")
	if busy := m.sum.all - m.sum.idle; busy > 0 {
		b.ReportMetric(m.sum.gc/busy, "gc-share")
	}
	b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N)/float64(events), "cpu-ns/event")
	if !m.machineBad {
		b.ReportMetric(m.idle/clockTicks/wall, "machine-idle")
		b.ReportMetric(m.soft/clockTicks/wall, "softirq")
	}
}

// clockTicks is /proc/stat's unit (machineCPU): USER_HZ, 100 a second on
// Linux.
const clockTicks = 100

// cpuClasses is what the runtime estimates its Ps spent their time on, in
// seconds summed over the Ps, since the process started.
type cpuClasses struct{ all, idle, gc float64 }

func readCPUClasses() cpuClasses {
	s := []metrics.Sample{
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
	}
	metrics.Read(s)
	return cpuClasses{all: s[0].Value.Float64(), idle: s[1].Value.Float64(), gc: s[2].Value.Float64()}
}

// heapObjectsBytes reads runtime/metrics' /memory/classes/heap/objects:bytes:
// the bytes of heap objects, live or dead but not yet swept. Right after a
// GC it is the live heap; between GCs it is what the heap really holds.
func heapObjectsBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// markedLiveBytes reads /gc/heap/live:bytes: the heap the last GC found
// live. Sampled during a sync, its high-water is the most the pipeline
// held on to at once (objects decoded and queued, the cache), whatever
// garbage the collector let pile up around it.
func markedLiveBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	return heapObjectsBytes()
}

// peakSampler polls heapObjectsBytes and markedLiveBytes every millisecond
// until stopped and keeps the highest value of each.
type peakSampler struct {
	stop       chan struct{}
	done       chan struct{}
	peak, live uint64
}

func startPeakSampler() *peakSampler {
	s := &peakSampler{stop: make(chan struct{}), done: make(chan struct{}), peak: heapObjectsBytes(), live: markedLiveBytes()}
	go func() {
		defer close(s.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := heapObjectsBytes(); v > s.peak {
				s.peak = v
			}
			if v := markedLiveBytes(); v > s.live {
				s.live = v
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling and returns the two high-waters.
func (s *peakSampler) Stop() (peak, live uint64) {
	close(s.stop)
	<-s.done
	return max(s.peak, heapObjectsBytes()), max(s.live, markedLiveBytes())
}
