package informer

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
)

// Lister reads one type of object from an informer's cache: the Lister of
// "Kubernetes-Informer" by smartkeyerror, §3 (podInformer.Lister(),
// podLister.List(labels.Everything())). client-go generates one lister per
// type (PodLister, ReplicaSetLister, ...); kinformer has one generic lister.
//
// Listers return the cached objects themselves, in no particular order: do
// not modify them.
type Lister[T api.Object] interface {
	// List returns every cached object whose labels match selector
	// (api.Everything() for all).
	List(selector api.Selector) ([]T, error)
	// Get returns the cluster-scoped object with this name, or a
	// *listwatch.StatusError NotFound, the error the client returns for the
	// server's 404 (see notFound).
	Get(name string) (T, error)
	// ByNamespace returns a lister of the objects in one namespace
	// (api.NamespaceAll for every namespace).
	ByNamespace(namespace string) NamespaceLister[T]
}

// NamespaceLister reads the objects of one namespace.
type NamespaceLister[T api.Object] interface {
	// List returns the namespace's cached objects whose labels match.
	List(selector api.Selector) ([]T, error)
	// Get returns the object with this name in the namespace, or a
	// *listwatch.StatusError NotFound, the error the client returns for the
	// server's 404 (see notFound).
	Get(name string) (T, error)
}

// NewLister returns a Lister over idx, e.g.
// NewLister[*api.Pod](podInformer.GetIndexer()). Namespace lists use the
// indexer.NamespaceIndex when idx has it (the factory's informers do) and
// scan the whole cache otherwise.
func NewLister[T api.Object](idx indexer.Indexer) Lister[T] {
	return &lister[T]{idx: idx}
}

type lister[T api.Object] struct {
	idx indexer.Indexer
}

func (l *lister[T]) List(selector api.Selector) ([]T, error) {
	return filter[T](l.idx.List(), selector)
}

func (l *lister[T]) Get(name string) (T, error) {
	return get[T](l.idx, name, name)
}

func (l *lister[T]) ByNamespace(namespace string) NamespaceLister[T] {
	return &namespaceLister[T]{idx: l.idx, namespace: namespace}
}

type namespaceLister[T api.Object] struct {
	idx       indexer.Indexer
	namespace string
}

func (l *namespaceLister[T]) List(selector api.Selector) ([]T, error) {
	if l.namespace == api.NamespaceAll {
		return filter[T](l.idx.List(), selector)
	}
	if _, indexed := l.idx.GetIndexers()[indexer.NamespaceIndex]; indexed {
		objs, err := l.idx.ByIndex(indexer.NamespaceIndex, l.namespace)
		if err != nil {
			return nil, fmt.Errorf("informer: listing namespace %q: %w", l.namespace, err)
		}
		return filter[T](objs, selector)
	}
	var inNamespace []api.Object
	for _, obj := range l.idx.List() {
		if obj.GetNamespace() == l.namespace {
			inNamespace = append(inNamespace, obj)
		}
	}
	return filter[T](inNamespace, selector)
}

func (l *namespaceLister[T]) Get(name string) (T, error) {
	return get[T](l.idx, l.namespace+"/"+name, name)
}

// filter returns the objects whose labels match selector, as T.
func filter[T api.Object](objs []api.Object, selector api.Selector) ([]T, error) {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if !selector.Matches(obj.GetLabels()) {
			continue
		}
		typed, err := as[T](obj)
		if err != nil {
			return nil, err
		}
		out = append(out, typed)
	}
	return out, nil
}

// get returns the object cached under key, as T.
func get[T api.Object](idx indexer.Indexer, key, name string) (T, error) {
	var zero T
	obj, exists, err := idx.GetByKey(key)
	if err != nil {
		return zero, fmt.Errorf("informer: getting %q: %w", key, err)
	}
	if !exists {
		return zero, notFound(resourceName[T](), name)
	}
	return as[T](obj)
}

// notFound is the error of a Get for an object the cache lacks: the very
// error the client returns for the server's 404 (a *listwatch.StatusError
// with reason NotFound), as client-go's listers return apierrors.NewNotFound,
// so one check, listwatch.IsNotFound, serves a cache read and a server read
// alike.
func notFound(resource, name string) error {
	return listwatch.NewNotFound(resource, name)
}

func as[T api.Object](obj api.Object) (T, error) {
	typed, ok := obj.(T)
	if !ok {
		var zero T
		key, _ := indexer.MetaNamespaceKeyFunc(obj)
		return zero, fmt.Errorf("informer: a lister of %T found a %T in the cache (key %q)", zero, obj, key)
	}
	return typed, nil
}

// resourceName is T's type name in lower case ("pod" for *api.Pod), as
// client-go's listers name the resource in NotFound errors.
func resourceName[T api.Object]() string {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.ToLower(t.Name())
}
