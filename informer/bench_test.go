package informer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// Benchmarks of the whole pipeline. Run them with, e.g.:
//
//	go test ./informer -run '^$' -bench . -benchmem -benchtime=2x

// waitSynced polls f every millisecond (WaitForCacheSync's 100 ms would
// blur the measurement).
func waitSynced(f func() bool) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !f() {
		<-t.C
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

var (
	seededOnce sync.Once
	seededSrv  *fakeapiserver.Server
	seededURL  string
)

// seededServer is a fake API server holding 50,000 pods, shared by every
// run of the benchmark (seeding takes longer than syncing).
func seededServer(b *testing.B) (*fakeapiserver.Server, string) {
	seededOnce.Do(func() {
		seededSrv = fakeapiserver.New(fakeapiserver.Options{})
		if err := seededSrv.SeedPods("default", 50_000); err != nil {
			b.Fatal(err)
		}
		seededURL = httptest.NewServer(seededSrv).URL // lives as long as the benchmark binary
	})
	return seededSrv, seededURL
}

// Initial sync of 50,000 pods: the time from Run to HasSynced (ns/op: list,
// decode, queue, into the indexer), and the heap each cached pod costs.
//
//   - fakeapiserver: the articles' informer (a LIST into a DeltaFIFO) from
//     the fake API server, paged 500 a page as client-go's pager does (the
//     server's paging and encoding included).
//   - fakeapiserver-today: today's informer from the same server: a
//     streaming list, one watch whose 50,000 ADDED frames (each flushed on
//     its own, as the fake server writes a watch) end with the
//     initial-events-end bookmark, into a RealFIFO.
//   - static-list: the articles' informer, the same 50,000 pods as one
//     pre-encoded list, so only the client side is measured (the bench
//     package compares both informers on prebuilt bytes).
func BenchmarkInformer_InitialSync50kPods(b *testing.B) {
	srv, url := seededServer(b)
	b.Run("fakeapiserver", func(b *testing.B) { benchmarkInitialSync(b, url, Articles) })
	b.Run("fakeapiserver-today", func(b *testing.B) { benchmarkInitialSync(b, url, Today) })

	pods, rv, err := srv.List("pods", "default")
	if err != nil {
		b.Fatal(err)
	}
	list, err := json.Marshal(map[string]any{"kind": "PodList", "apiVersion": "v1",
		"metadata": map[string]string{"resourceVersion": rv}, "items": pods})
	if err != nil {
		b.Fatal(err)
	}
	staticURL, stop := streamServer(list, nil)
	defer stop()
	b.Run("static-list", func(b *testing.B) { benchmarkInitialSync(b, staticURL, Articles) })
}

func benchmarkInitialSync(b *testing.B, url string, pipeline Pipeline) {
	client, err := listwatch.NewClient(listwatch.Config{Server: url})
	if err != nil {
		b.Fatal(err)
	}
	var bytesPerPod float64
	for b.Loop() {
		b.StopTimer()
		before := heapInUse()
		lw := listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "default", nil)
		// Today only from the fake API server: the static list's server
		// answers no streaming list.
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, SharedIndexInformerOptions{Pipeline: pipeline, Logger: quiet})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		b.StartTimer()

		go func() { defer close(done); inf.Run(ctx) }()
		waitSynced(inf.HasSynced)

		b.StopTimer()
		if n := len(inf.GetStore().ListKeys()); n != 50_000 {
			b.Fatalf("cached %d pods, want 50000", n)
		}
		bytesPerPod = float64(heapInUse()-before) / 50_000
		runtime.KeepAlive(inf)
		cancel()
		<-done
		b.StartTimer()
	}
	b.ReportMetric(bytesPerPod, "B/cached-pod")
}

const (
	watchPods   = 1_000
	watchEvents = 100_000
)

var emptyList = []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)

