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

// A delete whose tombstone carries no object still reaches a typed handler,
// with its key, as client-go's typed handlers get it (DeletedObject[T]):
// DeleteObjectFunc gets every delete, the key always there (GetKey,
// GetNamespace, GetName) and the object when the informer knew one. A
// handler with only DeleteFunc, which needs a T, cannot be given that
// delete: it is logged and skipped.
func TestTypedResourceEventHandlerFuncs_TombstoneWithoutObjectKeepsItsKey(t *testing.T) {
	var got []string
	h := TypedResourceEventHandlerFuncs[*api.Pod]{
		DeleteObjectFunc: func(d DeletedObject[*api.Pod]) {
			obj := "no object"
			if d.OptionalObj != nil {
				obj = "object " + d.OptionalObj.Name
			}
			line := fmt.Sprintf("delete key=%s namespace=%s name=%s finalStateUnknown=%v, %s",
				d.GetKey(), d.GetNamespace(), d.GetName(), d.FinalStateUnknown != nil, obj)
			t.Log(line)
			got = append(got, line)
		},
		DeleteFunc: func(*api.Pod, bool) { t.Error("DeleteFunc is not called when DeleteObjectFunc is set") },
		Logger:     expectedLogs(t),
	}
	h.OnDelete(pod("a"))
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/b", Obj: pod("b")})
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/c"})
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "node-1"}) // a cluster-scoped key
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/d", Obj: &api.ConfigMap{}})
	require.Equal(t, []string{
		"delete key=default/a namespace=default name=a finalStateUnknown=false, object a",
		"delete key=default/b namespace=default name=b finalStateUnknown=true, object b",
		"delete key=default/c namespace=default name=c finalStateUnknown=true, no object",
		"delete key=node-1 namespace= name=node-1 finalStateUnknown=true, no object",
	}, got, "every delete of a pod, with its key; the ConfigMap is skipped")

	got = nil
	onlyDeleteFunc := TypedResourceEventHandlerFuncs[*api.Pod]{
		DeleteFunc: func(p *api.Pod, unknown bool) {
			got = append(got, fmt.Sprintf("delete %s unknown=%v", p.Name, unknown))
		},
		Logger: expectedLogs(t),
	}
	onlyDeleteFunc.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/c"})
	onlyDeleteFunc.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "default/b", Obj: pod("b")})
	require.Equal(t, []string{"delete b unknown=true"}, got, "DeleteFunc needs a T: the object-less tombstone is logged and skipped")

	var zero DeletedObject[*api.Pod]
	require.Empty(t, zero.GetKey(), "no tombstone and no object: no key, and no panic on the nil pointer")
}
