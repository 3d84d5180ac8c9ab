package informer_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// dynamicServer starts an in-process fake API server holding pods web-0
// (app=web) and web-1 in namespace default, and returns a client for it
// (reporting to story) and a stop function.
func dynamicServer(story *trace.Tracer) (*listwatch.Client, func()) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	for name, labels := range map[string]map[string]string{"web-0": {"app": "web"}, "web-1": nil} {
		if _, err := srv.Create(&api.Pod{
			ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
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

// An informer for a resource without a Go type (client-go's dynamic
// informer): the objects are *api.Unstructured, their whole JSON, read with
// api.NestedString and friends. Fields the typed api.Pod does not declare,
// such as the dnsPolicy the server defaulted, are there.
func Example_unstructuredInformer() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := dynamicServer(story)
	defer stopServer()

	pods := listwatch.DynamicResource("", "v1", "pods", "Pod", true)
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Tracer: story})
	podInformer := factory.InformerFor(pods)

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	if !informer.WaitForCacheSync(ctx, podInformer.HasSynced) {
		log.Fatal("sync failed")
	}

	lister := informer.NewLister[*api.Unstructured](podInformer.GetIndexer())
	web, err := lister.ByNamespace("default").List(api.SelectorFromSet(map[string]string{"app": "web"}))
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range web {
		dnsPolicy, _, _ := api.NestedString(u.Object, "spec", "dnsPolicy")
		containers, _, _ := api.NestedSlice(u.Object, "spec", "containers")
		image, _, _ := api.NestedString(containers[0].(map[string]any), "image")
		fmt.Println(u.GetKind(), u.GetName(), "dnsPolicy:", dnsPolicy, "image:", image)
	}
	// Output:
	// Pod web-0 dnsPolicy: ClusterFirst image: nginx
}

// A metadata-only informer (client-go's metadata informer): the client
// asks for PartialObjectMetadata, the server sends each pod's metadata and
// nothing else, and the cache holds *api.PartialObjectMetadata. Enough to
// key, select by label and follow owners, at a fraction of the memory.
func Example_metadataOnlyInformer() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	client, stopServer := dynamicServer(story)
	defer stopServer()

	// A factory of its own: a factory keys informers by GroupResource, so
	// it would otherwise hand back a typed pod informer made earlier.
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Tracer: story})
	podInformer := factory.InformerFor(listwatch.MetadataOnly(listwatch.Pods))

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx)
	if !informer.WaitForCacheSync(ctx, podInformer.HasSynced) {
		log.Fatal("sync failed")
	}

	lister := informer.NewLister[*api.PartialObjectMetadata](podInformer.GetIndexer())
	all, err := lister.List(api.Everything())
	if err != nil {
		log.Fatal(err)
	}
	slices.SortFunc(all, func(a, b *api.PartialObjectMetadata) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range all {
		fmt.Println(p.Kind, p.APIVersion, p.Namespace+"/"+p.Name, p.Labels)
	}
	// Output:
	// PartialObjectMetadata meta.k8s.io/v1 default/web-0 map[app:web]
	// PartialObjectMetadata meta.k8s.io/v1 default/web-1 map[]
}
