package fakeapiserver

import (
	"fmt"
	"net/http"

	"github.com/kinformer/kinformer/api"
)

// Limits. Each is answered as the real server answers it, and each is
// checked before anything is committed, so a refused write changes nothing
// and an acknowledged one is never undone. docs/fakeapiserver.md ("Limits
// and validation") says why each exists.
//
//	request body over 3 MiB              413 RequestEntityTooLarge (readBody)
//	JSON patch over 10000 operations     413 (internal/patch)
//	JSON patch copies over 3 MiB         422 (internal/patch, chargeCopy)
//	metadata.annotations over 256 KiB    422 Invalid, FieldValueTooLong
//	stored object over 1.5 MiB           500, "etcdserver: request is too large"
//	more than MaxWatches open watches    429 TooManyRequests, Retry-After: 1
//	continue token from the future       504 Timeout, ResourceVersionTooLarge (list.go)

const (
	// maxObjectBytes is etcd's default --max-request-bytes (1.5 MiB), the
	// largest write etcd accepts. The real server hands etcd the object's
	// protobuf encoding; this server measures its JSON, which is larger,
	// so it refuses somewhat earlier than a real cluster would.
	maxObjectBytes = 3 << 19
	// maxAnnotationBytes is the real server's limit on the total size of
	// an object's annotations, keys and values together
	// (TotalAnnotationSizeLimitB).
	maxAnnotationBytes = 256 << 10
	// defaultMaxWatches is Options.MaxWatches when it is not set.
	defaultMaxWatches = 1000
)

// causeTypeFieldValueTooLong is apimachinery's FieldValueTooLong cause.
const causeTypeFieldValueTooLong api.CauseType = "FieldValueTooLong"

// tooLong is a FieldValueTooLong cause, worded as the real server's (it
// does not repeat the value).
func tooLong(field string, limit int) api.StatusCause {
	return api.StatusCause{Type: causeTypeFieldValueTooLong, Field: field,
		Message: fmt.Sprintf("Too long: may not be more than %d bytes", limit)}
}

// validateAnnotationsSize is the real server's check of the annotations'
// total size: the bytes of every key and value added up.
func validateAnnotationsSize(v any) []api.StatusCause {
	m, _ := v.(map[string]any)
	total := 0
	for k, e := range m {
		s, _ := e.(string)
		total += len(k) + len(s)
	}
	if total > maxAnnotationBytes {
		return []api.StatusCause{tooLong("metadata.annotations", maxAnnotationBytes)}
	}
	return nil
}

// errObjectTooLarge is what the real server answers when etcd refuses a
// write as too large: the etcd error passes through unconverted, so it is a
// 500 with no reason (kubernetes/kubernetes#74600, still so in #112152).
func errObjectTooLarge() *api.Status {
	return newStatus(http.StatusInternalServerError, "", "etcdserver: request is too large", nil)
}

// checkObjectSize refuses an object whose stored form would be over etcd's
// limit. It runs on the final object, after defaults, and only for writes
// that reach the store (a dry run never reaches etcd on the real server).
func checkObjectSize(obj map[string]any) *api.Status {
	if len(encodeObject(obj)) > maxObjectBytes {
		return errObjectTooLarge()
	}
	return nil
}

// acquireWatch takes one of the server's MaxWatches slots for a new watch,
// or answers 429 when none is free. The caller calls release when the
// watch ends.
func (s *Server) acquireWatch() (release func(), st *api.Status) {
	limit := int64(s.opts.MaxWatches)
	if limit < 0 {
		return func() {}, nil
	}
	if limit == 0 {
		limit = defaultMaxWatches
	}
	if s.watchSlots.Add(1) > limit {
		s.watchSlots.Add(-1)
		return nil, errTooManyRequests(1)
	}
	return func() { s.watchSlots.Add(-1) }, nil
}
