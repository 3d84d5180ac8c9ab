package listwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/kinformer/kinformer/api"
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

// decodeObjectList decodes a list response as it streams in. A
// valueCutter (list_cutter.go) walks the list object's fields and cuts each
// item out of the body; each item is then decoded on its own, straight into
// an object from r.New (no intermediate copy of the whole list, so a list
// of many thousands of objects costs one pass over its bytes to cut, and
// one decode per item, onepass.Unmarshal). With workers > 1, the items after the
// first parallelListAfter are decoded on up to that many goroutines, and
// still come out in order (parallelItems, in parallel_decode.go).
func decodeObjectList(body io.Reader, r Resource, workers int) (*ObjectList, error) {
	c := newValueCutter(body)
	if _, err := c.expect("{"); err != nil {
		return nil, fmt.Errorf("the list: %w", err)
	}
	list := &ObjectList{}
	seenItems := false
	if b, err := c.peek(); err == nil && b == '}' {
		c.start++
		return list, nil
	}
	for {
		raw, err := c.next()
		if err != nil {
			return nil, fmt.Errorf("a field name: %w", err)
		}
		var field string
		if err := json.Unmarshal(raw, &field); err != nil {
			return nil, fmt.Errorf("a field name (%s): %w", snippet(raw), err)
		}
		if _, err := c.expect(":"); err != nil {
			return nil, fmt.Errorf("after field name %q: %w", field, err)
		}
		switch strings.ToLower(field) { // encoding/json matches field names without case
		case "metadata":
			err = decodeValue(c, &list.ListMeta)
		case "items":
			if seenItems {
				return nil, errDuplicateItems
			}
			seenItems = true
			err = decodeItems(c, r, list, workers)
		default: // kind, apiVersion: checked, not kept
			err = decodeValue(c, new(json.RawMessage))
		}
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", field, err)
		}
		if b, err := c.expect(",}"); err != nil {
			return nil, fmt.Errorf("after field %s: %w", field, err)
		} else if b == '}' {
			return list, nil
		}
	}
}

// errDuplicateItems: a list with two "items" fields. encoding/json would
// decode the second into the objects of the first; no server sends one.
var errDuplicateItems = errors.New(`the list has two "items" fields`)

// decodeValue cuts the next value and decodes it into v.
func decodeValue(c *valueCutter, v any) error {
	raw, err := c.next()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// decodeItems decodes the items array (or null) into list.Items, each
// item as soon as it is cut: here for the first parallelListAfter items
// (and all of them with one worker), then on the workers.
func decodeItems(c *valueCutter, r Resource, list *ObjectList, workers int) error {
	if b, err := c.peek(); err == nil && b == 'n' {
		return decodeValue(c, new(struct{})) // null: no items (anything else is an error)
	}
	if _, err := c.expect("["); err != nil {
		return fmt.Errorf("the items: %w", err)
	}
	if b, err := c.peek(); err == nil && b == ']' {
		c.start++
		return nil
	}
	var wd workerDecoder // the loop's own room
	var par *parallelItems
	for i := 0; ; i++ {
		if par == nil && workers > 1 && i == parallelListAfter {
			par = newParallelItems(r, list, workers)
			defer par.stop()
		}
		raw, err := c.next()
		if err != nil {
			return par.firstError(fmt.Errorf("item %d: %w", i, err))
		}
		if par != nil {
			err = par.add(i, raw) // fails with the error of an item before i
		} else {
			err = decodeItemInto(list, &wd, raw, r, i)
		}
		if err != nil {
			return err
		}
		b, err := c.expect(",]")
		if err != nil {
			return par.firstError(fmt.Errorf("after item %d: %w", i, err))
		}
		if b == ']' {
			return par.finish()
		}
	}
}

// decodeItemInto decodes item i and appends it to list.
func decodeItemInto(list *ObjectList, wd *workerDecoder, raw []byte, r Resource, i int) error {
	obj, err := decodeItem(wd, raw, r)
	if err != nil {
		return fmt.Errorf("item %d: %w", i, err)
	}
	list.Items = append(list.Items, obj)
	return nil
}

// decodeItem decodes one item, cut by the valueCutter, into a new object of
// r, and finishes it (Resource.decoded). It succeeds exactly when
// json.Unmarshal would, and fails with json.Unmarshal's error.
func decodeItem(wd *workerDecoder, raw []byte, r Resource) (api.Object, error) {
	obj := r.New()
	if err := decodeOneValue(wd, raw, obj); err != nil {
		// Decode again, into a fresh object, with json.Unmarshal: its
		// error is the one to report. (Were it to succeed where onepass
		// failed, which FuzzUnmarshal has never found, its object is
		// used: the item is not lost.)
		obj = r.New()
		if err := json.Unmarshal(raw, obj); err != nil {
			return nil, err
		}
	}
	r.decoded(obj)
	return obj, nil
}
