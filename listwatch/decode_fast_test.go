package listwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/leakcheck"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
	"github.com/kinformer/kinformer/trace"
)

// The fast form of the seam (decode_fast.go, listwatch/internal/fastdecode)
// decoding on several goroutines must show the consumer exactly what its
// one-goroutine loop shows: the same events in the same order, the same
// error at the same place, the same end. (That loop and the plain form
// agree: TestDecode_FastSameAsPlain, FuzzWatchDecoder, FuzzListDecoder.)

var workerCounts = []int{1, 2, 4, 8}

// manyEvents is n events for a few objects, each object's resourceVersion
// rising, with frames of uneven size (so that workers finish out of
// order): a stream on which any reordering shows.
func manyEvents(n int) string {
	var b strings.Builder
	types := []api.EventType{api.Added, api.Modified, api.Modified, api.Deleted}
	for i := range n {
		name := fmt.Sprintf("obj-%d", i%3)
		f := podFrame(types[i%len(types)], name, fmt.Sprint(1000+i))
		if i%7 == 0 { // a much bigger frame now and then
			f = strings.Replace(f, `"namespace":"default"`,
				`"namespace":"default","labels":{"pad":"`+strings.Repeat("p", 60)+`"},"annotations":{"note":"`+strings.Repeat("n", 2000)+`"}`, 1)
		}
		b.WriteString(f)
	}
	return b.String()
}

// watchWith runs data through a streamWatcher with this many workers and
// renders its events as decodeAll does. It also says whether the stream
// was decoded in parallel.
func watchWith(t *testing.T, data io.Reader, maxFrame, workers int) (lines []string, parallel bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := io.NopCloser(data)
	w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, Pods, maxFrame), fast(workers), nil)
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch {
		case ev.Type == api.Error:
			var st *StatusError
			if errors.As(ev.Err, &st) {
				lines = append(lines, "ERROR "+ev.Err.Error())
			} else {
				lines = append(lines, "BROKEN "+ev.Err.Error())
			}
		default:
			lines = append(lines, fmt.Sprintf("%s %s %s", ev.Type, ev.Object.GetName(), ev.Object.GetResourceVersion()))
		}
	}
	waitCutter(t, w)
	return lines, w.parallel
}

// waitCutter waits for a parallel watch's cutting goroutine (and so its
// workers) to be gone.
func waitCutter(t *testing.T, w *streamWatcher) {
	t.Helper()
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatal("the frame cutter did not stop")
	}
}

// Many events for the same three objects come out in the order they were
// sent, whatever the number of workers, read whole or a few bytes at a
// time.
func TestParallelWatchKeepsStreamOrder(t *testing.T) {
	stream := manyEvents(1500)
	want, _ := watchWith(t, strings.NewReader(stream), DefaultMaxWatchFrameSize, 1)
	require.Len(t, want, 1500)
	for _, workers := range workerCounts {
		for _, read := range []struct {
			name string
			r    func() io.Reader
		}{
			{"whole", func() io.Reader { return strings.NewReader(stream) }},
			{"half reads", func() io.Reader { return iotest.HalfReader(strings.NewReader(stream)) }},
		} {
			got, parallel := watchWith(t, read.r(), DefaultMaxWatchFrameSize, workers)
			require.Equal(t, want, got, "workers=%d, %s", workers, read.name)
			assert.Equal(t, workers > 1, parallel, "workers=%d: decoded in parallel", workers)
		}
	}
	t.Logf("listwatch: 1500 events for 3 objects decoded by 1, 2, 4 and 8 workers: the same sequence")
}

