package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/internal/onepass"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/reflector"
)

// BenchmarkStage: each stage of the watch pipeline alone, on the same
// 100,000 events, every one reporting ns/event so that cmd/benchreport can
// chart where the time goes (some stages are a difference of two of these;
// cmd/benchreport says which).
//
//	frame-cut      bufio.Reader.ReadSlice('\n') over the stream: the floor
//	               of cutting frames (listwatch's own frameReader is in
//	               listwatch's BenchmarkWatchDecode100kPods, with decode)
//	decode         onepass.Unmarshal of each frame's object into a new
//	               api.Pod: the decoder listwatch uses
//	decode-encoding-json
//	               json.Unmarshal of the same: the decoder's yardstick
//	decode-frame   json.Unmarshal of each whole frame into an event whose
//	               object is an *api.Pod
//	listwatch      a TypedClient watch over loopback HTTP, read to the end,
//	               decoding on one goroutine (DecodeWorkers 1, so that
//	               listwatch − decode is the rest of its work): HTTP,
//	               frames, decode, the watcher's goroutine and channel
//	reflector      a Reflector over the same watch (DecodeWorkers 1) into a
//	               Store that counts
//	DeltaFIFO-Add, DeltaFIFO-Pop, RealFIFO-Add, RealFIFO-Pop
//	               100,000 decoded pods (10,000 keys) added, then popped
//	               with a process func that does nothing; allocs/event
//	               counts the mallocs of that half alone
//	indexer-update Update of the 100,000 pods into an indexer with a
//	               namespace index (10,000 keys)
func BenchmarkStage(b *testing.B) {
	d := watchStream(b)
	b.Run("frame-cut", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		for b.Loop() {
			r := bufio.NewReaderSize(bytes.NewReader(d.stream), 64<<10)
			n := 0
			for {
				line, err := r.ReadSlice('\n')
				if len(line) > 0 {
					n++
				}
				if err != nil {
					break
				}
			}
			if n != watchEvents {
				b.Fatalf("cut %d frames, want %d", n, watchEvents)
			}
		}
		reportEvents(b, watchEvents)
	})
	for _, dec := range []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"decode", onepass.Unmarshal}, {"decode-encoding-json", json.Unmarshal}} {
		b.Run(dec.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.stream)))
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range d.objects {
					p := new(api.Pod)
					if err := dec.unmarshal(o, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportEvents(b, watchEvents)
		})
	}
	b.Run("decode-frame", func(b *testing.B) {
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range d.frames {
				var ev bareEvent
				if err := json.Unmarshal(f, &ev); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportEvents(b, watchEvents)
	})
	b.Run("listwatch", func(b *testing.B) {
		srv := newServer(emptyList, d.frames)
		defer srv.Close()
		c, err := listwatch.NewClient(listwatch.Config{Server: srv.URL, DecodeWorkers: 1})
		if err != nil {
			b.Fatal(err)
		}
		pods := listwatch.For[*api.Pod](c, listwatch.Pods)
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		for b.Loop() {
			srv.watches.Store(0)
			w, err := pods.Watch(context.Background(), "default", listwatch.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for ev := range w.ResultChan() {
				if ev.Object == nil {
					b.Fatalf("event %d: %s %v", n, ev.Type, ev.Err)
				}
				if n++; n == watchEvents {
					w.Stop()
				}
			}
			if n != watchEvents {
				b.Fatalf("got %d events, want %d", n, watchEvents)
			}
		}
		reportEvents(b, watchEvents)
	})
	b.Run("reflector", func(b *testing.B) {
		srv := newServer(emptyList, d.frames)
		defer srv.Close()
		c, err := listwatch.NewClient(listwatch.Config{Server: srv.URL, DecodeWorkers: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(d.stream)))
		b.ReportAllocs()
		for b.Loop() {
			srv.watches.Store(0)
			lw := listwatch.NewFilteredListWatchFromClient(c, listwatch.Pods, "default", nil)
			st := &countingStore{all: make(chan struct{})}
			r := reflector.New(lw, st, reflector.Options{ExpectedType: &api.Pod{}, Logger: quiet})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); r.Run(ctx) }()
			<-st.all
			cancel()
			<-done
		}
		reportEvents(b, watchEvents)
	})

	pods := make([]api.Object, len(d.objects))
	for i, o := range d.objects {
		p := new(api.Pod)
		if err := json.Unmarshal(o, p); err != nil {
			b.Fatal(err)
		}
		pods[i] = p
	}
	queues := []struct {
		name string
		make func() deltafifo.Queue
	}{
		{"DeltaFIFO", func() deltafifo.Queue { return deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{}) }},
		{"RealFIFO", func() deltafifo.Queue { return deltafifo.NewRealFIFO(deltafifo.RealFIFOOptions{}) }},
	}
	for _, q := range queues {
		var f deltafifo.Queue
		var popped int
		add := func() {
			f = q.make()
			for _, p := range pods {
				if err := f.Update(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		pop := func() {
			popped = 0
			for {
				if _, err := f.Pop(func(ds deltafifo.Deltas, _ bool) error { popped += len(ds); return nil }); err != nil {
					b.Fatal(err)
				}
				if popped == len(pods) {
					return
				}
			}
		}
		b.Run(q.name+"-Add", func(b *testing.B) { benchHalf(b, nil, add) })
		b.Run(q.name+"-Pop", func(b *testing.B) { benchHalf(b, add, pop) })
	}
	b.Run("indexer-update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
			b.StartTimer()
			for _, p := range pods {
				if err := idx.Update(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportEvents(b, watchEvents)
	})
}

// benchHalf times work (after an untimed prepare) and reports ns/event and
// the mallocs of work alone per event.
func benchHalf(b *testing.B, prepare, work func()) {
	var ms runtime.MemStats
	var mallocs uint64
	for b.Loop() {
		b.StopTimer()
		if prepare != nil {
			prepare()
		}
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		b.StartTimer()
		work()
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
		b.StartTimer()
	}
	reportEvents(b, watchEvents)
	b.ReportMetric(float64(mallocs)/float64(b.N)/watchEvents, "allocs/event")
}

// countingStore is a reflector.Store that counts what it is given and
// keeps nothing.
type countingStore struct {
	n   atomic.Int64
	all chan struct{}
}

func (s *countingStore) one() error {
	if s.n.Add(1) == watchEvents {
		close(s.all)
	}
	return nil
}
func (s *countingStore) Add(api.Object) error               { return s.one() }
func (s *countingStore) Update(api.Object) error            { return s.one() }
func (s *countingStore) Delete(api.Object) error            { return s.one() }
func (s *countingStore) Replace([]api.Object, string) error { return nil }
func (s *countingStore) Resync() error                      { return nil }
