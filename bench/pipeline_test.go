package bench

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

var quiet = slog.New(slog.DiscardHandler)

// Yardsticks, measured by the bare-decode sub-benchmarks and reused by the
// pipelines of the same run for their x-bare ratio (measured once on the
// spot if the bare sub-benchmark was filtered out).
//
// x-onepass, the ratio to the pipeline's own decoder on one goroutine,
// takes its yardstick closer: that loop runs, untimed, right before each
// pipeline run it is compared with. On this shared machine two runs
// seconds apart see much the same load; the bare-onepass row, minutes
// earlier, may have seen another.
var (
	bareWatchNs time.Duration // one bare decode of the watch stream
	bareListNs  time.Duration // one bare decode of the list body

	// The same with onepass.Unmarshal, for the bare-onepass rows' x-bare.
	onepassWatchNs time.Duration
	onepassListNs  time.Duration
)

func timeOnce(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// BenchmarkWatchPipeline100k: 100,000 MODIFIED events of ~3.9 KB pods
// (10,000 pods, 10 events each) over loopback HTTP from prebuilt frames,
// through listwatch → reflector → queue → indexer → a handler that counts;
// ns/op is from Run to the handler's 100,000th call.
//
//   - bare-decode: the yardstick, a single-goroutine json.Decoder loop.
//   - bare-decode-2-goroutines: two goroutines, each a json.Decoder loop
//     over half the stream: what a second core adds to decoding alone.
//   - bare-onepass: a single-goroutine loop with the pipeline's decoder,
//     onepass.Unmarshal (internal/onepass).
//   - bare-onepass-2-goroutines: the same on two goroutines, each over half
//     the stream: the ceiling of x-onepass on this machine.
//   - Today, Articles: the two informers (informer.Pipeline), side by
//     side; the rest are the articles' informer with one of today's pieces
//     added (pipelines below).
//   - RealFIFO, RealFIFO-1.36: the articles' list then watch, with the
//     1.33 queue, or with it in client-go 1.36's modes
//     (informer.ClientGo136): a watch event is not merged or reordered
//     either way, but the informer pops up to 1,000 at once into one cache
//     transaction, and the Reflector's writes do not wait for the handlers.
//     Today is RealFIFO-1.36 with a streaming list instead of list then
//     watch.
//   - Articles-nohandler: no handler; done when the indexer holds the last
//     event (polled every ms). The difference to Articles is the cost of
//     handler dispatch.
//
// x-bare is the pipeline's events/s ÷ the bare loop's: above 1 the
// pipeline beats one goroutine decoding. x-onepass is the same against
// the bare-onepass loop, run right before each run: what the pipeline
// gains beyond its faster decoder.
func BenchmarkWatchPipeline100k(b *testing.B) {
	d := watchStream(b)
	b.Run("bare-decode", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		var cpu cpuMeter
		cpu.resume()
		for b.Loop() {
			bareWatchDecode(b, d.stream)
		}
		cpu.pause()
		bareWatchNs = b.Elapsed() / time.Duration(b.N)
		reportEvents(b, watchEvents)
		cpu.report(b, watchEvents)
	})
	b.Run("bare-decode-2-goroutines", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		var cpu cpuMeter
		cpu.resume()
		for b.Loop() {
			bareWatchDecodeHalves(b, d.stream)
		}
		cpu.pause()
		reportEvents(b, watchEvents)
		cpu.report(b, watchEvents)
		b.ReportMetric(float64(bareWatchNs)/float64(b.Elapsed()/time.Duration(b.N)), "x-bare")
	})
	b.Run("bare-onepass", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		var cpu cpuMeter
		cpu.resume()
		for b.Loop() {
			onepassWatchDecode(b, d.stream)
		}
		cpu.pause()
		onepassWatchNs = b.Elapsed() / time.Duration(b.N)
		reportEvents(b, watchEvents)
		cpu.report(b, watchEvents)
		if bareWatchNs == 0 {
			bareWatchNs = timeOnce(func() { bareWatchDecode(b, d.stream) })
		}
		b.ReportMetric(float64(bareWatchNs)/float64(onepassWatchNs), "x-bare")
	})
	b.Run("bare-onepass-2-goroutines", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		var cpu cpuMeter
		var yardstick time.Duration
		for b.Loop() {
			b.StopTimer()
			yardstick += timeOnce(func() { onepassWatchDecode(b, d.stream) })
			runtime.GC()
			b.StartTimer()
			cpu.resume()
			onepassWatchDecodeHalves(b, d.stream)
			cpu.pause()
		}
		reportEvents(b, watchEvents)
		cpu.report(b, watchEvents)
		b.ReportMetric(float64(yardstick)/float64(b.Elapsed()), "x-onepass")
	})
	for _, p := range pipelines {
		b.Run(p.name, func(b *testing.B) { benchWatchPipeline(b, d, p.opts, true) })
	}
	b.Run("Articles-nohandler", func(b *testing.B) { benchWatchPipeline(b, d, articles, false) })
}

