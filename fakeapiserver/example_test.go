package fakeapiserver_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/trace"
)

// The server in a test: the Go API and HTTP act on one store, and a fault
// injection (here etcd compaction) shows up on the wire exactly as from a
// real kube-apiserver: a watch from a compacted version gets HTTP 200 and
// one ERROR frame carrying a 410 Expired Status, the signal to relist.
func Example() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: story})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close() // first: it ends the watches hs.Close waits for

	pod, err := srv.Create(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-0"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("created", pod.GetNamespace()+"/"+pod.GetName(), "at resourceVersion", pod.GetResourceVersion())

	srv.CompactHistory()
	resp, err := http.Get(hs.URL + "/api/v1/namespaces/default/pods?watch=true&resourceVersion=1")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	frame, _ := bufio.NewReader(resp.Body).ReadString('\n')
	fmt.Print(resp.StatusCode, " ", frame)
	// Output:
	// created default/web-0 at resourceVersion 4
	// 200 {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}
}
