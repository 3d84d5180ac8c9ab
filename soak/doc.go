// Package soak hammers the whole stack with the faults a real cluster
// produces and then checks that nothing was lost. It is the runnable answer
// to the question the "informer" notes end with (can list/watch and the
// informer lose events, and does it matter?): events can be missed — a
// dropped watch, a compacted history, a dropped event, a server that
// restarts — but state cannot, because the reflector resumes from its last
// resourceVersion, relists when the server no longer has it, and the
// relist's Replace turns every delete it missed into a tombstone.
//
// A run has:
//
//   - writers: random creates, updates and deletes of configmaps and pods
//     across namespaces, with labels that move objects in and out of the
//     informers' selectors;
//   - informers: different resources, namespaces and selectors, the
//     articles' informer on the DeltaFIFO and on the RealFIFO, and today's
//     (informer.Today: streaming list, RealFIFO with client-go 1.36's
//     modes), each with a handler that checks every notification (an
//     object's resourceVersions only go up);
//   - the ReplicaSet controller of package controller/replicaset, keeping a
//     ReplicaSet's pods;
//   - faults at random: dropped watches, compactions, dropped events,
//     bursts of 429 and 500, and restarts of the server.
//
// At the end it stops the writers and faults, waits for the world to
// settle, and checks that every cache equals the server's filtered list,
// that each handler's last word on every object matches the cache, and that
// the ReplicaSet has its replicas. Report counts what happened.
//
// `go test ./soak` runs a short soak with a fixed seed; `make soak` runs a
// long one (SOAK_DURATION, SOAK_SEED). A failure prints its seed, and the
// same seed replays the same choices of writes and faults (the timing, and
// so the interleaving, differs from run to run).
package soak
