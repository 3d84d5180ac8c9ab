package informer

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// dynamicPods is the pods resource with no Go type: *api.Unstructured.
var dynamicPods = listwatch.DynamicResource("", "v1", "pods", "Pod", true)

// nameRecorder records a handler's events as "ADD name", "UPDATE name", "DELETE name".
type nameRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *nameRecorder) add(what string, obj any) {
	o, ok := obj.(api.Object)
	if !ok { // a tombstone
		o = obj.(deltafifo.DeletedFinalStateUnknown).Obj
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, what+" "+o.GetName())
}

func (r *nameRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *nameRecorder) handler() ResourceEventHandler {
	return ResourceEventHandlerFuncs{
		AddFunc:    func(obj any, _ bool) { r.add("ADD", obj) },
		UpdateFunc: func(_, obj any) { r.add("UPDATE", obj) },
		DeleteFunc: func(obj any) { r.add("DELETE", obj) },
	}
}

// factory returns a factory of e's client with e's clock and trace.
func (e *serverEnv) factory() SharedInformerFactory {
	opts := testOptions(e.t, SharedIndexInformerOptions{Clock: e.clock, Tracer: e.tracer, Logger: e.logger})
	return NewSharedInformerFactory(e.client, FactoryOptions{Clock: opts.Clock, Tracer: opts.Tracer, Logger: opts.Logger})
}

// rawGet reads an object from the server as raw JSON, as sent.
func (e *serverEnv) rawGet(path string) map[string]any {
	e.t.Helper()
	resp, err := http.Get(e.client.Server() + path)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	require.Equal(e.t, http.StatusOK, resp.StatusCode)
	var m map[string]any
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	require.NoError(e.t, dec.Decode(&m))
	return m
}

// An informer on DynamicResource (client-go's dynamic informer) syncs,
// sees add, update and delete through reflector, DeltaFIFO, indexer and the
// factory, and caches the whole object: the fields the typed Pod does not
// declare (the server's defaults spec.dnsPolicy, status.qosClass) are in
// the cache, and a cached object is the server's JSON, field for field.
func TestDynamicInformer_PodsAddUpdateDelete(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}})

	factory := e.factory()
	inf := factory.InformerFor(dynamicPods)
	rec := &nameRecorder{}
	_, err := inf.AddEventHandler(rec.handler())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	require.Equal(t, map[string]bool{"pods (unstructured)": true}, factory.WaitForCacheSync(ctx))

	lister := NewLister[*api.Unstructured](inf.GetIndexer())
	web0, err := lister.ByNamespace("default").Get("web-0")
	require.NoError(t, err)
	require.Equal(t, "Pod", web0.GetObjectKind().Kind)
	dns, found, err := api.NestedString(web0.Object, "spec", "dnsPolicy")
	require.NoError(t, err)
	require.True(t, found, "a field the typed Pod drops survives into the cache")
	require.Equal(t, "ClusterFirst", dns)
	require.Equal(t, e.rawGet("/api/v1/namespaces/default/pods/web-0"), web0.Object, "nothing dropped")

	// Add, update, delete.
	web1 := e.create(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-1"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}})
	e.eventually(func() bool { _, err := lister.ByNamespace("default").Get("web-1"); return err == nil })
	changed := web1.DeepCopyObject().(*api.Pod)
	changed.Labels = map[string]string{"app": "web"}
	e.update(changed)
	e.eventually(func() bool {
		pods, err := lister.List(api.SelectorFromSet(map[string]string{"app": "web"}))
		return err == nil && len(pods) == 2
	}, "the label change reaches the cache and the generic lister selects on it")
	cached, err := lister.ByNamespace("default").Get("web-1")
	require.NoError(t, err)
	require.Equal(t, e.rawGet("/api/v1/namespaces/default/pods/web-1"), cached.Object, "nothing dropped after an update")
	_, err = e.srv.Delete("pods", "default", "web-1")
	require.NoError(t, err)
	e.eventually(func() bool { return slices.Contains(rec.got(), "DELETE web-1") })
	// The second UPDATE is the delete marking the pod (deletionTimestamp,
	// generation+1) before removing it, as kube-apiserver does for an
	// unbound pod.
	require.Equal(t, []string{"ADD web-0", "ADD web-1", "UPDATE web-1", "UPDATE web-1", "DELETE web-1"}, rec.got())
	_, err = lister.ByNamespace("default").Get("web-1")
	require.Error(t, err)
}

