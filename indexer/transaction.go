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
// lock is taken; every write, and its index updates, happens under it.
func (c *cache) Transaction(txns ...Transaction) error {
	if len(txns) == 0 {
		return nil
	}
	keyed := make([]keyedWrite, 0, len(txns))
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
		keyed = append(keyed, keyedWrite{Transaction: txn, key: key, index: i})
	}
	succeeded, applyErrs := c.storage.Transaction(keyed)
	errs = append(errs, applyErrs...)
	if len(errs) == 0 {
		return nil
	}
	return &TransactionError{SucceededIndices: succeeded, Total: len(txns), Errs: errs}
}

// keyedWrite is a Transaction with its key computed, and its place in the
// caller's list.
type keyedWrite struct {
	Transaction
	key   string
	index int
}

// Transaction applies writes under one lock and returns the indices of
// those applied, in order, and the errors of the others.
func (m *threadSafeMap) Transaction(writes []keyedWrite) (succeeded []int, errs []error) {
	succeeded = make([]int, 0, len(writes))
	m.lock.Lock()
	defer m.lock.Unlock()
	for _, w := range writes {
		switch w.Type {
		case TransactionAdd, TransactionUpdate:
			if err := m.updateLocked(w.key, w.Object); err != nil {
				errs = append(errs, fmt.Errorf("write %d: %w", w.index, err))
				continue
			}
		case TransactionDelete:
			m.deleteLocked(w.key)
		default:
			errs = append(errs, fmt.Errorf("write %d: unknown transaction type %q", w.index, w.Type))
			continue
		}
		succeeded = append(succeeded, w.index)
	}
	if len(writes) > 0 {
		if last := writes[len(writes)-1].Object; !api.IsNil(last) {
			m.rv = last.GetResourceVersion()
		}
	}
	return succeeded, errs
}
