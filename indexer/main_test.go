package indexer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/leakcheck"
)

// TestMain runs the tests, then fails if a goroutine started by this
// package's code or tests is still running.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/indexer.") }

// The indexer has no Tracer of its own (in the informer its writes are the
// informer's "cache add/update/delete" events), so its tests tell their
// story through these wrappers: after every write, the test's log shows the
// write and what the store and its indices hold then:
//
//	indexer: update default/a rv=2 -> store [default/a@2] | app{db:[default/a]} namespace{default:[default/a]}

// toldIndexer is an Indexer whose writes are told to t.Log.
type toldIndexer struct {
	Indexer
	t testing.TB
}

// told wraps idx so that its writes are told to t.Log.
func told(t testing.TB, idx Indexer) Indexer { return toldIndexer{Indexer: idx, t: t} }

func (s toldIndexer) Add(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Indexer, s.Indexer, "add", obj, s.Indexer.Add(obj))
}

func (s toldIndexer) Update(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Indexer, s.Indexer, "update", obj, s.Indexer.Update(obj))
}

func (s toldIndexer) Delete(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Indexer, s.Indexer, "delete", obj, s.Indexer.Delete(obj))
}

func (s toldIndexer) Replace(list []api.Object, rv string) error {
	s.t.Helper()
	return tell(s.t, s.Indexer, s.Indexer, fmt.Sprintf("replace with %d objects", len(list)), nil, s.Indexer.Replace(list, rv))
}

func (s toldIndexer) AddIndexers(indexers Indexers) error {
	s.t.Helper()
	names := slices.Sorted(maps.Keys(indexers))
	return tell(s.t, s.Indexer, s.Indexer, fmt.Sprintf("add indexers %v", names), nil, s.Indexer.AddIndexers(indexers))
}

// toldStore is a Store whose writes are told to t.Log.
type toldStore struct {
	Store
	t testing.TB
}

func (s toldStore) Add(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Store, nil, "add", obj, s.Store.Add(obj))
}

func (s toldStore) Update(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Store, nil, "update", obj, s.Store.Update(obj))
}

func (s toldStore) Delete(obj api.Object) error {
	s.t.Helper()
	return tell(s.t, s.Store, nil, "delete", obj, s.Store.Delete(obj))
}

func (s toldStore) Replace(list []api.Object, rv string) error {
	s.t.Helper()
	return tell(s.t, s.Store, nil, fmt.Sprintf("replace with %d objects", len(list)), nil, s.Store.Replace(list, rv))
}

// tell logs one write (obj nil: a write of many) and its outcome, and
// returns err.
func tell(t testing.TB, s Store, idx Indexer, op string, obj api.Object, err error) error {
	t.Helper()
	what := op
	if obj != nil || op == "add" || op == "update" || op == "delete" {
		key, kerr := MetaNamespaceKeyFunc(obj)
		if kerr != nil {
			key = fmt.Sprintf("%T", obj)
		}
		what += " " + key
		if kerr == nil && !api.IsNil(obj) {
			what += " rv=" + obj.GetResourceVersion()
		}
	}
	if err != nil {
		t.Logf("indexer: %s refused: %v", what, err)
		return err
	}
	var objs []string
	for _, o := range s.List() {
		k, _ := MetaNamespaceKeyFunc(o)
		objs = append(objs, k+"@"+o.GetResourceVersion())
	}
	slices.Sort(objs)
	line := fmt.Sprintf("indexer: %s -> store %v", what, objs)
	if idx != nil {
		for _, name := range slices.Sorted(maps.Keys(idx.GetIndexers())) {
			var parts []string
			for _, v := range slices.Sorted(slices.Values(idx.ListIndexFuncValues(name))) {
				keys, _ := idx.IndexKeys(name, v)
				parts = append(parts, fmt.Sprintf("%s:%v", v, slices.Sorted(slices.Values(keys))))
			}
			line += fmt.Sprintf(" | %s{%s}", name, strings.Join(parts, " "))
		}
	}
	t.Log(line)
	return nil
}

func (s toldIndexer) Transaction(txns ...Transaction) error {
	s.t.Helper()
	var ops []string
	for _, txn := range txns {
		key := txn.Key
		if key == "" {
			key, _ = MetaNamespaceKeyFunc(txn.Object)
		}
		ops = append(ops, strings.ToLower(string(txn.Type))+" "+key)
	}
	what := fmt.Sprintf("transaction [%s]", strings.Join(ops, ", "))
	return tell(s.t, s.Indexer, s.Indexer, what, nil, s.Indexer.(TransactionStore).Transaction(txns...))
}

func (s toldIndexer) Bookmark(rv string) {
	s.t.Helper()
	s.Indexer.Bookmark(rv)
	s.t.Logf("indexer: bookmark rv=%s -> LastStoreSyncResourceVersion %q", rv, s.Indexer.LastStoreSyncResourceVersion())
}
