package indexer

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/kinformer/kinformer/api"
)

// CacheMutationDetector catches code that mutates objects it got from the
// cache, breaking the "don't mutate what the cache gives you" rule (package
// doc). It keeps a deep copy of every object handed to AddObject; later,
// CompareObjects reports every object that no longer equals its copy.
//
// client-go's detector is switched on by the environment variable
// KUBE_CACHE_MUTATION_DETECTOR=true, compares once a second in a goroutine
// and panics on the first mutation. kinformer's is a test tool that nothing
// in the library calls (no detector runs inside the informer, see package
// informer): the test calls AddObject for each object it puts into the cache
// (or that the cache hands its code), and CompareObjects when it wants an
// answer, which is deterministic and needs no goroutine. It keeps every
// object it was given, so use it only in tests.
type CacheMutationDetector struct {
	name string

	mu     sync.Mutex
	cached []cachedObject
}

type cachedObject struct {
	cached api.Object // the object the cache holds and hands out
	copied api.Object // a deep copy taken when it was added
}

// NewCacheMutationDetector returns a detector whose errors begin with name
// (typically the resource, e.g. "pods").
func NewCacheMutationDetector(name string) *CacheMutationDetector {
	return &CacheMutationDetector{name: name}
}

// AddObject records obj, the object being put into the cache, and a deep
// copy of it to compare against later. A nil object is ignored.
func (d *CacheMutationDetector) AddObject(obj api.Object) {
	if api.IsNil(obj) {
		return
	}
	copied := obj.DeepCopyObject()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cached = append(d.cached, cachedObject{cached: obj, copied: copied})
}

// CompareObjects returns nil if every recorded object still equals the copy
// taken when it was added, and otherwise an error naming each mutated object
// with a diff of its JSON (- as added, + as it is now; see mutationDiff).
func (d *CacheMutationDetector) CompareObjects() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, c := range d.cached {
		if reflect.DeepEqual(c.cached, c.copied) {
			continue
		}
		key, _ := MetaNamespaceKeyFunc(c.cached)
		diff := mutationDiff(c.copied, c.cached)
		errs = append(errs, fmt.Errorf("cached %T %q was mutated (-as added +now):\n%s", c.cached, key, diff))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: cache mutation detected: %w", d.name, errors.Join(errs...))
}
