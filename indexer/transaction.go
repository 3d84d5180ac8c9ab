package indexer

import (
	"errors"
	"fmt"

	"github.com/kinformer/kinformer/api"
)

// Transactions: many writes under one lock.
//
// An informer in batch mode (client-go's InOrderInformersBatchProcess, on by
// default since 1.35) pops up to 1,000 deltas at once, each for a different
// key, and applies them to the cache in one Transaction instead of one
// Add, Update or Delete each. The writes are the same; what changes is that
// the store's write lock is taken once for the whole batch rather than once
// per object, so a busy informer no longer trades the lock back and forth
// with the listers reading the cache between every two writes. Readers see
// the cache before the batch or after it, never in the middle.

// TransactionType says what one write of a Transaction does.
type TransactionType string

const (
	// TransactionAdd stores a new object (on a Store, the same as an update).
	TransactionAdd TransactionType = "Add"
	// TransactionUpdate stores an object over the one under its key.
	TransactionUpdate TransactionType = "Update"
	// TransactionDelete removes the object under the key.
	TransactionDelete TransactionType = "Delete"
)

// Transaction is one write of a Transaction call: Object keyed by the
// store's KeyFunc, or, if Key is set, the object under Key. Key is how a
// deletion whose final state is unknown (a relist's tombstone) names what
// to delete: Object may then be nil.
type Transaction struct {
	Type   TransactionType
	Object api.Object
	Key    string
}

// TransactionStore is a Store that applies many writes at once. The
// cache NewStore and NewIndexer return is one.
type TransactionStore interface {
	// Transaction applies txns in order under one write lock, indices
	// included, and records the resourceVersion of the last one's Object
	// (unchanged if it has none: a deletion by key). A write that cannot
	// be applied (no key, an IndexFunc error) is skipped, the others are
	// applied all the same, and the returned error is a
	// *TransactionError saying which succeeded.
	Transaction(txns ...Transaction) error
}

// TransactionError is the error of a Transaction some of whose writes
// failed: SucceededIndices lists, in order, the index in txns of every
// write that was applied, so the caller can notify exactly those.
type TransactionError struct {
	SucceededIndices []int
	Total            int
	Errs             []error
}

func (e *TransactionError) Error() string {
	return fmt.Sprintf("indexer: %d of %d writes of a transaction failed: %v",
		e.Total-len(e.SucceededIndices), e.Total, errors.Join(e.Errs...))
}

func (e *TransactionError) Unwrap() []error { return e.Errs }

var _ TransactionStore = (*cache)(nil)

// Transaction implements TransactionStore. Keys are computed before the
// lock is taken (a write that carries its Key is not keyed again); every
// write, and its index updates, happens under it.
func (c *cache) Transaction(txns ...Transaction) error {
	if len(txns) == 0 {
		return nil
	}
	keys := make([]string, len(txns)) // keys[i]: where txns[i] writes; "" if it cannot be applied
	var errs []error
	for i, txn := range txns {
		key := txn.Key
		if key == "" {
			var err error
			if key, err = c.keyOf(txn.Object); err != nil {
				errs = append(errs, fmt.Errorf("write %d (%s): %w", i, txn.Type, err))
				continue
			}
		}
		if txn.Type != TransactionDelete && api.IsNil(txn.Object) {
			errs = append(errs, fmt.Errorf("write %d (%s %s): nil object", i, txn.Type, key))
			continue
		}
		keys[i] = key
	}
	errs = append(errs, c.storage.Transaction(txns, keys)...)
	if len(errs) == 0 {
		return nil
	}
	// Some failed: name the writes that were applied, the ones with a key
	// the store kept (a failed apply clears its key).
	succeeded := make([]int, 0, len(txns))
	for i, key := range keys {
		if key != "" {
			succeeded = append(succeeded, i)
		}
	}
	return &TransactionError{SucceededIndices: succeeded, Total: len(txns), Errs: errs}
}

// Transaction applies txns[i] under keys[i], in order, under one lock,
// skipping those whose key is "" (refused before the lock), and returns
// the errors of those it could not apply, whose keys it sets to "".
func (m *threadSafeMap) Transaction(txns []Transaction, keys []string) (errs []error) {
	m.lock.Lock()
	defer m.lock.Unlock()
	last := -1 // the last write given a key: its object's version is the store's
	for i, w := range txns {
		key := keys[i]
		if key == "" {
			continue
		}
		last = i
		switch w.Type {
		case TransactionAdd, TransactionUpdate:
			if err := m.updateLocked(key, w.Object); err != nil {
				errs = append(errs, fmt.Errorf("write %d: %w", i, err))
				keys[i] = ""
				continue
			}
		case TransactionDelete:
			m.deleteLocked(key)
		default:
			errs = append(errs, fmt.Errorf("write %d: unknown transaction type %q", i, w.Type))
			keys[i] = ""
			continue
		}
	}
	if last >= 0 && !api.IsNil(txns[last].Object) {
		m.rv = txns[last].Object.GetResourceVersion()
	}
	return errs
}
