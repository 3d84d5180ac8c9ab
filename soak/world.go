package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// namespaces the writers write in; the ReplicaSet lives in its own.
var namespaces = []string{"soak-a", "soak-b", "soak-c"}

const rsNamespace = "soak-rs"

// apps are the values of the "app" label: the selectors of the informers
// pick some of them, so relabelling moves objects in and out of view.
var apps = []string{"red", "green", "blue"}

// writer makes random writes until ctx ends, at most one per interval.
type writer struct {
	rnd    *rand.Rand
	pods   *listwatch.TypedClient[*api.Pod]
	cms    *listwatch.TypedClient[*api.ConfigMap]
	writes *atomic.Int64 // acknowledged writes, all writers
	errors *atomic.Int64 // refused writes (injected faults, conflicts, restarts)
}

func (w *writer) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := w.writeOne(ctx); err != nil {
			w.errors.Add(1)
		} else {
			w.writes.Add(1)
		}
	}
}

// writeOne picks an object of 20 per namespace and kind and creates,
// relabels or deletes it. What exists is read from the server, so a write
// lost to a fault changes nothing but the next choice.
func (w *writer) writeOne(ctx context.Context) error {
	ns := namespaces[w.rnd.IntN(len(namespaces))]
	name := fmt.Sprintf("obj-%02d", w.rnd.IntN(20))
	app := apps[w.rnd.IntN(len(apps))]
	op := w.rnd.IntN(10)
	if w.rnd.IntN(2) == 0 {
		return writeObject(ctx, w.cms, ns, name, op, func() *api.ConfigMap {
			return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
				Data: map[string]string{"n": fmt.Sprint(w.rnd.IntN(1000))}}
		}, func(cm *api.ConfigMap) {
			cm.Labels = map[string]string{"app": app}
			cm.Data = map[string]string{"n": fmt.Sprint(op)}
		})
	}
	return writeObject(ctx, w.pods, ns, name, op, func() *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
	}, func(p *api.Pod) { p.Labels = map[string]string{"app": app} })
}

// writeObject creates the object if it is missing; otherwise deletes it
// (op 0-2) or changes it (op 3-9) with an update from its current state.
func writeObject[T api.Object](ctx context.Context, c *listwatch.TypedClient[T], ns, name string, op int, fresh func() T, change func(T)) error {
	cur, err := c.Get(ctx, ns, name)
	switch {
	case listwatch.IsNotFound(err):
		_, err = c.Create(ctx, ns, fresh())
		return err
	case err != nil:
		return err
	case op < 3:
		zero := int64(0)
		return c.Delete(ctx, ns, name, listwatch.DeleteOptions{GracePeriodSeconds: &zero})
	default:
		change(cur)
		_, err = c.Update(ctx, ns, cur)
		return err
	}
}
