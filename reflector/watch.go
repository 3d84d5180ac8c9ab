package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// errStopped means the reflector's context ended.
var errStopped = errors.New("reflector stopped")

// watchWithResync runs the watch loop with a resync timer beside it. w, if
// not nil, is a watch already open (a streaming list's).
func (r *Reflector) watchWithResync(ctx context.Context, w listwatch.Watch) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resyncErr := make(chan error, 1)
	if r.opts.ResyncPeriod > 0 {
		go r.resyncLoop(ctx, resyncErr)
	}
	err := r.watch(ctx, w, resyncErr)
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// resyncLoop calls Store.Resync every ResyncPeriod (when ShouldResync says
// so). Resync replays the store's own contents, not the server's: it is how
// an informer re-delivers every object to handlers that want a periodic
// "sync" (article 003's resync section).
func (r *Reflector) resyncLoop(ctx context.Context, errc chan<- error) {
	t := r.clock.NewTimer(r.opts.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if r.opts.ShouldResync == nil || r.opts.ShouldResync() {
			if err := r.store.Resync(); err != nil {
				errc <- fmt.Errorf("%s: resync: %w", r.name, err)
				return
			}
		}
		t.Reset(r.opts.ResyncPeriod)
	}
}

// watch opens watches from the last synced resourceVersion, one after the
// other, until one fails in a way that needs a relist.
//
//   - A watch that ends cleanly (the server's timeout, a closed connection)
//     is reopened from the last resourceVersion: no relist, nothing missed,
//     because the server replays every change after that version.
//   - Connection refused or 429 Too Many Requests: back off (honouring
//     Retry-After) and watch again, without relisting.
//   - 410 Expired (an ERROR event, or an HTTP 410 when opening): the server
//     no longer has the changes after our version. Return; Run relists.
//   - A watch that ends with no events in under a second: an error (the
//     server is likely refusing us); return so Run backs off and relists.
func (r *Reflector) watch(ctx context.Context, w listwatch.Watch, resyncErr <-chan error) error {
	for {
		if ctx.Err() != nil {
			return errStopped
		}
		start := r.clock.Now()
		if w == nil {
			var err error
			w, err = r.lw.Watch(ctx, listwatch.ListOptions{
				ResourceVersion:     r.LastSyncResourceVersion(),
				TimeoutSeconds:      r.watchTimeout(),
				AllowWatchBookmarks: true,
			})
			if err != nil {
				if ctx.Err() != nil {
					return errStopped
				}
				if listwatch.IsConnectionRefused(err) || listwatch.IsTooManyRequests(err) {
					r.onError(r, fmt.Errorf("%s: watch: %w", r.name, err))
					if !r.sleep(ctx, r.wait(err)) {
						return errStopped
					}
					continue
				}
				return fmt.Errorf("%s: watch from resourceVersion %s: %w", r.name, r.LastSyncResourceVersion(), err)
			}
		}
		err := r.handleWatch(ctx, w, start, resyncErr)
		w = nil
		switch {
		case err == nil:
			continue // ended cleanly: watch again from where we are
		case errors.Is(err, errStopped):
			return err
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			// The connection dropped mid-stream: as good as a clean end.
			r.onError(r, fmt.Errorf("%s: watch: %w", r.name, err))
			continue
		case listwatch.IsTooManyRequests(err):
			r.onError(r, fmt.Errorf("%s: watch: %w", r.name, err))
			if !r.sleep(ctx, r.wait(err)) {
				return errStopped
			}
			continue
		default:
			return fmt.Errorf("%s: watch: %w", r.name, err)
		}
	}
}

// handleWatch applies the events of one watch to the store (client-go's
// watchHandler) and stops the watch when it returns. It returns nil if the
// stream ended cleanly, the stream's error, or errStopped.
func (r *Reflector) handleWatch(ctx context.Context, w listwatch.Watch, start time.Time, resyncErr <-chan error) error {
	defer w.Stop()
	events := 0
	for {
		var ev listwatch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return errStopped
		case err := <-resyncErr:
			return err
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			break
		}
		if ev.Type == api.Error {
			return ev.Err
		}
		if err := r.checkType(ev.Object); err != nil {
			r.onError(r, err)
			continue
		}
		var err error
		switch ev.Type {
		case api.Added:
			err = r.store.Add(ev.Object)
		case api.Modified:
			err = r.store.Update(ev.Object)
		case api.Deleted:
			err = r.store.Delete(ev.Object)
		case api.Bookmark:
			// Nothing changed; only the version moves on.
		default:
			r.onError(r, fmt.Errorf("%s: unknown watch event type %q", r.name, ev.Type))
			continue
		}
		if err != nil {
			r.onError(r, fmt.Errorf("%s: applying %s %s/%s to the store: %w", r.name, ev.Type, ev.Object.GetNamespace(), ev.Object.GetName(), err))
		}
		r.setLastSyncResourceVersion(ev.Object.GetResourceVersion())
		events++
	}
	if events == 0 && r.clock.Since(start) < time.Second {
		return fmt.Errorf("very short watch: %s: unexpected watch close - watch lasted less than a second and no items received", r.name)
	}
	return nil
}
