package informer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// fakeServer starts an in-process fake API server and returns it, a client
// for it (reporting to story), and a stop function.
func fakeServer(story *trace.Tracer) (*fakeapiserver.Server, *listwatch.Client, func()) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}
	return srv, client, func() { srv.Close(); hs.Close() }
}

func mustCreate(srv *fakeapiserver.Server, obj api.Object) {
	if _, err := srv.Create(obj); err != nil {
		log.Fatal(err)
	}
}

func newPod(name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func newConfigMap(name string, data map[string]string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Data: data}
}

// quiet is the logger of the examples' informers: their logs would not be
// part of the output.
var quiet = slog.New(slog.DiscardHandler)

// One informer, without a factory, built as article 003 builds it: a
// ListerWatcher, the type of its objects, the handlers' default resync
// period (0: none) and the cache's indices (here a namespace index). Run
// fills the cache; the handler hears of every change after the cache has it.
// NewSharedIndexInformerWithOptions takes the same and more (a Logger, a
// Clock, a Transform) as one options struct.
func ExampleNewSharedIndexInformer() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("settings", map[string]string{"color": "blue"}))

	lw := listwatch.NewListWatchFromClient(client, listwatch.ConfigMaps, "default", "")
	inf := informer.NewSharedIndexInformer(lw, &api.ConfigMap{}, 0,
		indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	events := make(chan string, 10)
	if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			events <- fmt.Sprintf("add %s initial=%v", obj.(*api.ConfigMap).Name, isInInitialList)
		},
		UpdateFunc: func(oldObj, newObj any) {
			events <- fmt.Sprintf("update %s color=%s", newObj.(*api.ConfigMap).Name, newObj.(*api.ConfigMap).Data["color"])
		},
	}); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); inf.Run(ctx) }()
	fmt.Println(<-events)

	cm, err := srv.Get("configmaps", "default", "settings")
	if err != nil {
		log.Fatal(err)
	}
	cm.(*api.ConfigMap).Data["color"] = "green"
	if _, err := srv.Update(cm); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-events)
	inDefault, _ := inf.GetIndexer().ByIndex(indexer.NamespaceIndex, "default")
	fmt.Println("cached in default:", len(inDefault))

	cancel()
	<-stopped
	// Output:
	// add settings initial=true
	// update settings color=green
	// cached in default: 1
}

// An informer for one consumer, without the sharing: NewInformer returns the
// cache and a Controller that fills it and calls the one handler directly.
func ExampleNewInformer() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("settings", map[string]string{"color": "blue"}))

	lw := listwatch.NewListWatchFromClient(client, listwatch.ConfigMaps, "default", "")
	added := make(chan string, 10)
	store, ctrl := informer.NewInformer(lw, &api.ConfigMap{}, 0, informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			added <- fmt.Sprintf("add %s initial=%v", obj.(*api.ConfigMap).Name, isInInitialList)
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); ctrl.Run(ctx) }()
	fmt.Println(<-added)
	fmt.Println("cached:", store.ListKeys())

	cancel()
	<-stopped
	// Output:
	// add settings initial=true
	// cached: [default/settings]
}

// A Lister reads an informer's cache with types. A miss is the error the
// client returns for the server's 404, a *listwatch.StatusError, so one
// check, listwatch.IsNotFound, serves both.
func ExampleNewLister() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	_ = idx.Add(newPod("web-0", map[string]string{"app": "web"}))
	_ = idx.Add(newPod("db-0", map[string]string{"app": "db"}))

	pods := informer.NewLister[*api.Pod](idx) // e.g. over podInformer.GetIndexer()
	web, _ := api.ParseSelector("app=web")
	list, _ := pods.ByNamespace("default").List(web)
	for _, p := range list {
		fmt.Println("app=web:", p.Name)
	}
	p, _ := pods.ByNamespace("default").Get("db-0")
	fmt.Println("got:", p.Name, p.Spec.Containers[0].Image)

	_, err := pods.ByNamespace("default").Get("web-1")
	fmt.Println(err, listwatch.IsNotFound(err))
	var statusErr *listwatch.StatusError
	if errors.As(err, &statusErr) {
		fmt.Println("code:", statusErr.Status().Code)
	}
	// Output:
	// app=web: web-0
	// got: db-0 nginx
	// pod "web-1" not found true
	// code: 404
}

// The factory with its options: every informer it makes watches one
// namespace, lists only what a label selector picks, and keeps only what a
// transform leaves of each object.
func ExampleNewSharedInformerFactory() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newPod("web-0", map[string]string{"app": "web"}))
	mustCreate(srv, newPod("db-0", map[string]string{"app": "db"}))

	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{
		DefaultResync:    30 * time.Second,
		CustomResync:     map[string]time.Duration{"configmaps": 0}, // keyed by GroupResource
		Namespace:        "default",
		TweakListOptions: func(o *listwatch.ListOptions) { o.LabelSelector = "app=web" },
		Transform: func(obj api.Object) (api.Object, error) {
			if p, ok := obj.(*api.Pod); ok {
				p = p.DeepCopy()
				p.Spec = api.PodSpec{} // this program reads metadata only
				return p, nil
			}
			return obj, nil
		},
		Logger: quiet,
		Tracer: story,
	})
	pods := factory.InformerFor(listwatch.Pods)

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	fmt.Println(factory.WaitForCacheSync(ctx))

	list, _ := informer.NewLister[*api.Pod](pods.GetIndexer()).List(api.Everything())
	for _, p := range list {
		fmt.Println(p.Name, "containers:", len(p.Spec.Containers))
	}
	// Output:
	// map[pods:true]
	// web-0 containers: 0
}

