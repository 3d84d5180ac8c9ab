package replicaset_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// A ReplicaSet asking for 3 pods, and the controller that makes them: the
// factory, the controller, Start, Run, and Shutdown once Run has drained.
func ExampleNewReplicaSetController() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	srv := fakeapiserver.New(fakeapiserver.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	if _, err := srv.Create(&api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	}); err != nil {
		log.Fatal(err)
	}

	client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: story})
	if err != nil {
		log.Fatal(err)
	}
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Tracer: story})
	c, err := replicaset.NewReplicaSetController(replicaset.Options{
		Client: client, Factory: factory, Logger: slog.New(slog.DiscardHandler), Tracer: story,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	stopped := make(chan error)
	go func() { stopped <- c.Run(ctx) }()

	// Wait until the status says 3 pods.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		obj, err := srv.Get("replicasets", "default", "web")
		if err == nil && obj.(*api.ReplicaSet).Status.Replicas == 3 {
			break
		}
	}
	pods, _, err := srv.List("pods", "default")
	if err != nil {
		log.Fatal(err)
	}
	cancel()
	if err := <-stopped; err != nil {
		log.Fatal(err)
	}
	factory.Shutdown()
	fmt.Println("pods:", len(pods))
	st := c.Stats() // how many reconciles it took varies from run to run
	fmt.Println("created:", st.PodsCreated, "deleted:", st.PodsDeleted, "dropped:", st.Dropped)
	// Output:
	// pods: 3
	// created: 3 deleted: 0 dropped: 0
}
