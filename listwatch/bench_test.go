package listwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
)

// The watch pipeline's cost should be the cost of decoding JSON. These
// benchmarks decode the same 100,000 MODIFIED frames of a real pod (as a
// v1.36 kube-apiserver sent it, testdata/pod.json, 1.4 KiB) three ways:
//
//	BenchmarkRawJSONDecoder100kPods        article 004's loop: json.NewDecoder(body).Decode
//	BenchmarkWatchDecode100kPods           kinformer's pipeline: frames, events, goroutine, channel
//	BenchmarkWatchDecode100kPodsOverHTTP   the same through a real chunked HTTP response
//
// Compare the first two for the overhead over raw JSON:
//
//	go test ./listwatch -run '^$' -bench '100kPods' -benchmem -benchtime 5x

const benchEvents = 100_000

var (
	benchOnce   sync.Once
	benchStream []byte
)

// watchStream100kPods returns the 100k frames (pod-0 .. pod-99999, each with
// its own resourceVersion), built once.
func watchStream100kPods(b *testing.B) []byte {
	benchOnce.Do(func() {
		raw, err := os.ReadFile("testdata/pod.json")
		if err != nil {
			panic(err)
		}
		raw = bytes.TrimSpace(raw)
		var buf bytes.Buffer
		for i := range benchEvents {
			obj := bytes.Replace(raw, []byte(`"name":"demo-d"`), fmt.Appendf(nil, `"name":"pod-%d"`, i), 1)
			obj = bytes.Replace(obj, []byte(`"resourceVersion":"46223"`), fmt.Appendf(nil, `"resourceVersion":"%d"`, 100+i), 1)
			buf.WriteString(`{"type":"MODIFIED","object":`)
			buf.Write(obj)
			buf.WriteString("}\n")
		}
		benchStream = buf.Bytes()
	})
	return benchStream
}

// BenchmarkRawJSONDecoder100kPods is the yardstick: a bare json.Decoder
// loop into a fresh *api.Pod per event, with nothing else.
func BenchmarkRawJSONDecoder100kPods(b *testing.B) {
	stream := watchStream100kPods(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(stream))
		n := 0
		for {
			var ev struct {
				Type   string   `json:"type"`
				Object *api.Pod `json:"object"`
			}
			if err := dec.Decode(&ev); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("decoded %d events, want %d", n, benchEvents)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
}

// BenchmarkWatchDecode100kPods runs the same bytes through the watch
// pipeline: frameReader, watchDecoder, the streamWatcher goroutine and its
// channel, to a consumer in another goroutine.
func BenchmarkWatchDecode100kPods(b *testing.B) {
	stream := watchStream100kPods(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		body := io.NopCloser(bytes.NewReader(stream))
		w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, Pods, DefaultMaxWatchFrameSize), nil)
		countEvents(b, w)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
}

// BenchmarkWatchDecode100kPodsOverHTTP serves the frames as a watch does,
// one flushed chunk each, and watches them through a Client.
func BenchmarkWatchDecode100kPodsOverHTTP(b *testing.B) {
	stream := watchStream100kPods(b)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		for rest := stream; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n') + 1
			_, _ = w.Write(rest[:i])
			_ = rc.Flush()
			rest = rest[i:]
		}
	}))
	defer hs.Close()
	c, err := NewClient(Config{Server: hs.URL})
	if err != nil {
		b.Fatal(err)
	}
	pods := For[*api.Pod](c, Pods)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := pods.Watch(context.Background(), "default", ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		countEvents(b, w)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
}

func countEvents(b *testing.B, w Watch) {
	n := 0
	for ev := range w.ResultChan() {
		if ev.Type != api.Modified || ev.Object == nil {
			b.Fatalf("event %d: %s %v", n, ev.Type, ev.Err)
		}
		n++
	}
	if n != benchEvents {
		b.Fatalf("decoded %d events, want %d", n, benchEvents)
	}
}