// A typed handler gets *api.Pod, not any, and its DeleteFunc gets the pod
// unwrapped from a DeletedFinalStateUnknown tombstone, with a flag saying
// whether its final state is unknown (a delete the watch missed).
func ExampleTypedResourceEventHandlerFuncs() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("a", nil))

	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Logger: quiet, Tracer: story})
	events := make(chan string, 10)
	if _, err := factory.InformerFor(listwatch.ConfigMaps).AddEventHandler(informer.TypedResourceEventHandlerFuncs[*api.ConfigMap]{
		AddFunc: func(cm *api.ConfigMap, isInInitialList bool) {
			events <- fmt.Sprintf("add %s initial=%v", cm.Name, isInInitialList)
		},
		UpdateFunc: func(oldCM, newCM *api.ConfigMap) {
			events <- fmt.Sprintf("update %s %v -> %v", newCM.Name, oldCM.Data, newCM.Data)
		},
		DeleteFunc: func(cm *api.ConfigMap, finalStateUnknown bool) {
			events <- fmt.Sprintf("delete %s finalStateUnknown=%v", cm.Name, finalStateUnknown)
		},
	}); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	fmt.Println(<-events)

	mustCreate(srv, newConfigMap("b", map[string]string{"k": "v"}))
	fmt.Println(<-events)
	if _, err := srv.Delete("configmaps", "default", "a"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-events)
	// Output:
	// add a initial=true
	// add b initial=false
	// delete a finalStateUnknown=false
}

// Settings is a program's own Go type for ConfigMaps: only the fields it
// reads. Embedding api.TypeMeta and api.ObjectMeta gives it every metadata
// accessor of api.Object; DeepCopyObject is the one method to write. The
// same pattern serves a custom resource (a Widget with a Spec) on a server
// that serves one.
type Settings struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Data           map[string]string `json:"data,omitempty"`
}

// DeepCopyObject implements api.Object.
func (s *Settings) DeepCopyObject() api.Object {
	c := &Settings{TypeMeta: s.TypeMeta, Data: maps.Clone(s.Data)}
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return c
}

// settingsResource is a listwatch.Resource literal: where the objects live
// in the URL space, and the Go type their JSON decodes into.
var settingsResource = listwatch.Resource{
	Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
	New: func() api.Object { return &Settings{} },
}

// An informer of a user-defined Go type: the objects arrive as *Settings,
// and a typed handler and a lister of *Settings read them.
func Example_userDefinedType() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("feature-flags", map[string]string{"dark-mode": "on"}))

	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Logger: quiet, Tracer: story})
	inf := factory.InformerFor(settingsResource)
	added := make(chan *Settings, 10)
	reg, err := inf.AddEventHandler(informer.TypedResourceEventHandlerFuncs[*Settings]{
		AddFunc: func(s *Settings, _ bool) { added <- s },
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	informer.WaitForCacheSync(ctx, reg.HasSynced)

	s := <-added
	fmt.Printf("%T %s %s dark-mode=%s\n", s, s.Kind, s.Name, s.Data["dark-mode"])
	got, err := informer.NewLister[*Settings](inf.GetIndexer()).ByNamespace("default").Get("feature-flags")
	fmt.Println(got.Data, err)
	// Output:
	// *informer_test.Settings ConfigMap feature-flags dark-mode=on
	// map[dark-mode:on] <nil>
}

// Testing a handler's resync on fake time: the informer's Clock is a
// clock.FakeClock, so a 30-second resync happens when the test steps the
// clock, at once, and never on its own.
func Example_resyncOnFakeTime() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("settings", nil))

	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{
		DefaultResync: 30 * time.Second,
		Clock:         clk,
		Logger:        quiet,
		Tracer:        story,
	})
	events := make(chan string, 10)
	reg, err := factory.InformerFor(listwatch.ConfigMaps).AddEventHandler(informer.TypedResourceEventHandlerFuncs[*api.ConfigMap]{
		AddFunc: func(cm *api.ConfigMap, _ bool) { events <- "add " + cm.Name },
		UpdateFunc: func(oldCM, newCM *api.ConfigMap) {
			if oldCM.ResourceVersion == newCM.ResourceVersion {
				events <- "resync " + newCM.Name // the handler's code under test
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	informer.WaitForCacheSync(ctx, reg.HasSynced)
	fmt.Println(<-events)

	// Wait until the Reflector's resync timer is armed, then move time.
	if err := clk.BlockUntilWaiters(ctx, 1); err != nil {
		log.Fatal(err)
	}
	clk.Step(29 * time.Second)
	select {
	case e := <-events:
		fmt.Println("too early:", e)
	default:
		fmt.Println("29s: nothing yet")
	}
	clk.Step(time.Second)
	fmt.Println("30s:", <-events)
	// Output:
	// add settings
	// 29s: nothing yet
	// 30s: resync settings
}
