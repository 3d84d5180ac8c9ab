package informer

import (
	"fmt"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/stretchr/testify/require"
)

// A typed handler gets T, the delete unwrapped from its tombstone, and
// skips (and logs) what is not a T instead of panicking.
func TestTypedResourceEventHandlerFuncs(t *testing.T) {
	var got []string
	h := TypedResourceEventHandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, initial bool) { got = append(got, fmt.Sprintf("add %s initial=%v", p.Name, initial)) },
		UpdateFunc: func(oldPod, newPod *api.Pod) {
			got = append(got, fmt.Sprintf("update %s %s->%s", newPod.Name, oldPod.Labels["v"], newPod.Labels["v"]))
		},
		DeleteFunc: func(p *api.Pod, unknown bool) {
			got = append(got, fmt.Sprintf("delete %s unknown=%v", p.Name, unknown))
		},
		Logger: expectedLogs(t),
	}
	var handler ResourceEventHandler = h
	handler.OnAdd(pod("a", "v=1"), true)
	handler.OnUpdate(pod("a", "v=1"), pod("a", "v=2"))
	handler.OnDelete(pod("a", "v=2"))
	handler.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/b", Obj: pod("b")})

	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "c"}}
	handler.OnAdd(cm, false)
	handler.OnUpdate(pod("a"), cm)
	handler.OnUpdate(cm, pod("a"))
	handler.OnDelete(cm)
	handler.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/c", Obj: cm})
	handler.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/d"})

	require.Equal(t, []string{
		"add a initial=true",
		"update a 1->2",
		"delete a unknown=false",
		"delete b unknown=true",
	}, got)

	empty := TypedResourceEventHandlerFuncs[*api.Pod]{} // nil funcs ignore everything
	empty.OnAdd(cm, false)
	empty.OnUpdate(cm, cm)
	empty.OnDelete(cm)
}