// watchFrames encodes a watch stream of 100,000 events: an ADDED for each of
// 1,000 pods, then MODIFIED events going round them, every event with the
// next resourceVersion.
func watchFrames(b *testing.B) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	rv := 1
	for i := range watchEvents {
		rv++
		typ := api.Modified
		if i < watchPods {
			typ = api.Added
		}
		p := &api.Pod{
			TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
			ObjectMeta: api.ObjectMeta{
				Name: fmt.Sprintf("web-%04d", i%watchPods), Namespace: "default",
				UID:             fmt.Sprintf("5f1c3f0e-6a1b-4c2d-9e8f-%012d", i%watchPods),
				ResourceVersion: strconv.Itoa(rv),
				Labels:          map[string]string{"app": "web", "tier": "frontend"},
			},
			Spec:   api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}, NodeName: "node-1"},
			Status: api.PodStatus{Phase: api.PodRunning},
		}
		obj, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := enc.Encode(api.WatchEvent{Type: typ, Object: obj}); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Bytes()
}

// streamServer answers every list with list (whatever the page size asked
// for: a server may ignore limit) and the first watch with frames; other
// watches stay open, quiet, until the client goes away.
func streamServer(list, frames []byte) (url string, stop func()) {
	var watches atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			_, _ = w.Write(list)
			return
		}
		if watches.Add(1) == 1 {
			_, _ = w.Write(frames)
			return
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	return hs.URL, hs.Close
}

// A 100,000-event watch through the whole pipeline (HTTP chunked stream,
// frame decode, Reflector, DeltaFIFO, HandleDeltas, indexer, processor,
// listener) to a handler that counts, beside a plain json.Decoder decoding
// the same bytes into the same types. x-raw-decode is the ratio of the two:
// how much the informer costs on top of the JSON decoding it cannot avoid.
func BenchmarkPipeline_Watch100kEvents(b *testing.B) {
	frames := watchFrames(b)
	rawDecode := func() {
		dec := json.NewDecoder(bytes.NewReader(frames))
		for {
			var ev struct {
				Type   api.EventType `json:"type"`
				Object *api.Pod      `json:"object"`
			}
			if err := dec.Decode(&ev); err == io.EOF {
				return
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}

	b.Run("raw-json-decode", func(b *testing.B) {
		b.SetBytes(int64(len(frames)))
		for b.Loop() {
			rawDecode()
		}
	})

	b.Run("informer", func(b *testing.B) { benchmarkWatchPipeline(b, frames, nil, rawDecode) })
	// Tracing on, every event of every stage to a consumer that only
	// counts them: what tracing costs when it is on.
	b.Run("informer-traced", func(b *testing.B) {
		var events atomic.Int64
		tr := trace.New(trace.Func(func(trace.Event) { events.Add(1) }))
		benchmarkWatchPipeline(b, frames, tr, rawDecode)
		b.ReportMetric(float64(events.Load())/float64(b.N)/watchEvents, "trace-events/event")
	})
}

// benchmarkWatchPipeline runs the watch of frames through a whole informer,
// traced by tr (nil: off), and reports its time as a ratio to rawDecode's.
func benchmarkWatchPipeline(b *testing.B, frames []byte, tr *trace.Tracer, rawDecode func()) {
	b.SetBytes(int64(len(frames)))
	for b.Loop() {
		b.StopTimer()
		url, stop := streamServer(emptyList, frames)
		client, err := listwatch.NewClient(listwatch.Config{Server: url, Tracer: tr})
		if err != nil {
			b.Fatal(err)
		}
		lw := listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "default", nil)
		// The articles' informer: the server answers a list, then a watch.
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, SharedIndexInformerOptions{Pipeline: Articles, Logger: quiet, Tracer: tr})
		var count atomic.Int64
		all := make(chan struct{})
		count1 := func() {
			if count.Add(1) == watchEvents {
				close(all)
			}
		}
		if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs{
			AddFunc:    func(any, bool) { count1() },
			UpdateFunc: func(any, any) { count1() },
		}); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		b.StartTimer()

		go func() { defer close(done); inf.Run(ctx) }()
		<-all

		b.StopTimer()
		cancel()
		<-done
		stop()
		b.StartTimer()
	}
	perOp := float64(b.Elapsed()) / float64(b.N)
	start := time.Now()
	rawDecode()
	b.ReportMetric(perOp/float64(time.Since(start)), "x-raw-decode")
}
