package soak

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
)

// checker is an event handler that keeps what it was told about every
// object, and notes every notification that goes back in time: an add or
// update whose resourceVersion is not above the last one it saw for the
// key, or a delete whose version is below it. (A resourceVersion is one
// global counter, so a recreated object also comes with a higher one.)
type checker struct {
	mu         sync.Mutex
	last       map[string]uint64 // key -> last resourceVersion told
	deleted    map[string]bool   // key -> the last word was a delete
	violations []string
	events     int
	tombstones int
}

func newChecker() *checker {
	return &checker{last: map[string]uint64{}, deleted: map[string]bool{}}
}

func (c *checker) OnAdd(obj any, _ bool)  { c.told(obj, false) }
func (c *checker) OnUpdate(_, newObj any) { c.told(newObj, false) }
func (c *checker) OnDelete(obj any)       { c.told(obj, true) }
func (c *checker) fail(format string, a ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, a...))
}

func (c *checker) told(obj any, isDelete bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events++
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		c.tombstones++
		c.deleted[tomb.Key] = true // its object is the last state the cache knew: no newer version
		return
	}
	o, ok := obj.(api.Object)
	if !ok {
		c.fail("a notification with a %T", obj)
		return
	}
	key := o.GetNamespace() + "/" + o.GetName()
	rv, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	if err != nil {
		c.fail("%s: resourceVersion %q", key, o.GetResourceVersion())
		return
	}
	last := c.last[key]
	switch {
	case isDelete && rv < last:
		c.fail("%s: delete at rv %d after rv %d", key, rv, last)
	case !isDelete && rv <= last:
		c.fail("%s: rv %d after rv %d", key, rv, last)
	}
	c.last[key] = max(rv, last)
	c.deleted[key] = isDelete
}

// view is what the handler believes exists: key -> resourceVersion of the
// last add or update, for every key whose last word was not a delete.
func (c *checker) view() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := map[string]string{}
	for k, rv := range c.last {
		if !c.deleted[k] {
			v[k] = strconv.FormatUint(rv, 10)
		}
	}
	return v
}

func (c *checker) report() (violations []string, events, tombstones int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.violations...), c.events, c.tombstones
}