func reportEvents(b *testing.B, events int) {
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(events)/(perOp/1e9), "events/s")
	b.ReportMetric(perOp/float64(events), "ns/event")
}

// The informers the pipeline benchmarks compare, in this order in both:
// today's and the articles' (informer.Pipeline), then the articles' list
// then watch with one of today's pieces added at a time, the queue first.
//
// Until both informers were measured, the articles' informer was the row
// named DeltaFIFO (the same options: Articles' queue is the DeltaFIFO), and
// Articles-nohandler was DeltaFIFO-nohandler: docs/performance.md's history
// quotes those names.
var (
	today    = informer.SharedIndexInformerOptions{Pipeline: informer.Today}
	articles = informer.SharedIndexInformerOptions{Pipeline: informer.Articles}

	pipelines = []struct {
		name string
		opts informer.SharedIndexInformerOptions
	}{
		// client-go 1.36: a streaming list (one watch with
		// sendInitialEvents=true; the server answers it as fakeapiserver
		// does, server_test.go), then the same watch; a RealFIFO with all
		// of 1.36's modes.
		{"Today", today},
		// The articles': a list, then a watch from its version; a
		// DeltaFIFO.
		{"Articles", articles},
		// The articles' list then watch with the RealFIFO of the
		// InOrderInformers gate (1.33).
		{"RealFIFO", informer.SharedIndexInformerOptions{Pipeline: informer.Articles, Queue: informer.RealFIFOQueue}},
		// The same in client-go 1.36's modes (atomic relists, unlocking
		// while processing, batches of up to 1,000 deltas in one cache
		// transaction): Today but for the streaming list.
		{"RealFIFO-1.36", informer.SharedIndexInformerOptions{Pipeline: informer.Articles, Queue: informer.RealFIFOQueue, RealFIFO: informer.ClientGo136()}},
	}
)

// checkFirstRequest fails b unless the informer opened the list it should
// have: a streaming list for Today, a LIST (and no streaming list) for the
// articles' informer and its variants.
func checkFirstRequest(b *testing.B, srv *server, opts informer.SharedIndexInformerOptions) {
	n := srv.streamingLists.Load()
	if streams := opts.Pipeline == informer.Today; streams && n == 0 {
		b.Fatal("today's informer opened no streaming list")
	} else if !streams && n != 0 {
		b.Fatalf("the articles' informer opened %d streaming lists", n)
	}
}

