package main

import (
	"bytes"
	"strconv"

	"github.com/kinformer/kinformer/bench"
)

// The pods: bench/testdata/pod.json (bench.PodJSON), the pod every
// benchmark measures, with what varies filled in per pod.

// podTemplate is bench.PodJSON cut at its placeholders.
type podTemplate struct {
	parts [][]byte // the text between the placeholders
	holes []string // the placeholders, in order: "__NAME__", ...
}

func newPodTemplate() podTemplate {
	t := podTemplate{}
	rest := bytes.TrimSpace(bench.PodJSON)
	for {
		i := bytes.Index(rest, []byte("__"))
		if i < 0 {
			t.parts = append(t.parts, rest)
			return t
		}
		j := bytes.Index(rest[i+2:], []byte("__"))
		t.parts = append(t.parts, rest[:i])
		t.holes = append(t.holes, string(rest[i:i+2+j+2]))
		rest = rest[i+2+j+2:]
	}
}

// appendPadded appends n in base, with leading zeros to width digits
// (fmt's %07d and %08x, without fmt's cost: a million pods are made twice).
func appendPadded(dst []byte, n uint64, base, width int) []byte {
	var digits [20]byte
	s := strconv.AppendUint(digits[:0], n, base)
	for range width - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// nodes is how many nodes the pods run on: a million pods on 10,000 nodes
// is 100 a node, about a real node's limit (110).
const nodes = 10_000

// appendPod appends pod i as it is after restarts restarts of its
// container: its name, uid and node are its own, and the server stamps its
// resourceVersion (the "0" here is replaced). An update is the same pod
// with one more restart, as the kubelet reports it.
func (t podTemplate) appendPod(dst []byte, i, restarts int) []byte {
	for k, part := range t.parts {
		if restarts != 0 {
			if before, after, ok := bytes.Cut(part, []byte(`"restartCount":0`)); ok {
				dst = append(dst, before...)
				dst = append(dst, `"restartCount":`...)
				dst = strconv.AppendInt(dst, int64(restarts), 10)
				part = after
			}
		}
		dst = append(dst, part...)
		if k == len(t.holes) {
			break
		}
		switch t.holes[k] {
		case "__NAME__":
			dst = appendPadded(append(dst, "web-7d9f8b6c5d-"...), uint64(i), 10, 7)
		case "__UID__":
			dst = appendPadded(dst, uint64(i), 16, 8)
			dst = appendPadded(append(dst, "-6dde-4e82-83f3-"...), uint64(i)*7919, 16, 12)
		case "__RV__":
			dst = append(dst, '0')
		case "__NODE__":
			dst = strconv.AppendInt(dst, int64(i%nodes), 10)
		default:
			dst = append(dst, t.holes[k]...)
		}
	}
	return dst
}
