package reflector

import (
	"context"
	"errors"
	"fmt"

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
// It returns the open watch and the version it asked for, or an error (the
// server refused, or the stream failed before the bookmark). next then
// decides: retry the streaming list after a backoff if the server is
// shedding load or restarting, or fall back to a paged list.
func (r *Reflector) watchList(ctx context.Context) (_ listwatch.Watch, rv string, err error) {
	send := true
	rv = r.relistResourceVersion()
	if rv == "0" {
		rv = "" // a consistent read of the current state
	}
	if r.tracer.On() {
		r.tracer.Event("streaming list", trace.RV(rv))
	}
	w, err := r.listerWatcher.Watch(ctx, listwatch.ListOptions{
		ResourceVersion:      rv,
		ResourceVersionMatch: listwatch.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &send,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	})
	if err != nil {
		return nil, rv, fmt.Errorf("streaming list at resourceVersion %q: %w", rv, err)
	}
	if err := r.initialEvents(ctx, w); err != nil {
		w.Stop()
		return nil, rv, fmt.Errorf("streaming list at resourceVersion %q: %w", rv, err)
	}
	return w, rv, nil
}

// errNoEndBookmark: the stream of a streaming list ended before it said the
// initial events were over.
var errNoEndBookmark = errors.New("the stream ended before the initial-events-end bookmark")

// initialEvents reads w's initial events, as client-go's temporary store
// holds them (by key, in the order first seen, a later event replacing an
// earlier one, a DELETED removing it), until the initial-events-end
// bookmark, then syncWith's them.
func (r *Reflector) initialEvents(ctx context.Context, w listwatch.Watch) error {
	var order []string
	initial := map[string]api.Object{}
	for {
		var ev listwatch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return errNoEndBookmark
		}
		if ev.Type == api.Error {
			return ev.Err
		}
		if err := r.checkType(ev.Object); err != nil {
			r.skip(err)
			continue
		}
		k := keyOf(ev.Object)
		switch ev.Type {
		case api.Added, api.Modified:
			if _, seen := initial[k]; !seen {
				order = append(order, k)
			}
			initial[k] = ev.Object
		case api.Deleted:
			delete(initial, k)
		case api.Bookmark:
			if ev.Object.GetAnnotations()[api.InitialEventsAnnotationKey] != "true" {
				continue // an ordinary bookmark: the initial events go on
			}
			list := make([]api.Object, 0, len(initial))
			for _, k := range order {
				if o, ok := initial[k]; ok {
					list = append(list, o)
					delete(initial, k) // a key deleted and added again is in order twice
				}
			}
			if r.tracer.On() {
				r.tracer.Event("initial events end", trace.RV(ev.Object.GetResourceVersion()), trace.Count(len(list)))
			}
			return r.syncWith(list, ev.Object.GetResourceVersion())
		}
		if r.tracer.On() && ev.Type != api.Bookmark {
			r.tracer.Event("initial event", trace.Type(string(ev.Type)), trace.Key(k), trace.RV(ev.Object.GetResourceVersion()))
		}
	}
}
