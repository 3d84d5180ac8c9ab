package listwatch

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
)

// conditionsPod is a pod with three conditions and a label every pod
// shares: decoding alone leaves the conditions in a slice with spare room
// and a fresh copy of the label's value in every pod.
func conditionsPod(i int) string {
	return fmt.Sprintf(`{"metadata":{"name":"p-%d","namespace":"default","resourceVersion":"%d","labels":{"app":"web"}},`+
		`"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Initialized","status":"True"},{"type":"PodScheduled","status":"True"}]}}`,
		i, 100+i)
}

// Every pod the fast form decodes, from a list or a watch, on the loop or
// on the workers, is compacted before anyone sees it (fastdecode.Compact):
// its slices hold no spare room and the strings pods repeat are one copy.
// Without the step, a cached pod keeps what decoding left behind
// (docs/performance.md). And although each decoding goroutine decodes
// conditions in one reused room (fastdecode's room.go), no pod keeps the
// room.
func TestDecode_CompactsEveryObject(t *testing.T) {
	const n = fastdecode.ParallelListAfter * 3 // some items on the loop, the rest on workers
	compacted := func(t *testing.T, how string, objs []api.Object) {
		t.Helper()
		require.Len(t, objs, n)
		first := objs[0].(*api.Pod)
		for i, obj := range objs {
			p := obj.(*api.Pod)
			require.Equal(t, 3, cap(p.Status.Conditions), "%s: item %d keeps spare room", how, i)
			require.Equal(t, unsafe.StringData(first.Labels["app"]), unsafe.StringData(p.Labels["app"]),
				"%s: item %d has its own copy of a shared label", how, i)
			if i > 0 { // decoded in a reused room, but kept in an array of its own
				require.NotSame(t, &first.Status.Conditions[0], &p.Status.Conditions[0], "%s: item %d shares item 0's conditions", how, i)
				require.Equal(t, api.PodConditionType("Ready"), p.Status.Conditions[0].Type)
			}
		}
		t.Logf("%s: %d pods, each with conditions at exactly their length and one shared copy of app=web", how, n)
	}

	var list strings.Builder
	list.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"999"},"items":[`)
	var stream strings.Builder
	for i := range n {
		if i > 0 {
			list.WriteString(",")
		}
		list.WriteString(conditionsPod(i))
		fmt.Fprintf(&stream, `{"type":"ADDED","object":%s}`+"\n", conditionsPod(i))
	}
	list.WriteString(`]}`)

	for _, workers := range []int{1, 2} {
		l, err := fast(workers).list(strings.NewReader(list.String()), Pods)
		require.NoError(t, err)
		compacted(t, fmt.Sprintf("list, %d workers", workers), l.Items)

		lines := []api.Object{}
		body := io.NopCloser(strings.NewReader(stream.String()))
		w := newStreamWatcher(t.Context(), func() {}, body, newWatchDecoder(body, Pods, DefaultMaxWatchFrameSize), fast(workers), nil)
		for ev := range w.ResultChan() {
			if ev.Type == api.Error {
				break
			}
			lines = append(lines, ev.Object)
		}
		w.Stop()
		waitCutter(t, w)
		compacted(t, fmt.Sprintf("watch, %d workers", workers), lines)
	}
}
