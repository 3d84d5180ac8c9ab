package indexer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// KeyFunc computes the key an object is stored under. It takes any, not
// api.Object, so that one function type also keys the delta queue's
// tombstones and ExplicitKeys.
type KeyFunc func(obj any) (string, error)

// ExplicitKey is a key passed where an object is expected: MetaNamespaceKeyFunc
// returns it unchanged.
type ExplicitKey string

// MetaNamespaceKeyFunc is the default KeyFunc: "namespace/name" for a
// namespaced object, "name" for a cluster-scoped one. An ExplicitKey is
// returned as it is. Anything else, a nil object, or an object without a name
// is an error.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	switch o := obj.(type) {
	case ExplicitKey:
		return string(o), nil
	case api.Object:
		if api.IsNil(o) {
			return "", errors.New("cannot compute the key of a nil object")
		}
		name := o.GetName()
		if name == "" {
			return "", fmt.Errorf("cannot compute the key of a %T without a name", o)
		}
		if ns := o.GetNamespace(); ns != "" {
			return ns + "/" + name, nil
		}
		return name, nil
	case nil:
		return "", errors.New("cannot compute the key of a nil object")
	default:
		return "", fmt.Errorf("cannot compute the key of a %T: it has no object metadata", obj)
	}
}

// SplitMetaNamespaceKey splits a key made by MetaNamespaceKeyFunc into its
// namespace ("" for a cluster-scoped object) and name.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	namespace, name, namespaced := strings.Cut(key, "/")
	if !namespaced {
		return "", key, nil
	}
	if strings.Contains(name, "/") {
		return "", "", fmt.Errorf("unexpected key format: %q (want \"name\" or \"namespace/name\")", key)
	}
	return namespace, name, nil
}

// Store is a keyed collection of objects, safe for concurrent use. The
// informer's cache is one (an Indexer); the Reflector writes to one (the
// delta queue, which has the same methods) through Add, Update, Delete,
// Replace and Resync.
//
// Objects returned by Get, GetByKey and List are the stored objects
// themselves: do not mutate them (see the package doc).
type Store interface {
	// Add stores obj under its key, replacing any object already there.
	Add(obj api.Object) error
	// Update stores obj under its key; on a Store it is the same as Add.
	Update(obj api.Object) error
	// Delete removes the object stored under obj's key, if any.
	Delete(obj api.Object) error
	// List returns every stored object, in no particular order.
	List() []api.Object
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Get returns the object stored under obj's key.
	Get(obj api.Object) (item api.Object, exists bool, err error)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (item api.Object, exists bool, err error)
	// Replace makes list the whole content of the store, atomically, and
	// records resourceVersion, the list's version, as the store's
	// (LastStoreSyncResourceVersion).
	Replace(list []api.Object, resourceVersion string) error
	// Resync does nothing on a Store. It exists because the delta queue,
	// which shares this interface with the Reflector, gives it a meaning.
	Resync() error
	// LastStoreSyncResourceVersion is the resourceVersion of the store's
	// last write: the object's of an Add, Update or Delete, the list's of
	// a Replace, the last object's of a Transaction, or the one Bookmark
	// was given; "" before any. See "The store's resourceVersion" in the
	// package doc for when it means "the server version the cache has
	// reached" (client-go 1.36, KEP-5647).
	LastStoreSyncResourceVersion() string
	// Bookmark records resourceVersion as the store's without changing
	// its content: the server said nothing changed up to that version.
	Bookmark(resourceVersion string)
}

// cache implements Store and Indexer: a KeyFunc in front of a threadSafeMap.
type cache struct {
	keyFunc KeyFunc
	storage *threadSafeMap
}

var _ Indexer = (*cache)(nil)

// NewStore returns an empty Store without indices that keys objects with
// keyFunc (MetaNamespaceKeyFunc if nil).
func NewStore(keyFunc KeyFunc) Store {
	return NewIndexer(keyFunc, nil)
}

// NewIndexer returns an empty Indexer that keys objects with keyFunc
// (MetaNamespaceKeyFunc if nil) and maintains one index per entry of
// indexers.
func NewIndexer(keyFunc KeyFunc, indexers Indexers) Indexer {
	if keyFunc == nil {
		keyFunc = MetaNamespaceKeyFunc
	}
	return &cache{keyFunc: keyFunc, storage: newThreadSafeMap(indexers)}
}

func (c *cache) keyOf(obj api.Object) (string, error) {
	if api.IsNil(obj) {
		return "", errors.New("indexer: nil object")
	}
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", fmt.Errorf("indexer: %w", err)
	}
	return key, nil
}

func (c *cache) Add(obj api.Object) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	return c.storage.Update(key, obj)
}

func (c *cache) Update(obj api.Object) error {
	return c.Add(obj)
}

func (c *cache) Delete(obj api.Object) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.storage.Delete(key, obj.GetResourceVersion())
	return nil
}

func (c *cache) List() []api.Object { return c.storage.List() }

func (c *cache) ListKeys() []string { return c.storage.ListKeys() }

func (c *cache) Get(obj api.Object) (api.Object, bool, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return c.GetByKey(key)
}

func (c *cache) GetByKey(key string) (api.Object, bool, error) {
	item, exists := c.storage.Get(key)
	return item, exists, nil
}

func (c *cache) Replace(list []api.Object, resourceVersion string) error {
	items := make(map[string]api.Object, len(list))
	for i, obj := range list {
		key, err := c.keyOf(obj)
		if err != nil {
			return fmt.Errorf("replace: item %d: %w", i, err)
		}
		items[key] = obj
	}
	return c.storage.Replace(items, resourceVersion)
}

func (c *cache) Resync() error { return nil }

func (c *cache) LastStoreSyncResourceVersion() string {
	return c.storage.LastStoreSyncResourceVersion()
}

func (c *cache) Bookmark(resourceVersion string) { c.storage.Bookmark(resourceVersion) }

func (c *cache) Index(indexName string, obj api.Object) ([]api.Object, error) {
	if api.IsNil(obj) {
		return nil, errors.New("indexer: nil object")
	}
	return c.storage.Index(indexName, obj)
}

func (c *cache) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return c.storage.IndexKeys(indexName, indexedValue)
}

func (c *cache) ListIndexFuncValues(indexName string) []string {
	return c.storage.ListIndexFuncValues(indexName)
}

func (c *cache) ByIndex(indexName, indexedValue string) ([]api.Object, error) {
	return c.storage.ByIndex(indexName, indexedValue)
}

func (c *cache) GetIndexers() Indexers { return c.storage.GetIndexers() }

func (c *cache) AddIndexers(newIndexers Indexers) error {
	return c.storage.AddIndexers(newIndexers)
}
