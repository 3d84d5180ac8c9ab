package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
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
	var resyncDone sync.WaitGroup
	defer resyncDone.Wait() // after cancel (defers run last first)
	defer cancel()
	resyncErr := make(chan error, 1)
	if r.opts.ResyncPeriod > 0 {
		resyncDone.Go(func() { r.resyncLoop(ctx, resyncErr) })
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
//     or whose connection drops mid-stream is reopened from the last
//     resourceVersion: no relist, nothing missed, because the server
//     replays every change after that version.
//   - Connection refused or 429 Too Many Requests: back off (honouring
//     Retry-After) and watch again, without relisting.
//   - 410 Expired (an ERROR event, or an HTTP 410 when opening): the server
//     no longer has the changes after our version. Return; Run relists.
//   - A watch that ends, or is cut, with no events in under a second: an
//     error (the server is likely refusing us); return so Run backs off and
//     relists.
func (r *Reflector) watch(ctx context.Context, w listwatch.Watch, resyncErr <-chan error) error {
	for {
		if ctx.Err() != nil {
			if w != nil {
				w.Stop()
			}
			return errStopped
		}
		start := r.clock.Now()
		if w == nil {
			var err error
			w, err = r.listerWatcher.Watch(ctx, listwatch.ListOptions{
				ResourceVersion:     r.LastSyncResourceVersion(),
				TimeoutSeconds:      r.watchTimeout(),
				AllowWatchBookmarks: true,
			})
			if err != nil {
				if ctx.Err() != nil {
					return errStopped
				}
				if listwatch.IsConnectionRefused(err) || listwatch.IsTooManyRequests(err) {
					if !r.backOffBeforeRewatch(ctx, err) {
						return errStopped
					}
					continue
				}
				return fmt.Errorf("%s: watch from resourceVersion %s: %w", r.name, r.LastSyncResourceVersion(), err)
			}
		}
		err := r.watchHandler(ctx, w, start, resyncErr)
		w = nil
		switch {
		case err == nil:
			continue // ended cleanly or dropped: watch again from where we are
		case errors.Is(err, errStopped):
			return err
		case listwatch.IsTooManyRequests(err):
			if !r.backOffBeforeRewatch(ctx, err) {
				return errStopped
			}
			continue
		default:
			return fmt.Errorf("%s: watch: %w", r.name, err)
		}
	}
}

// backOffBeforeRewatch reports err and waits out the backoff (or the
// server's Retry-After, if longer) before the next watch; false if ctx ended
// first.
func (r *Reflector) backOffBeforeRewatch(ctx context.Context, err error) bool {
	r.watchErrorHandler(r, fmt.Errorf("%s: watch: %w", r.name, err))
	return r.sleep(ctx, r.wait(err))
}

// watchHandler applies the events of one watch to the store (article 001
// quotes client-go's, with its expected-type check) and stops the watch
// when it returns. It returns nil if the stream ended cleanly or the
// connection dropped, the stream's error, or errStopped.
//
// A dropped connection is reported to the error handler and then treated
// as a clean end, as client-go's StreamWatcher does: the next watch resumes
// from the last version. Either way, a watch that ended with no events in
// under a second is an error (client-go's "very short watch"), so that a
// server or proxy that accepts watches and cuts them at once makes the
// reflector back off and relist instead of reconnecting in a tight loop.
func (r *Reflector) watchHandler(ctx context.Context, w listwatch.Watch, start time.Time, resyncErr <-chan error) error {
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
			if !isDroppedConnection(ev.Err) {
				return ev.Err
			}
			r.watchErrorHandler(r, fmt.Errorf("%s: watch: %w", r.name, ev.Err))
			break
		}
		if err := r.checkType(ev.Object); err != nil {
			r.watchErrorHandler(r, err)
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
			r.watchErrorHandler(r, fmt.Errorf("%s: unknown watch event type %q", r.name, ev.Type))
			continue
		}
		if err != nil {
			r.watchErrorHandler(r, fmt.Errorf("%s: applying %s %s/%s to the store: %w", r.name, ev.Type, ev.Object.GetNamespace(), ev.Object.GetName(), err))
		}
		r.setLastSyncResourceVersion(ev.Object.GetResourceVersion())
		events++
	}
	if events == 0 && r.clock.Since(start) < time.Second {
		return fmt.Errorf("very short watch: %s: unexpected watch close - watch lasted less than a second and no items received", r.name)
	}
	return nil
}

// isDroppedConnection reports whether a watch's error means only that the
// connection went away mid-stream (cut, or reset by a proxy or load
// balancer): nothing the server said, so the next watch can resume from the
// last version. client-go's StreamWatcher closes its channel silently on
// these (net.IsProbableEOF).
func isDroppedConnection(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}
