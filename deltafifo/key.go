package deltafifo

import (
	"reflect"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
)

// qkey is a key as the queues hold it internally: the "namespace/name" key
// string split at its first slash, or {"", key} when there is none. The
// split is what lets a queue key an object without allocating: with the
// default key function the two halves are the object's own Namespace and
// Name strings, shared, where the key string ns+"/"+name would be a new
// allocation on every Add (half of what an Add used to allocate).
//
// Everything outside the queue still sees string keys (KeyOf, ListKeys,
// GetByKey, tombstones); String and parseKey convert, and are inverses:
// parseKey(k.String()) == k for every k parseKey returns.
type qkey struct{ ns, name string }

// parseKey splits a key string into its qkey. A slash at index 0 is not a
// separator ("/x" has no namespace), so that String gives the key back.
func parseKey(key string) qkey {
	if i := strings.IndexByte(key, '/'); i > 0 {
		return qkey{ns: key[:i], name: key[i+1:]}
	}
	return qkey{name: key}
}

// String is the key string: "namespace/name", or "name".
func (k qkey) String() string {
	if k.ns == "" {
		return k.name
	}
	return k.ns + "/" + k.name
}

// keyer keys objects for a queue.
type keyer struct {
	keyFunc indexer.KeyFunc
	// metaNamespace: keyFunc is MetaNamespaceKeyFunc (or the
	// deletion-handling one), so an api.Object's qkey can be read off its
	// metadata instead of parsed from a freshly built string.
	metaNamespace bool
}

func newKeyer(fn indexer.KeyFunc) keyer {
	if fn == nil {
		fn = indexer.MetaNamespaceKeyFunc
	}
	p := reflect.ValueOf(fn).Pointer()
	return keyer{
		keyFunc: fn,
		metaNamespace: p == reflect.ValueOf(indexer.MetaNamespaceKeyFunc).Pointer() ||
			p == reflect.ValueOf(DeletionHandlingMetaNamespaceKeyFunc).Pointer(),
	}
}

// keyOf is the public key of obj (KeyOf).
func (k keyer) keyOf(obj any) (string, error) { return keyOf(k.keyFunc, obj) }

// qkeyOf returns parseKey(keyOf(obj)), without building the string when obj
// is an api.Object keyed by MetaNamespaceKeyFunc (the informers' case).
// The fast path is taken only when its result is what parsing would give:
// a namespace without a slash, or, cluster-scoped, a name without one
// past its first byte. Anything else (tombstones, Deltas, custom key
// functions, odd names, errors) takes the string path.
func (k keyer) qkeyOf(obj any) (qkey, error) {
	if k.metaNamespace {
		if o, ok := obj.(api.Object); ok && !api.IsNil(o) {
			ns, name := o.GetNamespace(), o.GetName()
			if name != "" && ((ns != "" && strings.IndexByte(ns, '/') < 0) || (ns == "" && strings.IndexByte(name, '/') <= 0)) {
				return qkey{ns: ns, name: name}, nil
			}
		}
	}
	s, err := k.keyOf(obj)
	if err != nil {
		return qkey{}, err
	}
	return parseKey(s), nil
}
