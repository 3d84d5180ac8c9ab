package listwatch

import "context"

// ForReadOnlyCache returns a copy of ctx that says: the objects the lists
// and watches made with it decode are for a cache, and nothing will write
// to them. Then the default decoder (DecodeFast) may let them share the
// values they repeat: a labels or annotations map, a list of owner
// references or of containers equal to one a recent object had is that
// object's, not a copy (listwatch/internal/fastdecode/share.go). A cache of
// the pods of a few Deployments keeps one labels map per ReplicaSet
// instead of one per pod: docs/performance.md measures it.
//
// The promise is the one a cache's objects come with anyway (package
// indexer, "Don't mutate what the cache gives you"), but breaking it costs
// more: a write to one object's labels would change the labels of every
// object sharing them. An informer makes its requests with this context
// unless it has a transform, which may write to the objects it is given
// (package informer). Anything else (a Get, a write's answer, a list a
// program makes for itself) decodes objects of their own, which are the
// caller's to change. DecodePlain ignores it.
func ForReadOnlyCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyCacheKey{}, true)
}

type readOnlyCacheKey struct{}

// forReadOnlyCache reports whether ctx came from ForReadOnlyCache.
func forReadOnlyCache(ctx context.Context) bool {
	readOnly, _ := ctx.Value(readOnlyCacheKey{}).(bool)
	return readOnly
}