func benchWatchPipeline(b *testing.B, d *watchData, opts informer.SharedIndexInformerOptions, handler bool) {
	srv := newServer(emptyList, d.frames)
	defer srv.Close()
	client, err := listwatch.NewClient(listwatch.Config{Server: srv.URL, DecodeWorkers: benchWorkers()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(d.stream)))
	b.ReportAllocs()
	var cpu cpuMeter
	var yardstick time.Duration // the one-goroutine onepass loop, run before each run
	for b.Loop() {
		b.StopTimer()
		yardstick += timeOnce(func() { onepassWatchDecode(b, d.stream) })
		srv.watches.Store(0)
		lw := listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "default", nil)
		opts.Logger = quiet
		inf := informer.NewSharedIndexInformerWithOptions(lw, &api.Pod{}, opts)
		all := make(chan struct{})
		if handler {
			var count atomic.Int64
			count1 := func() {
				if count.Add(1) == watchEvents {
					close(all)
				}
			}
			if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
				AddFunc:    func(any, bool) { count1() },
				UpdateFunc: func(any, any) { count1() },
			}); err != nil {
				b.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		runtime.GC()
		b.StartTimer()
		cpu.resume()

		go func() { defer close(done); inf.Run(ctx) }()
		if handler {
			<-all
		} else {
			waitFor(func() bool {
				obj, ok, _ := inf.GetStore().GetByKey(d.lastKey)
				return ok && obj.(*api.Pod).ResourceVersion == d.lastRV
			})
		}

		cpu.pause()
		b.StopTimer()
		cancel()
		<-done
		checkFirstRequest(b, srv, opts)
		srv.streamingLists.Store(0)
		b.StartTimer()
	}
	reportEvents(b, watchEvents)
	cpu.report(b, watchEvents)
	if bareWatchNs == 0 {
		bareWatchNs = timeOnce(func() { bareWatchDecode(b, d.stream) })
	}
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(bareWatchNs)/float64(perOp), "x-bare")
	b.ReportMetric(float64(yardstick)/float64(b.Elapsed()), "x-onepass")
}

// waitFor polls f every millisecond.
func waitFor(f func() bool) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !f() {
		<-t.C
	}
}

// BenchmarkListSync50k: the initial sync of 50,000 ~3.9 KB pods over
// loopback HTTP, from Run to HasSynced (polled every ms), served as one
// prebuilt PodList body to a LIST, or as 50,000 prebuilt ADDED frames and
// the initial-events-end bookmark to a streaming list.
//
//   - bare-decode: the yardstick, json.Unmarshal of the PodList body.
//   - bare-onepass: onepass.Unmarshal of the same body, the pipeline's
//     decoder on one goroutine.
//   - bare-onepass-2-goroutines: the list's items on two goroutines, each
//     item into a new pod: the ceiling of x-onepass on this machine.
//   - Today: today's informer, a streaming list: one watch whose initial
//     events the Reflector collects, then Replaces the store with (one
//     ReplacedAll item the informer applies in one cache write).
//   - Articles: the articles' informer, a LIST into a DeltaFIFO.
//   - RealFIFO, RealFIFO-1.36: the articles' LIST with the RealFIFO, or
//     with it in client-go 1.36's modes (the list one ReplacedAll item, as
//     in Today).
//
// Custom metrics (the last iteration's):
//
//	peak-heap-MB    high-water of heap objects during the sync, above the
//	                live heap before it (a sampler reads
//	                /memory/classes/heap/objects:bytes every ms)
//	cache-MB        live heap after the sync and two GCs, above the same base
//	peak/cache      the two's ratio
//	peak-live-MB    high-water of the heap the GCs during the sync found
//	                live (/gc/heap/live:bytes, every ms), above the same
//	                base: what the pipeline held on to at once, without
//	                the garbage GOGC lets pile up between collections
//	peak-live/cache its ratio to cache-MB
//	B/cached-pod    cache-MB per pod
//	json-B/pod      the pod's JSON as served
//	kept-json-B/pod the JSON its type keeps (the decoded pod marshalled again)
//	heap/kept-json  B/cached-pod ÷ kept-json-B/pod
//	x-bare          bare decode time ÷ sync time (above 1: faster than bare)
//	x-onepass       bare-onepass time (its loop run right before each
//	                sync) ÷ sync time
func BenchmarkListSync50k(b *testing.B) {
	list := listBodyPods(b)
	body := list.body
	b.Run("bare-decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		var cpu cpuMeter
		cpu.resume()
		for b.Loop() {
			bareListDecode(b, body)
		}
		cpu.pause()
		bareListNs = b.Elapsed() / time.Duration(b.N)
		reportEvents(b, listPods)
		cpu.report(b, listPods)
	})
	b.Run("bare-onepass", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		var cpu cpuMeter
		cpu.resume()
		for b.Loop() {
			onepassListDecode(b, body)
		}
		cpu.pause()
		onepassListNs = b.Elapsed() / time.Duration(b.N)
		reportEvents(b, listPods)
		cpu.report(b, listPods)
		if bareListNs == 0 {
			bareListNs = timeOnce(func() { bareListDecode(b, body) })
		}
		b.ReportMetric(float64(bareListNs)/float64(onepassListNs), "x-bare")
	})
	b.Run("bare-onepass-2-goroutines", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		var cpu cpuMeter
		var yardstick time.Duration
		for b.Loop() {
			b.StopTimer()
			yardstick += timeOnce(func() { onepassListDecode(b, body) })
			runtime.GC()
			b.StartTimer()
			cpu.resume()
			onepassListDecodeHalves(b, list.items)
			cpu.pause()
		}
		reportEvents(b, listPods)
		cpu.report(b, listPods)
		b.ReportMetric(float64(yardstick)/float64(b.Elapsed()), "x-onepass")
	})
	for _, p := range pipelines {
		b.Run(p.name, func(b *testing.B) { benchListSync(b, list, p.opts) })
	}
}

