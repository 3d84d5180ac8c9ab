package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// The yardsticks the pipeline benchmarks (pipeline_test.go) are measured
// against, in the same run: the same bytes decoded with nothing else, on
// one goroutine or on two.

// bareWatchDecode is the yardstick: one goroutine, one json.Decoder over
// the watch bytes, a fresh event (and pod) per frame, nothing else.
func bareWatchDecode(tb testing.TB, stream []byte) {
	dec := json.NewDecoder(bytes.NewReader(stream))
	n := 0
	for {
		var ev bareEvent
		if err := dec.Decode(&ev); err == io.EOF {
			break
		} else if err != nil {
			tb.Fatal(err)
		}
		if ev.Object == nil {
			tb.Fatalf("event %d has no object", n)
		}
		n++
	}
	if n != watchEvents {
		tb.Fatalf("decoded %d events, want %d", n, watchEvents)
	}
}

// onepassWatchDecode is bareWatchDecode with the decoder the pipeline
// uses: one goroutine cuts the stream at newlines and decodes each frame
// with onepass.Unmarshal into a fresh event.
func onepassWatchDecode(tb testing.TB, stream []byte) {
	n := 0
	for rest := stream; len(rest) > 0; {
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		var ev bareEvent
		if err := onepass.Unmarshal(rest[:end], &ev); err != nil {
			tb.Fatal(err)
		}
		if ev.Object == nil {
			tb.Fatalf("event %d has no object", n)
		}
		n++
		rest = rest[min(end+1, len(rest)):]
	}
	if n != watchEvents {
		tb.Fatalf("decoded %d events, want %d", n, watchEvents)
	}
}

// onepassWatchDecodeHalves is onepassWatchDecode on two goroutines, each
// over half the stream (cut at a frame end), with nothing else: no HTTP,
// no order kept, no queue, no cache. Its x-onepass is the most any
// pipeline on two cores could reach with this decoder on this machine
// (the garbage collector shares the same two cores).
func onepassWatchDecodeHalves(tb testing.TB, stream []byte) {
	mid := bytes.IndexByte(stream[len(stream)/2:], '\n') + len(stream)/2 + 1
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, half := range [][]byte{stream[:mid], stream[mid:]} {
		wg.Go(func() {
			for rest := half; len(rest) > 0; {
				end := bytes.IndexByte(rest, '\n')
				if end < 0 {
					end = len(rest)
				}
				var ev bareEvent
				if err := onepass.Unmarshal(rest[:end], &ev); err != nil || ev.Object == nil {
					return // the count below catches it
				}
				counts[i]++
				rest = rest[min(end+1, len(rest)):]
			}
		})
	}
	wg.Wait()
	if n := counts[0] + counts[1]; n != watchEvents {
		tb.Fatalf("decoded %d events, want %d", n, watchEvents)
	}
}

// bareWatchDecodeHalves is the machine's ceiling for any two-goroutine
// pipeline: the stream cut in two halves at a frame end, each decoded by
// its own goroutine with its own json.Decoder, with nothing else (no HTTP,
// no order kept, no queue). Its x-bare is how much a second goroutine can
// add on this machine at all: on two hyperthreads of one core, well
// under 2.
func bareWatchDecodeHalves(tb testing.TB, stream []byte) {
	mid := bytes.IndexByte(stream[len(stream)/2:], '\n') + len(stream)/2 + 1
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, half := range [][]byte{stream[:mid], stream[mid:]} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec := json.NewDecoder(bytes.NewReader(half))
			for {
				var ev bareEvent
				if err := dec.Decode(&ev); err != nil {
					return // io.EOF at the end; the count below catches anything else
				}
				counts[i]++
			}
		}()
	}
	wg.Wait()
	if n := counts[0] + counts[1]; n != watchEvents {
		tb.Fatalf("decoded %d events, want %d", n, watchEvents)
	}
}

// bareListDecode decodes the list body in one json.Unmarshal.
func bareListDecode(tb testing.TB, body []byte) {
	var l api.PodList
	if err := json.Unmarshal(body, &l); err != nil {
		tb.Fatal(err)
	}
	if len(l.Items) != listPods {
		tb.Fatalf("decoded %d pods, want %d", len(l.Items), listPods)
	}
}

// onepassListDecodeHalves decodes the list's items on two goroutines, each
// half of them, each item into a new pod (as the pipeline decodes them),
// with nothing else: the most a list sync on two cores could reach with
// this decoder on this machine.
func onepassListDecodeHalves(tb testing.TB, items [][]byte) {
	mid := len(items) / 2
	var wg sync.WaitGroup
	decoded := make([][]*api.Pod, 2)
	for i, half := range [][][]byte{items[:mid], items[mid:]} {
		wg.Go(func() {
			pods := make([]*api.Pod, 0, len(half))
			for _, item := range half {
				p := new(api.Pod)
				if err := onepass.Unmarshal(item, p); err != nil {
					return // the count below catches it
				}
				pods = append(pods, p)
			}
			decoded[i] = pods
		})
	}
	wg.Wait()
	if n := len(decoded[0]) + len(decoded[1]); n != listPods {
		tb.Fatalf("decoded %d pods, want %d", n, listPods)
	}
}

// onepassListDecode decodes the list body in one onepass.Unmarshal.
func onepassListDecode(tb testing.TB, body []byte) {
	var l api.PodList
	if err := onepass.Unmarshal(body, &l); err != nil {
		tb.Fatal(err)
	}
	if len(l.Items) != listPods {
		tb.Fatalf("decoded %d pods, want %d", len(l.Items), listPods)
	}
}
