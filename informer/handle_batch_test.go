package informer

import (
	"testing"

	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/stretchr/testify/require"
)

// A batch keys each of its objects once: the key that finds a delta's old
// object in the cache goes with its write (indexer.Transaction.Key), and
// the store does not key the object again. The key function here is both
// the store's and the batch's, as the informer's is, and counts its calls.
// client-go: InOrderInformersBatchProcess (1.35) passes the informer's
// key function to its batch too.
func TestProcessDeltasInBatch_KeysEachObjectOnce(t *testing.T) {
	keyed := 0
	keyFunc := func(obj any) (string, error) {
		keyed++
		return deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	}
	store := indexer.NewIndexer(keyFunc, nil)
	require.NoError(t, store.Add(cmAt("default/a", "1")))
	keyed = 0

	batch := []deltafifo.Delta{
		{Type: deltafifo.Updated, Object: cmAt("default/a", "2")},
		{Type: deltafifo.Added, Object: cmAt("default/b", "3")},
		{Type: deltafifo.Added, Object: cmAt("default/c", "4")},
	}
	var told []string
	err := processDeltasInBatch(store, keyFunc, batch, false, nil, func(ns []notification) {
		for _, n := range ns {
			key, rv := notificationKeyRV(n)
			told = append(told, handlerMethod(n)+" "+key+"@"+rv)
		}
	})
	require.NoError(t, err)
	t.Logf("informer: a batch of %d deltas keyed %d objects, then told %v", len(batch), keyed, told)
	require.Equal(t, len(batch), keyed, "one key an object: read the old one, and write")
	require.Equal(t, []string{"OnUpdate default/a@2", "OnAdd default/b@3", "OnAdd default/c@4"}, told)
	require.Equal(t, []string{"default/a@2", "default/b@3", "default/c@4"}, cachedKeys(store))
}
