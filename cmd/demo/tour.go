package main

import "fmt"

// tour is what to try, with the server's real address and the
// resourceVersion of a real list of pods filled in.
func tour(url, listRV string) string {
	k := "kubectl --server " + url
	return fmt.Sprintf(`
kinformer demo: a fake Kubernetes API server on %[1]s, two informers
(replicasets, pods) sharing one factory, a ReplicaSet controller with a
work queue, a kubelet that starts pods, and a chaos loop. Ctrl-C stops it.

Each line below is one change travelling the pipeline the articles draw:
server commit → watch frame → DeltaFIFO → cache → handler → work queue → worker.

Try, in another terminal:
  1. List, as article 004 does with curl (this list was at resourceVersion %[3]s):
       curl %[1]s/api/v1/namespaces/default/pods
  2. Watch from that version (each line is one chunk of the stream):
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"
  3. Watch with kubectl, delete a pod, and see the controller answer here:
       %[2]s get pods -w
       %[2]s delete pod <a web pod>
       %[2]s get rs web
       %[2]s patch rs web -p '{"spec":{"replicas":5}}'    (scale up; then 2 to scale down)
  4. Break it and watch the informers recover, with the server's fault endpoints
     (curl %[1]s/faults lists them all):
       curl -X POST %[1]s/faults/close-watches    (watches resume from their last rv: no relist)
       curl -X POST %[1]s/faults/compact          (history gone; then close-watches: 410 Expired → relist)
       curl -X POST "%[1]s/faults/fail?code=429&count=3&retryAfter=2&verb=list"   (backoff, Retry-After)
     A lost delete, and the tombstone that repairs it:
       curl -X POST "%[1]s/faults/drop?resource=pods&type=DELETED"
       %[2]s delete pod <a web pod> --wait=false    (no watch sees the DELETED: the cache keeps the pod)
       curl -X POST %[1]s/faults/compact; curl -X POST %[1]s/faults/close-watches
                                          (410 Expired → relist → the pod comes back as a tombstone)
     and see 410 yourself: after the compact, a watch from the old version answers 410 Expired:
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"

`, url, k, listRV)
}
