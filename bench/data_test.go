package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// The template is what the benchmarks claim: a ~3.9 KB pod that decodes,
// with every placeholder filled and a distinct name and uid per pod.
func TestPodTemplate(t *testing.T) {
	tmpl := podTemplate(t)
	a, z := appendPod(nil, tmpl, 1, 42), appendPod(nil, tmpl, 2, 43)
	if bytes.Contains(a, []byte("__")) {
		t.Fatalf("placeholder left in %s", a)
	}
	if n := len(a); n < 3800 || n > 4100 {
		t.Fatalf("pod is %d bytes of JSON, want about 3.9 KB", n)
	}
	var p, q api.Pod
	if err := json.Unmarshal(a, &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(z, &q); err != nil {
		t.Fatal(err)
	}
	if p.Name == q.Name || p.UID == q.UID || p.ResourceVersion != "42" || len(p.Status.Conditions) != 5 {
		t.Fatalf("pods %+v and %+v", p.ObjectMeta, q.ObjectMeta)
	}
	if kept := keptJSONBytes(t, a); kept >= len(a) {
		t.Fatalf("type keeps %d of %d bytes", kept, len(a))
	}
}

// The list body decodes to listPods pods (built once; ~200 MB).
// The list body is built as listBodyPods builds it (the benchmarks build
// 50k pods, 200 MB); a test of 100 shows it decodes into the same types.
func TestListBody(t *testing.T) {
	tmpl := podTemplate(t)
	const n = 100
	buf := fmt.Appendf(nil, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, firstRV)
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendPod(buf, tmpl, i, firstRV-n+i)
	}
	buf = append(buf, "]}\n"...)
	var l api.PodList
	if err := json.Unmarshal(buf, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != n || l.Items[n-1].ResourceVersion == "" {
		t.Fatalf("decoded %d pods (last rv %q), want %d", len(l.Items), l.Items[len(l.Items)-1].ResourceVersion, n)
	}
}

// The benchmarks' server streams a list as fakeapiserver does, byte for
// byte: asked the same streaming list (a watch with sendInitialEvents=true)
// of the same two pods, both answer with the same bytes up to the end of
// the initial events, an ADDED frame for each pod, then the BOOKMARK
// annotated k8s.io/initial-events-end at the list's resourceVersion. And
// that bookmark is the one kube-apiserver 1.36 sent (the capture in
// testdata/kube-apiserver-1.36).
func TestStreamingListFramesAreTheServersBytes(t *testing.T) {
	fake := fakeapiserver.New(fakeapiserver.Options{})
	if err := fake.SeedPods("default", 2); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fake)
	defer hs.Close()
	pods, rv, err := fake.List("pods", "default")
	if err != nil {
		t.Fatal(err)
	}
	// The same pods, as the fake server frames them (a GET answers with
	// the stored object's bytes, the ones its watch frames carry).
	l := &listData{}
	if l.rv, err = strconv.Atoi(rv); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		res, err := http.Get(hs.URL + "/api/v1/namespaces/default/pods/" + p.GetName())
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", p.GetName(), res.StatusCode, err)
		}
		l.items = append(l.items, bytes.TrimSuffix(body, []byte("\n")))
	}
	ours := newServer(l, nil)
	defer ours.Close()

	want := initialEvents(t, hs.URL)
	got := initialEvents(t, ours.URL)
	if !bytes.Equal(got, want) {
		t.Fatalf("the bench server's streaming list:\n%s\nfakeapiserver's:\n%s", got, want)
	}
	if n := bytes.Count(got, []byte(`{"type":"ADDED","object":{"kind":"Pod"`)); n != 2 {
		t.Fatalf("%d ADDED frames in\n%s", n, got)
	}
	t.Logf("both servers sent %d bytes: 2 ADDED frames and the initial-events-end bookmark at %d", len(got), l.rv)

	capture, err := os.ReadFile("../testdata/kube-apiserver-1.36/12-watch-bookmark-initial-events.txt")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(capture, []byte(`{"type":"BOOKMARK"`))
	if i < 0 {
		t.Fatal("no BOOKMARK in the capture")
	}
	real := capture[i : i+bytes.IndexByte(capture[i:], '\n')+1]
	var bm struct {
		Object struct {
			Metadata struct{ ResourceVersion string }
		}
	}
	if err := json.Unmarshal(real, &bm); err != nil {
		t.Fatal(err)
	}
	realRV, _ := strconv.Atoi(bm.Object.Metadata.ResourceVersion)
	if ours := initialEventsEnd(realRV); !bytes.Equal(ours, real) {
		t.Fatalf("the bench server's bookmark:\n%s\nkube-apiserver 1.36's:\n%s", ours, real)
	}
}

// initialEvents opens a streaming list as today's informer does and
// returns the stream's bytes up to and including the initial-events-end
// bookmark.
func initialEvents(t *testing.T, url string) []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+
		"/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out []byte
	r := bufio.NewReader(res.Body)
	for {
		line, err := r.ReadBytes('\n')
		out = append(out, line...)
		if err != nil {
			t.Fatalf("stream ended before the bookmark (%v):\n%s", err, out)
		}
		if bytes.Contains(line, []byte(api.InitialEventsAnnotationKey)) {
			return out
		}
	}
}
