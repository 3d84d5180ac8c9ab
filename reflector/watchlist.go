package reflector

import (
	"context"
	"fmt"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// watchList is the streaming list client-go opens first since 1.35: one
// watch with sendInitialEvents=true that starts with an ADDED event for
// every existing object and marks the end of them with a BOOKMARK annotated
// k8s.io/initial-events-end. The reflector collects those events, Replaces
// the store with them at the bookmark's resourceVersion, and keeps the same
// watch open for what comes next: a list and a watch in one request.
//
// It returns the open watch, or an error (the server refused the options,
// or the stream failed before the bookmark), after which the reflector
// falls back to a plain list.
func (r *Reflector) watchList(ctx context.Context) (_ listwatch.Watch, err error) {
	send := true
	rv := r.relistResourceVersion()
	if rv == "0" {
		rv = "" // a consistent read of the current state
	}
	w, err := r.listerWatcher.Watch(ctx, listwatch.ListOptions{
		ResourceVersion:      rv,
		ResourceVersionMatch: listwatch.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &send,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: streaming list: %w", r.name, err)
	}
	defer func() {
		if err != nil {
			w.Stop()
		}
	}()
	// The initial events, as client-go's temporary store holds them: by
	// key, in the order first seen.
	var order []string
	initial := map[string]api.Object{}
	key := func(o api.Object) string { return o.GetNamespace() + "/" + o.GetName() }
	for {
		var ev listwatch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return nil, fmt.Errorf("%s: streaming list ended before the initial-events-end bookmark", r.name)
		}
		if ev.Type == api.Error {
			return nil, fmt.Errorf("%s: streaming list: %w", r.name, ev.Err)
		}
		if err := r.checkType(ev.Object); err != nil {
			r.watchErrorHandler(r, err)
			continue
		}
		switch ev.Type {
		case api.Added, api.Modified:
			k := key(ev.Object)
			if _, seen := initial[k]; !seen {
				order = append(order, k)
			}
			initial[k] = ev.Object
		case api.Deleted:
			delete(initial, key(ev.Object))
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
			if err := r.syncWith(list, ev.Object.GetResourceVersion()); err != nil {
				return nil, err
			}
			return w, nil
		}
	}
}