// A metadata-only informer (client-go's metadata informer) on pods: the
// client asks for PartialObjectMetadata, the server (the fake, which
// answers the Accept header as kube-apiserver does) sends metadata only,
// and the cache holds *api.PartialObjectMetadata labelled as the server
// labelled them.
func TestMetadataInformer_PodsAddUpdateDelete(t *testing.T) {
	e := newServerEnv(t, fakeapiserver.Options{})
	e.create(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}})

	factory := e.factory()
	inf := factory.InformerFor(listwatch.MetadataOnly(listwatch.Pods))
	rec := &nameRecorder{}
	_, err := inf.AddEventHandler(rec.handler())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	require.Equal(t, map[string]bool{"pods (metadata)": true}, factory.WaitForCacheSync(ctx))

	lister := NewLister[*api.PartialObjectMetadata](inf.GetIndexer())
	web0, err := lister.ByNamespace("default").Get("web-0")
	require.NoError(t, err)
	require.Equal(t, api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}, web0.TypeMeta)
	require.Equal(t, map[string]string{"app": "web"}, web0.Labels)
	require.NotEmpty(t, web0.UID)

	web1 := e.create(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-1"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}})
	e.eventually(func() bool { _, err := lister.ByNamespace("default").Get("web-1"); return err == nil })
	changed := web1.DeepCopyObject().(*api.Pod)
	changed.Labels = map[string]string{"app": "web"}
	e.update(changed)
	e.eventually(func() bool {
		pods, err := lister.List(api.SelectorFromSet(map[string]string{"app": "web"}))
		return err == nil && len(pods) == 2
	})
	_, err = e.srv.Delete("pods", "default", "web-1")
	require.NoError(t, err)
	e.eventually(func() bool { return slices.Contains(rec.got(), "DELETE web-1") })
	// The second UPDATE is the delete marking the pod (deletionTimestamp,
	// generation+1) before removing it, as kube-apiserver does for an
	// unbound pod.
	require.Equal(t, []string{"ADD web-0", "ADD web-1", "UPDATE web-1", "UPDATE web-1", "DELETE web-1"}, rec.got())
	for _, obj := range inf.GetStore().List() {
		require.IsType(t, &api.PartialObjectMetadata{}, obj)
		require.Equal(t, "PartialObjectMetadata", obj.GetObjectKind().Kind)
	}
}

