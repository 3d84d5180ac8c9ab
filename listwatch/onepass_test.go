package listwatch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

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

// Every object listwatch decodes is decoded with onepass.Unmarshal
// (internal/onepass), which reads the bytes once where encoding/json reads
// them twice. It must store exactly what json.Unmarshal stores: on every
// watch frame and pod list a real API server sent, decoded as pods, as
// unstructured objects and as metadata, by the one-goroutine loop and by
// the workers, each object equals json.Unmarshal's (compacted the same
// way).
func TestDecode_OnePassSameAsEncodingJSON(t *testing.T) {
	frames, podLists := recordedBodies(t)
	require.NotEmpty(t, frames)
	require.NotEmpty(t, podLists)
	resources := map[string]Resource{
		"typed":         Pods,
		"unstructured":  DynamicResource("", "v1", "pods", "Pod", true),
		"metadata-only": MetadataOnly(Pods),
	}
	for name, r := range resources {
		var wd workerDecoder
		dec := newWatchDecoder(nil, r, DefaultMaxWatchFrameSize)
		checked := 0
		for _, line := range frames {
			if bytes.HasPrefix(line, []byte(`{"type":"ERROR"`)) {
				continue
			}
			got, err := dec.decodeFrameWith(line, &wd)
			require.NoError(t, err, "%s: %s", name, line)
			want := frame{Object: r.New()}
			require.NoError(t, json.Unmarshal(line, &want))
			r.decoded(want.Object.(api.Object))
			require.Equal(t, want.Type, got.Type)
			require.Equal(t, want.Object, got.Object, "%s: %s", name, line)
			checked++
		}
		for _, body := range podLists {
			var plain struct{ Items []json.RawMessage }
			require.NoError(t, json.Unmarshal(body, &plain))
			for _, workers := range []int{1, 2} {
				l, err := decodeObjectList(bytes.NewReader(body), r, workers)
				require.NoError(t, err)
				require.Len(t, l.Items, len(plain.Items))
				for i, raw := range plain.Items {
					want := r.New()
					require.NoError(t, json.Unmarshal(raw, want))
					r.decoded(want)
					require.Equal(t, want, l.Items[i], "%s, %d workers: item %d", name, workers, i)
					checked++
				}
			}
		}
		t.Logf("%s: %d watch frames and list items from a real API server, each decoded as encoding/json decodes it", name, checked)
	}
}

// A frame onepass cannot decode is decoded again by json.Unmarshal, and
// the error says what encoding/json says, so that the message reads the
// same as before onepass.
func TestDecode_MalformedFrameQuotesEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"type":"ADDED","object":{"metadata":{"name":5}}}`,
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}`,
		`{"type":"ADDED","object":{"status":{"conditions":[{"lastTransitionTime":"yesterday"}]}}}`,
	} {
		dec := newWatchDecoder(strings.NewReader(line+"\n"), Pods, DefaultMaxWatchFrameSize)
		_, err := dec.decode()
		require.ErrorIs(t, err, ErrMalformedFrame)
		jsonErr := json.Unmarshal([]byte(line), &frame{Object: new(api.Pod)})
		require.Error(t, jsonErr)
		require.Contains(t, err.Error(), jsonErr.Error())
		t.Logf("%s\n  -> %v", line, err)
	}
}
