// Package listwatch is kinformer's HTTP client for the Kubernetes API: the
// only code in the project that speaks HTTP to an API server. It lists,
// watches, reads and writes objects, and gives a Reflector its
// ListerWatcher.
//
// # The story
//
// Everything an informer knows it learns through two requests, which
// article 004 ("Kubernetes Controller 实现机制深度解析", 赵化冰) makes with
// curl and article 000 ("Kubernetes-Informer", smartkeyerror, §1) calls
// ListAndWatch:
//
//	GET /api/v1/namespaces/default/pods
//	    -> {"kind":"PodList","metadata":{"resourceVersion":"770715"},"items":[...]}
//	GET /api/v1/namespaces/default/pods?watch=true&resourceVersion=770715
//	    -> {"type":"ADDED","object":{...}}\n{"type":"MODIFIED","object":{...}}\n ...
//
// The list is the state at one resourceVersion; the watch is every change
// after it, as a chunked HTTP response that stays open (article 002,
// "informer", §1.2-1.3: the server pushes chunks, the client unpacks
// them). Article 004 then writes the watch side by hand: an http.Client, a
// bearer token, and json.NewDecoder(resp.Body).Decode in a loop, panicking
// on the first error. That is the right idea, and this package is that
// idea made fit for a program that runs for months:
//
//   - Frames, not chunks. A chunk may hold part of an event or several;
//     frameReader (watch_decoder.go) cuts the stream at the newlines the
//     server writes after each event, whatever the chunking.
//   - Bounded memory. One frame may not exceed Config.MaxWatchFrameSize
//     (16 MiB by default); a longer one ends the watch with
//     ErrFrameTooLarge instead of eating memory.
//   - One decode seam. Every frame, list and answer is decoded through
//     one place, decode.go, whose plain form is article 004's loop in
//     encoding/json: read a frame, unmarshal the event and, straight into
//     a new object of the watched type (Resource.New), its object. The
//     default is its fast form (Config.Decoder, DecodeFast), which keeps
//     all its speed in listwatch/internal/fastdecode and shows the caller
//     exactly what the plain form shows:
//   - One pass. The fast form decodes with onepass.Unmarshal
//     (internal/onepass): the same result as json.Unmarshal, but the bytes
//     are read once where encoding/json reads them twice, about three
//     times faster on a pod. The cost of a watch is the cost of decoding
//     its bytes, and little else.
//   - Both cores. On the fast form, with Config.DecodeWorkers other than
//     1, frames that queue up and a long list's items are decoded on
//     several goroutines, and still delivered strictly in stream order,
//     with the same errors at the same places.
//   - Every ending is visible and nothing hangs. A clean end (the server's
//     timeoutSeconds) closes ResultChan; an ERROR frame (410 Expired: "your
//     resourceVersion is too old, relist") arrives as an Event of type
//     Error carrying a *StatusError; garbage, an oversized frame or a cut
//     connection arrive as one Error event wrapping ErrMalformedFrame,
//     ErrFrameTooLarge or io.ErrUnexpectedEOF. Stop, or cancelling the
//     context, ends the stream and its goroutine promptly.
//   - Errors are data. Every non-2xx answer becomes a *StatusError holding
//     the server's Status, and IsNotFound, IsConflict, IsResourceExpired,
//     IsTooManyRequests, RetryAfter and friends read it, as client-go's
//     apierrors package does, through any amount of error wrapping.
//
// # The pieces
//
//   - config.go: Config (server URL, bearer token or token file, CA and
//     client certificates, proxy, timeout, MaxWatchFrameSize, Decoder,
//     DecodeWorkers, Tracer), InClusterConfig, BindFlags; kubeconfig.go:
//     LoadKubeconfig, which reads and merges kubeconfig files;
//     kubeconfig_decode.go: their entries, decoded and checked.
//   - client.go: Client, the one HTTP client, and how a request is built.
//   - resource.go: Resource (group, version, plural, kind, scope, Go type)
//     and the URL paths the API lays out; Pods, ConfigMaps, Namespaces,
//     ReplicaSets. dynamic.go: DynamicResource (objects kept as
//     *api.Unstructured) and MetadataOnly (their metadata only).
//   - list.go, watch.go: the two halves of ListAndWatch.
//   - watch_decoder.go, stream_watcher.go: the body cut into frames
//     (frameReader), and the goroutine that delivers their Events.
//   - decode.go: the seam, bytes into objects: its plain form first, then
//     Decoder, the choice; decode_fast.go: its fast form, a thin layer
//     over listwatch/internal/fastdecode, which holds all the speed (one
//     pass, reused room, interned strings, compacted objects, several
//     goroutines; its package doc gives each its file).
//   - read_only.go: ForReadOnlyCache, the promise an informer makes for
//     the lists and watches that fill its cache, which lets the fast form
//     give objects one copy of the maps and lists they repeat.
//   - typed_client.go: TypedClient[T] with List, Watch, Get, Create,
//     Update, UpdateStatus, Patch and Delete; options.go: PatchType,
//     DeleteOptions and Preconditions, what Patch and Delete take.
//   - listwatch.go: NewListWatchFromClient and
//     NewFilteredListWatchFromClient, the ListerWatcher a Reflector is
//     built on; interfaces.go: ListOptions, ObjectList, Event, Watch,
//     Lister, Watcher, ListerWatcher, ListWatch.
//   - errors.go: StatusError, NewNotFound (the error informer listers
//     return for a cache miss) and the Is* helpers.
//
// # Where kinformer departs from client-go
//
//   - Generics replace generated clientsets: For[*api.Pod](client, Pods)
//     is what clientset.CoreV1().Pods(ns) is in client-go, written once
//     for every type.
//   - context.Context replaces stop channels: a Watch ends when its
//     context does.
//   - JSON only (no protobuf, no CBOR), HTTP/1.1 or HTTP/2.
//   - kubeconfig files are turned into JSON by internal/yamljson (no YAML
//     library is allowed; the fake API server reads YAML bodies with it)
//     and decoded with encoding/json, as kubectl does with sigs.k8s.io/yaml;
//     anchors and keys given twice are refused, and so are exec and
//     auth-provider plugins: use `kubectl proxy` for those clusters.
//   - Objects always carry kind and apiVersion, list items too
//     (client-go's typed objects come back with them empty).
//   - Frames are found by newline rather than by a second JSON scan.
//
// docs/listwatch.md walks through article 004's raw watcher in this code
// and says how to point it at a real cluster.
package listwatch
