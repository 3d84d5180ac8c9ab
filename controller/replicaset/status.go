package replicaset

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// statusUpdateRetries is how many times a failed status write is tried
// again with a fresh copy from the server, as the real controller does.
const statusUpdateRetries = 1

// calculateStatus is what the controller observed: the active pods, those
// of them Ready, and the generation of the spec it acted on. kinformer's
// ReplicaSet has no minReadySeconds, so a pod is available as soon as it is
// ready.
func calculateStatus(rs *api.ReplicaSet, pods []*api.Pod) api.ReplicaSetStatus {
	var ready int32
	for _, p := range pods {
		if api.IsPodReady(p) {
			ready++
		}
	}
	return api.ReplicaSetStatus{
		Replicas:           int32(len(pods)),
		ReadyReplicas:      ready,
		AvailableReplicas:  ready,
		ObservedGeneration: rs.Generation,
	}
}

// updateStatus writes status through the status subresource, unless the
// cached ReplicaSet already has it. A write that fails (typically a 409
// Conflict: the ReplicaSet changed since the cache saw it) is tried once
// more on a fresh copy read from the server; if that fails too, the error
// sends the key back to the queue.
func (c *ReplicaSetController) updateStatus(ctx context.Context, key string, rs *api.ReplicaSet, status api.ReplicaSetStatus) error {
	if rs.Status == status {
		return nil
	}
	for i := 0; ; i++ {
		next := rs.DeepCopy() // never write into the cache's object
		next.Status = status
		written, err := c.rsClient.UpdateStatus(ctx, rs.Namespace, next)
		if err == nil {
			c.consistency.wroteAt(key, rs.UID, listwatch.ReplicaSets.GroupResource(), written.ResourceVersion)
			if c.tracer.On() {
				c.tracer.Event("status written", trace.Key(key), trace.RV(written.ResourceVersion),
					slog.Int("replicas", int(status.Replicas)), slog.Int("ready", int(status.ReadyReplicas)))
			}
			// Counted last, so whoever sees the count (Stats) also finds
			// the write's event in the trace.
			c.statusWrites.Add(1)
			return nil
		}
		if i >= statusUpdateRetries {
			return fmt.Errorf("writing the status of %s: %w", key, err)
		}
		if c.tracer.On() {
			c.tracer.Event("status write failed", trace.Key(key), trace.RV(next.ResourceVersion), trace.Err(err))
		}
		if rs, err = c.rsClient.Get(ctx, rs.Namespace, rs.Name); err != nil {
			return fmt.Errorf("reading %s to write its status again: %w", key, err)
		}
	}
}
