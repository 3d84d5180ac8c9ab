package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// burstReplicas caps the pods one reconcile creates or deletes, as the real
// controller does (kubernetes pkg/controller/replicaset BurstReplicas), so
// a ReplicaSet scaled to a huge number does not flood the server in one go.
const burstReplicas = 500

// slowStartInitialBatchSize is the first batch of creates; each later batch
// doubles (kubernetes pkg/controller SlowStartInitialBatchSize).
const slowStartInitialBatchSize = 1

// reconcile is the business logic, article 004's syncToStdout grown into
// the real ReplicaSet controller's syncReplicaSet: wait until the caches
// have reached the controller's own last writes (read-your-writes,
// bounded), compare the desired number of pods with the active pods the
// cache holds, create or delete the difference (only when the
// expectations say the cache has seen the pods it created and deleted),
// then write the status it found.
//
// It reads the state afresh every time and does not care which event
// queued the key: the controller is level-triggered.
func (c *ReplicaSetController) reconcile(ctx context.Context, key string) error {
	c.reconciles.Add(1)
	if c.tracer.Inspecting() {
		c.expectations.markReconciling(key, true, "reconcile", trace.Key(key))
		defer c.expectations.markReconciling(key, false, "") // if it ended without "reconciled"
	} else if c.tracer.On() {
		c.tracer.Event("reconcile", trace.Key(key))
	}
	if c.failHook != nil {
		if err := c.failHook(key); err != nil {
			return fmt.Errorf("reconcile %s: %w", key, err)
		}
	}
	namespace, name, err := indexer.SplitMetaNamespaceKey(key)
	if err != nil {
		c.logger.Error("a key that is not namespace/name", "key", key, "err", err)
		return nil // not a key this controller made: nothing to retry
	}
	rs, err := c.rsLister.ByNamespace(namespace).Get(name)
	if listwatch.IsNotFound(err) {
		c.expectations.forget(key)
		c.consistency.clear(key, "")
		c.traceReconciled(key, "", "ReplicaSet gone", "forgot its expectations")
		return nil
	}
	if err != nil {
		return fmt.Errorf("reconcile %s: reading the ReplicaSet from the cache: %w", key, err)
	}
	if err := c.readYourWrites(key); err != nil {
		return fmt.Errorf("reconcile %s: %w", key, err)
	}
	pods, err := c.activePods(rs)
	if err != nil {
		return fmt.Errorf("reconcile %s: %w", key, err)
	}
	want := int(replicasOf(rs))
	found := fmt.Sprintf("have %d of %d", len(pods), want)

	did := "nothing"
	var manageErr error
	switch {
	case rs.DeletionTimestamp != nil:
		did = "nothing: the ReplicaSet is being deleted"
	case !c.noExpectations && !c.expectations.satisfied(key):
		adds, dels, _ := c.expectations.get(key)
		did = fmt.Sprintf("nothing: waiting to observe %d adds, %d deletes", adds, dels)
	default:
		did, manageErr = c.manageReplicas(ctx, key, rs, pods)
	}
	statusErr := c.updateStatus(ctx, key, rs, calculateStatus(rs, pods))
	c.traceReconciled(key, rs.ResourceVersion, found, did)
	return errors.Join(manageErr, statusErr)
}

