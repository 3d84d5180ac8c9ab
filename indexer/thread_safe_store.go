package indexer

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kinformer/kinformer/api"
)

// set is a set of keys.
type set map[string]struct{}

// index maps an index value to the keys of the objects that produced it.
// A value whose set becomes empty is deleted, so the index holds only values
// some stored object has (kubernetes#84959: without this, an index by, say,
// pod IP grows forever as pods come and go).
type index map[string]set

func (idx index) add(value, key string) {
	keys := idx[value]
	if keys == nil {
		keys = set{}
		idx[value] = keys
	}
	keys[key] = struct{}{}
}

func (idx index) remove(value, key string) {
	keys := idx[value]
	if keys == nil {
		return
	}
	delete(keys, key)
	if len(keys) == 0 {
		delete(idx, value)
	}
}

// removeEverywhere removes key from every value's set. It is the slow path,
// used only when the old object no longer says which values it had.
func (idx index) removeEverywhere(key string) {
	for value := range idx {
		idx.remove(value, key)
	}
}

// storeIndex holds the index functions and the indices they build.
type storeIndex struct {
	indexers Indexers
	// names lists the index names in sorted order, so that a write can
	// compute every new value first and apply them in a second pass.
	names   []string
	indices map[string]index
}

func newStoreIndex(indexers Indexers) storeIndex {
	s := storeIndex{indexers: maps.Clone(indexers), indices: make(map[string]index, len(indexers))}
	if s.indexers == nil {
		s.indexers = Indexers{}
	}
	for name := range s.indexers {
		s.indices[name] = index{}
	}
	s.names = slices.Sorted(maps.Keys(s.indexers))
	return s
}

// values runs the named index function on obj.
func (s *storeIndex) values(name string, obj api.Object) ([]string, error) {
	fn := s.indexers[name]
	if fn == nil {
		return nil, fmt.Errorf("index %q has a nil IndexFunc", name)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, fmt.Errorf("index %q: %w", name, err)
	}
	return values, nil
}

// updateIndices moves key from the index values of oldObj (nil when the key
// is new) to those of newObj. Every value of newObj is computed before any
// index changes, so an IndexFunc error leaves the indices untouched.
func (s *storeIndex) updateIndices(oldObj, newObj api.Object, key string) error {
	var buf [4][]string // enough for most stores without allocating
	newValues := buf[:0]
	for _, name := range s.names {
		values, err := s.values(name, newObj)
		if err != nil {
			return err
		}
		newValues = append(newValues, values)
	}
	for i, name := range s.names {
		s.moveKey(name, oldObj, newValues[i], key)
	}
	return nil
}

// moveKey updates one index. Removing the old object's values is the step a
// naive indexer forgets: without it, an object relabelled from app=a to
// app=b would still be found under app=a.
func (s *storeIndex) moveKey(name string, oldObj api.Object, newValues []string, key string) {
	idx := s.indices[name]
	var oldValues []string
	if oldObj != nil {
		var err error
		if oldValues, err = s.values(name, oldObj); err != nil {
			// It indexed fine when stored, so it was mutated in the cache
			// or the IndexFunc is not deterministic. Either way the old
			// values are unknown: drop the key wherever it is.
			idx.removeEverywhere(key)
			oldValues = nil
		}
	}
	if len(oldValues) == 1 && len(newValues) == 1 && oldValues[0] == newValues[0] {
		return // the common case: the value did not change
	}
	for _, v := range oldValues {
		idx.remove(v, key)
	}
	for _, v := range newValues {
		idx.add(v, key)
	}
}

// deleteFromIndices removes key, whose object is oldObj, from every index.
func (s *storeIndex) deleteFromIndices(oldObj api.Object, key string) {
	for _, name := range s.names {
		s.moveKey(name, oldObj, nil, key)
	}
}

// threadSafeMap is the store behind an Indexer: objects by key plus their
// indices, all guarded by one RWMutex. Index functions run under the write
// lock; reads share the read lock.
type threadSafeMap struct {
	lock  sync.RWMutex
	items map[string]api.Object
	index storeIndex
	// rv is the resourceVersion of the last write (LastStoreSyncResourceVersion).
	rv string
}

func newThreadSafeMap(indexers Indexers) *threadSafeMap {
	return &threadSafeMap{items: map[string]api.Object{}, index: newStoreIndex(indexers)}
}

// Update stores obj under key (adding it if new) and updates every index.
func (m *threadSafeMap) Update(key string, obj api.Object) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	if err := m.updateLocked(key, obj); err != nil {
		return err
	}
	m.rv = obj.GetResourceVersion()
	return nil
}

