package reflector_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
)

// signallingStore is an indexer.Store that says what was done to it, so the
// example knows when the Reflector has written (a real program just reads
// the store, or uses an informer).
type signallingStore struct {
	indexer.Store
	done chan string
}

func (s signallingStore) Replace(list []api.Object, rv string) error {
	err := s.Store.Replace(list, rv)
	s.done <- fmt.Sprintf("replace (%d objects)", len(list))
	return err
}

func (s signallingStore) Add(obj api.Object) error {
	err := s.Store.Add(obj)
	s.done <- "add " + obj.GetName()
	return err
}

func (s signallingStore) Update(obj api.Object) error {
	err := s.Store.Update(obj)
	s.done <- "update " + obj.GetName()
	return err
}

func (s signallingStore) Delete(obj api.Object) error {
	err := s.Store.Delete(obj)
	s.done <- "delete " + obj.GetName()
	return err
}

// A Reflector on its own: it lists the ConfigMaps into a store, then watches and
// applies every change, without a queue or an informer (steps 1 and 2 of
// article 004, with a plain store instead of the DeltaFIFO).
func ExampleNew() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	for _, name := range []string{"web-0", "web-1"} {
		if _, err := srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}); err != nil {
			log.Fatal(err)
		}
	}
	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}

	store := signallingStore{indexer.NewStore(indexer.MetaNamespaceKeyFunc), make(chan string, 10)}
	r := reflector.New(listwatch.NewListWatchFromClient(client, listwatch.ConfigMaps, "default", ""), store, reflector.Options{
		ExpectedType: &api.ConfigMap{},
		Logger:       slog.New(slog.DiscardHandler),
		Tracer:       story,
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); r.Run(ctx) }()

	fmt.Println(<-store.done) // the list
	keys := store.ListKeys()
	slices.Sort(keys)
	fmt.Println(keys)

	if _, err := srv.Delete("configmaps", "default", "web-0"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-store.done) // the watch's DELETED event
	fmt.Println(store.ListKeys())

	cancel()
	<-stopped
	// Output:
	// replace (2 objects)
	// [default/web-0 default/web-1]
	// delete web-0
	// [default/web-1]
}
