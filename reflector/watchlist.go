package reflector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// watchList is the body of the listing phase with UseWatchList: the
// streaming list client-go opens first since 1.35. One watch with
// sendInitialEvents=true starts with an ADDED event for every existing
// object and marks the end of them with a BOOKMARK annotated
// k8s.io/initial-events-end. The reflector collects those events, Replaces
// the store with them at the bookmark's resourceVersion (syncWith), and
// keeps the same watch open for the watching phase: a list and a watch in
// one request.
//
// It returns the open watch (in the outcome) and the version it asked for,
// or an error: the server refused, the stream failed, or it ended before
// the bookmark. The outcome also says how many events the stream delivered
// and how long it lasted, for next to tell a stream that ended early (a
// new streaming list, at once) from a very short one (a paged list). next
// then decides, as client-go's watchList and ListAndWatch do: retry the
// streaming list after a backoff if the server is shedding load or
// restarting, or fall back to a paged list.
func (r *Reflector) watchList(ctx context.Context) outcome {
	send := true
	o := outcome{rv: r.relistResourceVersion()}
	if o.rv == "0" {
		o.rv = "" // a consistent read of the current state
	}
	if r.tracer.On() {
		r.tracer.Event("streaming list", trace.RV(o.rv))
	}
	start := r.clock.Now()
	w, err := r.listerWatcher.Watch(ctx, listwatch.ListOptions{
		ResourceVersion:      o.rv,
		ResourceVersionMatch: listwatch.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &send,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	})
	if err != nil {
		o.err = fmt.Errorf("streaming list at resourceVersion %q: %w", o.rv, err)
		return o
	}
	o.opened = true
	o.events, err = r.initialEvents(ctx, w)
	o.lasted = r.clock.Since(start)
	if err != nil {
		w.Stop()
		o.err = fmt.Errorf("streaming list at resourceVersion %q: %w", o.rv, err)
		return o
	}
	o.watch = w
	return o
}

// errNoEndBookmark: the stream of a streaming list ended (cleanly, or its
// connection dropped) before it said the initial events were over.
// client-go's watchList does not count that as a failure: its loop opens a
// new streaming list at once, unless the stream was a very short one (no
// events in under a second), which it does count as one and falls back on.
var errNoEndBookmark = errors.New("the stream ended before the initial-events-end bookmark")

// initialEvents reads w's initial events, as client-go's temporary store
// holds them (by key, in the order first seen, a later event replacing an
// earlier one, a DELETED removing it), until the initial-events-end
// bookmark, then syncWith's them. It returns how many events it read
// (bookmarks too; skipped ones not, as client-go counts them).
//
// It keeps the events as they come, in a slice, and settles what they
// leave at the bookmark. An API server sends each object once, ADDED, in
// the order of its keys (its watch cache is sorted), and then the objects
// are the list as they are: nothing but the slice is held beside the
// store. Only a stream that repeats or deletes a key, or is out of order,
// is settled by key (settle). Collecting by key as they came held a map
// of every key beside the store's own: for a list of 50,000 pods, a
// quarter of the garbage of the whole sync (docs/performance.md).
func (r *Reflector) initialEvents(ctx context.Context, w listwatch.Watch) (events int, err error) {
	var objs []api.Object
	var deleted []bool // deleted[i]: objs[i] came in a DELETED (nil until one does)
	inOrder := true    // every event so far ADDED, each key after the one before
	for {
		var ev listwatch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return events, ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return events, errNoEndBookmark
		}
		if ev.Type == api.Error {
			if isDroppedConnection(ev.Err) {
				// client-go's StreamWatcher closes quietly on a cut
				// connection: to its watchList the stream just ended.
				return events, fmt.Errorf("%w (%w)", errNoEndBookmark, ev.Err)
			}
			return events, ev.Err
		}
		if err := r.checkType(ev.Object); err != nil {
			r.skip(err)
			continue
		}
		events++
		switch ev.Type {
		case api.Added, api.Modified, api.Deleted:
			if ev.Type != api.Added || !comesAfter(ev.Object, objs) {
				inOrder = false
			}
			if ev.Type == api.Deleted && deleted == nil {
				deleted = make([]bool, len(objs), cap(objs))
			}
			if len(objs) == cap(objs) {
				// Double it: append grows a long slice by a quarter, which
				// for 50,000 objects makes and drops 4 MB of slices
				// instead of 1.6.
				objs = slices.Grow(objs, len(objs))
			}
			objs = append(objs, ev.Object)
			if deleted != nil {
				deleted = append(deleted, ev.Type == api.Deleted)
			}
		case api.Bookmark:
			if ev.Object.GetAnnotations()[api.InitialEventsAnnotationKey] != "true" {
				continue // an ordinary bookmark: the initial events go on
			}
			list := objs // in order: each object once
			if !inOrder {
				list = settle(objs, deleted)
			}
			if r.tracer.On() {
				rv := ev.Object.GetResourceVersion()
				r.tracer.Event("initial events end", append([]slog.Attr{trace.RV(rv), trace.Count(len(list))}, r.inspect(rv)...)...)
			}
			return events, r.syncWith(list, ev.Object.GetResourceVersion())
		}
		if r.tracer.On() && ev.Type != api.Bookmark {
			r.tracer.Event("initial event", trace.Type(string(ev.Type)), trace.Key(keyOf(ev.Object)), trace.RV(ev.Object.GetResourceVersion()))
		}
	}
}

// settle returns what initial events leave, as client-go's temporary
// store holds it: each key's last object, unless that came in a DELETED
// (deleted[i]; deleted nil: none did), listed where the key was first
// added.
func settle(objs []api.Object, deleted []bool) []api.Object {
	var list []api.Object
	at := map[objectName]int{} // where each key is in list
	for i, o := range objs {
		name := nameOf(o)
		j, seen := at[name]
		switch {
		case deleted != nil && deleted[i]:
			if seen {
				list[j] = nil // until it is added again, in its place
			}
		case seen:
			list[j] = o
		default:
			at[name] = len(list)
			list = append(list, o)
		}
	}
	return slices.DeleteFunc(list, func(o api.Object) bool { return o == nil })
}

// comesAfter reports whether o's key comes after the last object's of
// objs (or objs is empty).
func comesAfter(o api.Object, objs []api.Object) bool {
	return len(objs) == 0 || nameOf(objs[len(objs)-1]).compare(nameOf(o)) < 0
}

// objectName is an object's namespace and name: its key, as two strings
// it holds already (no key string is made).
type objectName struct{ namespace, name string }

func nameOf(o api.Object) objectName { return objectName{o.GetNamespace(), o.GetName()} }

// compare orders names as their keys ("namespace/name", or "name") order
// as strings: the order an API server sends a streaming list in.
func (a objectName) compare(b objectName) int {
	if a.namespace == b.namespace {
		return strings.Compare(a.name, b.name)
	}
	// As a.namespace+"/" against b.namespace+"/": where one namespace is
	// the other's prefix, the shorter one's "/" meets the longer one's
	// next byte.
	n := min(len(a.namespace), len(b.namespace))
	if c := strings.Compare(a.namespace[:n], b.namespace[:n]); c != 0 {
		return c
	}
	if len(a.namespace) < len(b.namespace) {
		return cmp.Compare('/', b.namespace[n])
	}
	return cmp.Compare(a.namespace[n], '/')
}
