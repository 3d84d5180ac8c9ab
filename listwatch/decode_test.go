package listwatch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
)

// The two forms of the seam (decode.go), as tests make them.
var plain = decoder{kind: DecodePlain}

// fast is the fast form with this many workers.
func fast(workers int) decoder { return decoder{kind: DecodeFast, workers: workers} }

// forCache is d for a request made with ForReadOnlyCache.
func forCache(d decoder) decoder { return d.forRequest(ForReadOnlyCache(context.Background())) }

// recordedBodies returns the JSON bodies in the real kube-apiserver 1.36
// recordings (testdata/kube-apiserver-1.36): its watch frames, and its
// PodList bodies.
func recordedBodies(t *testing.T) (frames, podLists [][]byte) {
	t.Helper()
	files, err := filepath.Glob("../testdata/kube-apiserver-1.36/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		s := bufio.NewScanner(f)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			line := bytes.TrimSpace(s.Bytes())
			if !json.Valid(line) || len(line) == 0 || line[0] != '{' {
				continue
			}
			line = bytes.Clone(line)
			switch {
			case bytes.HasPrefix(line, []byte(`{"type":`)):
				frames = append(frames, line)
			case bytes.Contains(line, []byte(`"kind":"PodList"`)) && bytes.Contains(line, []byte(`"items":[{`)):
				podLists = append(podLists, line)
			}
		}
		require.NoError(t, s.Err())
		f.Close()
	}
	return frames, podLists
}

// watchEvents runs body through a streamWatcher decoding with d and
// returns every event it delivers, and whether the fast form's workers
// decoded them.
func watchEvents(t *testing.T, body []byte, r Resource, d decoder) ([]Event, bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rc := io.NopCloser(bytes.NewReader(body))
	w := newStreamWatcher(ctx, cancel, rc, newWatchDecoder(rc, r, DefaultMaxWatchFrameSize), d, nil)
	defer w.Stop()
	var events []Event
	for ev := range w.ResultChan() {
		events = append(events, ev)
	}
	waitCutter(t, w)
	return events, w.parallel
}

// sameObjects compares what the two forms decoded, field by field
// (api.Unstructured's cached views too).
var sameObjects = cmp.Options{
	cmp.AllowUnexported(api.Unstructured{}),
	cmp.Comparer(func(a, b error) bool { // an ERROR frame's *StatusError, or a broken stream's error
		return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
	}),
}

// The seam's two forms decode alike: every watch frame and pod list a real
// API server sent, decoded as pods, as unstructured objects and as
// metadata, gives objects equal field by field (go-cmp) whether decoded
// plainly (encoding/json, one goroutine) or on the fast path (onepass, a
// decode room, interning, compaction; on the reading goroutine, and on two
// workers; for a program's own objects, and for a read-only cache, whose
// objects share the maps and lists they repeat).
// The watch frames go as one stream (ERROR frames, which end a stream, each
// as a stream of its own), the lists one by one and as one long list of
// all their items, long enough for the fast path's workers to decode most
// of it.
func TestDecode_FastSameAsPlain(t *testing.T) {
	frames, podLists := recordedBodies(t)
	require.NotEmpty(t, frames)
	require.NotEmpty(t, podLists)

	var stream []byte        // every frame but the ERROR ones, one stream
	var errorFrames [][]byte // each its own stream
	for _, f := range frames {
		if bytes.HasPrefix(f, []byte(`{"type":"ERROR"`)) {
			errorFrames = append(errorFrames, append(bytes.Clone(f), '\n'))
			continue
		}
		stream = append(append(stream, f...), '\n')
	}
	var items []json.RawMessage // every item of every list
	for _, body := range podLists {
		var l struct{ Items []json.RawMessage }
		require.NoError(t, json.Unmarshal(body, &l))
		items = append(items, l.Items...)
	}
	var all []json.RawMessage
	for len(all) < 4*fastdecode.ParallelListAfter {
		all = append(all, items...)
	}
	long, err := json.Marshal(map[string]any{"kind": "PodList", "apiVersion": "v1",
		"metadata": map[string]string{"resourceVersion": "1"}, "items": all})
	require.NoError(t, err)
	lists := append(podLists, long)

	resources := map[string]Resource{
		"typed":         Pods,
		"unstructured":  DynamicResource("", "v1", "pods", "Pod", true),
		"metadata-only": MetadataOnly(Pods),
	}
	for name, r := range resources {
		t.Run(name, func(t *testing.T) {
			want, _ := watchEvents(t, stream, r, plain)
			require.Len(t, want, len(frames)-len(errorFrames))
			for _, workers := range []int{1, 2} {
				got, parallel := watchEvents(t, stream, r, fast(workers))
				require.Equal(t, workers > 1, parallel, "decoded by the workers")
				require.Empty(t, cmp.Diff(want, got, sameObjects), "watch, fast with %d workers", workers)
				got, _ = watchEvents(t, stream, r, forCache(fast(workers)))
				require.Empty(t, cmp.Diff(want, got, sameObjects), "watch for a read-only cache, fast with %d workers", workers)
			}
			for _, f := range errorFrames {
				want, _ := watchEvents(t, f, r, plain)
				require.Len(t, want, 1)
				require.Equal(t, api.Error, want[0].Type)
				got, _ := watchEvents(t, f, r, fast(1))
				require.Empty(t, cmp.Diff(want, got, sameObjects), "%s", f)
			}
			objects := 0
			for _, body := range lists {
				want, err := plain.list(bytes.NewReader(body), r)
				require.NoError(t, err)
				for _, workers := range []int{1, 2} {
					got, err := fast(workers).list(bytes.NewReader(body), r)
					require.NoError(t, err)
					require.Empty(t, cmp.Diff(want, got, sameObjects), "list of %d, fast with %d workers", len(want.Items), workers)
					got, err = forCache(fast(workers)).list(bytes.NewReader(body), r)
					require.NoError(t, err)
					require.Empty(t, cmp.Diff(want, got, sameObjects), "list of %d for a read-only cache, fast with %d workers", len(want.Items), workers)
				}
				objects += len(want.Items)
			}
			t.Logf("%s: %d watch frames (%d of them ERROR) and %d list items (%d lists) from a real API server: the fast path's objects equal the plain path's",
				name, len(frames), len(errorFrames), objects, len(lists))
		})
	}
}

