package fastdecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The fast list: the body decoded as it streams in. A valueCutter
// (cutter.go) walks the list object's fields and cuts each item out of the
// body; each item is then decoded on its own, straight into a new object
// (no intermediate copy of the whole list, so a list of many thousands of
// objects costs one pass over its bytes to cut, and one decode per item).
// The first ParallelListAfter items are decoded by the reading goroutine;
// with more than one worker, the rest on up to that many goroutines, a
// batch at a time, and still in order (parallelItems): the same
// guarantees, for the same reasons, as a watch's (watch.go).

// Item decodes one list item, cut by the valueCutter, with d, and returns
// what the plain decode returns for it: the same object (compacted), or
// the same error. Workers call it concurrently, each with its own d.
type Item func(d *Decoder, raw []byte) (api.Object, error)

// ErrDuplicateItems: a list with two "items" fields. encoding/json would
// decode the second into the objects of the first; no server sends one.
var ErrDuplicateItems = errors.New(`the list has two "items" fields`)

// List decodes a list response body: its metadata and its items, each by
// item, in order, on up to workers goroutines.
func List(body io.Reader, workers int, item Item) (api.ListMeta, []api.Object, error) {
	var meta api.ListMeta
	var items []api.Object
	c := newValueCutter(body)
	if _, err := c.expect("{"); err != nil {
		return meta, nil, fmt.Errorf("the list: %w", err)
	}
	seenItems := false
	if b, err := c.peek(); err == nil && b == '}' {
		c.start++
		return meta, nil, nil
	}
	for {
		raw, err := c.next()
		if err != nil {
			return meta, nil, fmt.Errorf("a field name: %w", err)
		}
		var field string
		if err := json.Unmarshal(raw, &field); err != nil {
			return meta, nil, fmt.Errorf("a field name (%s): %w", snippet(raw), err)
		}
		if _, err := c.expect(":"); err != nil {
			return meta, nil, fmt.Errorf("after field name %q: %w", field, err)
		}
		switch strings.ToLower(field) { // encoding/json matches field names without case
		case "metadata":
			err = decodeValue(c, &meta)
		case "items":
			if seenItems {
				return meta, nil, ErrDuplicateItems
			}
			seenItems = true
			err = decodeItems(c, item, &items, workers)
		default: // kind, apiVersion: checked, not kept
			err = decodeValue(c, new(json.RawMessage))
		}
		if err != nil {
			return meta, nil, fmt.Errorf("field %s: %w", field, err)
		}
		if b, err := c.expect(",}"); err != nil {
			return meta, nil, fmt.Errorf("after field %s: %w", field, err)
		} else if b == '}' {
			return meta, items, nil
		}
	}
}

