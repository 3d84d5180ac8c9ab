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
// # Read your writes
//
// Expectations count pods; they say nothing about how old the rest of the
// cache is. A reconcile that runs while the cache lags still reads a pod
// list without the pods it just created, and a ReplicaSet without the
// status it just wrote: it computes the status from the stale list and
// writes it over the stale ReplicaSet, which the server refuses (409
// Conflict). kube-controller-manager 1.36 adds a second guard (feature
// gate StaleControllerConsistencyReplicaSet, on by default; KEP-5647), and
// so does this controller (consistency.go): after each of its writes it
// records the write's resourceVersion per ReplicaSet and resource, and a
// reconcile first compares them with how far each informer's cache has got
// (LastStoreSyncResourceVersion). A cache behind the controller's own last
// write fails the reconcile with a ConsistencyError: the key is requeued,
// rate-limited, and the event that brings the write into the cache queues
// it again. Expectations stay: this guard sees nothing when the informer
// cannot say how far its cache has got (the articles' informer; only
// client-go 1.36's AtomicFIFO can), nor a pod delete (the client returns
// no version for it), nor once its wait has ended. The wait is bounded
// (Options.ReadYourWritesTimeout, 10 s): kinformer's queue drops a key
// after five failures, upstream's never does, so a ConsistencyError is
// never dropped, and after the timeout the reconcile reads the cache as it
// is. TestReplicaSet_ReadYourWritesWaitsForTheCache shows the wait, and
// with it turned off (Options.DisableReadYourWrites) the stale read;
// TestReplicaSet_ReadYourWritesWaitIsBounded shows the bound.
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
