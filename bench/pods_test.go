package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
)

const (
	// watchEvents MODIFIED events go round watchPods pods, each event with
	// the next resourceVersion.
	watchEvents = 100_000
	watchPods   = 10_000
	// listPods pods are in the initial list.
	listPods = 50_000
	// firstRV is the resourceVersion of the list; events follow it.
	firstRV = 1_000_000
)

var (
	templateOnce sync.Once
	template     []byte
	templateErr  error
)

// podTemplate is testdata/pod.json: a Running Deployment pod as a v1.36
// API server sends it (managedFields, probes, env, a projected volume,
// tolerations, five conditions, a container status), with __NAME__,
// __UID__, __RV__ and __NODE__ to fill in.
func podTemplate(tb testing.TB) []byte {
	templateOnce.Do(func() {
		template, templateErr = os.ReadFile("testdata/pod.json")
		template = bytes.TrimSpace(template)
	})
	if templateErr != nil {
		tb.Fatal(templateErr)
	}
	return template
}

// appendPod appends pod i (of a ReplicaSet's pods) at resourceVersion rv.
func appendPod(dst, tmpl []byte, i, rv int) []byte {
	for len(tmpl) > 0 {
		j := bytes.Index(tmpl, []byte("__"))
		if j < 0 {
			return append(dst, tmpl...)
		}
		dst = append(dst, tmpl[:j]...)
		tmpl = tmpl[j:]
		switch {
		case bytes.HasPrefix(tmpl, []byte("__NAME__")):
			dst = fmt.Appendf(dst, "web-7d9f8b6c5d-%05d", i)
			tmpl = tmpl[len("__NAME__"):]
		case bytes.HasPrefix(tmpl, []byte("__UID__")):
			dst = fmt.Appendf(dst, "%08x-6dde-4e82-83f3-%012x", i, i*7919)
			tmpl = tmpl[len("__UID__"):]
		case bytes.HasPrefix(tmpl, []byte("__RV__")):
			dst = strconv.AppendInt(dst, int64(rv), 10)
			tmpl = tmpl[len("__RV__"):]
		case bytes.HasPrefix(tmpl, []byte("__NODE__")):
			dst = strconv.AppendInt(dst, int64(i%100), 10)
			tmpl = tmpl[len("__NODE__"):]
		default:
			dst = append(dst, tmpl[:2]...)
			tmpl = tmpl[2:]
		}
	}
	return dst
}

// watchData is a watch stream, its frames, and the objects inside them.
type watchData struct {
	stream  []byte   // every frame, newline-terminated
	frames  [][]byte // stream cut into frames (aliases stream)
	objects [][]byte // each frame's "object" (aliases stream)
	lastKey string   // namespace/name of the last event's pod
	lastRV  string   // its resourceVersion
}

var (
	watchOnce sync.Once
	watchVal  *watchData
)

// watchStream returns the 100,000 MODIFIED events, built once.
func watchStream(tb testing.TB) *watchData {
	tmpl := podTemplate(tb)
	watchOnce.Do(func() {
		const prefix = `{"type":"MODIFIED","object":`
		d := &watchData{}
		buf := make([]byte, 0, watchEvents*(len(tmpl)+len(prefix)+64))
		type span struct{ f0, o0, o1, f1 int }
		spans := make([]span, 0, watchEvents)
		for i := range watchEvents {
			var s span
			s.f0 = len(buf)
			buf = append(buf, prefix...)
			s.o0 = len(buf)
			buf = appendPod(buf, tmpl, i%watchPods, firstRV+1+i)
			s.o1 = len(buf)
			buf = append(buf, "}\n"...)
			s.f1 = len(buf)
			spans = append(spans, s)
		}
		buf = offHeap(buf) // offheap_unix_test.go: why
		d.stream = buf
		for _, s := range spans {
			d.frames = append(d.frames, buf[s.f0:s.f1])
			d.objects = append(d.objects, buf[s.o0:s.o1])
		}
		last := watchEvents - 1
		d.lastKey = fmt.Sprintf("default/web-7d9f8b6c5d-%05d", last%watchPods)
		d.lastRV = strconv.Itoa(firstRV + 1 + last)
		watchVal = d
	})
	return watchVal
}

// listData is a PodList body and the items inside it: a LIST gets the
// body; a streaming list gets each item as an ADDED frame (server_test.go).
type listData struct {
	body  []byte   // the PodList, as one LIST answers it
	items [][]byte // each item's JSON (aliases body)
	rv    int      // the list's resourceVersion
}

var (
	listOnce sync.Once
	listVal  *listData
)

// listBodyPods returns the PodList of 50,000 pods, as one body: what a
// reflector's first list (resourceVersion "0", from the watch cache, which
// ignores limit) gets from a real API server.
func listBodyPods(tb testing.TB) *listData {
	tmpl := podTemplate(tb)
	listOnce.Do(func() {
		buf := make([]byte, 0, listPods*(len(tmpl)+64)+256)
		buf = fmt.Appendf(buf, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, firstRV)
		spans := make([][2]int, 0, listPods)
		for i := range listPods {
			if i > 0 {
				buf = append(buf, ',')
			}
			start := len(buf)
			buf = appendPod(buf, tmpl, i, firstRV-listPods+i)
			spans = append(spans, [2]int{start, len(buf)})
		}
		buf = append(buf, "]}\n"...)
		buf = offHeap(buf) // offheap_unix_test.go: why
		l := &listData{body: buf, rv: firstRV, items: make([][]byte, len(spans))}
		for i, s := range spans {
			l.items[i] = buf[s[0]:s[1]]
		}
		listVal = l
	})
	return listVal
}

// emptyList is the list the watch benchmarks' servers answer: no pods, at
// the version the watch events follow.
var emptyList = &listData{
	body: fmt.Appendf(nil, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[]}`, firstRV),
	rv:   firstRV,
}

// bareEvent is api.WatchEvent with the object decoded, as a bare client
// decodes a watch: one json.Decoder, one struct per event.
type bareEvent struct {
	Type   api.EventType `json:"type"`
	Object *api.Pod      `json:"object"`
}

// keptJSONBytes is how many bytes of JSON a decoded pod's type keeps:
// the length of the pod marshalled again (what the cache could hold at
// best if it held the JSON).
func keptJSONBytes(tb testing.TB, obj []byte) int {
	var p api.Pod
	if err := json.Unmarshal(obj, &p); err != nil {
		tb.Fatal(err)
	}
	out, err := json.Marshal(&p)
	if err != nil {
		tb.Fatal(err)
	}
	return len(out)
}
