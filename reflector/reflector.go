package reflector

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// Store is where a Reflector puts what it lists and watches. A DeltaFIFO
// (and a RealFIFO, and an indexer.Store) is one. A Store may also implement
// ReflectorBookmarkStore and ResourceVersionUpdater, to be told of the
// versions a watch moves through.
type Store interface {
	Add(obj api.Object) error
	Update(obj api.Object) error
	Delete(obj api.Object) error
	// Replace swaps the whole contents for a fresh list, taken at
	// resourceVersion.
	Replace(list []api.Object, resourceVersion string) error
	// Resync replays what the store holds (the informer's periodic resync).
	Resync() error
}

// ReflectorBookmarkStore is a Store that wants the watch's bookmarks: the
// reflector calls Bookmark with the resourceVersion of every BOOKMARK a
// watch delivers, after the events before it. A queue can hand the version
// on, in order, to whoever processes it, so that the cache knows which
// server version it has caught up to even while nothing of its own
// changes (client-go 1.36's RealFIFO queues it as a Bookmark delta,
// KEP-5647). The initial-events-end bookmark of a streaming list is not
// handed over: its version is the one Replace carries, as a paged list's
// is. An error is reported to the watch error handler, and the watch goes
// on. The name and the method are client-go's.
type ReflectorBookmarkStore interface {
	Bookmark(resourceVersion string) error
}

// ResourceVersionUpdater is a Store that wants to follow the last synced
// version as the watch moves it: the reflector calls UpdateResourceVersion
// after every event and every bookmark it applies from a watch, with that
// event's resourceVersion (the version LastSyncResourceVersion then
// reports). A list's version is not sent this way: Replace carries it. The
// name and the method are client-go's, called where client-go calls it.
type ResourceVersionUpdater interface {
	UpdateResourceVersion(resourceVersion string)
}

// Options configure a Reflector. Only the ListerWatcher and Store passed to
// New are required.
type Options struct {
	// Name appears in logs and errors. Default: "reflector(<type>)".
	Name string
	// ExpectedType is an example of the objects to expect, e.g. &api.Pod{}.
	// Watch events carrying another type are skipped and reported, as
	// client-go's watchHandler does. nil accepts any type.
	ExpectedType api.Object
	// ExpectedGVK, if its Kind is set, is the apiVersion and kind to
	// expect: watch events of another kind are skipped and reported too.
	// It is what tells objects apart when the Go type cannot: every custom
	// resource is an *api.Unstructured (client-go's expectedGVK). Default:
	// the TypeMeta of an ExpectedType that is an *api.Unstructured with a
	// kind.
	ExpectedGVK api.TypeMeta
	// FullResyncPeriod, if positive, calls Store.Resync this often while the
	// watch runs (when ShouldResync, if set, says so): the store's resync,
	// named as the informer controller's Config names it. client-go's
	// ReflectorOptions call it ResyncPeriod, which in kinformer is only ever
	// a handler's resync (informer.SharedIndexInformerOptions,
	// informer.HandlerOptions).
	FullResyncPeriod time.Duration
	ShouldResync     func() bool
	// PageSize is the page size of paged lists (client-go's
	// WatchListPageSize). Left 0, lists at resourceVersion "" or "0" are
	// paged 500 at a time and a list at a specific version is not paged
	// (the server answers it from its watch cache), unless the first list
	// came back in pages (the server has no watch cache for the resource:
	// later lists are paged too). Set, every list is paged, at a specific
	// version too.
	PageSize int64
	// UseWatchList opens a streaming list (a watch with sendInitialEvents)
	// instead of a list. If the server sheds load or is restarting (429,
	// connection refused, a 5xx with Retry-After) the streaming list is
	// retried after a backoff; if it refuses otherwise, the reflector falls
	// back to a paged list.
	UseWatchList bool
	// MinWatchTimeout: each watch asks the server to end it after a random
	// time between MinWatchTimeout and twice that, so many clients do not
	// reconnect at once. Default 5 minutes, as client-go.
	MinWatchTimeout time.Duration
	// Backoff between failed attempts; zero is client-go's.
	Backoff Backoff
	// Clock drives timeouts, resync and backoff. Default the real clock.
	Clock clock.Clock
	// WatchErrorHandler sees every failure of a list or watch (the watch
	// error handler hook of client-go). Default: log it.
	WatchErrorHandler func(r *Reflector, err error)
	// Logger for the default error handler and skipped events. Default
	// slog.Default().
	Logger *slog.Logger
	// Tracer receives the reflector's trace events (stage "reflector"):
	// every phase transition, request, event applied and failure handled;
	// the package doc lists them. nil: off.
	Tracer *trace.Tracer
}

// Reflector keeps a Store in step with the API server: it lists a resource,
// Replaces the store's contents with the list, then watches from the list's
// resourceVersion and applies every event, for as long as its context
// lives. See the package doc for the rules it follows when things fail.
type Reflector struct {
	name              string
	listerWatcher     listwatch.ListerWatcher
	store             Store
	expectedType      reflect.Type
	expectedGVK       api.TypeMeta
	opts              Options
	clock             clock.Clock
	backoff           backoffState // client-go's backoffManager
	logger            *slog.Logger
	watchErrorHandler func(r *Reflector, err error)
	tracer            *trace.Tracer // stage "reflector"; nil: off
	insp              inspection    // the phase, for the lab's states (inspect.go)
	// pageEvery: PageSize was set, so every list is paged;
	// paginatedResult: the first list (at "0") came back in pages, so later
	// lists are paged too. Only the Run goroutine uses them.
	pageEvery, paginatedResult bool

	lastSyncResourceVersionMutex sync.RWMutex
	lastSyncResourceVersion      string
	// isLastSyncResourceVersionUnavailable is set when a list at the last
	// version failed with 410 Expired or 504 too-large: the next list asks
	// for the most recent state ("") instead.
	isLastSyncResourceVersionUnavailable bool
}

