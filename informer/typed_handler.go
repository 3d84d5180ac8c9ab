package informer

import (
	"fmt"
	"log/slog"

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
// not a T (a handler registered on the wrong informer, or a tombstone
// without an object) is logged and skipped, never a panic. client-go's
// handlers are untyped only; kinformer keeps those too
// (ResourceEventHandlerFuncs), as the articles use them.
type TypedResourceEventHandlerFuncs[T api.Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	// DeleteFunc gets the object's last state. finalStateUnknown is true
	// when the delete was missed and a relist found the object gone: obj
	// is then the last state the cache knew, and later changes may have
	// been lost.
	DeleteFunc func(obj T, finalStateUnknown bool)
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

// OnDelete calls DeleteFunc with obj as a T, unwrapped from a tombstone.
func (h TypedResourceEventHandlerFuncs[T]) OnDelete(obj any) {
	if h.DeleteFunc == nil {
		return
	}
	finalStateUnknown := false
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		finalStateUnknown = true
		obj = tomb.Obj
		if obj == nil {
			h.logger().Warn("informer: typed handler skipped a tombstone without an object",
				"type", typeName[T](), "key", tomb.Key)
			return
		}
	}
	if typed, ok := h.as(obj, "delete"); ok {
		h.DeleteFunc(typed, finalStateUnknown)
	}
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
