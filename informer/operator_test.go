package informer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// Controller versus Operator: "Kubernetes Controller 实现机制深度解析" (赵化冰,
// 2023-03-09), the aside under "Controller 原理": a controller is any program
// that watches resources and reconciles; an Operator is a controller for a
// custom resource that manages one complex, stateful application (a MySQL
// Operator). What makes it one is the knowledge it encodes: what a human
// operator of that application would do, written as reconcile rules.
//
// Here the application is a made-up replicated key-value store that needs
// a majority of its members up (3 members: 2). The KVCluster custom
// resource says how many members and which version; the operator below
// knows three things a ReplicaSet controller does not:
//
//   - members join one at a time, each after the one before is ready (a
//     new member joins a running cluster);
//   - an upgrade replaces one member at a time, the highest ordinal first,
//     and only when every member is ready: never more than one down, so a
//     majority always stays up;
//   - status.version is the version every member runs, once they all do.
//
// A ReplicaSet controller would create all three pods at once and, given a
// new template, replace nothing (a Deployment would replace them by its
// own rules, which know nothing of quorum).

var (
	opCRDs     = listwatch.DynamicResource("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false)
	kvClusters = listwatch.DynamicResource("demo.kinformer.io", "v1", "kvclusters", "KVCluster", true)
)

// kvClusterCRD is what `kubectl apply -f` of the CRD sends.
const kvClusterCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"kvclusters.demo.kinformer.io"},
 "spec":{"group":"demo.kinformer.io","scope":"Namespaced",
  "names":{"plural":"kvclusters","singular":"kvcluster","kind":"KVCluster","listKind":"KVClusterList"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// kvOperator is the Operator: two informers from one factory (its custom
// resource and the pods it owns), a work queue of cluster keys, and
// reconcile.
type kvOperator struct {
	clusters      Lister[*api.Unstructured]
	pods          Lister[*api.Pod]
	clusterClient *listwatch.TypedClient[*api.Unstructured]
	podClient     *listwatch.TypedClient[*api.Pod]
	queue         *workqueue.Typed[string]
	tr            *trace.Tracer // stage controller
	actions       []string      // the pods it created and deleted, in order
}

// reconcile brings one KVCluster one step closer to its spec, by the rules
// above. Each step is one change; the events it causes queue the key again.
func (o *kvOperator) reconcile(ctx context.Context, key string) error {
	ns, name, err := indexer.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	c, err := o.clusters.ByNamespace(ns).Get(name)
	if listwatch.IsNotFound(err) {
		return nil // deleted: a cluster's garbage collector deletes the pods it owns
	}
	if err != nil {
		return err
	}
	want, _, _ := api.NestedInt64(c.Object, "spec", "members")
	version, _, _ := api.NestedString(c.Object, "spec", "version")
	o.tr.Event("reconcile", trace.Key(key), slog.Int64("members", want), slog.String("version", version))
	pods, err := o.pods.ByNamespace(ns).List(api.SelectorFromSet(map[string]string{"kvcluster": name}))
	if err != nil {
		return err
	}
	slices.SortFunc(pods, func(a, b *api.Pod) int { return kvOrdinal(a) - kvOrdinal(b) })
	ready, versions := 0, map[string]int{}
	var starting, oldest *api.Pod
	for _, p := range pods {
		versions[kvVersion(p)]++
		switch {
		case api.IsPodReady(p):
			ready++
		case starting == nil:
			starting = p
		}
		if kvVersion(p) != version {
			oldest = p // the highest ordinal not yet on the new version
		}
	}
	switch {
	case starting != nil:
		o.tr.Event("waiting", trace.Key(ns+"/"+starting.Name), trace.Reason("a member is starting: one member changes at a time"))
	case int64(len(pods)) < want:
		next := 0
		for next < len(pods) && kvOrdinal(pods[next]) == next {
			next++
		}
		// One change per reconcile: the pod's events queue the key again,
		// and the next reconcile reads the world that change made.
		return o.createMember(ctx, c, next, version)
	case oldest != nil && int64(ready) == want:
		if err := o.podClient.Delete(ctx, ns, oldest.Name, listwatch.DeleteOptions{}); err != nil {
			return fmt.Errorf("upgrade: delete %s: %w", oldest.Name, err)
		}
		o.actions = append(o.actions, "delete "+oldest.Name+" "+kvVersion(oldest))
		o.tr.Event("pod deleted", trace.Key(ns+"/"+oldest.Name), trace.Reason(fmt.Sprintf(
			"upgrade to %s: one member at a time, %d of %d stay up", version, ready-1, want)))
		return nil
	}
	status := map[string]any{"readyMembers": int64(ready)}
	if len(versions) == 1 && int64(ready) == want {
		status["version"] = kvVersion(pods[0])
	} else if v, ok, _ := api.NestedString(c.Object, "status", "version"); ok {
		status["version"] = v
	}
	return o.writeStatus(ctx, c, status)
}

// createMember creates member ordinal of cluster c, owned by it.
func (o *kvOperator) createMember(ctx context.Context, c *api.Unstructured, ordinal int, version string) error {
	name := fmt.Sprintf("%s-%d", c.GetName(), ordinal)
	isController := true
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: c.GetNamespace(),
			Labels: map[string]string{"kvcluster": c.GetName(), "member": strconv.Itoa(ordinal)},
			OwnerReferences: []api.OwnerReference{{APIVersion: "demo.kinformer.io/v1", Kind: "KVCluster",
				Name: c.GetName(), UID: c.GetUID(), Controller: &isController}}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "kv", Image: "kv:" + version}}},
	}
	if _, err := o.podClient.Create(ctx, c.GetNamespace(), pod); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	o.actions = append(o.actions, "create "+name+" "+version)
	o.tr.Event("pod created", trace.Key(c.GetNamespace()+"/"+name), slog.String("version", version),
		trace.Reason("a member joins when every other member is ready"))
	return nil
}

