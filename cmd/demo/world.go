package main

import (
	"context"
	"fmt"
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
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "coredns", Image: "coredns:1.11"}}},
		Status:     runningStatus("10.0.0.2"),
	}); err != nil {
		return fmt.Errorf("seeding the coredns pod: %w", err)
	}
	return nil
}

// kubelet stands in for the nodes: a pod it has seen for startDelay is
// moved to Running and Ready, through the status subresource, as a kubelet
// reports a started container. It reads pods from the pod informer's cache
// and writes through the API, like any other client.
type kubelet struct {
	pods       informer.Lister[*api.Pod]
	client     *listwatch.TypedClient[*api.Pod]
	startDelay time.Duration
	firstSeen  map[string]time.Time // by uid
	nextIP     int
}

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
		if p.Status.Phase == api.PodRunning || p.DeletionTimestamp != nil {
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
		started := p.DeepCopy()
		k.nextIP++
		started.Status = runningStatus(fmt.Sprintf("10.0.1.%d", k.nextIP%250+1))
		if _, err := k.client.UpdateStatus(ctx, p.Namespace, started); err == nil {
			n.say("kubelet: pod %s/%s is Running and Ready", p.Namespace, p.Name)
		}
	}
}

func runningStatus(ip string) api.PodStatus {
	return api.PodStatus{Phase: api.PodRunning, PodIP: ip,
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
}