func benchListSync(b *testing.B, list *listData, opts informer.SharedIndexInformerOptions) {
	srv := newServer(list, nil)
	defer srv.Close()
	client, err := listwatch.NewClient(listwatch.Config{Server: srv.URL, DecodeWorkers: benchWorkers()})
	if err != nil {
		b.Fatal(err)
	}
	served := len(list.body) // what the list costs on the wire
	if opts.Pipeline == informer.Today {
		served = streamingListBytes(list)
	}
	b.SetBytes(int64(served))
	b.ReportAllocs()
	var peak, peakLive, cache uint64
	var cpu cpuMeter
	var yardstick time.Duration // onepass.Unmarshal of the list body, before each run
	for b.Loop() {
		b.StopTimer()
		yardstick += timeOnce(func() { onepassListDecode(b, list.body) })
		lw := listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "default", nil)
		opts.Logger = quiet
		inf := informer.NewSharedIndexInformerWithOptions(lw, &api.Pod{}, opts)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		before := liveHeap()
		beforeLive := markedLiveBytes() // the same heap, as the GC saw it
		sampler := startPeakSampler()
		b.StartTimer()
		cpu.resume()

		go func() { defer close(done); inf.Run(ctx) }()
		waitFor(inf.HasSynced)

		cpu.pause()
		b.StopTimer()
		high, highLive := sampler.Stop()
		if n := len(inf.GetStore().ListKeys()); n != listPods {
			b.Fatalf("cached %d pods, want %d", n, listPods)
		}
		after := liveHeap()
		writeCacheProfile(b) // heap_profile_test.go: with $BENCH_HEAP_PROFILE only
		peak, peakLive, cache = high-before, highLive-min(highLive, beforeLive), after-before
		runtime.KeepAlive(inf)
		cancel()
		<-done
		checkFirstRequest(b, srv, opts)
		srv.streamingLists.Store(0)
		b.StartTimer()
	}
	reportEvents(b, listPods)
	cpu.report(b, listPods)
	if bareListNs == 0 {
		bareListNs = timeOnce(func() { bareListDecode(b, list.body) })
	}
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(bareListNs)/float64(perOp), "x-bare")
	b.ReportMetric(float64(yardstick)/float64(b.Elapsed()), "x-onepass")

	tmpl := podTemplate(b)
	obj := appendPod(nil, tmpl, 0, firstRV)
	kept := float64(keptJSONBytes(b, obj))
	perPod := float64(cache) / listPods
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(cache)/(1<<20), "cache-MB")
	b.ReportMetric(float64(peak)/float64(cache), "peak/cache")
	b.ReportMetric(float64(peakLive)/(1<<20), "peak-live-MB")
	b.ReportMetric(float64(peakLive)/float64(cache), "peak-live/cache")
	b.ReportMetric(perPod, "B/cached-pod")
	b.ReportMetric(float64(len(obj)), "json-B/pod")
	b.ReportMetric(kept, "kept-json-B/pod")
	b.ReportMetric(perPod/kept, "heap/kept-json")
}

// benchWorkers is listwatch.Config.DecodeWorkers for the pipeline
// benchmarks, from $BENCH_DECODE_WORKERS (unset or 0: the default pool; 1:
// the single-goroutine loop), so the two can be compared on the same bytes.
func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("BENCH_DECODE_WORKERS"))
	return n
}
