package informer

import (
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
)

// TypedResourceEventHandlerFuncs is ResourceEventHandlerFuncs for handlers
// of one Go type: each function gets a T, never an any to type-assert, and
// DeleteFunc gets the object unwrapped from a deltafifo.DeletedFinalStateUnknown
// tombstone together with whether its final state is unknown. It is a
// ResourceEventHandler, so it is registered as any other handler:
//
//	informer.AddEventHandler(informer.TypedResourceEventHandlerFuncs[*api.Pod]{
//		AddFunc:    func(pod *api.Pod, isInInitialList bool) { ... },
//		UpdateFunc: func(oldPod, newPod *api.Pod) { ... },
//		DeleteFunc: func(pod *api.Pod, finalStateUnknown bool) { ... },
//	})
//
// A nil function ignores its notifications. A notification whose object is
// not a T (a handler registered on the wrong informer) is logged and
// skipped, never a panic. A delete whose tombstone carries no object at all
// has only its key: DeleteObjectFunc gets it (client-go's typed handlers get
// it so too); DeleteFunc, which needs a T, cannot, so without
// DeleteObjectFunc it is logged and skipped. The articles use client-go's
// untyped handlers; kinformer keeps those too (ResourceEventHandlerFuncs).
type TypedResourceEventHandlerFuncs[T api.Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	// DeleteFunc gets the object's last state. finalStateUnknown is true
	// when the delete was missed and a relist found the object gone: obj
	// is then the last state the cache knew, and later changes may have
	// been lost.
	DeleteFunc func(obj T, finalStateUnknown bool)
	// DeleteObjectFunc, if set, gets every delete instead of DeleteFunc,
	// in the shape client-go's typed handlers get it (their DeleteFunc): a
	// DeletedObject, whose key is always there and whose object is there
	// when the informer knew one. It is the only way a typed handler hears
	// of a tombstone that carries no object.
	DeleteObjectFunc func(obj DeletedObject[T])
	// Logger receives the notifications skipped for a wrong type; nil is
	// slog.Default().
	Logger *slog.Logger
}

var _ ResourceEventHandler = TypedResourceEventHandlerFuncs[*api.Pod]{}

// OnAdd calls AddFunc with obj as a T.
func (h TypedResourceEventHandlerFuncs[T]) OnAdd(obj any, isInInitialList bool) {
	if h.AddFunc == nil {
		return
	}
	if typed, ok := h.as(obj, "add"); ok {
		h.AddFunc(typed, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc with both objects as T.
func (h TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj any) {
	if h.UpdateFunc == nil {
		return
	}
	oldTyped, ok := h.as(oldObj, "update")
	if !ok {
		return
	}
	if newTyped, ok := h.as(newObj, "update"); ok {
		h.UpdateFunc(oldTyped, newTyped)
	}
}

// OnDelete calls DeleteObjectFunc with the delete as a DeletedObject, or
// else DeleteFunc with obj as a T, unwrapped from a tombstone.
func (h TypedResourceEventHandlerFuncs[T]) OnDelete(obj any) {
	if h.DeleteFunc == nil && h.DeleteObjectFunc == nil {
		return
	}
	var d DeletedObject[T]
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		d.FinalStateUnknown = &tomb
		obj = tomb.Obj
	}
	if obj != nil || d.FinalStateUnknown == nil {
		typed, ok := h.as(obj, "delete")
		if !ok {
			return
		}
		d.OptionalObj = typed
	}
	switch {
	case h.DeleteObjectFunc != nil:
		h.DeleteObjectFunc(d)
	case obj == nil:
		h.logger().Warn("informer: typed handler skipped a tombstone without an object (DeleteObjectFunc gets those)",
			"type", typeName[T](), "key", d.GetKey())
	default:
		h.DeleteFunc(d.OptionalObj, d.FinalStateUnknown != nil)
	}
}

// DeletedObject is a delete as DeleteObjectFunc gets it, client-go's
// DeletedObject[T]: the key is always known, the object not always.
type DeletedObject[T api.Object] struct {
	// OptionalObj is the deleted object, or the zero T (a nil pointer)
	// when the informer saw the delete without any copy of the object: a
	// tombstone that carries none. It may be stale: with FinalStateUnknown
	// set it is the last state the cache knew.
	OptionalObj T
	// FinalStateUnknown is the tombstone, if the delete was missed and a
	// relist found the object gone; nil for a delete the watch delivered.
	// Its Key is the object's key whether or not it carries the object.
	FinalStateUnknown *deltafifo.DeletedFinalStateUnknown
}

// GetKey is the key the deleted object was cached under ("namespace/name",
// or "name"): the tombstone's, or else the object's; "" if there is
// neither.
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	if isNil(d.OptionalObj) {
		return ""
	}
	if ns := d.OptionalObj.GetNamespace(); ns != "" {
		return ns + "/" + d.OptionalObj.GetName()
	}
	return d.OptionalObj.GetName()
}

// GetNamespace is the namespace part of GetKey ("" for a cluster-scoped
// object).
func (d DeletedObject[T]) GetNamespace() string {
	ns, _, found := strings.Cut(d.GetKey(), "/")
	if !found {
		return ""
	}
	return ns
}

// GetName is the name part of GetKey.
func (d DeletedObject[T]) GetName() string {
	k := d.GetKey()
	if _, name, found := strings.Cut(k, "/"); found {
		return name
	}
	return k
}

// isNil reports whether obj is the zero T: a nil pointer (or nil
// interface), which has no name to read.
func isNil(obj api.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// as returns obj as a T, or logs that it is not one.
func (h TypedResourceEventHandlerFuncs[T]) as(obj any, notification string) (T, bool) {
	typed, ok := obj.(T)
	if !ok {
		h.logger().Warn("informer: typed handler skipped an object of another type",
			"notification", notification, "want", typeName[T](), "got", fmt.Sprintf("%T", obj))
	}
	return typed, ok
}

func (h TypedResourceEventHandlerFuncs[T]) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

func typeName[T any]() string {
	var zero T
	return fmt.Sprintf("%T", zero)
}