// Every way a stream ends, placed after many frames (so that frames are in
// flight on the workers when it comes), ends it at the same event with
// the same error, whatever the number of workers.
func TestParallelWatchEndsAtTheSamePlace(t *testing.T) {
	const maxFrame = 8 << 10
	good := manyEvents(400)
	boom := errors.New("connection reset by peer")
	tests := []struct {
		name string
		r    func() io.Reader
		last string // the start of the last line
	}{
		{"garbage frame in the middle", func() io.Reader {
			return strings.NewReader(good + "<html>502 Bad Gateway</html>\n" + good)
		}, "BROKEN malformed watch frame (frame 401"},
		{"ERROR frame", func() io.Reader { return strings.NewReader(good + expiredFrame + good) }, "ERROR too old resource version"},
		{"unknown event type", func() io.Reader {
			return strings.NewReader(good + `{"type":"RENAMED","object":{}}` + "\n" + good)
		}, "BROKEN malformed watch frame (frame 401"},
		{"object of the wrong shape", func() io.Reader {
			return strings.NewReader(good + `{"type":"ADDED","object":{"metadata":"oops"}}` + "\n" + good)
		}, "BROKEN malformed watch frame (frame 401"},
		{"too-large frame", func() io.Reader {
			return strings.NewReader(good + `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", maxFrame) + "\"}}}\n" + good)
		}, "BROKEN watch stream broken after 400 events: watch frame too large"},
		{"cut in the middle of a frame", func() io.Reader {
			return strings.NewReader(good + podFrame(api.Added, "a", "1")[:50])
		}, "BROKEN watch stream ended in the middle of a frame after 400 events"},
		{"read error", func() io.Reader {
			return io.MultiReader(strings.NewReader(good), iotest.ErrReader(boom))
		}, "BROKEN watch stream broken after 400 events: connection reset by peer"},
		{"a garbage frame before an ERROR frame and a too-large frame", func() io.Reader {
			return strings.NewReader(good + "garbage\n" + expiredFrame + strings.Repeat("x", 2*maxFrame))
		}, "BROKEN malformed watch frame (frame 401"},
		{"clean end without the last newline", func() io.Reader {
			return strings.NewReader(good + strings.TrimSuffix(podFrame(api.Added, "last", "9"), "\n"))
		}, "ADDED last 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _ := watchWith(t, tt.r(), maxFrame, 1)
			require.GreaterOrEqual(t, len(want), 401)
			assert.True(t, strings.HasPrefix(want[len(want)-1], tt.last), "the one-goroutine loop ended with %q", want[len(want)-1])
			for _, workers := range workerCounts[1:] {
				got, parallel := watchWith(t, tt.r(), maxFrame, workers)
				require.True(t, parallel)
				require.Equal(t, want, got, "workers=%d", workers)
			}
			t.Logf("listwatch: 400 events, then %s: the last event with 1, 2, 4, 8 workers: %.100s", tt.name, want[len(want)-1])
		})
	}
}

// endless is a watch body that sends frames until it is closed.
func endless() io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		frames := manyEvents(100)
		for {
			if _, err := io.WriteString(pw, frames); err != nil {
				return
			}
		}
	}()
	return pr
}

// Stop in the middle of a fast stream: the channel closes with no Error
// event, and the cutter and every worker are gone.
func TestParallelWatchStopMidStreamLeavesNoGoroutine(t *testing.T) {
	for _, stop := range []string{"Stop", "context cancelled"} {
		t.Run(stop, func(t *testing.T) {
			outer, cancelOuter := context.WithCancel(context.Background())
			defer cancelOuter()
			ctx, cancel := context.WithCancel(outer)
			body := endless()
			w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, Pods, DefaultMaxWatchFrameSize), fast(4), nil)
			for range 1000 {
				ev := <-w.ResultChan()
				require.NotEqual(t, api.Error, ev.Type)
			}
			if stop == "Stop" {
				w.Stop()
			} else {
				cancelOuter()
			}
			for ev := range w.ResultChan() { // what was already buffered, then the close
				require.NotEqual(t, api.Error, ev.Type, "an Error event after %s: %v", stop, ev.Err)
			}
			waitCutter(t, w)
			require.True(t, w.parallel)
			require.Empty(t, leakcheck.Find("fastdecode.(*decodePool).work", deadline))
			t.Logf("listwatch: %s after 1000 events of an endless stream: channel closed, no goroutine left", stop)
		})
	}
}

// The same through HTTP: a server that floods the watch until the client
// goes; the client cancels its context mid-stream.
func TestParallelWatchContextCancelOverHTTP(t *testing.T) {
	frames := manyEvents(200)
	clientGone := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(clientGone)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, frames); err != nil {
				return
			}
		}
	}))
	defer hs.Close()
	c, err := NewClient(Config{Server: hs.URL, DecodeWorkers: 4, Tracer: trace.ForTest(t)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := For[*api.Pod](c, Pods).Watch(ctx, "default", ListOptions{})
	require.NoError(t, err)
	for i := range 2000 {
		ev := next(t, w)
		require.NotEqual(t, api.Error, ev.Type, "event %d: %v", i, ev.Err)
	}
	cancel()
	for ev := range w.ResultChan() {
		require.NotEqual(t, api.Error, ev.Type)
	}
	select {
	case <-clientGone:
	case <-time.After(deadline):
		t.Fatal("the server did not see the client go")
	}
	require.Empty(t, leakcheck.Find("fastdecode.cutFrames", deadline))
	require.Empty(t, leakcheck.Find("fastdecode.(*decodePool).work", deadline))
}

// A watch whose frames come one per read never starts a worker.
func TestParallelWatchSlowStreamStaysOnTheLoop(t *testing.T) {
	got, parallel := watchWith(t, iotest.OneByteReader(strings.NewReader(manyEvents(3))), DefaultMaxWatchFrameSize, 4)
	assert.Len(t, got, 3)
	assert.False(t, parallel, "one frame per read: decoded in the fast form's loop")
	oneFramePerRead := &frameAtATime{frames: strings.SplitAfter(manyEvents(50), "\n")}
	got, parallel = watchWith(t, oneFramePerRead, DefaultMaxWatchFrameSize, 4)
	assert.Len(t, got, 50)
	assert.False(t, parallel)
}

// frameAtATime returns one frame per Read.
type frameAtATime struct{ frames []string }

func (f *frameAtATime) Read(p []byte) (int, error) {
	for len(f.frames) > 0 && f.frames[0] == "" {
		f.frames = f.frames[1:]
	}
	if len(f.frames) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.frames[0])
	f.frames[0] = f.frames[0][n:]
	return n, nil
}

// ---- lists ----

// listBody is a list response of n pods named item-0..item-(n-1).
func listBody(n int) string {
	var b strings.Builder
	b.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"777","continue":"next"},"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		annotations := ""
		if i%5 == 0 {
			annotations = `,"annotations":{"note":"` + strings.Repeat("n", 3000) + `"}`
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"item-%d","namespace":"default","resourceVersion":"%d"%s},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
			i, 100+i, annotations)
	}
	b.WriteString(`]}`)
	return b.String()
}

// Items come out in order, whatever the number of workers, as typed pods
// and as unstructured objects.
func TestParallelListKeepsOrder(t *testing.T) {
	for _, n := range []int{0, 1, fastdecode.ParallelListAfter, fastdecode.ParallelListAfter + 1, 700} {
		body := listBody(n)
		for _, r := range []Resource{Pods, DynamicResource("", "v1", "pods", "Pod", true)} {
			for _, workers := range workerCounts {
				list, err := fast(workers).list(iotest.HalfReader(strings.NewReader(body)), r)
				require.NoError(t, err)
				require.Len(t, list.Items, n)
				assert.Equal(t, "777", list.ResourceVersion)
				assert.Equal(t, "next", list.Continue)
				for i, obj := range list.Items {
					require.Equal(t, fmt.Sprintf("item-%d", i), obj.GetName(), "workers=%d", workers)
					require.Equal(t, fmt.Sprint(100+i), obj.GetResourceVersion())
					require.Equal(t, "Pod", obj.GetObjectKind().Kind)
				}
			}
		}
	}
	t.Logf("listwatch: lists of 0 to 700 pods, typed and unstructured, by 1, 2, 4, 8 workers: items in order")
}

// A malformed list fails with the same error, at the same place, whatever
// the number of workers.
func TestParallelListErrorsAsTheLoop(t *testing.T) {
	body := listBody(500)
	item := func(i int) int { return strings.Index(body, fmt.Sprintf(`{"metadata":{"name":"item-%d"`, i)) }
	replaceAt := func(s string, at int, old, new string) string { return s[:at] + strings.Replace(s[at:], old, new, 1) }
	boom := errors.New("connection reset by peer")
	tests := []struct {
		name string
		r    func() io.Reader
		want string
	}{
		{"syntax error in item 300", func() io.Reader {
			return strings.NewReader(replaceAt(body, item(300), `"name":`, `"name";`))
		}, "field items: item 300: invalid character ';' after object key"},
		{"wrong type in item 300", func() io.Reader {
			return strings.NewReader(replaceAt(body, item(300), `"resourceVersion":"400"`, `"resourceVersion":400`))
		}, "field items: item 300: json: cannot unmarshal number into Go struct field"},
		{"wrong type in item 100, syntax error in item 300", func() io.Reader {
			b := replaceAt(body, item(300), `"name":`, `"name";`)
			return strings.NewReader(replaceAt(b, item(100), `"containers":[`, `"containers":7,"x":[`))
		}, "field items: item 100: json: cannot unmarshal"},
		{"wrong type in item 10 (before the workers start)", func() io.Reader {
			return strings.NewReader(replaceAt(body, item(10), `"containers":[`, `"containers":7,"x":[`))
		}, "field items: item 10: json: cannot unmarshal number"},
		{"cut in item 400", func() io.Reader { return strings.NewReader(body[:item(400)+30]) }, "field items: item 400: unexpected EOF"},
		{"missing comma after item 200", func() io.Reader {
			at := item(201)
			return strings.NewReader(body[:at-1] + " " + body[at:])
		}, "field items: after item 200: want ',' or ']' at byte "},
		{"read error in item 400", func() io.Reader {
			return io.MultiReader(strings.NewReader(body[:item(400)+30]), iotest.ErrReader(boom))
		}, "field items: item 400: connection reset by peer"},
		{"items not closed", func() io.Reader { return strings.NewReader(strings.TrimSuffix(body, "]}")) }, "field items: after item 499: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, want := fast(1).list(tt.r(), Pods)
			require.Error(t, want)
			assert.True(t, strings.HasPrefix(want.Error(), tt.want), "the loop said %q", want)
			var wantSyntax *json.SyntaxError
			isSyntax := errors.As(want, &wantSyntax)
			for _, workers := range workerCounts[1:] {
				_, got := fast(workers).list(tt.r(), Pods)
				require.Error(t, got)
				require.Equal(t, want.Error(), got.Error(), "workers=%d", workers)
				var gotSyntax *json.SyntaxError
				require.Equal(t, isSyntax, errors.As(got, &gotSyntax))
				if isSyntax {
					require.Equal(t, wantSyntax.Offset, gotSyntax.Offset, "the syntax error's offset in its item")
				}
				if errors.Is(want, boom) {
					require.ErrorIs(t, got, boom)
				}
			}
			t.Logf("listwatch: %s: %v (the same with 1, 2, 4, 8 workers)", tt.name, want)
		})
	}
}

// Through a Client: DecodeWorkers is honoured, and refused when negative.
func TestDecodeWorkersConfig(t *testing.T) {
	_, err := NewClient(Config{Server: "http://127.0.0.1:1", DecodeWorkers: -1})
	require.ErrorContains(t, err, "DecodeWorkers")
	c, err := NewClient(Config{Server: "http://127.0.0.1:1"})
	require.NoError(t, err)
	assert.Equal(t, fastdecode.DefaultWorkers(), c.decoder.workers)
	assert.LessOrEqual(t, c.decoder.workers, 4)

	body := listBody(300)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, bytes.NewReader([]byte(body)))
	}))
	defer hs.Close()
	for _, workers := range []int{0, 1, 3} {
		c, err := NewClient(Config{Server: hs.URL, DecodeWorkers: workers})
		require.NoError(t, err)
		list, err := For[*api.Pod](c, Pods).List(context.Background(), "default", ListOptions{})
		require.NoError(t, err)
		require.Len(t, list.Items, 300)
		assert.Equal(t, "item-299", list.Items[299].Name)
	}
}
