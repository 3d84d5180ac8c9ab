package listwatch_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

func newPod(name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox"}}},
	}
}

// Article 004's curl session in Go: list the pods, then watch from the
// list's resourceVersion and see only what changes after it.
func Example_listAndWatch() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: story})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	_, _ = srv.Create(newPod("foo", nil))

	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story}) // kubectl proxy's URL works the same
	if err != nil {
		panic(err)
	}
	pods := listwatch.For[*api.Pod](client, listwatch.Pods)
	ctx := context.Background()

	list, err := pods.List(ctx, "default", listwatch.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range list.Items {
		fmt.Println("LIST", p.Name)
	}

	w, err := pods.Watch(ctx, "default", listwatch.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	_, _ = srv.Create(newPod("test", nil))
	_, _ = srv.Delete("pods", "default", "test")
	for ev := range w.ResultChan() {
		fmt.Println(ev.Type, ev.Object.(*api.Pod).Name)
		if ev.Type == api.Deleted {
			break
		}
	}
	// Output:
	// LIST foo
	// ADDED test
	// MODIFIED test
	// DELETED test
}

// The ListerWatcher a Reflector is built on: one resource, one namespace,
// a label selector applied to every list and watch.
func ExampleNewFilteredListWatchFromClient() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: story})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	_, _ = srv.Create(newPod("web-0", map[string]string{"app": "web"}))
	_, _ = srv.Create(newPod("db-0", map[string]string{"app": "db"}))

	client, _ := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	lw := listwatch.NewFilteredListWatchFromClient(client, listwatch.Pods, "default", func(o *listwatch.ListOptions) {
		o.LabelSelector = "app=web"
	})
	list, err := lw.List(context.Background(), listwatch.ListOptions{Limit: 500})
	if err != nil {
		panic(err)
	}
	for _, obj := range list.Items {
		fmt.Printf("%T %s\n", obj, obj.GetName())
	}
	// Output:
	// *api.Pod web-0
}

// The ListerWatcher of article 004's workqueue controller
// ("Kubernetes Controller 实现机制深度解析" by 赵化冰): every pod of one
// namespace, NewListWatchFromClient(…, "pods", default, fields.Everything()).
// The field selector is a string here; api.EverythingFields() is the
// empty one, which selects everything, so both pods come back.
func ExampleNewListWatchFromClient() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: story})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	_, _ = srv.Create(newPod("web-0", map[string]string{"app": "web"}))
	_, _ = srv.Create(newPod("db-0", map[string]string{"app": "db"}))

	client, _ := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	podListWatcher := listwatch.NewListWatchFromClient(client, listwatch.Pods, api.NamespaceDefault, api.EverythingFields().String())
	list, err := podListWatcher.List(context.Background(), listwatch.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, obj := range list.Items {
		fmt.Printf("%T %s\n", obj, obj.GetName())
	}
	// Output:
	// *api.Pod db-0
	// *api.Pod web-0
}

// API errors are data: the helpers read the Status the server sent.
func ExampleIsNotFound() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()

	client, _ := listwatch.NewClient(listwatch.Config{Server: hs.URL})
	_, err := listwatch.For[*api.Pod](client, listwatch.Pods).Get(context.Background(), "default", "no-such-pod")
	fmt.Println(listwatch.IsNotFound(err), listwatch.ReasonForError(err))
	fmt.Println(err)
	// Output:
	// true NotFound
	// pods "no-such-pod" not found
}
