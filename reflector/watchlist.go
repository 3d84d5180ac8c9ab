package reflector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
func (r *Reflector) initialEvents(ctx context.Context, w listwatch.Watch) (events int, err error) {
	// objs holds one slot per key, in the order keys were first seen, and
	// slot says which is each key's. A later event replaces the object in
	// its key's slot, a DELETED empties it (and an ADDED after that fills
	// it again: a key keeps the place it was first seen at).
	var objs []api.Object
	slot := map[objectKey]int{}
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
		k := objectKey{ev.Object.GetNamespace(), ev.Object.GetName()}
		switch ev.Type {
		case api.Added, api.Modified:
			if i, seen := slot[k]; seen {
				objs[i] = ev.Object
			} else {
				slot[k] = len(objs)
				objs = append(objs, ev.Object)
			}
		case api.Deleted:
			if i, seen := slot[k]; seen {
				objs[i] = nil
			}
		case api.Bookmark:
			if ev.Object.GetAnnotations()[api.InitialEventsAnnotationKey] != "true" {
				continue // an ordinary bookmark: the initial events go on
			}
			list := make([]api.Object, 0, len(objs))
			for _, o := range objs {
				if o != nil {
					list = append(list, o)
				}
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

// objectKey is an object's key as a map key: its namespace and name,
// without building the "namespace/name" string for every event.
type objectKey struct{ namespace, name string }
