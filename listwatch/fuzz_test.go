package listwatch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kinformer/kinformer/api"
)

// FuzzWatchDecoder feeds arbitrary bytes to the watch pipeline. Whatever
// the input: no panic, no hang, every event well formed (an object for
// ADDED/MODIFIED/DELETED/BOOKMARK, an error for ERROR, nothing after an
// error), and the same events whether the bytes arrive at once or one by
// one, and whether read by the decoder directly or through the
// streamWatcher goroutine, decoding on one goroutine or on four.
//
//	go test ./listwatch -run '^$' -fuzz FuzzWatchDecoder -fuzztime 30s
func FuzzWatchDecoder(f *testing.F) {
	for _, seed := range []string{
		podFrame(api.Added, "a", "1") + podFrame(api.Modified, "a", "2") + podFrame(api.Deleted, "a", "3"),
		podFrame(api.Bookmark, "", "9") + expiredFrame,
		`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"46245","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}` + "\n",
		"\r\n\n" + strings.TrimSuffix(podFrame(api.Added, "a", "1"), "\n"),
		`{"type":"ADDED","object":null}` + "\n",
		`{"type":"ERROR","object":{"kind":"Status","code":"410"}}` + "\n",
		`{"type":"ADDED","object":{"metadata":{"name":` + "\n",
		"not json at all\n",
		`{"type":"ADDED","object":{}}{"type":"ADDED","object":{}}`,
		strings.Repeat("x", 300),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxFrame = 256
		whole := decodeAll(bytes.NewReader(data), maxFrame)
		checkEvents(t, whole)
		if oneByOne := decodeAll(iotest.OneByteReader(bytes.NewReader(data)), maxFrame); fmt.Sprint(oneByOne) != fmt.Sprint(whole) {
			t.Fatalf("chunking changed the events:\nwhole:    %q\nbyte-wise: %q", whole, oneByOne)
		}
		if piped := decodeThroughWatcher(t, data, maxFrame, 1); fmt.Sprint(piped) != fmt.Sprint(whole) {
			t.Fatalf("the streamWatcher changed the events:\ndecoder: %q\nwatcher: %q", whole, piped)
		}
		if parallel := decodeThroughWatcher(t, data, maxFrame, 4); fmt.Sprint(parallel) != fmt.Sprint(whole) {
			t.Fatalf("decoding on 4 workers changed the events:\ndecoder:  %q\nparallel: %q", whole, parallel)
		}
	})
}

// checkEvents: only the last line may be an ERROR or BROKEN one.
func checkEvents(t *testing.T, lines []string) {
	for i, l := range lines {
		if (strings.HasPrefix(l, "ERROR ") || strings.HasPrefix(l, "BROKEN ")) && i != len(lines)-1 {
			t.Fatalf("an event after the stream failed: %q", lines)
		}
	}
}

// decodeThroughWatcher runs data through a streamWatcher and renders its
// events as decodeAll does.
func decodeThroughWatcher(t *testing.T, data []byte, maxFrame, workers int) []string {
	ctx, cancel := context.WithCancel(context.Background())
	body := io.NopCloser(bytes.NewReader(data))
	w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, Pods, maxFrame), workers, nil)
	defer w.Stop()
	var out []string
	for ev := range w.ResultChan() {
		switch {
		case ev.Type == api.Error && ev.Object != nil:
			t.Fatalf("an Error event with an object: %+v", ev)
		case ev.Type == api.Error && ev.Err == nil:
			t.Fatalf("an Error event without an error")
		case ev.Type == api.Error:
			if _, isStatus := ev.Err.(*StatusError); isStatus {
				out = append(out, "ERROR "+ev.Err.Error())
			} else {
				out = append(out, "BROKEN "+ev.Err.Error())
			}
		case ev.Object == nil:
			t.Fatalf("a %s event without an object", ev.Type)
		default:
			if _, ok := ev.Object.(*api.Pod); !ok {
				t.Fatalf("an object of type %T", ev.Object)
			}
			out = append(out, fmt.Sprintf("%s %s %s", ev.Type, ev.Object.GetName(), ev.Object.GetResourceVersion()))
		}
	}
	return out
}
