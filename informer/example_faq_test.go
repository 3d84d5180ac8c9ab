package informer_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// An object deleted and created again under the same name while the
// informer was not looking (here: both events dropped, then the history
// compacted and the watch cut, so the Reflector relists) reaches the
// handlers as an update whose old and new objects have different UIDs. The
// name is the key; the UID says which object it is. (When the watch sees
// both events, the handlers get an OnDelete and then an OnAdd.) docs/faq.md
// tells the story.
func Example_recreatedUnderSameName() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv, client, stop := fakeServer(story)
	defer stop()
	mustCreate(srv, newConfigMap("settings", map[string]string{"v": "1"}))

	lw := listwatch.NewListWatchFromClient(client, listwatch.ConfigMaps, "default", "")
	inf := informer.NewSharedIndexInformerWithOptions(lw, &api.ConfigMap{}, informer.SharedIndexInformerOptions{Logger: quiet, Tracer: story})
	events := make(chan string, 10)
	if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any, _ bool) { events <- "add " + obj.(*api.ConfigMap).Name },
		UpdateFunc: func(oldObj, newObj any) {
			o, n := oldObj.(*api.ConfigMap), newObj.(*api.ConfigMap)
			events <- fmt.Sprintf("update %s v=%s->%s same UID: %v", n.Name, o.Data["v"], n.Data["v"], o.UID == n.UID)
		},
		DeleteFunc: func(obj any) { events <- "delete" },
	}); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); inf.Run(ctx) }()
	fmt.Println(<-events)
	waitForWatch(srv, "configmaps") // the list is done; let the watch open before it goes deaf

	srv.DropEvents(func(fakeapiserver.Event) bool { return true }) // the watch hears nothing
	if _, err := srv.Delete("configmaps", "default", "settings"); err != nil {
		log.Fatal(err)
	}
	mustCreate(srv, newConfigMap("settings", map[string]string{"v": "2"}))
	srv.DropEvents(nil)
	srv.CompactHistory() // the watch cannot resume: 410, and a relist
	srv.CloseWatches()
	fmt.Println(<-events)

	cancel()
	<-stopped
	// Output:
	// add settings
	// update settings v=1->2 same UID: false
}

// While the API server is unreachable the informer keeps serving its cache:
// reads never go to the server, HasSynced stays true, and the Reflector
// retries in the background until the server answers again (then it
// resumes or relists). What the cache serves meanwhile is the last state
// it saw, as stale as the outage is long.
func Example_cacheServesWhileServerDown() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{})
	defer srv.Close()
	hs := httptest.NewServer(srv)
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}
	mustCreate(srv, newConfigMap("settings", map[string]string{"color": "blue"}))

	lw := listwatch.NewListWatchFromClient(client, listwatch.ConfigMaps, "default", "")
	inf := informer.NewSharedIndexInformerWithOptions(lw, &api.ConfigMap{}, informer.SharedIndexInformerOptions{Logger: quiet, Tracer: story})
	lister := informer.NewLister[*api.ConfigMap](inf.GetIndexer())
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); inf.Run(ctx) }()
	if !informer.WaitForCacheSync(ctx, inf.HasSynced) {
		log.Fatal("never synced")
	}

	hs.CloseClientConnections() // the server goes away: the watch breaks,
	hs.Close()                  // and every new connection is refused

	cm, err := lister.ByNamespace("default").Get("settings")
	fmt.Println("lister:", cm.Name, cm.Data["color"], err)
	fmt.Println("HasSynced:", inf.HasSynced())

	cancel()
	<-stopped
	// Output:
	// lister: settings blue <nil>
	// HasSynced: true
}

// waitForWatch waits until a watch of resource is open on srv (an
// informer watches right after its list, on its own goroutine).
func waitForWatch(srv *fakeapiserver.Server, resource string) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for srv.OpenWatches(resource) == 0 {
		select {
		case <-tick.C:
		case <-deadline:
			log.Fatalf("no watch of %s opened", resource)
		}
	}
}
