package replicaset

import (
	"fmt"
	"log/slog"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
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

// registerHandlers registers the handlers on both informers.
func (c *ReplicaSetController) registerHandlers() error {
	var err error
	c.rsReg, err = c.rsInformer.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any, _ bool) { c.addReplicaSet(obj) },
		UpdateFunc: func(_, newObj any) { c.addReplicaSet(newObj) },
		DeleteFunc: c.deleteReplicaSet,
	}, informer.HandlerOptions{Name: handlerName})
	if err != nil {
		return fmt.Errorf("replicaset: registering the ReplicaSet handler: %w", err)
	}
	c.podReg, err = c.podInformer.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any, _ bool) { c.addPod(obj) },
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	}, informer.HandlerOptions{Name: handlerName})
	if err != nil {
		return fmt.Errorf("replicaset: registering the Pod handler: %w", err)
	}
	return nil
}

// addReplicaSet enqueues a ReplicaSet that was added, changed or resynced.
func (c *ReplicaSetController) addReplicaSet(obj any) {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok {
		return
	}
	c.enqueue(keyOf(rs), fromReplicaSet)
}

// deleteReplicaSet forgets a deleted ReplicaSet's expectations and enqueues
// it (its reconcile finds it gone). obj may be a tombstone.
func (c *ReplicaSetController) deleteReplicaSet(obj any) {
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		c.logger.Error("a deleted object without a key", "obj", fmt.Sprintf("%T", obj), "err", err)
		return
	}
	c.expectations.forget(key)
	c.enqueue(key, fromReplicaSet)
}

// addPod handles a pod new to the cache: if a ReplicaSet controls it, one
// of that ReplicaSet's expected creations has been observed. A pod that is
// already being deleted (seen first after a restart or a relist) counts as
// a deletion instead.
func (c *ReplicaSetController) addPod(obj any) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
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
func (c *ReplicaSetController) updatePod(oldObj, newObj any) {
	oldPod, ok1 := oldObj.(*api.Pod)
	curPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
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
// observed. obj may be a deltafifo.DeletedFinalStateUnknown: the delete was
// missed and a relist found the pod gone; its Obj is the last state the
// cache knew.
func (c *ReplicaSetController) deletePod(obj any) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		tombstone, isTombstone := obj.(deltafifo.DeletedFinalStateUnknown)
		if !isTombstone {
			c.logger.Error("a pod delete without a pod", "obj", fmt.Sprintf("%T", obj))
			return
		}
		if pod, ok = tombstone.Obj.(*api.Pod); !ok {
			c.logger.Error("a tombstone without a pod", "key", tombstone.Key, "obj", fmt.Sprintf("%T", tombstone.Obj))
			return
		}
	}
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