// New returns a Reflector that lists and watches lw into store.
func New(lw listwatch.ListerWatcher, store Store, opts Options) *Reflector {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	pageEvery := opts.PageSize != 0
	if opts.PageSize == 0 {
		opts.PageSize = 500
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Reflector{
		listerWatcher:     lw,
		store:             store,
		opts:              opts,
		clock:             opts.Clock,
		backoff:           backoffState{Backoff: opts.Backoff.withDefaults(), clock: opts.Clock},
		logger:            opts.Logger,
		watchErrorHandler: opts.WatchErrorHandler,
		tracer:            opts.Tracer.Stage(trace.StageReflector),
		pageEvery:         pageEvery,
		expectedGVK:       opts.ExpectedGVK,
	}
	if opts.ExpectedType != nil {
		r.expectedType = reflect.TypeOf(opts.ExpectedType)
	}
	if u, ok := opts.ExpectedType.(*api.Unstructured); ok && r.expectedGVK.Kind == "" && u.GetKind() != "" {
		r.expectedGVK = api.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()}
	}
	r.name = opts.Name
	if r.name == "" {
		r.name = "reflector"
		if r.expectedType != nil {
			r.name = fmt.Sprintf("reflector(%v)", r.expectedType)
		}
	}
	if r.watchErrorHandler == nil {
		r.watchErrorHandler = DefaultWatchErrorHandler
	}
	return r
}

// Name is the reflector's name, as it appears in logs and errors.
func (r *Reflector) Name() string { return r.name }

// DefaultWatchErrorHandler logs a failure: expected ones (410 Expired, a
// dropped connection) quietly, the rest as warnings.
func DefaultWatchErrorHandler(r *Reflector, err error) {
	switch {
	case listwatch.IsResourceExpired(err), isDroppedConnection(err):
		r.logger.Debug("watch closed", "reflector", r.name, "err", err)
	default:
		r.logger.Warn("list or watch failed", "reflector", r.name, "err", err)
	}
}

// LastSyncResourceVersion is the resourceVersion the store last caught up
// to: that of the last list, event or bookmark applied.
func (r *Reflector) LastSyncResourceVersion() string {
	r.lastSyncResourceVersionMutex.RLock()
	defer r.lastSyncResourceVersionMutex.RUnlock()
	return r.lastSyncResourceVersion
}

func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.lastSyncResourceVersionMutex.Lock()
	defer r.lastSyncResourceVersionMutex.Unlock()
	r.lastSyncResourceVersion = rv
}

func (r *Reflector) setIsLastSyncResourceVersionUnavailable(unavailable bool) {
	r.lastSyncResourceVersionMutex.Lock()
	defer r.lastSyncResourceVersionMutex.Unlock()
	r.isLastSyncResourceVersionUnavailable = unavailable
}

// relistResourceVersion is the resourceVersion the next list asks for:
//
//   - "0" the first time: any state will do, and the server may answer
//     from its cache instead of etcd;
//   - the last synced version on a relist, so the store never goes back in
//     time (kubernetes#83520);
//   - "" (the most recent state) if the last list at that version failed
//     with 410 Expired or 504 too-large.
func (r *Reflector) relistResourceVersion() string {
	r.lastSyncResourceVersionMutex.RLock()
	defer r.lastSyncResourceVersionMutex.RUnlock()
	switch {
	case r.isLastSyncResourceVersionUnavailable:
		return ""
	case r.lastSyncResourceVersion == "":
		return "0"
	default:
		return r.lastSyncResourceVersion
	}
}

// sleep waits d on the reflector's clock; false if ctx ended first.
func (r *Reflector) sleep(ctx context.Context, d time.Duration) bool {
	t := r.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}

// watchTimeout picks a random timeout in [MinWatchTimeout, 2*MinWatchTimeout),
// in whole seconds, at least one.
func (r *Reflector) watchTimeout() *int64 {
	min := r.opts.MinWatchTimeout.Seconds()
	secs := max(1, int64(min*(1+rand.Float64()))) // 0 would mean "the server's default"
	return &secs
}

// checkType reports whether obj, a watch event's object, is of the
// expected type and kind (and is there at all: a ListerWatcher of one's own
// may send an event without one).
func (r *Reflector) checkType(obj api.Object) error {
	if obj == nil {
		return fmt.Errorf("%s: a watch event without an object", r.name)
	}
	if r.expectedType != nil {
		if got := reflect.TypeOf(obj); got != r.expectedType {
			return fmt.Errorf("%s: expected type %v, but watch event object had type %v", r.name, r.expectedType, got)
		}
	}
	if want := r.expectedGVK; want.Kind != "" {
		if got := obj.GetObjectKind(); got.Kind != want.Kind || got.APIVersion != want.APIVersion {
			return fmt.Errorf("%s: expected %s %s, but watch event object was %s %s", r.name, want.APIVersion, want.Kind, got.APIVersion, got.Kind)
		}
	}
	return nil
}
