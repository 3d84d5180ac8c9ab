package informer_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// startServer starts an in-process fake API server holding the given pods
// in namespace default (both reporting to story), and returns a client for
// it and a stop function.
func startServer(story *trace.Tracer, podNames ...string) (*listwatch.Client, func()) {
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: story})
	hs := httptest.NewServer(srv)
	for _, name := range podNames {
		if _, err := srv.Create(&api.Pod{
			ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
			Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		}); err != nil {
			log.Fatal(err)
		}
	}
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}
	return client, func() { srv.Close(); hs.Close() }
}

// The example of "Kubernetes-Informer" by smartkeyerror, §3, almost line
// for line: a factory, the pod informer from it, Start, WaitForCacheSync,
// a handler, and a Lister. The handler is registered after the cache has
// synced, so it is sent every cached pod first (the late-handler replay).
func Example_sharedInformerFactory() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := startServer(story, "web-0", "web-1")
	defer stopServer()

	// The factory; every informer of a resource comes from it. The
	// articles' informer (list then watch, a DeltaFIFO), as in the
	// article; without Pipeline it would be today's.
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Pipeline: informer.Articles, Tracer: story})
	// The pod informer.
	podInformer := factory.InformerFor(listwatch.Pods)

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown() // runs after cancel: defers run last-in first-out
	defer cancel()
	factory.Start(ctx)

	if !informer.WaitForCacheSync(ctx, podInformer.HasSynced) {
		log.Fatal("sync failed")
	}

	// Register the handlers (no work queue here: just print).
	reg, err := podInformer.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			pod := obj.(*api.Pod)
			fmt.Println("Get a pod:", pod.Name, "initial:", isInInitialList)
		},
		UpdateFunc: func(oldObj, newObj any) { fmt.Println("update pod") },
		DeleteFunc: func(obj any) { fmt.Println("delete pod") },
	})
	if err != nil {
		log.Fatal(err)
	}
	informer.WaitForCacheSync(ctx, reg.HasSynced) // the handler has seen every pod

	// The Lister.
	podLister := informer.NewLister[*api.Pod](podInformer.GetIndexer())
	// Every pod, whatever its labels.
	podList, err := podLister.List(api.Everything())
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, p := range podList {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	fmt.Println(names)
	// Unordered output:
	// Get a pod: web-0 initial: true
	// Get a pod: web-1 initial: true
	// [web-0 web-1]
}

// Controller is the controller of article 004 ("Kubernetes Controller
// 实现机制深度解析" by 赵化冰, from client-go's examples/workqueue), in kinformer.
type Controller struct {
	indexer  indexer.Indexer
	queue    workqueue.RateLimitingInterface[string]
	informer informer.Controller
}

// NewController creates a new Controller.
func NewController(queue workqueue.RateLimitingInterface[string], indexer indexer.Indexer, informer informer.Controller) *Controller {
	return &Controller{
		informer: informer,
		indexer:  indexer,
		queue:    queue,
	}
}

func (c *Controller) processNextItem() bool {
	// Wait until there is a new item in the working queue.
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	// Tell the queue that we are done with processing this key. This
	// unblocks the key for other workers.
	defer c.queue.Done(key)

	// Invoke the method containing the business logic.
	err := c.syncToStdout(key)
	// Handle the error if something went wrong during the execution of the
	// business logic.
	c.handleErr(err, key)
	return true
}

// syncToStdout is the business logic of the controller: it prints
// information about the pod.
func (c *Controller) syncToStdout(key string) error {
	obj, exists, err := c.indexer.GetByKey(key)
	if err != nil {
		slog.Error("fetching object from store failed", "key", key, "err", err)
		return err
	}
	if !exists {
		// Below we will warm up our cache with a Pod, so that we will see a
		// delete for one pod.
		fmt.Printf("Pod %s does not exist anymore\n", key)
	} else {
		// Note that you also have to check the uid if you have a local
		// controlled resource, which is dependent on the actual instance,
		// to detect that a Pod was recreated with the same name.
		fmt.Printf("Sync/Add/Update for Pod %s\n", obj.(*api.Pod).GetName())
	}
	return nil
}

