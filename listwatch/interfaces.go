package listwatch

import (
	"context"

	"github.com/kinformer/kinformer/api"
)

// ListOptions are the query parameters of list and watch requests
// (metav1.ListOptions in client-go). The zero value lists everything, most
// recent state, unpaged.
type ListOptions struct {
	LabelSelector        string
	FieldSelector        string
	ResourceVersion      string // "" most recent, "0" any, "N" not older than N (exactly N with a limit)
	ResourceVersionMatch string // "", "Exact" or "NotOlderThan"
	Limit                int64  // page size; 0 = no paging
	Continue             string // the token of the next page
	TimeoutSeconds       *int64 // watch: the server ends the stream after this long
	AllowWatchBookmarks  bool   // watch: let the server send BOOKMARK events
	SendInitialEvents    *bool  // watch: start with the current state (a streaming list)
}

// ObjectList is one page of a list: its metadata (the resourceVersion to
// watch from, the continue token of the next page) and its items.
type ObjectList struct {
	api.ListMeta
	Items []api.Object
}

// Event is one decoded watch event.
//
//   - Added, Modified, Deleted: Object is the object (for Deleted, its last
//     state with the resourceVersion of the deletion).
//   - Bookmark: Object is an empty object of the watched type carrying only
//     a resourceVersion (and, at the end of a streaming list's initial
//     events, the k8s.io/initial-events-end annotation).
//   - Error: Object is nil and Err says what went wrong: the server's
//     Status (a *StatusError: 410 Expired means "relist"), or a decode
//     failure of the stream itself. An Error event is the last event of a
//     stream.
type Event struct {
	Type   api.EventType
	Object api.Object
	Err    error
}

// Watch is an open watch stream (watch.Interface in client-go).
//
// ResultChan delivers events in order and is closed when the stream ends:
// when the server ends it (timeoutSeconds, or a clean close), when it fails
// (after one Error event), or when Stop is called or the context passed to
// Watch is cancelled. Stop ends the stream and its goroutine promptly and
// may be called more than once.
type Watch interface {
	ResultChan() <-chan Event
	Stop()
}

// Lister lists one page of a resource.
type Lister interface {
	List(ctx context.Context, opts ListOptions) (*ObjectList, error)
}

// Watcher opens a watch of a resource.
type Watcher interface {
	Watch(ctx context.Context, opts ListOptions) (Watch, error)
}

// ListerWatcher is what a Reflector needs from the API server: list and
// watch one resource (in one namespace, with selectors already applied).
type ListerWatcher interface {
	Lister
	Watcher
}

// ListWatch adapts two functions to a ListerWatcher, as client-go's
// cache.ListWatch does. Tests use it to put a fake behind a Reflector.
type ListWatch struct {
	ListFunc  func(ctx context.Context, opts ListOptions) (*ObjectList, error)
	WatchFunc func(ctx context.Context, opts ListOptions) (Watch, error)
}

func (lw *ListWatch) List(ctx context.Context, opts ListOptions) (*ObjectList, error) {
	return lw.ListFunc(ctx, opts)
}

func (lw *ListWatch) Watch(ctx context.Context, opts ListOptions) (Watch, error) {
	return lw.WatchFunc(ctx, opts)
}
