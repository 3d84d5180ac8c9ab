package indexer

import (
	"github.com/kinformer/kinformer/api"
)

// IndexFunc computes the index values of an object: zero, one or many. An
// object is found by ByIndex under each value it returns. It runs under the
// store's write lock on every write, so it must be fast, must not call back
// into the store, and must give the same answer for the same object.
type IndexFunc func(obj api.Object) ([]string, error)

// Indexers names the index functions of an Indexer: index name → IndexFunc.
type Indexers map[string]IndexFunc

// Indexer is a Store with indices. "informer" notes, §2.2: the informer
// registers index functions and builds the indices as objects are added, so
// later queries by namespace, label or owner are map lookups.
//
// Every method that returns objects returns the cached objects themselves: do
// not mutate them (see the package doc).
type Indexer interface {
	Store
	// Index returns the objects that share at least one index value with
	// obj under the named index (obj itself need not be stored).
	Index(indexName string, obj api.Object) ([]api.Object, error)
	// IndexKeys returns the keys of the objects indexed under indexedValue.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns every value the named index currently holds.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the objects indexed under indexedValue.
	ByIndex(indexName, indexedValue string) ([]api.Object, error)
	// GetIndexers returns a copy of the index functions.
	GetIndexers() Indexers
	// AddIndexers adds index functions and indexes the objects already
	// stored with them. A name that is already in use is an error.
	AddIndexers(newIndexers Indexers) error
}

// NamespaceIndex is the conventional name of the index by namespace, the one
// listers use to answer "every object in namespace X".
const NamespaceIndex = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace ("" for a
// cluster-scoped object).
func MetaNamespaceIndexFunc(obj api.Object) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}

// LabelIndexFunc returns an IndexFunc that indexes objects by the value of
// one label; objects without the label are not indexed. For example
// Indexers{"app": LabelIndexFunc("app")} lets ByIndex("app", "web") find every
// object labelled app=web.
func LabelIndexFunc(labelKey string) IndexFunc {
	return func(obj api.Object) ([]string, error) {
		value, ok := obj.GetLabels()[labelKey]
		if !ok {
			return nil, nil
		}
		return []string{value}, nil
	}
}

// ControllerUIDIndex is the name kinformer gives the index by controller UID.
const ControllerUIDIndex = "controllerUID"

// ControllerUIDIndexFunc indexes an object by the UID of its controller: the
// owner reference marked controller=true. A ReplicaSet controller uses it to
// find the Pods a ReplicaSet owns with ByIndex(ControllerUIDIndex, rs.UID)
// instead of scanning every Pod. Objects without a controller are not
// indexed.
func ControllerUIDIndexFunc(obj api.Object) ([]string, error) {
	ref := api.GetControllerOf(obj)
	if ref == nil || ref.UID == "" {
		return nil, nil
	}
	return []string{ref.UID}, nil
}