// A frame the fast decoder cannot decode is decoded again by the plain
// one, and the error says what encoding/json says, so that the message
// reads the same on both paths.
func TestDecode_MalformedFrameQuotesEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"type":"ADDED","object":{"metadata":{"name":5}}}`,
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}`,
		`{"type":"ADDED","object":{"status":{"conditions":[{"lastTransitionTime":"yesterday"}]}}}`,
	} {
		jsonErr := json.Unmarshal([]byte(line), &frame{Object: new(api.Pod)})
		require.Error(t, jsonErr)
		for _, d := range []decoder{plain, fast(1)} {
			events, _ := watchEvents(t, []byte(line+"\n"), Pods, d)
			require.Len(t, events, 1)
			err := events[0].Err
			require.ErrorIs(t, err, ErrMalformedFrame)
			require.Contains(t, err.Error(), jsonErr.Error())
			t.Logf("%s, %s: %s\n  -> %v", d.kind, line, jsonErr, err)
		}
	}
}

// Config.Decoder chooses the form; the default is the fast one, and a
// value that is neither is refused. Both forms list and watch the same
// pods through a Client, and get the same answer.
func TestDecoderConfig(t *testing.T) {
	_, err := NewClient(Config{Server: "http://127.0.0.1:1", Decoder: 7})
	require.ErrorContains(t, err, "Config.Decoder is Decoder(7)")
	c, err := NewClient(Config{Server: "http://127.0.0.1:1"})
	require.NoError(t, err)
	require.Equal(t, DecodeFast, c.decoder.kind)

	e := newEnv(t, fakeapiserver.Options{})
	created := e.create(t, pod("default", "web-0", map[string]string{"app": "web"}))
	for _, d := range []Decoder{DecodeFast, DecodePlain} {
		c, err := NewClient(Config{Server: e.hs.URL, Decoder: d})
		require.NoError(t, err)
		require.Equal(t, d, c.decoder.kind)
		pods := For[*api.Pod](c, Pods)
		list, err := pods.List(t.Context(), "default", ListOptions{})
		require.NoError(t, err)
		require.Len(t, list.Items, 1)
		require.Equal(t, "Pod", list.Items[0].Kind)
		got, err := pods.Get(t.Context(), "default", "web-0")
		require.NoError(t, err)
		require.Equal(t, created.GetResourceVersion(), got.ResourceVersion)
		w, err := pods.Watch(t.Context(), "default", ListOptions{ResourceVersion: "0"})
		require.NoError(t, err)
		ev := next(t, w)
		w.Stop()
		require.Equal(t, api.Added, ev.Type)
		require.Equal(t, "web-0", ev.Object.GetName())
		t.Logf("Decoder %s: listed, got and watched web-0 at resourceVersion %s", d, got.ResourceVersion)
	}
}
