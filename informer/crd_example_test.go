package informer_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// The resources of this example: the CRD kind itself, and the Widget kind
// the CRD below defines. Neither has a Go type: both are *api.Unstructured.
var (
	crds    = listwatch.DynamicResource("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false)
	widgets = listwatch.DynamicResource("demo.kinformer.io", "v1", "widgets", "Widget", true)
)

// widgetCRD is what `kubectl apply -f crd.yaml` sends: a namespaced Widget
// kind with a status subresource.
const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.demo.kinformer.io"},
 "spec":{"group":"demo.kinformer.io","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func mustUnstructured(js string) *api.Unstructured {
	u := &api.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		log.Fatal(err)
	}
	return u
}

// widgetServer starts an in-process fake API server that has learned the
// Widget kind from widgetCRD (what `kubectl apply -f crd.yaml` does), and
// returns a client for it (reporting to story) and a stop function.
func widgetServer(story *trace.Tracer) (*listwatch.Client, func()) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	stop := func() { srv.Close(); hs.Close() }
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := listwatch.For[*api.Unstructured](client, crds).Create(context.Background(), "", mustUnstructured(widgetCRD)); err != nil {
		log.Fatal(err)
	}
	return client, stop
}

// A controller for your own resource (article 000 §3's next step): the fake
// server learns the Widget kind from a CRD, a dynamic informer watches
// widgets, its handler enqueues keys, and one worker reconciles each widget
// by writing status.observedSize through the /status subresource, the
// level-triggered loop of the ReplicaSet controller on a kind kinformer has
// no Go type for.
func Example_customResourceController() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := widgetServer(story)
	defer stopServer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Two widgets, as kubectl apply -f would create them.
	widgetClient := listwatch.For[*api.Unstructured](client, widgets)
	for _, w := range []string{
		`{"apiVersion":"demo.kinformer.io/v1","kind":"Widget","metadata":{"name":"small"},"spec":{"size":1}}`,
		`{"apiVersion":"demo.kinformer.io/v1","kind":"Widget","metadata":{"name":"large"},"spec":{"size":5}}`,
	} {
		if _, err := widgetClient.Create(ctx, "default", mustUnstructured(w)); err != nil {
			log.Fatal(err)
		}
	}

	// The informer side: a dynamic informer whose handler enqueues keys.
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Logger: quiet, Tracer: story})
	widgetInformer := factory.InformerFor(widgets)
	queue := workqueue.NewTypedWithConfig[string](workqueue.QueueConfig{Tracer: story})
	enqueue := func(w *api.Unstructured) { queue.Add(w.GetNamespace() + "/" + w.GetName()) }
	if _, err := widgetInformer.AddEventHandler(informer.TypedResourceEventHandlerFuncs[*api.Unstructured]{
		AddFunc:    func(w *api.Unstructured, _ bool) { enqueue(w) },
		UpdateFunc: func(_, w *api.Unstructured) { enqueue(w) },
	}); err != nil {
		log.Fatal(err)
	}
	defer factory.Shutdown()
	defer cancel() // before Shutdown waits for the informers
	factory.Start(ctx)
	if !informer.WaitForCacheSync(ctx, widgetInformer.HasSynced) {
		log.Fatal("widgets did not sync")
	}
	lister := informer.NewLister[*api.Unstructured](widgetInformer.GetIndexer())

	// The worker: read the desired state from the cache, write the
	// observed state, until both widgets report theirs.
	reconcile := func(key string) (done bool) {
		ns, name, _ := splitKey(key)
		w, err := lister.ByNamespace(ns).Get(name)
		if listwatch.IsNotFound(err) {
			return false
		}
		size, _, _ := api.NestedInt64(w.Object, "spec", "size")
		observed, found, _ := api.NestedInt64(w.Object, "status", "observedSize")
		if found && observed == size {
			return true // the status event of our own write: nothing to do
		}
		w = w.DeepCopy() // never change the cache's copy
		if err := api.SetNestedField(w.Object, size, "status", "observedSize"); err != nil {
			log.Fatal(err)
		}
		if err := w.SetUnstructuredContent(w.Object); err != nil {
			log.Fatal(err)
		}
		if _, err := widgetClient.UpdateStatus(ctx, ns, w); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("reconciled %s: spec.size %d -> status.observedSize %d\n", key, size, size)
		return false
	}
	reported := map[string]bool{}
	for len(reported) < 2 {
		key, shutdown := queue.Get()
		if shutdown {
			break
		}
		if reconcile(key) {
			reported[key] = true
		}
		queue.Done(key)
	}
	queue.ShutDown()
	// Unordered output:
	// reconciled default/small: spec.size 1 -> status.observedSize 1
	// reconciled default/large: spec.size 5 -> status.observedSize 5
}

// splitKey splits a "namespace/name" key.
func splitKey(key string) (namespace, name string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// Widget is a program's own Go type for the Widget custom resource: the
// fields it reads, api.TypeMeta and api.ObjectMeta embedded for the
// metadata accessors, and DeepCopyObject.
type Widget struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Size int `json:"size"`
	} `json:"spec"`
}

func (w *Widget) DeepCopyObject() api.Object {
	c := &Widget{TypeMeta: w.TypeMeta, Spec: w.Spec}
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return c
}

// typedWidgets is a listwatch.Resource literal for the custom resource:
// where it lives in the URL space and the Go type its JSON decodes into.
var typedWidgets = listwatch.Resource{Group: "demo.kinformer.io", Version: "v1", Resource: "widgets",
	Kind: "Widget", Namespaced: true, New: func() api.Object { return &Widget{} }}

// Your own Go type for a custom resource: the same informer, lister and
// typed client as for the built-in kinds, with a Resource literal naming
// the type. (Fields the type does not declare are dropped when decoding;
// use api.Unstructured to keep everything.)
func Example_ownTypeForCustomResource() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := widgetServer(story)
	defer stopServer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	typed := listwatch.For[*Widget](client, typedWidgets)
	w := &Widget{ObjectMeta: api.ObjectMeta{Name: "gear"}}
	w.Spec.Size = 3
	if _, err := typed.Create(ctx, "default", w); err != nil {
		log.Fatal(err)
	}

	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Logger: quiet, Tracer: story})
	inf := factory.InformerFor(typedWidgets)
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	if !informer.WaitForCacheSync(ctx, inf.HasSynced) {
		log.Fatal("widgets did not sync")
	}
	got, err := informer.NewLister[*Widget](inf.GetIndexer()).ByNamespace("default").Get("gear")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s/%s size %d\n", got.Kind, got.Namespace, got.Name, got.Spec.Size)
	// Output:
	// Widget default/gear size 3
}
