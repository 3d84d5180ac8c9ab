// Package replicaset is a ReplicaSet controller built on kinformer's
// informers and work queue: the controller that "Kubernetes-Informer"
// (smartkeyerror, 2020-08-26) uses as its example of what sits at the end
// of the informer pipeline ("when the ReplicaSet controller receives the
// event that a Pod was deleted, it creates a new Pod, to keep the number of
// Pods"), written in the shape of the work-queue controller of "Kubernetes
// Controller 实现机制深度解析" (赵化冰, 2023-03-09).
//
// # The idea
//
// A user declares what they want, a ReplicaSet with spec.replicas: 3, and
// the controller makes the world match: it counts the pods the ReplicaSet
// controls, creates the missing ones or deletes the surplus, and writes
// what it found to the ReplicaSet's status. Article 004 calls this loop
// reconcile (调谐).
//
// The controller never asks the API server what exists. Two informers, one
// for ReplicaSets and one for Pods, from one shared factory (the way
// "Kubernetes 源码阅读 - Informer" describes the Deployment controller
// consuming a Deployment and a ReplicaSet informer), keep a local cache of
// both; the pod cache has an index by controller UID, so "the pods of this
// ReplicaSet" is one map lookup. The informers' handlers do almost nothing:
// each maps its event to the key ("namespace/name") of the ReplicaSet it
// concerns (a pod's event to the ReplicaSet named by its controller owner
// reference) and adds the key to a rate-limited work queue. Workers take
// keys from the queue and reconcile: read the ReplicaSet and its pods from
// the cache, compare, write. A failed reconcile is retried with growing
// delays, five times, then dropped with a log line (article 004).
//
// Because a reconcile reads the current state and never the event that
// queued the key, the controller is level-triggered: ten events for one
// ReplicaSet are one queued key and one reconcile, and a missed event does
// not matter as long as some later event (or a resync) queues the key
// again; the state it then reads includes whatever the missed event said.
//
// # Expectations
//
// The cache lags behind the controller's own writes: a pod the controller
// has just created reaches its cache only when the watch delivers it. A
// reconcile that ran in between (another event for the same ReplicaSet, a
// resync) would count the old pods and create the same pods again. So, as
// the real controller does, it keeps expectations per ReplicaSet: before
// creating n pods it records "expect n adds"; the pod handler lowers the
// count as each new pod reaches the cache; and a reconcile changes pods only
// when its ReplicaSet expects nothing more (or its expectations are older
// than five minutes: events can be lost for good). Deletes work the same
// way. The expectations are in expectations.go; the test that shows they
// matter is TestReplicaSetController_Expectations_NoOvershootUnderCacheLag,
// with its twin that turns them off and overshoots.
//
// # Using it
//
//	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{DefaultResync: 30 * time.Second})
//	c, err := replicaset.NewReplicaSetController(replicaset.Options{Client: client, Factory: factory})
//	factory.Start(ctx)      // the caller starts the factory, as in client-go
//	err = c.Run(ctx)        // waits for the caches, runs the workers until ctx ends, drains
//	factory.Shutdown()
//
// cmd/democontroller runs it against the fake API server or a real cluster.
//
// # Left out
//
// Adoption and release (the real controller adopts orphan pods that match
// its selector and releases owned pods that stop matching it), minReadySeconds,
// the deletion-cost annotation and the rank of pods by node when choosing
// which to delete, status conditions, and events. Pods are counted only if
// the ReplicaSet controls them and they match its selector.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), sections "Controller
//     原理" (declarative API, reconcile: 调谐) and "Informer 机制" (the workqueue
//     controller example);
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), section "2.
//     Informer工作原理" (the ReplicaSet controller recreating a deleted Pod);
//   - "Kubernetes 源码阅读 - Informer" (2021-07-10), section "`kcm` 的使用 example"
//     (a controller consuming two informers of one factory).
package replicaset
