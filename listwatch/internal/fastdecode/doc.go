// Package fastdecode is listwatch's fast path: everything that makes a list
// or a watch decode faster than the plain encoding/json loops of
// listwatch/decode.go, and nothing else. listwatch chooses it with
// Config.Decoder (DecodeFast, the default); read the plain loops first,
// since this package only does what they do, faster.
//
// # The promise
//
// The fast path shows its caller exactly what the plain path shows: the
// same objects (equal field by field: TestDecode_FastSameAsPlain in
// listwatch, on every recorded frame and list of a real kube-apiserver),
// the same events in the same order, the same errors at the same places.
// It keeps that promise by construction where it can: whenever a fast
// decode fails, the caller decodes the same bytes again with the plain
// decoder, and it is the plain decoder's error (or, were it to succeed,
// its object) that counts.
//
// # What it adds, each in a file of its own
//
//   - decoder.go: one pass. Each frame and item is decoded by
//     onepass.Unmarshal (internal/onepass), which stores what json.Unmarshal
//     stores but reads the bytes once; about three times faster on a pod.
//   - room.go: no garbage from growing slices. Each decoding goroutine has
//     a Decoder, whose room a pod decodes its conditions, owner references
//     and containers in.
//   - intern.go: one copy of every string objects repeat (namespaces,
//     label keys and values, images, owners, node names), interned as it
//     is decoded, so that a string already held costs no allocation.
//   - share.go: one copy of every map and list objects repeat (labels,
//     annotations, owner references, containers), for objects bound for a
//     read-only cache (listwatch.ForReadOnlyCache): a ReplicaSet's pods
//     then hold one labels map between them.
//   - compact.go: small cached objects. Compact copies slices to their
//     exact length (and interns the strings of an object encoding/json
//     decoded), since an informer keeps every object for as long as it
//     runs.
//   - watch.go, list.go, pool.go: both cores. Once frames queue up, or
//     after a list's first ParallelListAfter items, frames and items are
//     decoded on up to Workers goroutines, a batch at a time, and still
//     delivered strictly in stream order.
//   - cutter.go: a list's items are cut out of the body by a scanner of
//     brackets and quotes (valueCutter) and decoded as they stream in,
//     instead of the whole body being decoded at once.
//
// docs/listwatch.md ("Decoding in one pass", "Decoding on both cores") and
// docs/performance.md tell what each step bought, measured.
package fastdecode
