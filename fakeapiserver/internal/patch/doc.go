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
//     often send it. See JSONPatch, and below for where it departs from the
//     RFC.
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
// # JSON patch: json-patch v4, not RFC 6902
//
// kube-apiserver 1.36 applies JSON patches with gopkg.in/evanphx/json-patch.v4
// (the older semantics; v5 is stricter), and JSONPatch follows it, quirks
// included, wherever it departs from RFC 6902:
//
//   - "replace" of a missing object member adds it (v4 reads a missing member
//     as null without error); an array element must still exist.
//   - "test" and "copy" read a missing object member as null: a test for
//     null passes, and the copy adds null. A "test" with no "value" fails.
//   - "add" and "replace" with no "value" member fail (v4 sets null; the
//     real server refuses them, see missingValue). A missing or null "path"
//     or "from", or an unknown or missing "op", is not rejected before the
//     patch runs: the operation fails when its turn comes ("Unexpected kind:
//     frob"), which kube-apiserver answers with 422, not 400.
//   - Path "" names the whole document only for "replace" (an object or
//     array value replaces it; any other value changes nothing) and "test";
//     "add", "remove", "move" and "copy" at "" fail as a missing path.
//   - A path is split at every "/" and its first piece dropped unread, so
//     "a/b" means "/b" and "a" is a missing path; "~1" and "~0" are
//     unescaped and any other "~" is kept as it is.
//   - Array indices are read with strconv.Atoi ("01" and "+1" are 1), and a
//     negative index counts from the end ("-1" is the last element; for
//     "add", of the array one longer, so "add" at "-1" appends). "-" is only
//     for "add", as in the RFC.
//   - A value cannot be moved into its own child: it is removed first, so
//     the destination's parent is gone ("doc is missing destination path").
//
// Every refusal carries v4's own text ("replace operation does not apply:
// doc is missing key: /spec/containers/5: missing value", "testing value
// /metadata/name failed: test failed"). Besides a missing "value", only
// "test" differs from v4 in substance: it compares numbers by value (1 equals 1.0), where v4 compares
// their text as the server encoded it; and where v4 would panic (a "test"
// with no "value" of a null member) it fails the test.
//
// kube-apiserver itself does not pass v4's text on: it answers any failure
// of an operation with 422, reason Invalid, message "the server rejected our
// request due to an error in our request" and empty details.
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
// that is how the fake server stores objects. None of that code is used or
// copied here; only its behaviour and wording are followed.
package patch
