package replicaset

import (
	"fmt"
	"log/slog"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/trace"
)

// The handlers do what article 004 asks of a handler and no more: find the
// key of the ReplicaSet an event concerns and put it on the queue. A pod's
// event concerns the ReplicaSet named by the pod's controller owner
// reference; it also tells the expectations that one of the controller's
// own creates or deletes has now reached the cache.

// fromReplicaSet is the "from" of an enqueue caused by the ReplicaSet's own
// event.
const fromReplicaSet = "replicaset"

// handlerName names the controller's handlers in the informers' trace.
const handlerName = "replicaset-controller"

// registerHandlers registers the handlers on both informers. They are
// typed (informer.TypedResourceEventHandlerFuncs): each gets a *api.ReplicaSet
// or a *api.Pod, a delete already unwrapped from its tombstone, and an
// object of another type never reaches them.
func (c *ReplicaSetController) registerHandlers() error {
	var err error
	c.rsReg, err = c.rsInformer.AddEventHandlerWithOptions(informer.TypedResourceEventHandlerFuncs[*api.ReplicaSet]{
		AddFunc:    func(rs *api.ReplicaSet, _ bool) { c.addReplicaSet(rs) },
		UpdateFunc: func(_, rs *api.ReplicaSet) { c.addReplicaSet(rs) },
		DeleteFunc: func(rs *api.ReplicaSet, _ bool) { c.deleteReplicaSet(rs) },
		Logger:     c.logger,
	}, informer.HandlerOptions{Name: handlerName})
	if err != nil {
		return fmt.Errorf("replicaset: registering the ReplicaSet handler: %w", err)
	}
	c.podReg, err = c.podInformer.AddEventHandlerWithOptions(informer.TypedResourceEventHandlerFuncs[*api.Pod]{
		AddFunc:    func(pod *api.Pod, _ bool) { c.addPod(pod) },
		UpdateFunc: c.updatePod,
		DeleteFunc: func(pod *api.Pod, _ bool) { c.deletePod(pod) },
		Logger:     c.logger,
	}, informer.HandlerOptions{Name: handlerName})
	if err != nil {
		return fmt.Errorf("replicaset: registering the Pod handler: %w", err)
	}
	return nil
}

// addReplicaSet enqueues a ReplicaSet that was added, changed or resynced.
func (c *ReplicaSetController) addReplicaSet(rs *api.ReplicaSet) {
	c.enqueue(keyOf(rs), fromReplicaSet)
}

// deleteReplicaSet forgets a deleted ReplicaSet's expectations and the
// versions of its writes (only its own: by UID), and enqueues
// it (its reconcile finds it gone). rs may be the last state of a delete
// the watch missed (the typed handler unwrapped the tombstone).
func (c *ReplicaSetController) deleteReplicaSet(rs *api.ReplicaSet) {
	key := keyOf(rs)
	c.expectations.forget(key)
	c.consistency.clear(key, rs.UID)
	c.enqueue(key, fromReplicaSet)
}

// addPod handles a pod new to the cache: if a ReplicaSet controls it, one
// of that ReplicaSet's expected creations has been observed. A pod that is
// already being deleted (seen first after a restart or a relist) counts as
// a deletion instead.
func (c *ReplicaSetController) addPod(pod *api.Pod) {
	if pod.DeletionTimestamp != nil {
		c.deletePod(pod)
		return
	}
	rsKey, ok := c.ownerKey(pod)
	if !ok {
		return // an orphan: adopting it is left out (see the package doc)
	}
	c.expectations.creationObserved(rsKey, "observed add "+keyOf(pod))
	c.enqueue(rsKey, keyOf(pod))
}

// updatePod enqueues the ReplicaSet of a pod that changed: its readiness
// feeds the status, a deletionTimestamp means it is going (a deletion
// observed, as the real controller counts it), and a pod whose controller
// changed concerns both the old and the new ReplicaSet. A resync (same
// resourceVersion) changes nothing and is ignored: the ReplicaSet's own
// resync enqueues it.
func (c *ReplicaSetController) updatePod(oldPod, curPod *api.Pod) {
	if oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	if curPod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
		c.deletePod(curPod)
		return
	}
	oldKey, hadOwner := c.ownerKey(oldPod)
	curKey, hasOwner := c.ownerKey(curPod)
	if hadOwner && (!hasOwner || oldKey != curKey) {
		c.enqueue(oldKey, keyOf(oldPod))
	}
	if hasOwner {
		c.enqueue(curKey, keyOf(curPod))
	}
}

// deletePod handles a pod that is gone or going: one of its ReplicaSet's
// expected deletions, if it was one the controller deleted, has been
// observed. When the delete was missed and a relist found the pod gone, the
// typed handler has unwrapped the deltafifo.DeletedFinalStateUnknown: pod
// is the last state the cache knew, which still names its owner.
func (c *ReplicaSetController) deletePod(pod *api.Pod) {
	rsKey, ok := c.ownerKey(pod)
	if !ok {
		return
	}
	c.expectations.deletionObserved(rsKey, keyOf(pod), "observed delete "+keyOf(pod))
	c.enqueue(rsKey, keyOf(pod))
}

// ownerKey returns the key of the ReplicaSet that controls pod, if its
// controller owner reference names a ReplicaSet the cache holds with that
// UID (a ReplicaSet deleted and re-created under the same name does not
// own its predecessor's pods).
func (c *ReplicaSetController) ownerKey(pod *api.Pod) (string, bool) {
	ref := api.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return "", false
	}
	rs, err := c.rsLister.ByNamespace(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return "", false
	}
	return keyOf(rs), true
}

// enqueue puts a ReplicaSet key on the queue; from says which event put it
// there: a pod's key, or "replicaset".
func (c *ReplicaSetController) enqueue(key, from string) {
	if c.tracer.On() {
		c.tracer.Event("enqueue", trace.Key(key), slog.String("from", from))
	}
	c.queue.Add(key)
}

// keyOf is an object's "namespace/name".
func keyOf(obj api.Object) string {
	key, _ := indexer.MetaNamespaceKeyFunc(obj) // cannot fail for an object
	return key
}
