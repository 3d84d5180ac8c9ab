package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

// seed creates the demo's world: the ReplicaSet "web" wanting replicas
// pods (the controller creates them), a configmap, and a pod in
// kube-system that belongs to no ReplicaSet.
func seed(srv *fakeapiserver.Server, replicas int32) error {
	if _, err := srv.Create(&api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27"}}}},
		},
	}); err != nil {
		return fmt.Errorf("seeding the ReplicaSet: %w", err)
	}
	if _, err := srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "default"},
		Data: map[string]string{"greeting": "hello"}}); err != nil {
		return fmt.Errorf("seeding the configmap: %w", err)
	}
	if _, err := srv.Create(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "coredns", Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec:       api.PodSpec{NodeName: nodeName, Containers: []api.Container{{Name: "coredns", Image: "coredns:1.11"}}},
		Status:     runningStatus("10.0.0.2"),
	}); err != nil {
		return fmt.Errorf("seeding the coredns pod: %w", err)
	}
	return nil
}

// nodeName is the one node of the demo's world.
const nodeName = "node-1"

// kubelet stands in for the scheduler and the node: a pod it has seen for
// startDelay is bound to node-1 (spec.nodeName, written with an update:
// the fake server allows it, where the real one wants the scheduler's
// pods/binding subresource) and moved to Running and Ready through the
// status subresource, as a kubelet reports a started container. A bound
// pod being deleted (deletionTimestamp set, its grace period running) is
// "stopped" after stopDelay and then deleted with grace 0, which is what
// removes it: the real two-step pod deletion. It reads pods from the pod
// informer's cache and writes through the API, like any other client.
type kubelet struct {
	pods       informer.Lister[*api.Pod]
	client     *listwatch.TypedClient[*api.Pod]
	startDelay time.Duration
	firstSeen  map[string]time.Time // by uid
	stopping   map[string]time.Time // by uid: when the deletion was first seen
	nextIP     int
}

// stopDelay is how long the kubelet takes to stop a deleted pod's
// containers before it finishes the deletion.
func (k *kubelet) stopDelay() time.Duration { return k.startDelay / 2 }

func (k *kubelet) run(ctx context.Context, n *narrator) {
	t := time.NewTicker(k.startDelay / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			k.startPods(ctx, now, n)
		}
	}
}

func (k *kubelet) startPods(ctx context.Context, now time.Time, n *narrator) {
	pods, err := k.pods.List(api.Everything())
	if err != nil {
		return
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			k.finishDeletion(ctx, now, p, n)
			continue
		}
		if p.Status.Phase == api.PodRunning {
			continue
		}
		seen, ok := k.firstSeen[string(p.UID)]
		if !ok {
			k.firstSeen[string(p.UID)] = now
			continue
		}
		if now.Sub(seen) < k.startDelay {
			continue
		}
		bound := p
		if p.Spec.NodeName == "" {
			withNode := p.DeepCopy()
			withNode.Spec.NodeName = nodeName
			if bound, err = k.client.Update(ctx, p.Namespace, withNode); err != nil {
				continue // a conflict: the next tick sees the newer pod
			}
		}
		started := bound.DeepCopy()
		k.nextIP++
		started.Status = runningStatus(fmt.Sprintf("10.0.1.%d", k.nextIP%250+1))
		if _, err := k.client.UpdateStatus(ctx, p.Namespace, started); err == nil {
			n.say(n.t.podRunning, p.Namespace, p.Name, nodeName)
		}
	}
	for uid := range k.stopping {
		if !slices.ContainsFunc(pods, func(p *api.Pod) bool { return string(p.UID) == uid }) {
			delete(k.stopping, uid)
		}
	}
}

// finishDeletion ends the graceful deletion of a bound pod: once its
// containers are "stopped" (stopDelay after the deletion was first seen) it
// deletes the pod with grace 0, as a kubelet does. The server then removes
// it (a MODIFIED with grace 0, then DELETED). An unbound pod never waits for
// a kubelet: the server removed it at once.
func (k *kubelet) finishDeletion(ctx context.Context, now time.Time, p *api.Pod, n *narrator) {
	if p.Spec.NodeName == "" {
		return
	}
	uid := string(p.UID)
	seen, ok := k.stopping[uid]
	if !ok {
		k.stopping[uid] = now
		return
	}
	if now.Sub(seen) < k.stopDelay() {
		return
	}
	zero := int64(0)
	err := k.client.Delete(ctx, p.Namespace, p.Name, listwatch.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &listwatch.Preconditions{UID: &uid}})
	if err == nil {
		n.say(n.t.podStopped, p.Namespace, p.Name)
		delete(k.stopping, uid)
	}
}

func runningStatus(ip string) api.PodStatus {
	return api.PodStatus{Phase: api.PodRunning, PodIP: ip,
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
}