// writeStatus writes status through /status if it changed.
func (o *kvOperator) writeStatus(ctx context.Context, c *api.Unstructured, status map[string]any) error {
	old, _, _ := api.NestedMap(c.Object, "status")
	if fmt.Sprint(old) == fmt.Sprint(status) {
		return nil
	}
	c = c.DeepCopy() // never change the cache's copy
	if err := api.SetNestedField(c.Object, status, "status"); err != nil {
		return err
	}
	if err := c.SetUnstructuredContent(c.Object); err != nil {
		return err
	}
	if _, err := o.clusterClient.UpdateStatus(ctx, c.GetNamespace(), c); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	attrs := []slog.Attr{trace.Key(c.GetNamespace() + "/" + c.GetName()), slog.Any("readyMembers", status["readyMembers"])}
	if v, ok := status["version"]; ok {
		attrs = append(attrs, slog.Any("version", v))
	}
	o.tr.Event("status written", attrs...)
	return nil
}

func kvOrdinal(p *api.Pod) int { n, _ := strconv.Atoi(p.Labels["member"]); return n }

func kvVersion(p *api.Pod) string { return p.Spec.Containers[0].Image[len("kv:"):] }

// operatorEnv runs the operator against the fake server inside a synctest
// bubble (the server reached over net.Pipe, as the scenario scripts do), so
// that after every step synctest.Wait returns only once every informer has
// caught up and every handler has queued what it will: each run prints the
// same story.
type operatorEnv struct {
	t   *testing.T
	ctx context.Context
	srv *fakeapiserver.Server
	op  *kvOperator
	tr  *trace.Tracer
}

func newOperatorEnv(t *testing.T) *operatorEnv {
	tr := trace.ForTest(t, trace.StageController, "kubelet")
	srv := fakeapiserver.New(fakeapiserver.Options{AllowAnyHost: true})
	ln := newScListener()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ctx, ln) }()
	client, err := listwatch.NewClient(listwatch.Config{Server: "http://fakeapiserver", Dial: ln.dial})
	require.NoError(t, err)
	crd := &api.Unstructured{}
	require.NoError(t, crd.UnmarshalJSON([]byte(kvClusterCRD)))
	_, err = listwatch.For[*api.Unstructured](client, opCRDs).Create(ctx, "", crd) // the server now serves kvclusters
	require.NoError(t, err)

	factory := NewSharedInformerFactory(client, FactoryOptions{Logger: testLogger(t, "")})
	clusterInformer, podInformer := factory.InformerFor(kvClusters), factory.InformerFor(listwatch.Pods)
	op := &kvOperator{
		clusters:      NewLister[*api.Unstructured](clusterInformer.GetIndexer()),
		pods:          NewLister[*api.Pod](podInformer.GetIndexer()),
		clusterClient: listwatch.For[*api.Unstructured](client, kvClusters),
		podClient:     listwatch.For[*api.Pod](client, listwatch.Pods),
		queue:         workqueue.NewTyped[string](),
		tr:            tr.Stage(trace.StageController),
	}
	enqueueCluster := func(c *api.Unstructured) { op.queue.Add(c.GetNamespace() + "/" + c.GetName()) }
	enqueueOwner := func(p *api.Pod) { // a pod's events queue the cluster that owns it
		if ref := api.GetControllerOf(p); ref != nil && ref.Kind == "KVCluster" {
			op.queue.Add(p.Namespace + "/" + ref.Name)
		}
	}
	_, err = clusterInformer.AddEventHandler(TypedResourceEventHandlerFuncs[*api.Unstructured]{
		AddFunc:    func(c *api.Unstructured, _ bool) { enqueueCluster(c) },
		UpdateFunc: func(_, c *api.Unstructured) { enqueueCluster(c) },
	})
	require.NoError(t, err)
	_, err = podInformer.AddEventHandler(TypedResourceEventHandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { enqueueOwner(p) },
		UpdateFunc: func(_, p *api.Pod) { enqueueOwner(p) },
		DeleteFunc: func(p *api.Pod, _ bool) { enqueueOwner(p) },
	})
	require.NoError(t, err)
	factory.Start(ctx)
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		op.queue.ShutDown()
		<-served
		ln.closeAll()
		synctest.Wait()
	})
	require.Equal(t, map[string]bool{"kvclusters.demo.kinformer.io (unstructured)": true, "pods": true}, factory.WaitForCacheSync(ctx))
	return &operatorEnv{t: t, ctx: ctx, srv: srv, op: op, tr: tr}
}

