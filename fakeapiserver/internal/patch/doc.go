// Package patch applies the three kinds of PATCH body a Kubernetes API server
// accepts to an object kept as decoded JSON. The fake API server stores every
// object as the map[string]any that json.Decoder (with UseNumber) produces,
// so it can patch fields its typed structs do not know, exactly as the real
// server keeps whatever a client sent.
//
// # Three patch types, and who sends them
//
// A client says which kind of patch it sends with the Content-Type header:
//
//   - application/merge-patch+json, a JSON merge patch (RFC 7386): a sparse
//     copy of the object; members it names are set, null removes a member,
//     objects merge recursively, and anything else (arrays included)
//     replaces what was there. kubectl label and kubectl annotate send these
//     ({"metadata":{"labels":{"app":"web"}}}); so does kubectl patch --type
//     merge. See MergePatch.
//   - application/json-patch+json, a JSON patch (RFC 6902): a list of
//     operations (add, remove, replace, move, copy, test) that address their
//     target with a JSON pointer (RFC 6901), applied in order and atomically.
//     It is the only type that can change one array element by index or
//     guard a change with "test", so controllers and admission webhooks
//     often send it. See JSONPatch.
//   - application/strategic-merge-patch+json, a strategic merge patch, which
//     only Kubernetes speaks: a merge patch that merges some lists element by
//     element (containers by name) instead of replacing them, plus a few
//     "$" directives. kubectl apply (client-side), kubectl edit and kubectl
//     patch (its default type) send it. See StrategicMergePatch.
//
// (kubectl apply --server-side sends a fourth type, apply-patch+yaml, for
// server-side apply and its managedFields bookkeeping; this package does not
// implement it.)
//
// # What the strategic merge patch leaves out
//
// Real Kubernetes learns how to merge each list from the Go struct tags
// (patchStrategy, patchMergeKey) of the object's type, or from its OpenAPI
// schema. This package has no schema: only the list paths given in MergeKeys
// merge (DefaultMergeKeys lists Kubernetes' own for Pods, ReplicaSets,
// Namespaces and object metadata); every other list is replaced whole, as in
// a merge patch, its elements taken verbatim. Paths are field paths, the
// same for every resource type. A list Kubernetes keys by two fields (a
// container's ports, by containerPort and protocol) is matched by the one
// field named. Where Kubernetes' result depends on Go's random map order (a
// $deleteFromPrimitiveList and an addition to the same list in one patch),
// deletions here always run first.
//
// What it keeps: the directives $patch (replace and delete, in objects and
// lists), $deleteFromPrimitiveList, $setElementOrder and $retainKeys, and
// Kubernetes' order for merged lists, quirks included: without a
// $setElementOrder an added element goes before the untouched ones, and an
// empty list in the patch leaves a merged list as it was.
//
// # Safety
//
// The caller's document is never modified and the result shares no map or
// slice with it, because the server's stored objects are shared with readers
// (watchers, lists) while a patch runs: each function deep-copies the
// document first and patches the copy. That copy is most of the cost of a
// small patch (see BenchmarkMergePatchLabels and BenchmarkCopyObject).
//
// Bad input of any kind yields an error, never a panic, and every error
// wraps one of three kinds the server maps to an HTTP status: ErrMalformed
// (the body is not valid JSON or not the shape its type requires: 400),
// ErrNotApplicable (well formed, but it does not fit this object: 422) and
// ErrTooLarge (over a limit: 413). The limits keep a hostile body, up to the
// server's 3 MiB, from exhausting the stack, memory or CPU: nesting deeper
// than 10000 levels (encoding/json's own limit, kept for the result too),
// more than 10000 JSON patch operations (kube-apiserver's limit), and JSON
// patches that copy too much or shift huge arrays over and over: copies
// may add up to 3 MiB of JSON, kube-apiserver's --json-patch-max-copy-bytes
// (ErrNotApplicable, as it answers 422), so a small patch cannot turn one
// long string into gigabytes by copying it thousands of times. Numbers
// stay json.Number throughout, so no value is rounded through float64.
//
// Where this departs from client-go: Kubernetes implements these in
// k8s.io/apimachinery/pkg/util/strategicpatch and the evanphx/json-patch
// module, working on []byte; here they work on already-decoded maps, since
// that is how the fake server stores objects.
package patch
