package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// resyncLoop calls Store.Resync every FullResyncPeriod (when ShouldResync says
// so). Resync replays the store's own contents, not the server's: it is how
// an informer re-delivers every object to handlers that want a periodic
// "sync" (article 003's resync section). A failed Resync is sent on errc,
// which ends the watch: the reflector relists.
func (r *Reflector) resyncLoop(ctx context.Context, errc chan<- error) {
	t := r.clock.NewTimer(r.opts.FullResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if r.opts.ShouldResync == nil || r.opts.ShouldResync() {
			if r.tracer.On() {
				r.tracer.Event("resync")
			}
			if err := r.store.Resync(); err != nil {
				errc <- fmt.Errorf("resync: %w", err)
				return
			}
		}
		t.Reset(r.opts.FullResyncPeriod)
	}
}

// watch is the body of the watching phase: one watch from the last synced
// resourceVersion (or w, a streaming list's watch already open), run
// through watchHandler until it ends. What comes next (watch again, back
// off, relist) is next's to decide, from the outcome.
func (r *Reflector) watch(ctx context.Context, w listwatch.Watch, resyncErr <-chan error) outcome {
	var o outcome
	start := r.clock.Now()
	if w == nil {
		rv := r.LastSyncResourceVersion()
		if r.tracer.On() {
			r.tracer.Event("watch", append([]slog.Attr{trace.RV(rv)}, r.inspect(rv)...)...)
		}
		var err error
		w, err = r.listerWatcher.Watch(ctx, listwatch.ListOptions{
			ResourceVersion:     rv,
			TimeoutSeconds:      r.watchTimeout(),
			AllowWatchBookmarks: true,
		})
		if err != nil {
			o.err = fmt.Errorf("watch from resourceVersion %s: %w", rv, err)
			return o
		}
	}
	o.opened = true
	o.events, o.err = r.watchHandler(ctx, w, resyncErr)
	o.lasted = r.clock.Since(start)
	return o
}

// watchHandler applies the events of one watch to the store (article 001
// quotes client-go's, with its expected-type check), moving the last synced
// version on with every event and bookmark, and stops the watch when it
// returns. It returns how many events it handled and how the watch ended:
// nil if the stream ended cleanly, the stream's error (an ERROR event, a
// dropped connection), a failed resync, or ctx's error.
//
// Problems inside the stream are reported to the watch error handler as
// they happen: an object of the wrong type (skipped), a store that refused
// an event, and a dropped connection (which then ends the watch like a
// clean end: client-go's StreamWatcher closes silently on it).
func (r *Reflector) watchHandler(ctx context.Context, w listwatch.Watch, resyncErr <-chan error) (events int, err error) {
	defer w.Stop()
	for {
		var ev listwatch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return events, ctx.Err()
		case err := <-resyncErr:
			return events, err
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return events, nil
		}
		if ev.Type == api.Error {
			if isDroppedConnection(ev.Err) {
				r.watchErrorHandler(r, fmt.Errorf("%s: watch: %w", r.name, ev.Err))
			}
			return events, fmt.Errorf("watch: %w", ev.Err)
		}
		if err := r.checkType(ev.Object); err != nil {
			r.skip(err)
			continue
		}
		if !r.apply(ev) {
			continue
		}
		rv := ev.Object.GetResourceVersion()
		r.setLastSyncResourceVersion(rv)
		if u, ok := r.store.(ResourceVersionUpdater); ok {
			u.UpdateResourceVersion(rv)
		}
		events++
	}
}

// apply hands one event to the store; false if the event's type is
// unknown (skipped). A store that refuses an event is reported, and the
// version moves on all the same.
func (r *Reflector) apply(ev listwatch.Event) bool {
	if ev.Type == api.Bookmark {
		// Nothing changed; the version moves on, and a store that wants
		// the bookmark gets it.
		rv := ev.Object.GetResourceVersion()
		if r.tracer.On() {
			r.tracer.Event("bookmark", append([]slog.Attr{trace.RV(rv)}, r.inspect(rv)...)...)
		}
		if b, ok := r.store.(ReflectorBookmarkStore); ok {
			if err := b.Bookmark(rv); err != nil {
				r.storeFailed(ev, fmt.Errorf("%s: handing bookmark %s to the store: %w", r.name, rv, err))
			}
		}
		return true
	}
	if ev.Type != api.Added && ev.Type != api.Modified && ev.Type != api.Deleted {
		r.skip(fmt.Errorf("%s: unknown watch event type %q", r.name, ev.Type))
		return false
	}
	if r.tracer.On() { // before the store: the event goes on to the DeltaFIFO
		rv := ev.Object.GetResourceVersion()
		r.tracer.Event("watch event", append([]slog.Attr{trace.Type(string(ev.Type)), trace.Key(keyOf(ev.Object)), trace.RV(rv)}, r.inspect(rv)...)...)
	}
	var err error
	switch ev.Type {
	case api.Added:
		err = r.store.Add(ev.Object)
	case api.Modified:
		err = r.store.Update(ev.Object)
	case api.Deleted:
		err = r.store.Delete(ev.Object)
	}
	if err != nil {
		r.storeFailed(ev, fmt.Errorf("%s: applying %s %s to the store: %w", r.name, ev.Type, keyOf(ev.Object), err))
	}
	return true
}

// storeFailed reports a store that refused ev.
func (r *Reflector) storeFailed(ev listwatch.Event, err error) {
	if r.tracer.On() {
		r.tracer.Warn("store failed", trace.Type(string(ev.Type)), trace.Key(keyOf(ev.Object)), trace.Err(err))
	}
	r.watchErrorHandler(r, err)
}

// skip reports an event the reflector cannot apply, and goes on.
func (r *Reflector) skip(err error) {
	if r.tracer.On() {
		r.tracer.Warn("watch event skipped", trace.Err(err))
	}
	r.watchErrorHandler(r, err)
}

// keyOf is an object's key, "namespace/name" (or "name").
func keyOf(o api.Object) string {
	if ns := o.GetNamespace(); ns != "" {
		return ns + "/" + o.GetName()
	}
	return o.GetName()
}

// isDroppedConnection reports whether a watch's error means only that the
// connection went away mid-stream (cut, or reset by a proxy or load
// balancer): nothing the server said, so the next watch can resume from the
// last version. client-go's StreamWatcher closes its channel silently on
// these (net.IsProbableEOF).
func isDroppedConnection(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}