// readYourWrites asks the consistency store whether the caches have
// reached the controller's last writes for key: a ConsistencyError if not
// (the key is requeued; the event that brings the write into the cache
// queues it again too), nil if they have, if nothing was written, or if
// the wait has lasted ReadYourWritesTimeout (logged: the reconcile then
// reads a cache it knows to be stale). When a wait ends, the key's
// rate-limiter failures, which were waits, are forgotten.
func (c *ReplicaSetController) readYourWrites(key string) error {
	r := c.consistency.ensureReady(key)
	switch r.state {
	case cacheBehind:
		c.cacheWaits.Add(1)
		if c.tracer.On() {
			c.tracer.Event("cache behind own write", trace.Key(key), slog.String("resource", r.behind.GroupResource),
				slog.String("read", r.behind.ReadRV), slog.String("written", r.behind.WrittenRV))
		}
		return r.behind
	case cacheGaveUp:
		c.queue.Forget(key)
		c.logger.Warn("cache still behind the controller's own write: reconciling with it as it is",
			"key", key, "waited", r.waitedFor, "err", r.behind)
		if c.tracer.On() {
			c.tracer.Event("cache wait timed out", trace.Key(key), slog.String("resource", r.behind.GroupResource),
				slog.String("read", r.behind.ReadRV), slog.String("written", r.behind.WrittenRV), trace.Delay(r.waitedFor))
		}
	case cacheCaughtUp:
		if r.waited {
			c.queue.Forget(key)
			if c.tracer.On() {
				c.tracer.Event("cache caught up", trace.Key(key), trace.Delay(r.waitedFor))
			}
		}
	}
	return nil
}

func (c *ReplicaSetController) traceReconciled(key, rv, found, did string) {
	if c.tracer.Inspecting() {
		c.expectations.markReconciling(key, false, "reconciled", trace.Key(key), trace.RV(rv), slog.String("found", found), slog.String("did", did))
	} else if c.tracer.On() {
		c.tracer.Event("reconciled", trace.Key(key), trace.RV(rv), slog.String("found", found), slog.String("did", did))
	}
}

