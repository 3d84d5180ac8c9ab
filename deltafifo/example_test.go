package deltafifo_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

func configMap(name, rv string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

func printDeltas(d deltafifo.Deltas) error {
	for _, delta := range d {
		switch obj := delta.Object.(type) {
		case deltafifo.DeletedFinalStateUnknown:
			fmt.Printf("  %s tombstone %s (last known rv %s)\n", delta.Type, obj.Key, obj.Obj.GetResourceVersion())
		case api.Object:
			fmt.Printf("  %s %s/%s rv %s\n", delta.Type, obj.GetNamespace(), obj.GetName(), obj.GetResourceVersion())
		}
	}
	return nil
}

// Several changes to one key come out of one Pop, oldest first.
func ExampleDeltaFIFO() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	f := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: story})
	_ = f.Add(configMap("web", "1"))
	_ = f.Add(configMap("db", "1"))
	_ = f.Update(configMap("web", "2"))

	for f.Len() > 0 {
		_, _ = f.Pop(func(d deltafifo.Deltas, _ bool) error {
			key, _ := f.KeyOf(d)
			fmt.Println(key)
			return printDeltas(d)
		})
	}
	// Output:
	// default/web
	//   Added default/web rv 1
	//   Updated default/web rv 2
	// default/db
	//   Added default/db rv 1
}

// A relist that no longer contains a cached object: its deletion was
// missed, and Replace queues a tombstone with the last state the cache had.
func ExampleDeltaFIFO_Replace() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	cache := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	_ = cache.Add(configMap("web", "1"))
	_ = cache.Add(configMap("db", "1"))
	f := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: story, KnownObjects: cache, EmitDeltaTypeReplaced: true})

	_ = f.Replace([]api.Object{configMap("web", "5")}, "5")

	for f.Len() > 0 {
		_, _ = f.Pop(func(d deltafifo.Deltas, isInInitialList bool) error { return printDeltas(d) })
	}
	fmt.Println("synced:", f.HasSynced())
	// Output:
	//   Replaced default/web rv 5
	//   Deleted tombstone default/db (last known rv 1)
	// synced: true
}

// The informer's loop: pop until the queue is closed. Close is how the loop
// ends, since Pop takes no context.
func ExampleDeltaFIFO_Pop() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	f := deltafifo.NewDeltaFIFO(deltafifo.DeltaFIFOOptions{Tracer: story})
	_ = f.Add(configMap("web", "1"))
	f.Close() // what the informer does when its context is cancelled

	for {
		_, err := f.Pop(func(d deltafifo.Deltas, _ bool) error { return printDeltas(d) })
		if errors.Is(err, deltafifo.ErrFIFOClosed) {
			fmt.Println("queue closed")
			return
		}
	}
	// Output:
	//   Added default/web rv 1
	// queue closed
}

// The RealFIFO keeps every notification, in order, one per Pop.
func ExampleRealFIFO() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	f := deltafifo.NewRealFIFO(deltafifo.RealFIFOOptions{Tracer: story})
	_ = f.Add(configMap("web", "1"))
	_ = f.Add(configMap("db", "1"))
	_ = f.Update(configMap("web", "2"))

	for f.Len() > 0 {
		_, _ = f.Pop(func(d deltafifo.Deltas, _ bool) error { return printDeltas(d) })
	}
	// Output:
	//   Added default/web rv 1
	//   Added default/db rv 1
	//   Updated default/web rv 2
}
