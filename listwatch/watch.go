package listwatch

import (
	"context"
	"fmt"
	"github.com/kinformer/kinformer/trace"
	"net/http"
	"time"
)

// Watch: one GET with watch=true that does not end. The server answers 200
// at once and then writes one JSON frame per change, as HTTP/1.1 chunks
// (or HTTP/2 data frames):
//
//	GET /api/v1/namespaces/default/pods?watch=true&resourceVersion=770715
//	{"type":"ADDED","object":{"kind":"Pod",...}}
//	{"type":"MODIFIED","object":{"kind":"Pod",...}}
//
// Article 004's raw watcher reads this with json.NewDecoder(resp.Body) in
// a loop. Here a streamWatcher does the same in a goroutine, with the
// framing, limits and endings a long-running client needs (see
// stream_watcher.go, watch_decoder.go, and the loop itself,
// decodeWatchPlain in decode.go).

// watch opens a watch of r in namespace ("" = every namespace).
//
// Config.Timeout bounds only the wait for the response headers; once the
// stream is open it lasts until the server ends it, Stop, or ctx ends.
func (c *Client) watch(ctx context.Context, r Resource, namespace string, opts ListOptions) (Watch, error) {
	if r.New == nil {
		return nil, errNoNew(r)
	}
	ctx, cancel := context.WithCancel(ctx)
	var headerTimer *time.Timer
	if c.timeout > 0 {
		headerTimer = time.AfterFunc(c.timeout, cancel)
	}
	resp, err := c.do(ctx, &request{verb: "watch", method: http.MethodGet, resource: r, namespace: namespace, query: opts.query(true)})
	if headerTimer != nil && !headerTimer.Stop() {
		if err == nil {
			resp.Body.Close()
		}
		err = fmt.Errorf("watch %s: no response headers within %s: %w", r.GroupResource(), c.timeout, context.DeadlineExceeded)
	}
	if err != nil {
		cancel()
		if c.tracer.On() {
			c.tracer.Warn("watch failed", trace.Resource(r.GroupResource()), trace.RV(opts.ResourceVersion), trace.Err(err))
		}
		return nil, err
	}
	if c.tracer.On() {
		c.tracer.Event("watch opened", trace.Resource(r.GroupResource()), trace.RV(opts.ResourceVersion))
	}
	return newStreamWatcher(ctx, cancel, resp.Body, newWatchDecoder(resp.Body, r, c.maxFrame), c.decoder.forRequest(ctx), c.tracer), nil
}