// runUntilQuiet lets the world run until nothing changes: the operator
// reconciles every queued key, one at a time; when none is queued, the
// kubelet starts the pods that are not running yet. It returns the fewest
// members that were ready at any point.
func (e *operatorEnv) runUntilQuiet() (minReady int) {
	minReady = 1 << 30
	for range 1000 {
		synctest.Wait()
		minReady = min(minReady, e.readyMembers())
		if e.op.queue.Len() > 0 {
			key, _ := e.op.queue.Get()
			require.NoError(e.t, e.op.reconcile(e.ctx, key))
			e.op.queue.Done(key)
			continue
		}
		if !e.kubelet() {
			return minReady
		}
	}
	e.t.Fatal("the operator never came to rest")
	return 0
}

// kubelet marks every pod on the server that is not ready yet as running
// and ready, as a kubelet does once the containers are up. It reports
// whether it started any.
func (e *operatorEnv) kubelet() bool {
	objs, _, err := e.srv.List("pods", "default")
	require.NoError(e.t, err)
	started := false
	for _, obj := range objs {
		p := obj.(*api.Pod)
		if api.IsPodReady(p) {
			continue
		}
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		_, err := e.srv.UpdateStatus(p)
		require.NoError(e.t, err)
		e.tr.Stage("kubelet").Event("pod ready", trace.Key("default/"+p.Name), slog.String("image", p.Spec.Containers[0].Image))
		started = true
	}
	return started
}

// readyMembers counts the ready pods on the server.
func (e *operatorEnv) readyMembers() int {
	objs, _, err := e.srv.List("pods", "default")
	require.NoError(e.t, err)
	n := 0
	for _, obj := range objs {
		if api.IsPodReady(obj.(*api.Pod)) {
			n++
		}
	}
	return n
}

// cluster returns the KVCluster named name as the server has it.
func (e *operatorEnv) cluster(name string) *api.Unstructured {
	c, err := e.op.clusterClient.Get(e.ctx, "default", name)
	require.NoError(e.t, err)
	return c
}

// An Operator is a controller for a custom resource that encodes how to
// run one application: here it bootstraps a 3-member KVCluster one member
// at a time, then upgrades it from 3.5 to 3.6 one member at a time, the
// highest ordinal first, so that 2 of the 3 members (a majority) are up
// throughout; status.version moves to 3.6 only when every member runs it.
func TestOperator_UpgradesOneMemberAtATimeKeepingQuorum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newOperatorEnv(t)
		kv := &api.Unstructured{}
		require.NoError(t, kv.UnmarshalJSON([]byte(`{"apiVersion":"demo.kinformer.io/v1","kind":"KVCluster",
			"metadata":{"name":"kv"},"spec":{"members":3,"version":"3.5"}}`)))
		_, err := e.op.clusterClient.Create(e.ctx, "default", kv)
		require.NoError(t, err)

		e.runUntilQuiet()
		require.Equal(t, []string{"create kv-0 3.5", "create kv-1 3.5", "create kv-2 3.5"}, e.op.actions)
		status, _, _ := api.NestedMap(e.cluster("kv").Object, "status")
		require.Equal(t, map[string]any{"readyMembers": int64(3), "version": "3.5"}, jsonInts(status))
		trace.Checkf(t, "bootstrapped one member at a time: %v; status %v", e.op.actions, jsonInts(status))

		e.op.actions = nil
		kv = e.cluster("kv")
		require.NoError(t, api.SetNestedField(kv.Object, "3.6", "spec", "version"))
		require.NoError(t, kv.SetUnstructuredContent(kv.Object))
		_, err = e.op.clusterClient.Update(e.ctx, "default", kv)
		require.NoError(t, err)

		minReady := e.runUntilQuiet()
		require.Equal(t, []string{
			"delete kv-2 3.5", "create kv-2 3.6",
			"delete kv-1 3.5", "create kv-1 3.6",
			"delete kv-0 3.5", "create kv-0 3.6",
		}, e.op.actions)
		require.Equal(t, 2, minReady, "never more than one member down: a majority of 3 stays up")
		status, _, _ = api.NestedMap(e.cluster("kv").Object, "status")
		require.Equal(t, map[string]any{"readyMembers": int64(3), "version": "3.6"}, jsonInts(status))
		trace.Checkf(t, "upgraded one member at a time, highest ordinal first: %v; at least %d of 3 ready throughout; status %v",
			e.op.actions, minReady, jsonInts(status))
	})
}

// jsonInts turns the json.Number values of a decoded map into int64.
func jsonInts(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if n, ok := v.(interface{ Int64() (int64, error) }); ok {
			v, _ = n.Int64()
		}
		out[k] = v
	}
	return out
}
