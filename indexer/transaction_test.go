package indexer

import (
	"errors"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// A Transaction is many writes applied as one: every index is kept as
// Add, Update and Delete keep it, and the store records the resourceVersion
// of the last write. client-go: InOrderInformersBatchProcess (1.35), the
// batch an informer applies at once.
func TestIndexer_TransactionIsOneWrite(t *testing.T) {
	idx := told(t, NewIndexer(nil, Indexers{"app": LabelIndexFunc("app")}))
	require.NoError(t, idx.Add(pod("default", "a", "1", "app", "web")))
	require.NoError(t, idx.Add(pod("default", "b", "2", "app", "web")))

	t.Log("informer (played by the test): a batch of three deltas, three keys, one transaction")
	err := idx.(toldIndexer).Transaction(
		Transaction{Type: TransactionUpdate, Object: pod("default", "a", "5", "app", "db")},
		Transaction{Type: TransactionDelete, Key: "default/b"}, // a tombstone names only its key
		Transaction{Type: TransactionAdd, Object: pod("default", "c", "7", "app", "web")},
	)
	require.NoError(t, err)

	keys, err := idx.IndexKeys("app", "web")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"default/c"}, keys, "a moved to db, b deleted: the index followed every write")
	keys, err = idx.IndexKeys("app", "db")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"default/a"}, keys)
	require.Equal(t, "7", idx.LastStoreSyncResourceVersion(), "the last write's resourceVersion")

	t.Log("a deletion by key last leaves the version where it was")
	require.NoError(t, idx.(toldIndexer).Transaction(Transaction{Type: TransactionDelete, Key: "default/c"}))
	require.Equal(t, "7", idx.LastStoreSyncResourceVersion())
	require.NoError(t, idx.(toldIndexer).Transaction())
}

// A write that cannot be applied is skipped; the others are applied, and
// the error says which succeeded, so the informer notifies exactly those.
func TestIndexer_TransactionReportsWhichWritesSucceeded(t *testing.T) {
	errBad := errors.New("bad label")
	idx := told(t, NewIndexer(nil, Indexers{"strict": func(obj api.Object) ([]string, error) {
		if obj.GetLabels()["bad"] != "" {
			return nil, errBad
		}
		return nil, nil
	}}))
	err := idx.(toldIndexer).Transaction(
		Transaction{Type: TransactionAdd, Object: pod("default", "a", "1")},
		Transaction{Type: TransactionAdd, Object: &api.Pod{}}, // no name: no key
		Transaction{Type: TransactionAdd, Object: pod("default", "b", "2", "bad", "yes")},
		Transaction{Type: TransactionAdd, Object: pod("default", "c", "3")},
	)
	var txnErr *TransactionError
	require.ErrorAs(t, err, &txnErr)
	t.Logf("indexer: %v", err)
	require.Equal(t, []int{0, 3}, txnErr.SucceededIndices)
	require.Equal(t, 4, txnErr.Total)
	require.ErrorIs(t, err, errBad)
	require.ElementsMatch(t, []string{"default/a", "default/c"}, idx.ListKeys())
}

// A write that carries its Key is stored under it, and the store does not
// key its object again: the informer keys each object of a batch once, to
// read its old object, and hands the key on with the write
// (processDeltasInBatch). Only a write without one is keyed by the store.
func TestIndexer_TransactionDoesNotKeyAWriteAgain(t *testing.T) {
	keyed := 0
	keyFunc := func(obj any) (string, error) {
		keyed++
		return MetaNamespaceKeyFunc(obj)
	}
	idx := NewIndexer(keyFunc, nil)
	err := idx.(TransactionStore).Transaction(
		Transaction{Type: TransactionAdd, Object: pod("default", "a", "1"), Key: "default/a"},
		Transaction{Type: TransactionAdd, Object: pod("default", "b", "2"), Key: "default/b"},
		Transaction{Type: TransactionAdd, Object: pod("default", "c", "3")},
	)
	require.NoError(t, err)
	t.Logf("indexer: a transaction of 3 writes, 2 with their key: the store keyed %d object", keyed)
	require.Equal(t, 1, keyed, "only the write without a key was keyed")
	require.ElementsMatch(t, []string{"default/a", "default/b", "default/c"}, idx.ListKeys())
	require.Equal(t, "3", idx.LastStoreSyncResourceVersion())
}

// The store remembers the resourceVersion of its last write (client-go
// 1.36, KEP-5647): an object's, a list's, or a bookmark's.
func TestStore_LastStoreSyncResourceVersionFollowsWrites(t *testing.T) {
	idx := told(t, NewIndexer(nil, nil))
	require.Empty(t, idx.LastStoreSyncResourceVersion(), "nothing written yet")
	for _, step := range []struct {
		what  string
		write func() error
		want  string
	}{
		{"add", func() error { return idx.Add(pod("default", "a", "3")) }, "3"},
		{"update", func() error { return idx.Update(pod("default", "a", "4")) }, "4"},
		{"delete (the DELETED event's version)", func() error { return idx.Delete(pod("default", "a", "6")) }, "6"},
		{"replace (the list's version, not its objects')", func() error {
			return idx.Replace([]api.Object{pod("default", "a", "4"), pod("default", "b", "5")}, "10")
		}, "10"},
		{"bookmark (nothing changed up to 12)", func() error { idx.Bookmark("12"); return nil }, "12"},
	} {
		require.NoError(t, step.write())
		t.Logf("indexer: after %s: LastStoreSyncResourceVersion %q", step.what, idx.LastStoreSyncResourceVersion())
		require.Equal(t, step.want, idx.LastStoreSyncResourceVersion(), step.what)
	}
	require.Error(t, idx.Replace([]api.Object{nil}, "13"))
	require.Equal(t, "12", idx.LastStoreSyncResourceVersion(), "a refused write records nothing")
}