// replicasOf is spec.replicas, which defaults to 1.
func replicasOf(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// activePods returns the pods rs controls, found through the owner index,
// that still match its selector and are active: not being deleted, not
// finished (kubernetes pkg/controller FilterActivePods). Only those count
// towards spec.replicas.
func (c *ReplicaSetController) activePods(rs *api.ReplicaSet) ([]*api.Pod, error) {
	selector, err := rs.Spec.Selector.AsSelector()
	if err != nil {
		return nil, fmt.Errorf("the ReplicaSet's selector: %w", err)
	}
	objs, err := c.podIndex.ByIndex(indexer.ControllerUIDIndex, rs.UID)
	if err != nil {
		return nil, fmt.Errorf("listing its pods by the owner index: %w", err)
	}
	var pods []*api.Pod
	for _, obj := range objs {
		pod, ok := obj.(*api.Pod)
		if !ok || pod.Namespace != rs.Namespace || !selector.Matches(pod.Labels) || !isActive(pod) {
			continue
		}
		pods = append(pods, pod)
	}
	return pods, nil
}

func isActive(pod *api.Pod) bool {
	return pod.DeletionTimestamp == nil && pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed
}

// manageReplicas creates or deletes the difference between the active pods
// and spec.replicas, setting the expectations first (kubernetes
// manageReplicas). It returns what it did, for the trace.
func (c *ReplicaSetController) manageReplicas(ctx context.Context, key string, rs *api.ReplicaSet, pods []*api.Pod) (string, error) {
	diff := len(pods) - int(replicasOf(rs))
	switch {
	case diff < 0:
		n := min(-diff, burstReplicas)
		c.expectations.expectCreations(key, n)
		created, err := c.createPods(ctx, key, rs, n)
		return fmt.Sprintf("created %d of %d", created, n), err
	case diff > 0:
		victims := podsToDelete(pods, min(diff, burstReplicas))
		podKeys := make([]string, len(victims))
		for i, p := range victims {
			podKeys[i] = keyOf(p)
		}
		c.expectations.expectDeletions(key, podKeys)
		deleted, err := c.deletePods(ctx, key, rs, victims)
		return fmt.Sprintf("deleted %d of %d", deleted, len(victims)), err
	}
	return "nothing", nil
}

// createPods creates n pods from rs's template in slow-start batches of 1,
// 2, 4, ...: a batch that has a failure ends it, so a create the server
// will refuse (a quota, a bad template) fails once rather than n times.
// Every create that failed or was never tried is one the informer will never
// report, so its expected add is lowered at once.
func (c *ReplicaSetController) createPods(ctx context.Context, key string, rs *api.ReplicaSet, n int) (int, error) {
	created, err := slowStartBatch(n, slowStartInitialBatchSize, func() error {
		pod, err := c.pods.Create(ctx, rs.Namespace, newPod(rs))
		if err != nil {
			return fmt.Errorf("creating a pod for %s: %w", key, err)
		}
		c.podsCreated.Add(1)
		c.consistency.wroteAt(key, rs.UID, listwatch.Pods.GroupResource(), pod.ResourceVersion)
		if c.tracer.Inspecting() {
			c.expectations.event("pod created", trace.Key(keyOf(pod)), slog.String("owner", key))
		} else if c.tracer.On() {
			c.tracer.Event("pod created", trace.Key(keyOf(pod)), slog.String("owner", key))
		}
		return nil
	})
	for range n - created {
		c.expectations.creationObserved(key, "create failed or skipped")
	}
	return created, err
}

// slowStartBatch calls fn count times, in batches of initial, 2·initial,
// 4·initial, ... calls run in parallel; it stops after the first batch
// with an error and returns how many calls succeeded and that error
// (kubernetes pkg/controller/replicaset slowStartBatch).
func slowStartBatch(count, initial int, fn func() error) (int, error) {
	remaining, successes := count, 0
	for batch := min(remaining, initial); batch > 0; batch = min(2*batch, remaining) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() {
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		successes += batch - len(errs)
		if len(errs) > 0 {
			return successes, <-errs
		}
		remaining -= batch
	}
	return successes, nil
}

// deletePods deletes the victims in parallel. A delete that failed will
// never be observed, so its expected delete is lowered at once; a pod that
// is already gone (404) is not an error.
func (c *ReplicaSetController) deletePods(ctx context.Context, key string, rs *api.ReplicaSet, victims []*api.Pod) (int, error) {
	errs := make(chan error, len(victims))
	var wg sync.WaitGroup
	for _, pod := range victims {
		wg.Go(func() {
			err := c.pods.Delete(ctx, rs.Namespace, pod.Name, listwatch.DeleteOptions{})
			if err == nil {
				c.podsDeleted.Add(1)
				if c.tracer.Inspecting() {
					c.expectations.event("pod deleted", trace.Key(keyOf(pod)), slog.String("owner", key))
				} else if c.tracer.On() {
					c.tracer.Event("pod deleted", trace.Key(keyOf(pod)), slog.String("owner", key))
				}
				return
			}
			c.expectations.deletionObserved(key, keyOf(pod), "delete failed")
			if !listwatch.IsNotFound(err) {
				errs <- fmt.Errorf("deleting pod %s of %s: %w", keyOf(pod), key, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return len(victims) - len(all), errors.Join(all...)
}

// newPod is a pod made from rs's template: named "<rs>-<random>" by the
// server (generateName), with the template's labels, annotations and spec,
// and an owner reference that marks rs as its controller.
func newPod(rs *api.ReplicaSet) *api.Pod {
	var meta api.ObjectMeta // copies: rs is the cache's, shared by every reader
	rs.Spec.Template.ObjectMeta.DeepCopyInto(&meta)
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{
		GenerateName:    rs.Name + "-",
		Namespace:       rs.Namespace,
		Labels:          meta.Labels,
		Annotations:     meta.Annotations,
		Finalizers:      meta.Finalizers,
		OwnerReferences: []api.OwnerReference{controllerRef(rs)},
	}}
	rs.Spec.Template.Spec.DeepCopyInto(&pod.Spec)
	return pod
}

// controllerRef is the owner reference of a pod rs controls.
func controllerRef(rs *api.ReplicaSet) api.OwnerReference {
	yes := true
	return api.OwnerReference{
		APIVersion:         listwatch.ReplicaSets.GroupVersion(),
		Kind:               listwatch.ReplicaSets.Kind,
		Name:               rs.Name,
		UID:                rs.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}
