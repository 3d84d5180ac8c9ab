package listwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kinformer/kinformer/trace"
	"io"
	"log/slog"
	"net/http"
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
	list, err := decodeObjectList(resp.Body, r, c.workers)
	if err != nil {
		return nil, fmt.Errorf("list %s: decoding the response: %w", r.GroupResource(), err)
	}
	if c.tracer.On() {
		c.tracer.Event("list", trace.Resource(r.GroupResource()), slog.String("asked", opts.ResourceVersion),
			trace.RV(list.ResourceVersion), trace.Count(len(list.Items)), slog.Bool("more", list.Continue != ""))
	}
	return list, nil
}

// decodeObjectList decodes a list response as it streams in: the metadata,
// then each item straight into an object from r.New (no intermediate
// copy of the items' JSON, so a list of many thousands of objects costs
// one pass over its bytes). With workers > 1, the items after the first
// parallelListAfter are decoded on up to that many goroutines, and still
// come out in order (parallelItems, in parallel_decode.go).
func decodeObjectList(body io.Reader, r Resource, workers int) (*ObjectList, error) {
	var par *parallelItems // nil: every item decoded here, one after the other
	if workers > 1 {
		par = newParallelItems(body, workers)
		body = par.rec
	}
	dec := json.NewDecoder(body)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	list := &ObjectList{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case "metadata":
			err = dec.Decode(&list.ListMeta)
		case "items":
			err = decodeItems(dec, r, list, par)
		default: // kind, apiVersion
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("field %v: %w", tok, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	return list, nil
}

// decodeItems decodes the items array (or null) into list.Items.
func decodeItems(dec *json.Decoder, r Resource, list *ObjectList, par *parallelItems) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("want an array, got %v", tok)
	}
	for dec.More() {
		if par != nil && len(list.Items) == parallelListAfter {
			return par.decodeRest(dec, r, list) // the rest, ']' included
		}
		obj := r.New()
		if err := dec.Decode(obj); err != nil {
			return fmt.Errorf("item %d: %w", len(list.Items), err)
		}
		r.decoded(obj)
		list.Items = append(list.Items, obj)
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("want %v, got %v", want, tok)
	}
	return nil
}
