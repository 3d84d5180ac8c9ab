package informer

// ResourceEventHandler is what an informer notifies: the "Event Handler" of
// "Kubernetes-Informer" by smartkeyerror, §2, and step 6 of the seven steps
// in "Kubernetes Controller 实现机制深度解析" by 赵化冰. The informer calls it
// after it has updated its cache, so a handler that reads the cache sees at
// least the state it was told about.
//
// A handler should do little: the recommended pattern (article 004, step 7)
// is to compute the object's key and put it on a work queue, and to do the
// real work in a worker that reads the cache. A shared informer gives each
// handler its own goroutine and unbounded buffer, so a slow handler only
// delays itself, but its buffer grows (see ResourceEventHandlerRegistration.Pending).
//
//   - OnAdd: the object is new to the cache. isInInitialList is true for the
//     objects of the initial list (and for the replay a late-added handler
//     gets), false for objects created later.
//   - OnUpdate: the object changed, or a resync replayed it. On a resync old
//     and new are the same cached object (same resourceVersion): nothing
//     changed on the server (kubernetes/client-go#529).
//   - OnDelete: the object is gone. obj is its last state, or a
//     deltafifo.DeletedFinalStateUnknown when the delete was missed and a
//     relist found the object gone: unwrap it before type-asserting.
//
// Objects are the cache's own: do not modify them (copy with DeepCopyObject).
type ResourceEventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// ResourceEventHandlerFuncs adapts up to three functions to a
// ResourceEventHandler; a nil function ignores its notifications. AddFunc has
// the isInInitialList parameter that client-go only offers through
// ResourceEventHandlerDetailedFuncs: kinformer has one kind, the detailed one.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj any, isInInitialList bool)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

var _ ResourceEventHandler = ResourceEventHandlerFuncs{}

// OnAdd calls AddFunc if it is set.
func (r ResourceEventHandlerFuncs) OnAdd(obj any, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj any) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (r ResourceEventHandlerFuncs) OnDelete(obj any) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// FilteringResourceEventHandler passes on only the notifications about
// objects FilterFunc accepts, and turns an update that crosses the filter
// into what it means for a handler that only knows the accepted objects:
//
//	old accepted | new accepted | Handler gets
//	-------------+--------------+---------------------------
//	yes          | yes          | OnUpdate(old, new)
//	no           | yes          | OnAdd(new, false)
//	yes          | no           | OnDelete(old)
//	no           | no           | nothing
//
// FilterFunc sees whatever the informer passes, including a
// DeletedFinalStateUnknown on delete.
type FilteringResourceEventHandler struct {
	FilterFunc func(obj any) bool
	Handler    ResourceEventHandler
}

var _ ResourceEventHandler = FilteringResourceEventHandler{}

// OnAdd calls Handler.OnAdd if the object is accepted.
func (r FilteringResourceEventHandler) OnAdd(obj any, isInInitialList bool) {
	if r.FilterFunc(obj) {
		r.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate calls OnUpdate, OnAdd or OnDelete on Handler, or nothing,
// depending on which of the two objects the filter accepts.
func (r FilteringResourceEventHandler) OnUpdate(oldObj, newObj any) {
	wasAccepted, isAccepted := r.FilterFunc(oldObj), r.FilterFunc(newObj)
	switch {
	case wasAccepted && isAccepted:
		r.Handler.OnUpdate(oldObj, newObj)
	case !wasAccepted && isAccepted:
		r.Handler.OnAdd(newObj, false)
	case wasAccepted && !isAccepted:
		r.Handler.OnDelete(oldObj)
	}
}

// OnDelete calls Handler.OnDelete if the object is accepted.
func (r FilteringResourceEventHandler) OnDelete(obj any) {
	if r.FilterFunc(obj) {
		r.Handler.OnDelete(obj)
	}
}