// cacheSizes decodes n copies of the pod kube-apiserver 1.36 sent
// (listwatch/testdata/pod.json: 1458 bytes, with managedFields and
// tolerations) as the three caches would keep them, and returns the heap
// each kept object costs, and the bytes of the list item on the wire.
func cacheSizes(tb testing.TB, n int) (sizes map[string]uint64, wire map[string]int) {
	raw, err := os.ReadFile("../listwatch/testdata/pod.json")
	require.NoError(tb, err)
	var full map[string]any
	require.NoError(tb, json.Unmarshal(raw, &full))
	partial, err := json.Marshal(map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": full["metadata"]})
	require.NoError(tb, err)

	kinds := []struct {
		name string
		body []byte
		new  func() api.Object
	}{
		{"typed *api.Pod", raw, func() api.Object { return &api.Pod{} }},
		{"*api.Unstructured", raw, func() api.Object { return &api.Unstructured{} }},
		{"*api.PartialObjectMetadata", partial, func() api.Object { return &api.PartialObjectMetadata{} }},
	}
	sizes, wire = map[string]uint64{}, map[string]int{}
	for _, k := range kinds {
		kept := make([]api.Object, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range kept {
			obj := k.new()
			require.NoError(tb, json.Unmarshal(k.body, obj))
			kept[i] = obj
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		sizes[k.name] = (after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)) / uint64(n)
		wire[k.name] = len(k.body)
		runtime.KeepAlive(kept)
	}
	wire["typed *api.Pod"] = len(raw)
	return sizes, wire
}

// What metadata-only saves: the heap one cached pod keeps, per cache kind
// (go test ./informer -run TestDynamic_CacheBytesPerPod -v prints it).
// Heap numbers move with the Go version and -race; nothing is asserted.
func TestDynamic_CacheBytesPerPod(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	sizes, wire := cacheSizes(t, 2000)
	for _, name := range []string{"typed *api.Pod", "*api.Unstructured", "*api.PartialObjectMetadata"} {
		t.Logf("%-28s %6d bytes of heap per cached pod, %5d bytes of JSON per list item", name, sizes[name], wire[name])
	}
}

// BenchmarkDynamic_DecodePod: the cost of decoding one pod into each cache
// kind (-benchmem), and the heap it keeps (the "kept-B/obj" metric).
func BenchmarkDynamic_DecodePod(b *testing.B) {
	raw, err := os.ReadFile("../listwatch/testdata/pod.json")
	require.NoError(b, err)
	var full map[string]any
	require.NoError(b, json.Unmarshal(raw, &full))
	partial, err := json.Marshal(map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": full["metadata"]})
	require.NoError(b, err)
	sizes, _ := cacheSizes(b, 1000)
	for _, bc := range []struct {
		name, kept string
		body       []byte
		new        func() api.Object
	}{
		{"typed", "typed *api.Pod", raw, func() api.Object { return &api.Pod{} }},
		{"unstructured", "*api.Unstructured", raw, func() api.Object { return &api.Unstructured{} }},
		{"metadata", "*api.PartialObjectMetadata", partial, func() api.Object { return &api.PartialObjectMetadata{} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				if err := json.Unmarshal(bc.body, bc.new()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sizes[bc.kept]), "kept-B/obj")
		})
	}
}

// A metadata-only informer on a custom resource: the fake server serves
// the kind from its CRD and answers PartialObjectMetadata for it, as the
// real one does.
func TestMetadataInformer_CustomResource(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	crd := &api.Unstructured{}
	require.NoError(t, crd.UnmarshalJSON([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.demo.kinformer.io"},"spec":{"group":"demo.kinformer.io","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)))
	_, err = listwatch.For[*api.Unstructured](client, listwatch.DynamicResource("apiextensions.k8s.io", "v1",
		"customresourcedefinitions", "CustomResourceDefinition", false)).Create(ctx, "", crd)
	require.NoError(t, err)
	widgets := listwatch.DynamicResource("demo.kinformer.io", "v1", "widgets", "Widget", true)
	for _, name := range []string{"a", "b"} {
		w := &api.Unstructured{}
		require.NoError(t, w.UnmarshalJSON([]byte(`{"apiVersion":"demo.kinformer.io/v1","kind":"Widget","metadata":{"name":"`+name+`","labels":{"team":"x"}},"spec":{"size":1}}`)))
		_, err := listwatch.For[*api.Unstructured](client, widgets).Create(ctx, "default", w)
		require.NoError(t, err)
	}

	factory := NewSharedInformerFactory(client, FactoryOptions{Logger: quiet})
	inf := factory.InformerFor(listwatch.MetadataOnly(widgets))
	t.Cleanup(factory.Shutdown)
	t.Cleanup(cancel)
	factory.Start(ctx)
	require.True(t, WaitForCacheSync(ctx, inf.HasSynced))
	got, err := NewLister[*api.PartialObjectMetadata](inf.GetIndexer()).List(api.Everything())
	require.NoError(t, err)
	require.Len(t, got, 2)
	for _, m := range got {
		require.Equal(t, "PartialObjectMetadata", m.Kind)
		require.Equal(t, "x", m.Labels["team"])
		t.Logf("cached %s/%s (%s), metadata only", m.Namespace, m.Name, m.APIVersion)
	}
}
