package reflector

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// list is the body of the listing phase (without UseWatchList, or after a
// streaming list fell back): it fetches the whole resource at
// relistResourceVersion and Replaces the store with it (syncWith), the
// "List" of ListAndWatch. It returns the version it asked for, so that next
// can tell a 410 or 504 at a version (relist at "") from one at "" (back
// off).
//
// A list at "" or "0" is paged (PageSize items a page, every page from the
// same snapshot, the continue token carrying it along). A list at a given
// version is not paged, so that the server can answer it from its watch
// cache (a paged list at a version must be served from etcd exactly),
// unless Options.PageSize was set or the first list came back in pages (no
// watch cache to spare), as client-go does.
func (r *Reflector) list(ctx context.Context) (rv string, err error) {
	rv = r.relistResourceVersion()
	if r.tracer.On() {
		r.tracer.Event("list", trace.RV(rv))
	}
	items, listRV, pages, err := r.pagedList(ctx, rv)
	if err != nil {
		return rv, fmt.Errorf("list at resourceVersion %q: %w", rv, err)
	}
	if r.tracer.On() {
		r.tracer.Event("listed", append([]slog.Attr{trace.RV(listRV), trace.Count(len(items)), slog.Int("pages", pages)}, r.inspect(listRV)...)...)
	}
	return rv, r.syncWith(items, listRV)
}

// syncWith replaces the store's contents with a fresh list taken at
// resourceVersion, and makes that version the last synced one (article
// 001's syncWith → Replace). From here on the next relist may ask for it
// again.
func (r *Reflector) syncWith(items []api.Object, resourceVersion string) error {
	if r.tracer.On() {
		r.tracer.Event("replace", append([]slog.Attr{trace.Count(len(items)), trace.RV(resourceVersion)}, r.inspect(resourceVersion)...)...)
	}
	if err := r.store.Replace(items, resourceVersion); err != nil {
		return fmt.Errorf("replacing the store with the list at %s: %w", resourceVersion, err)
	}
	r.setIsLastSyncResourceVersionUnavailable(false)
	r.setLastSyncResourceVersion(resourceVersion)
	return nil
}

// pagedList is client-go's pager: it follows continue tokens until the last
// page, and returns the items, the list's resourceVersion and the number of
// requests it took. Continue pages clear resourceVersion (the token carries
// it). If a token expires mid-way (the snapshot fell out of the server's
// history), it falls back to one unpaged list at the original version.
func (r *Reflector) pagedList(ctx context.Context, rv string) ([]api.Object, string, int, error) {
	opts := listwatch.ListOptions{ResourceVersion: rv}
	if rv == "" || rv == "0" || r.pageEvery || r.paginatedResult {
		opts.Limit = r.opts.PageSize
	}
	var items []api.Object
	for page := 1; ; page++ {
		l, err := r.listerWatcher.List(ctx, opts)
		if err != nil {
			if page > 1 && listwatch.IsResourceExpired(err) {
				if r.tracer.On() {
					r.tracer.Warn("continue expired", trace.RV(rv), trace.Reason("the snapshot left the server's history: one unpaged list"))
				}
				l, err = r.listerWatcher.List(ctx, listwatch.ListOptions{ResourceVersion: rv})
				if err != nil {
					return nil, "", page + 1, err
				}
				return l.Items, l.ResourceVersion, page + 1, nil
			}
			return nil, "", page, err
		}
		items = append(items, l.Items...)
		if l.Continue == "" {
			if rv == "0" && page > 1 {
				r.paginatedResult = true // the server pages even at "0": it has no watch cache for this
			}
			return items, l.ResourceVersion, page, nil
		}
		opts = listwatch.ListOptions{Limit: opts.Limit, Continue: l.Continue}
	}
}