func (m *threadSafeMap) updateLocked(key string, obj api.Object) error {
	if err := m.index.updateIndices(m.items[key], obj, key); err != nil {
		return fmt.Errorf("indexer: cannot store %q: %w", key, err)
	}
	m.items[key] = obj
	return nil
}

// Delete removes key and its index entries (an absent key is not an
// error) and records rv, the deleted object's resourceVersion.
func (m *threadSafeMap) Delete(key, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.deleteLocked(key)
	m.rv = rv
}

func (m *threadSafeMap) deleteLocked(key string) {
	old, exists := m.items[key]
	if !exists {
		return
	}
	m.index.deleteFromIndices(old, key)
	delete(m.items, key)
}

func (m *threadSafeMap) Get(key string) (api.Object, bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	item, exists := m.items[key]
	return item, exists
}

func (m *threadSafeMap) List() []api.Object {
	m.lock.RLock()
	defer m.lock.RUnlock()
	list := make([]api.Object, 0, len(m.items))
	for _, item := range m.items {
		list = append(list, item)
	}
	return list
}

func (m *threadSafeMap) ListKeys() []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	keys := make([]string, 0, len(m.items))
	for key := range m.items {
		keys = append(keys, key)
	}
	return keys
}

// Replace swaps in items as the whole content, rebuilds every index from
// scratch and records rv. If an IndexFunc fails on any item, nothing
// changes.
func (m *threadSafeMap) Replace(items map[string]api.Object, rv string) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	fresh := newStoreIndex(m.index.indexers)
	if len(fresh.names) > 0 { // without indices there is nothing to fill: the list is not walked
		for key, obj := range items {
			if err := fresh.updateIndices(nil, obj, key); err != nil {
				return fmt.Errorf("indexer: replace: cannot store %q: %w", key, err)
			}
		}
	}
	m.items = items
	m.index = fresh
	m.rv = rv
	return nil
}

func (m *threadSafeMap) LastStoreSyncResourceVersion() string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.rv
}

func (m *threadSafeMap) Bookmark(rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.rv = rv
}

// indexLocked returns the named index or an error saying it does not exist.
func (m *threadSafeMap) indexLocked(indexName string) (index, error) {
	idx, ok := m.index.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("indexer: index %q does not exist", indexName)
	}
	return idx, nil
}

func (m *threadSafeMap) Index(indexName string, obj api.Object) ([]api.Object, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	values, err := m.index.values(indexName, obj)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if len(values) == 1 {
		return m.objectsLocked(idx[values[0]]), nil
	}
	keys := set{}
	for _, v := range values {
		for key := range idx[v] {
			keys[key] = struct{}{}
		}
	}
	return m.objectsLocked(keys), nil
}

func (m *threadSafeMap) objectsLocked(keys set) []api.Object {
	list := make([]api.Object, 0, len(keys))
	for key := range keys {
		list = append(list, m.items[key])
	}
	return list
}

func (m *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(idx[indexedValue]))
	for key := range idx[indexedValue] {
		keys = append(keys, key)
	}
	return keys, nil
}

func (m *threadSafeMap) ByIndex(indexName, indexedValue string) ([]api.Object, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	return m.objectsLocked(idx[indexedValue]), nil
}

func (m *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	idx := m.index.indices[indexName]
	values := make([]string, 0, len(idx))
	for value := range idx {
		values = append(values, value)
	}
	return values
}

func (m *threadSafeMap) GetIndexers() Indexers {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return maps.Clone(m.index.indexers)
}

// AddIndexers installs new index functions and indexes every stored object
// with them. client-go refused this once an informer had started (back-filling
// was not written); client-go HEAD and kinformer back-fill. Nothing changes if
// a name is taken or an IndexFunc fails on a stored object.
func (m *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	for name, fn := range newIndexers {
		if _, exists := m.index.indexers[name]; exists {
			return fmt.Errorf("indexer: index %q already exists", name)
		}
		if fn == nil {
			return fmt.Errorf("indexer: index %q has a nil IndexFunc", name)
		}
	}
	built := make(map[string]index, len(newIndexers))
	for name, fn := range newIndexers {
		idx := index{}
		for key, obj := range m.items {
			values, err := fn(obj)
			if err != nil {
				return fmt.Errorf("indexer: add index %q: object %q: %w", name, key, err)
			}
			for _, v := range values {
				idx.add(v, key)
			}
		}
		built[name] = idx
	}
	for name, fn := range newIndexers {
		m.index.indexers[name] = fn
		m.index.indices[name] = built[name]
	}
	m.index.names = slices.Sorted(maps.Keys(m.index.indexers))
	return nil
}
