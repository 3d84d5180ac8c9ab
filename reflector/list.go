package reflector

import (
	"context"
	"fmt"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch"
)

// list fetches the whole resource and Replaces the store with it
// (syncWith): the "List" of ListAndWatch.
//
// A list at "" or "0" is paged (PageSize items a page, every page from the
// same snapshot, the continue token carrying it along). A list at a given
// version is not paged: the server can answer it from its watch cache,
// while a paged list at a version must be served from etcd exactly.
//
// If the server no longer has the version asked for (410 Expired) or has not
// reached it yet (504 too-large, say after talking to a newer server), the
// reflector marks that version unavailable and lists the most recent state
// at once.
func (r *Reflector) list(ctx context.Context) error {
	rv := r.relistResourceVersion()
	items, listRV, err := r.pagedList(ctx, rv)
	if err != nil && (listwatch.IsResourceExpired(err) || listwatch.IsTooLargeResourceVersion(err)) {
		r.setIsLastSyncResourceVersionUnavailable(true)
		rv = r.relistResourceVersion()
		items, listRV, err = r.pagedList(ctx, rv)
	}
	if err != nil {
		return fmt.Errorf("%s: list at resourceVersion %q: %w", r.name, rv, err)
	}
	return r.syncWith(items, listRV)
}

// syncWith replaces the store's contents with a fresh list taken at
// resourceVersion, and makes that version the last synced one (article
// 001's syncWith → Replace). From here on the next relist may ask for it
// again.
func (r *Reflector) syncWith(items []api.Object, resourceVersion string) error {
	if err := r.store.Replace(items, resourceVersion); err != nil {
		return fmt.Errorf("%s: replacing the store with the list at %s: %w", r.name, resourceVersion, err)
	}
	r.setIsLastSyncResourceVersionUnavailable(false)
	r.setLastSyncResourceVersion(resourceVersion)
	return nil
}

// pagedList is client-go's pager: it follows continue tokens until the last
// page. Continue pages clear resourceVersion (the token carries it). If a
// token expires mid-way (the snapshot fell out of the server's history), it
// falls back to one unpaged list at the original version.
func (r *Reflector) pagedList(ctx context.Context, rv string) ([]api.Object, string, error) {
	opts := listwatch.ListOptions{ResourceVersion: rv}
	if rv == "" || rv == "0" {
		opts.Limit = r.opts.PageSize
	}
	var items []api.Object
	for page := 0; ; page++ {
		l, err := r.listerWatcher.List(ctx, opts)
		if err != nil {
			if page > 0 && listwatch.IsResourceExpired(err) {
				l, err = r.listerWatcher.List(ctx, listwatch.ListOptions{ResourceVersion: rv})
				if err != nil {
					return nil, "", err
				}
				return l.Items, l.ResourceVersion, nil
			}
			return nil, "", err
		}
		items = append(items, l.Items...)
		if l.Continue == "" {
			return items, l.ResourceVersion, nil
		}
		opts = listwatch.ListOptions{Limit: opts.Limit, Continue: l.Continue}
	}
}
