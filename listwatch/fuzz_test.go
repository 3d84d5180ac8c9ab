package listwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
)

// FuzzWatchDecoder feeds arbitrary bytes to the watch pipeline. Whatever
// the input: no panic, no hang, every event well formed (an object for
// ADDED/MODIFIED/DELETED/BOOKMARK, an error for ERROR, nothing after an
// error), and the same events whether the bytes arrive at once or one by
// one, and whether read by the plain loop directly or through the
// streamWatcher goroutine, decoding plainly or on the fast path, on one
// goroutine or on four.
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
		if piped := decodeThroughWatcher(t, data, maxFrame, plain); fmt.Sprint(piped) != fmt.Sprint(whole) {
			t.Fatalf("the streamWatcher changed the events:\ndecoder: %q\nwatcher: %q", whole, piped)
		}
		if fast1 := decodeThroughWatcher(t, data, maxFrame, fast(1)); fmt.Sprint(fast1) != fmt.Sprint(whole) {
			t.Fatalf("the fast path changed the events:\nplain: %q\nfast:  %q", whole, fast1)
		}
		if parallel := decodeThroughWatcher(t, data, maxFrame, fast(4)); fmt.Sprint(parallel) != fmt.Sprint(whole) {
			t.Fatalf("decoding on 4 workers changed the events:\nplain:    %q\nparallel: %q", whole, parallel)
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

// decodeThroughWatcher runs data through a streamWatcher decoding with d
// and renders its events as decodeAll does.
func decodeThroughWatcher(t *testing.T, data []byte, maxFrame int, d decoder) []string {
	ctx, cancel := context.WithCancel(context.Background())
	body := io.NopCloser(bytes.NewReader(data))
	w := newStreamWatcher(ctx, cancel, body, newWatchDecoder(body, Pods, maxFrame), d, nil)
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

// smallListBody is a list of n tiny pods: a seed small enough for the
// fuzzer to mutate and minimize quickly.
func smallListBody(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"metadata":{"name":"p%d","resourceVersion":"%d"}}`, i, i+1)
	}
	return `{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[` + strings.Join(items, ",") + `]}`
}

// FuzzListDecoder feeds arbitrary bytes to the list decoders. Whatever the
// input: no panic, no hang; on the fast path one goroutine and several
// agree (the same items, or the same error); and the fast path never
// accepts what encoding/json refuses: a list it decodes, json.Decoder
// decodes too (the list's first JSON value, as a json.Decoder reads it),
// with the same items, and an object encoding/json decodes, it decodes
// too. The plain form (decodeListPlain, which is json.Decoder) agrees with
// the fast path: the same list, or both refuse (their errors are worded
// differently: the fast path says where in the list it went wrong), but
// for two kinds of body no server sends, which the fast path refuses and
// json.Decoder does not: two "items" fields, and a body that is not an
// object (null).
//
//	go test ./listwatch -run '^$' -fuzz FuzzListDecoder -fuzztime 30s
func FuzzListDecoder(f *testing.F) {
	for _, seed := range []string{
		smallListBody(3),
		smallListBody(fastdecode.ParallelListAfter + 2), // some items on the workers
		`{"kind":"PodList","items":null,"metadata":{"resourceVersion":"5"}}`,
		`{"items":[{"metadata":{"name":"a\"]}"}}],"ITEMS":[{}]}`,
		`{"items":[{"metadata":{"name":"a"}} {"metadata":{"name":"b"}}]}`,
		`{"items":[tru]}`,
		`{"items":[{"a":]}]}`,
		`{"kind":"PodList" "items":[]}`,
		`{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"x"}}],}`,
		`[]`,
		`{"items":[{"metadata":{"name":"\u0061"}}]}  trailing`,
	} {
		f.Add([]byte(seed))
	}
	type shape struct {
		Metadata api.ListMeta `json:"metadata"`
		Items    []api.Pod    `json:"items"`
	}
	render := func(l *ObjectList, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		fmt.Fprintf(&b, "rv=%q continue=%q", l.ResourceVersion, l.Continue)
		for _, obj := range l.Items {
			fmt.Fprintf(&b, " %s/%s", obj.GetName(), obj.GetResourceVersion())
		}
		return b.String()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l1, err1 := fast(1).list(bytes.NewReader(data), Pods)
		one := render(l1, err1)
		l2, err2 := fast(3).list(iotest.OneByteReader(bytes.NewReader(data)), Pods)
		if several := render(l2, err2); several != one {
			t.Fatalf("one goroutine: %s\nthree workers, bytes one by one: %s", one, several)
		}
		isObject := len(bytes.TrimLeft(data, " \t\r\n")) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '{'
		lp, errp := plain.list(bytes.NewReader(data), Pods)
		switch {
		case errp == nil && err1 == nil:
			if p := render(lp, nil); p != one {
				t.Fatalf("fast: %s\nplain: %s", one, p)
			}
		case errp == nil && isObject && !errors.Is(err1, fastdecode.ErrDuplicateItems):
			// (A body that is not an object, null, json.Decoder takes for
			// an empty list, and the fast path refuses: no server sends one.)
			t.Fatalf("the fast path refused what the plain one accepts: %v", err1)
		case err1 == nil:
			t.Fatalf("the fast path accepted what the plain one refuses (%v): %s", errp, one)
		}

		var want shape
		jerr := json.NewDecoder(bytes.NewReader(data)).Decode(&want)
		switch {
		case err1 == nil && jerr != nil:
			t.Fatalf("the list decoder accepted what encoding/json refuses (%v): %s", jerr, one)
		case err1 != nil && jerr == nil && isObject && !errors.Is(err1, fastdecode.ErrDuplicateItems):
			t.Fatalf("the list decoder refused what encoding/json accepts: %v", err1)
		case err1 == nil:
			got := make([]string, len(l1.Items))
			for i, obj := range l1.Items {
				got[i] = obj.GetName()
			}
			exp := make([]string, len(want.Items))
			for i := range want.Items {
				exp[i] = want.Items[i].Name
			}
			if fmt.Sprint(got) != fmt.Sprint(exp) || l1.ResourceVersion != want.Metadata.ResourceVersion {
				t.Fatalf("the list decoder and encoding/json disagree:\n%s\n%v rv=%q", one, exp, want.Metadata.ResourceVersion)
			}
		}
	})
}
