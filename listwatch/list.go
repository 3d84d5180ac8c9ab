package listwatch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/kinformer/kinformer/trace"
)

// List: one GET of a collection, one page of it.
//
//	GET /api/v1/namespaces/default/pods?limit=500&resourceVersion=0
//	{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"770715","continue":"..."},"items":[...]}
//
// The list's metadata.resourceVersion is the point a watch continues from
// (article 004's curl session, and the first half of ListAndWatch); a
// non-empty metadata.continue fetches the next page of the same snapshot.

// listObjects lists one page of r in namespace ("" = every namespace) and
// decodes its items into objects made by r.New.
func (c *Client) listObjects(ctx context.Context, r Resource, namespace string, opts ListOptions) (*ObjectList, error) {
	if r.New == nil {
		return nil, errNoNew(r)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.do(ctx, &request{verb: "list", method: http.MethodGet, resource: r, namespace: namespace, query: opts.query(false)})
	if err != nil {
		if c.tracer.On() {
			c.tracer.Warn("list failed", trace.Resource(r.GroupResource()), trace.RV(opts.ResourceVersion), trace.Err(err))
		}
		return nil, err
	}
	defer resp.Body.Close()
	list, err := c.decoder.forRequest(ctx).list(resp.Body, r) // decode.go
	if err != nil {
		return nil, fmt.Errorf("list %s: decoding the response: %w", r.GroupResource(), err)
	}
	if c.tracer.On() {
		c.tracer.Event("list", trace.Resource(r.GroupResource()), slog.String("asked", opts.ResourceVersion),
			trace.RV(list.ResourceVersion), trace.Count(len(list.Items)), slog.Bool("more", list.Continue != ""))
	}
	return list, nil
}
