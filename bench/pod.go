// Package bench measures the informer pipeline end to end, today's
// informer beside the articles' (informer.Today, informer.Articles), on
// prebuilt server bytes (a LIST, a watch, or a streaming list:
// server_test.go), beside bare decoding loops as yardsticks, and each stage
// of the pipeline alone. It is tests and benchmarks, and the pod they
// measure (PodJSON), which cmd/benchscale lists a million of:
//
//	go test ./bench -run '^$' -bench . -benchmem -benchtime 2x
//
// docs/performance.md explains the numbers; `make bench` runs everything.
package bench

import _ "embed"

// PodJSON is the realistic pod every benchmark measures
// (bench/testdata/pod.json): a Running Deployment pod as a v1.36 API server
// sends it, 3,958 bytes of JSON. __NAME__, __UID__, __RV__ and __NODE__
// stand for what varies from pod to pod (__NODE__ is the number in the
// node's name, node-__NODE__).
//
//go:embed testdata/pod.json
var PodJSON []byte