// decodeValue cuts the next value and decodes it into v.
func decodeValue(c *valueCutter, v any) error {
	raw, err := c.next()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// decodeItems decodes the items array (or null) into items, each item as
// soon as it is cut: here for the first ParallelListAfter items (and all
// of them with one worker), then on the workers.
func decodeItems(c *valueCutter, item Item, items *[]api.Object, workers int) error {
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
	var d Decoder // the reading goroutine's own room
	var par *parallelItems
	for i := 0; ; i++ {
		if par == nil && workers > 1 && i == ParallelListAfter {
			par = newParallelItems(item, items, workers)
			defer par.stop()
		}
		raw, err := c.next()
		if err != nil {
			return par.firstError(fmt.Errorf("item %d: %w", i, err))
		}
		if par != nil {
			err = par.add(i, raw) // fails with the error of an item before i
		} else {
			var obj api.Object
			if obj, err = item(&d, raw); err == nil {
				*items = append(*items, obj)
			} else {
				err = fmt.Errorf("item %d: %w", i, err)
			}
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

// itemBatch is a run of consecutive list items handed to one worker as one
// job, and its result slot (as frameBatch is for a watch). Items are
// small next to the cost of handing work from one goroutine to another
// (waking a worker, waking the cutter when the result is ready), so a list
// hands them over a batch at a time: one hand-off per batch instead of per
// item. The batch's bytes are one recycled buffer; ends[k] is where item
// k's bytes end in it.
type itemBatch struct {
	buffers batchBuffers // where raw goes back once decoded
	first   int          // the list index of the batch's first item
	raw     *[]byte      // the items' bytes, one after the other
	ends    []int
	objs    []api.Object
	err     error         // the first item that failed, as the loop says it
	ready   chan struct{} // closed once objs or err is set
}

// decode decodes the batch's items in order, stopping at the first that
// fails, then releases its bytes and marks it ready.
func (b *itemBatch) decode(d *Decoder, item Item) {
	start := 0
	for k, end := range b.ends {
		obj, err := item(d, (*b.raw)[start:end])
		if err != nil {
			b.err = fmt.Errorf("item %d: %w", b.first+k, err)
			break
		}
		b.objs = append(b.objs, obj)
		start = end
	}
	b.buffers.put(b.raw)
	close(b.ready)
}

// parallelItems decodes the items of one list on several goroutines. The
// goroutine that cuts the items (decodeItems) adds each one, in order;
// they are gathered into batches, and workers decode the batches; the
// results are appended to items in that same order, each batch waited
// for. An item's decoding error is returned once every item before it is
// in the list, so the first error by position wins, as in the loop.
type parallelItems struct {
	pool    *decodePool
	buffers batchBuffers
	item    Item
	items   *[]api.Object
	next    *itemBatch   // being filled
	queue   []*itemBatch // handed to workers, not yet in items, in order
	limit   int          // most batches in flight
}

func newParallelItems(item Item, items *[]api.Object, workers int) *parallelItems {
	return &parallelItems{pool: newDecodePool(workers), buffers: newBatchBuffers(workers), item: item, items: items,
		limit: batchesPerWorker * workers}
}

// add copies item i (raw, valid until add returns) into the batch being
// filled, and hands the batch to a worker once it is full. It returns the
// error of an item before i, if one failed.
func (par *parallelItems) add(i int, raw []byte) error {
	if par.next == nil {
		par.next = &itemBatch{buffers: par.buffers, first: i, raw: par.buffers.get(), ready: make(chan struct{})}
	}
	b := par.next
	*b.raw = append(*b.raw, raw...)
	b.ends = append(b.ends, len(*b.raw))
	if len(b.ends) == batchItems || len(*b.raw) >= batchBytes {
		return par.send()
	}
	return nil
}

// send hands the batch being filled to a worker, first appending the
// oldest batch's results if as many batches as allowed are in flight.
func (par *parallelItems) send() error {
	b, item := par.next, par.item
	par.next = nil
	if len(par.queue) == par.limit {
		if err := par.take(); err != nil {
			par.buffers.put(b.raw)
			return err
		}
	}
	par.pool.submit(func(d *Decoder) { b.decode(d, item) }, nil)
	par.queue = append(par.queue, b)
	return nil
}

// take appends the oldest batch's objects, waiting for them.
func (par *parallelItems) take() error {
	b := par.queue[0]
	par.queue = par.queue[1:]
	<-b.ready
	if b.err != nil {
		return b.err
	}
	*par.items = append(*par.items, b.objs...)
	return nil
}

// firstError returns the error of an item cut before the cutter's own
// err, if one failed, else err: the first error by position wins. A nil
// par (no workers started) has no items in flight.
func (par *parallelItems) firstError(err error) error {
	if par == nil {
		return err
	}
	if perr := par.finish(); perr != nil {
		return perr
	}
	return err
}

// finish hands over the last, partly filled batch, appends every result
// still in flight, in order, and returns the first error among them.
func (par *parallelItems) finish() error {
	if par == nil {
		return nil
	}
	if par.next != nil {
		if err := par.send(); err != nil {
			return err
		}
	}
	for len(par.queue) > 0 {
		if err := par.take(); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the workers once their current items are decoded.
func (par *parallelItems) stop() { par.pool.stop() }

// snippet quotes the start of a value for an error message.
func snippet(b []byte) string {
	const n = 64
	if len(b) > n {
		return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
	}
	return fmt.Sprintf("%q", b)
}
