package deltafifo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// newDeltaFIFO is NewDeltaFIFO with the queue's trace written to t.Log, so
// that `go test -run X -v` shows every delta queued, collapsed, replaced and
// popped, and a plain `go test` stays quiet. opts.Tracer, if set, wins.
func newDeltaFIFO(t testing.TB, opts DeltaFIFOOptions) *DeltaFIFO {
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	return NewDeltaFIFO(opts)
}

// newRealFIFO is NewRealFIFO with the queue's trace written to t.Log.
func newRealFIFO(t testing.TB, opts RealFIFOOptions) *RealFIFO {
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t)
	}
	return NewRealFIFO(opts)
}

// traced returns a Tracer that writes to t.Log and records into a
// Recorder, for a test that asserts on what the trace shows.
func traced(t testing.TB) (*trace.Tracer, *trace.Recorder) {
	rec := trace.NewRecorder()
	return trace.Tee(trace.ForTest(t), rec.Tracer()), rec
}

// whats returns the What of each event, in order.
func whats(events []trace.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.What
	}
	return out
}

// cm returns a ConfigMap for key ("name" or "namespace/name") at
// resourceVersion rv: small test objects whose printed form is just rv.
func cm(key, rv string) *api.ConfigMap {
	ns, name, _ := indexer.SplitMetaNamespaceKey(key)
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// sortedKnown is an informer cache whose ListKeys is sorted, so that the
// order in which Replace and Resync visit cached keys (and so the queue
// order of tombstones and Sync deltas) is the same on every run.
type sortedKnown struct{ indexer.Indexer }

func (s sortedKnown) ListKeys() []string { return slices.Sorted(slices.Values(s.Indexer.ListKeys())) }

func newKnown(objs ...api.Object) sortedKnown {
	idx := indexer.NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, nil)
	for _, o := range objs {
		if err := idx.Add(o); err != nil {
			panic(err) // test setup with a bad object: a bug in the test
		}
	}
	return sortedKnown{idx}
}

// applyDeltas does to the cache what the informer does with popped deltas:
// oldest to newest, store every object and delete on Deleted (a tombstone's
// last state, if it has one).
//
// The deltas of the 1.36 modes: a ReplacedAll replaces the cache with its
// list in one write, a Bookmark records its version, a SyncAll changes
// nothing (the informer only notifies).
func applyDeltas(known indexer.Indexer, deltas Deltas) error {
	for _, d := range deltas {
		switch obj := d.Object.(type) {
		case ReplacedAllInfo:
			if err := known.Replace(obj.Objects, obj.ResourceVersion); err != nil {
				return err
			}
		case BookmarkInfo:
			known.Bookmark(obj.ResourceVersion)
		case SyncAllInfo:
		case DeletedFinalStateUnknown:
			if obj.Obj != nil {
				if err := known.Delete(obj.Obj); err != nil {
					return err
				}
			}
		case api.Object:
			var err error
			if d.Type == Deleted {
				err = known.Delete(obj)
			} else {
				err = known.Update(obj)
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unexpected delta object %T", d.Object)
		}
	}
	return nil
}

// formatObject prints an object as its resourceVersion, a tombstone as
// tombstone(rv), or tombstone(nil) without a final state; a ReplacedAll's
// list as [foo=1 bar=2 @rv=10], a Bookmark's version as @rv=12.
func formatObject(obj any) string {
	switch o := obj.(type) {
	case ReplacedAllInfo:
		parts := make([]string, 0, len(o.Objects)+1)
		for _, item := range o.Objects {
			key, _ := indexer.MetaNamespaceKeyFunc(item)
			parts = append(parts, key+"="+formatObject(item))
		}
		return "[" + strings.Join(append(parts, "@rv="+o.ResourceVersion), " ") + "]"
	case BookmarkInfo:
		return "@rv=" + o.ResourceVersion
	case SyncAllInfo:
		return "(the cache)"
	case DeletedFinalStateUnknown:
		if o.Obj == nil {
			return "tombstone(nil)"
		}
		return "tombstone(" + formatObject(o.Obj) + ")"
	case api.Object:
		if rv := o.GetResourceVersion(); rv != "" {
			return rv
		}
		return "-"
	}
	return fmt.Sprintf("%T?", obj)
}

func formatDelta(d Delta) string { return string(d.Type) + " " + formatObject(d.Object) }

// formatDeltas prints Deltas as {Added 1, Updated 2}.
func formatDeltas(deltas Deltas) string {
	parts := make([]string, len(deltas))
	for i, d := range deltas {
		parts[i] = formatDelta(d)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// formatDeltaFIFO prints the queue in order: key{deltas} key{deltas}.
func formatDeltaFIFO(f *DeltaFIFO) string {
	var parts []string
	for _, key := range f.ListKeys() {
		d, _, _ := f.GetByKey(key)
		parts = append(parts, key+formatDeltas(d))
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " ")
}

// formatRealFIFO prints every queued delta in order: key Type rv | ...
func formatRealFIFO(f *RealFIFO) string {
	var parts []string
	for _, d := range f.Queued() {
		parts = append(parts, formatKeyedDelta(f.keyer, d))
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " | ")
}

// formatCache prints the cache sorted by key: key=rv ...
func formatCache(known indexer.Indexer) string {
	var parts []string
	for _, key := range slices.Sorted(slices.Values(known.ListKeys())) {
		obj, _, _ := known.GetByKey(key)
		parts = append(parts, key+"="+formatObject(obj))
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " ")
}

// formatKeyedDelta prints a RealFIFO's delta as "key Type rv", or "Type
// what" for a delta about no key (ReplacedAll, SyncAll, Bookmark).
func formatKeyedDelta(k keyer, d Delta) string {
	key, err := k.keyOf(d.Object)
	if err != nil {
		return formatDelta(d)
	}
	return key + " " + formatDelta(d)
}

// formatBatch prints a batch as "key Type rv | ...".
func formatBatch(k keyer, batch []Delta) string {
	parts := make([]string, len(batch))
	for i, d := range batch {
		parts[i] = formatKeyedDelta(k, d)
	}
	return strings.Join(parts, " | ")
}

// applyBatch does to the cache what the informer does with a batch: one
// transaction, each delta one write (a tombstone deletes by its key).
func applyBatch(known indexer.Indexer, batch []Delta) error {
	txns := make([]indexer.Transaction, 0, len(batch))
	for _, d := range batch {
		switch obj := d.Object.(type) {
		case DeletedFinalStateUnknown:
			txns = append(txns, indexer.Transaction{Type: indexer.TransactionDelete, Key: obj.Key})
		case api.Object:
			typ := indexer.TransactionUpdate
			if d.Type == Deleted {
				typ = indexer.TransactionDelete
			}
			txns = append(txns, indexer.Transaction{Type: typ, Object: obj})
		default:
			return fmt.Errorf("unexpected delta object %T in a batch", d.Object)
		}
	}
	return known.(indexer.TransactionStore).Transaction(txns...)
}
