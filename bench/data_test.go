package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kinformer/kinformer/api"
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