// handleErr checks if an error happened and makes sure we will retry later.
func (c *Controller) handleErr(err error, key string) {
	if err == nil {
		// Forget about the AddRateLimited history of the key on every
		// successful synchronization.
		c.queue.Forget(key)
		return
	}
	// This controller retries 5 times if something goes wrong. After that,
	// it stops trying.
	if c.queue.NumRequeues(key) < 5 {
		slog.Info("error syncing pod", "key", key, "err", err)
		// Re-enqueue the key rate limited.
		c.queue.AddRateLimited(key)
		return
	}
	c.queue.Forget(key)
	slog.Info("dropping pod out of the queue", "key", key, "err", err)
}

// Run begins watching and syncing, until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	defer wg.Wait()
	// Let the workers stop when we are done.
	defer c.queue.ShutDown()

	wg.Go(func() { c.informer.Run(ctx) })

	// Wait for all involved caches to be synced, before processing items
	// from the queue is started.
	if !informer.WaitForCacheSync(ctx, c.informer.HasSynced) {
		slog.Error("timed out waiting for caches to sync")
		return
	}
	for range workers {
		wg.Go(c.runWorker)
	}
	<-ctx.Done()
}

func (c *Controller) runWorker() {
	for c.processNextItem() {
	}
}

// doneSignal wraps the queue so this example knows when the worker has
// handled a key (a real controller just runs until it is stopped).
type doneSignal struct {
	workqueue.RateLimitingInterface[string]
	done chan string
}

func (q doneSignal) Done(key string) {
	q.RateLimitingInterface.Done(key)
	q.done <- key
}

// Article 004's workqueue controller, line for line: NewIndexerInformer
// with handlers that queue keys, a rate-limited work queue, and a worker
// that reads each key back from the cache. As in the article, the cache is
// warmed up with a pod the server does not have, so the initial list turns
// it into a delete (a tombstone, whose key DeletionHandlingMetaNamespaceKeyFunc
// still finds).
func Example_workqueueController() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := startServer(story, "web-0", "web-1")
	defer stopServer()

	// Create the pod watcher.
	podListWatcher := listwatch.NewListWatchFromClient(client, listwatch.Pods, api.NamespaceDefault, "")

	// Create the workqueue.
	queue := doneSignal{workqueue.NewTypedRateLimitingQueue(workqueue.DefaultControllerRateLimiter[string]()), make(chan string, 10)}

	// Bind the workqueue to a cache with the help of an informer. This way
	// we make sure that whenever the cache is updated, the pod key is added
	// to the workqueue.
	podIndexer, podInformer := informer.NewIndexerInformer(podListWatcher, &api.Pod{}, 0, informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			key, err := indexer.MetaNamespaceKeyFunc(obj)
			if err == nil {
				queue.Add(key)
			}
		},
		UpdateFunc: func(old any, new any) {
			key, err := indexer.MetaNamespaceKeyFunc(new)
			if err == nil {
				queue.Add(key)
			}
		},
		DeleteFunc: func(obj any) {
			// IndexerInformer uses a delta queue, therefore for deletes we
			// have to use this key function.
			key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err == nil {
				queue.Add(key)
			}
		},
	}, indexer.Indexers{})

	controller := NewController(queue, podIndexer, podInformer)

	// We can now warm up the cache for initial synchronization. Say we
	// already knew a pod "mypod" before a restart: the initial list will
	// not have it, so we will get a delete for it.
	_ = podIndexer.Add(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "mypod", Namespace: api.NamespaceDefault}})

	// Now let's start the controller.
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		controller.Run(ctx, 1)
	}()
	for range 3 {
		<-queue.done
	}
	cancel()
	<-stopped
	// Output:
	// Sync/Add/Update for Pod web-0
	// Sync/Add/Update for Pod web-1
	// Pod default/mypod does not exist anymore
}
