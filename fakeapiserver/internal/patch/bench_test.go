package patch

import "testing"

// The patch kubectl label sends, applied to a realistic 2 KB pod. Most of
// the time goes to the deep copy that keeps the stored pod untouched
// (compare BenchmarkCopyObject).
func BenchmarkMergePatchLabels(b *testing.B) {
	pod := loadPod(b)
	body := []byte(`{"metadata":{"labels":{"tier":"frontend"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MergePatch(pod, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONPatchReplaceImage(b *testing.B) {
	pod := loadPod(b)
	body := []byte(`[{"op":"test","path":"/metadata/resourceVersion","value":"46226"},{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := JSONPatch(pod, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrategicMergePatchImage(b *testing.B) {
	pod := loadPod(b)
	body := []byte(`{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"sidecar"}],"containers":[{"name":"web","image":"nginx:1.28"}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := StrategicMergePatch(pod, body, DefaultMergeKeys); err != nil {
			b.Fatal(err)
		}
	}
}

// The deep copy every patch starts with.
func BenchmarkCopyObject(b *testing.B) {
	pod := loadPod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := copyObject(pod); err != nil {
			b.Fatal(err)
		}
	}
}
