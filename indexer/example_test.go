package indexer_test

import (
	"fmt"
	"sort"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
)

func newPod(ns, name, app string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}}
}

// An informer's cache with the namespace index listers use and a label index.
func ExampleNewIndexer() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		"app":                  indexer.LabelIndexFunc("app"),
	})
	_ = idx.Add(newPod("default", "web-0", "web"))
	_ = idx.Add(newPod("default", "db-0", "db"))
	_ = idx.Add(newPod("prod", "web-0", "web"))

	inDefault, _ := idx.IndexKeys(indexer.NamespaceIndex, "default")
	web, _ := idx.IndexKeys("app", "web")
	sort.Strings(inDefault)
	sort.Strings(web)
	fmt.Println("namespace default:", inDefault)
	fmt.Println("app=web:", web)

	// Relabel: the index entry moves.
	_ = idx.Update(newPod("prod", "web-0", "db"))
	web, _ = idx.IndexKeys("app", "web")
	fmt.Println("app=web after relabel:", web)
	// Output:
	// namespace default: [default/db-0 default/web-0]
	// app=web: [default/web-0 prod/web-0]
	// app=web after relabel: [default/web-0]
}

// Adding an index to a cache that already holds objects indexes them.
func ExampleIndexer_AddIndexers() {
	idx := indexer.NewIndexer(nil, nil)
	_ = idx.Add(newPod("default", "web-0", "web"))
	if err := idx.AddIndexers(indexer.Indexers{"app": indexer.LabelIndexFunc("app")}); err != nil {
		fmt.Println(err)
	}
	objs, _ := idx.ByIndex("app", "web")
	fmt.Println(len(objs), objs[0].GetName())
	// Output:
	// 1 web-0
}

func ExampleSplitMetaNamespaceKey() {
	key, _ := indexer.MetaNamespaceKeyFunc(newPod("default", "web-0", "web"))
	ns, name, _ := indexer.SplitMetaNamespaceKey(key)
	fmt.Printf("key %q: namespace %q, name %q\n", key, ns, name)
	ns, name, _ = indexer.SplitMetaNamespaceKey("kube-system")
	fmt.Printf("cluster-scoped: namespace %q, name %q\n", ns, name)
	// Output:
	// key "default/web-0": namespace "default", name "web-0"
	// cluster-scoped: namespace "", name "kube-system"
}

// A test catching code that mutates an object it read from the cache.
func ExampleCacheMutationDetector() {
	store := indexer.NewStore(nil)
	det := indexer.NewCacheMutationDetector("pods")
	p := newPod("default", "web-0", "web")
	_ = store.Add(p)
	det.AddObject(p)

	cached, _, _ := store.GetByKey("default/web-0")
	cached.GetObjectMeta().Labels["app"] = "oops" // forbidden

	fmt.Println(det.CompareObjects() != nil)
	// Output:
	// true
}
