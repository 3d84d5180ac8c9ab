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
	"strconv"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
)

// The watch pipeline's cost should be the cost of decoding JSON. These
// benchmarks decode the same 100,000 MODIFIED frames of a real pod (as a
// v1.36 kube-apiserver sent it, testdata/pod.json, 1.4 KiB) three ways:
//
//	BenchmarkRawJSONDecoder100kPods        article 004's loop: json.NewDecoder(body).Decode
//	BenchmarkWatchDecode100kPods           kinformer's pipeline: frames, events, goroutine, channel
//	BenchmarkWatchDecode100kPodsOverHTTP   the same through a real chunked HTTP response
//
// and a list of the same 100,000 pods two ways:
//
//	BenchmarkRawJSONDecodeList100kPods     one json.Decoder.Decode of the whole body into a struct
//	BenchmarkListDecode100kPods            decodeListPlain or decodeListFast, as a Client's List
//
// each also into *api.Unstructured (...100kUnstructured). The pipeline
// benchmarks run with the plain form (plain: Config.Decoder DecodePlain)
// and the fast one, with workers=1 (decoding on one goroutine) and
// workers=default (Config.DecodeWorkers 0: min(GOMAXPROCS, 4)), so one run
// compares all of them:
//
//	go test ./listwatch -run '^$' -bench '100k' -benchmem -benchtime 3x

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

// benchDecoders are the settings every pipeline benchmark runs with: the
// plain form (Config.Decoder DecodePlain), and the fast form on one
// goroutine and on the default number of workers.
var benchDecoders = []struct {
	name string
	d    decoder
}{{"plain", plain}, {"workers=1", fast(1)}, {"workers=default", fast(fastdecode.DefaultWorkers())}}

// unstructuredPods is Pods decoded as *api.Unstructured.
var unstructuredPods = DynamicResource("", "v1", "pods", "Pod", true)

// BenchmarkRawJSONDecoder100kPods is the yardstick: a bare json.Decoder
// loop into a fresh *api.Pod per event, with nothing else.
func BenchmarkRawJSONDecoder100kPods(b *testing.B) { benchRawDecoder[*api.Pod](b) }

// BenchmarkRawJSONDecoder100kUnstructured: the same into *api.Unstructured.
func BenchmarkRawJSONDecoder100kUnstructured(b *testing.B) { benchRawDecoder[*api.Unstructured](b) }

func benchRawDecoder[T any](b *testing.B) {
	stream := watchStream100kPods(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(stream))
		n := 0
		for {
			var ev struct {
				Type   string `json:"type"`
				Object T      `json:"object"`
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
// pipeline: frameReader, watchDecoder, the streamWatcher goroutine (and,
// with workers, its decoding pool) and its channel, to a consumer in
// another goroutine.
func BenchmarkWatchDecode100kPods(b *testing.B) { benchWatchDecode(b, Pods) }

// BenchmarkWatchDecode100kUnstructured: the same into *api.Unstructured.
func BenchmarkWatchDecode100kUnstructured(b *testing.B) { benchWatchDecode(b, unstructuredPods) }

func benchWatchDecode(b *testing.B, r Resource) {
	stream := watchStream100kPods(b)
	for _, bd := range benchDecoders {
		b.Run(bd.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				body := io.NopCloser(bytes.NewReader(stream))
				w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, r, DefaultMaxWatchFrameSize), bd.d, nil)
				countEvents(b, w)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
		})
	}
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
	for _, bd := range benchDecoders {
		b.Run(bd.name, func(b *testing.B) {
			c, err := NewClient(Config{Server: hs.URL, Decoder: bd.d.kind, DecodeWorkers: bd.d.workers})
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
		})
	}
}

var (
	benchListOnce sync.Once
	benchList     []byte
)

// list100kPods is a PodList of the same 100,000 pods, built once.
func list100kPods(b *testing.B) []byte {
	benchListOnce.Do(func() {
		stream := watchStream100kPods(b)
		var buf bytes.Buffer
		buf.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100200"},"items":[`)
		for i, line := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n")), []byte("\n")) {
			if i > 0 {
				buf.WriteByte(',')
			}
			obj := bytes.TrimPrefix(line, []byte(`{"type":"MODIFIED","object":`))
			buf.Write(obj[:len(obj)-1])
		}
		buf.WriteString("]}")
		benchList = buf.Bytes()
	})
	return benchList
}

// BenchmarkRawJSONDecodeList100kPods is the list's yardstick: the whole
// body decoded by one json.Decoder.Decode into a struct.
func BenchmarkRawJSONDecodeList100kPods(b *testing.B) { benchRawList[*api.Pod](b) }

// BenchmarkRawJSONDecodeList100kUnstructured: the same into *api.Unstructured.
func BenchmarkRawJSONDecodeList100kUnstructured(b *testing.B) { benchRawList[*api.Unstructured](b) }

func benchRawList[T any](b *testing.B) {
	body := list100kPods(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var list struct {
			Kind       string       `json:"kind"`
			APIVersion string       `json:"apiVersion"`
			Metadata   api.ListMeta `json:"metadata"`
			Items      []T          `json:"items"`
		}
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&list); err != nil {
			b.Fatal(err)
		}
		if len(list.Items) != benchEvents {
			b.Fatalf("decoded %d items, want %d", len(list.Items), benchEvents)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/item")
}

// BenchmarkListDecode100kPods decodes the list as a Client's List does
// (decodeListPlain, or decodeListFast: streaming, items into Resource.New
// values).
func BenchmarkListDecode100kPods(b *testing.B) { benchListDecode(b, Pods) }

// BenchmarkListDecode100kUnstructured: the same into *api.Unstructured.
func BenchmarkListDecode100kUnstructured(b *testing.B) { benchListDecode(b, unstructuredPods) }

func benchListDecode(b *testing.B, r Resource) {
	body := list100kPods(b)
	for _, bd := range benchDecoders {
		b.Run(bd.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				list, err := bd.d.list(bytes.NewReader(body), r)
				if err != nil {
					b.Fatal(err)
				}
				if len(list.Items) != benchEvents || list.Items[benchEvents-1].GetName() != fmt.Sprintf("pod-%d", benchEvents-1) {
					b.Fatalf("decoded %d items, want %d in order", len(list.Items), benchEvents)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/item")
		})
	}
}

func countEvents(b *testing.B, w Watch) {
	n := 0
	for ev := range w.ResultChan() {
		if ev.Type != api.Modified || ev.Object == nil || ev.Object.GetResourceVersion() != strconv.Itoa(100+n) {
			b.Fatalf("event %d: %s %v", n, ev.Type, ev.Err)
		}
		n++
	}
	if n != benchEvents {
		b.Fatalf("decoded %d events, want %d", n, benchEvents)
	}
}
