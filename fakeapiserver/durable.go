package fakeapiserver

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// Durability: Open, RestartStore and Close's part. The log, snapshots and
// recovery are the storage package's (storage/durable.go); what is left
// here is the registry's: decoding what was recovered into records (CRDs
// first, so their rows exist before their objects), and the namespaces
// every cluster has.

// Recovery reports what Open or RestartStore found in the data directory
// (storage.Recovery).
type Recovery = storage.Recovery

// Open returns a server that keeps its objects in the directory dir: every write
// is in a write-ahead log, fsync'd before it is acknowledged and before any
// client sees it (a watch event, a list; storage/visible.go), and a server
// opened again on the same directory (after Close, a crash or kill -9) has
// every acknowledged object, and a resourceVersion counter that never goes
// back. Recovery() says what it found. An empty dir is the in-memory
// server New returns (so that a --data-dir flag left empty needs no second
// path), and then Open cannot fail.
//
// The namespaces a new cluster has (default, kube-system, kube-public) are
// created only where they are missing, so reopening does not duplicate them.
func Open(dir string, opts Options) (*Server, error) {
	if dir == "" {
		return New(opts), nil
	}
	s := newServer(opts, dir)
	if err := s.store.Open(); err != nil {
		s.Close()
		return nil, fmt.Errorf("fakeapiserver: opening data dir %s: %w", dir, err)
	}
	if err := s.afterRecovery(); err != nil {
		s.Close()
		return nil, fmt.Errorf("fakeapiserver: opening data dir %s: %w", dir, err)
	}
	return s, nil
}

// ErrNoDataDir is what RestartStore returns on an in-memory server (New,
// or Open without a data directory): it has nothing to restart from.
var ErrNoDataDir = errors.New("fakeapiserver: RestartStore needs a data directory (fakeapiserver.Open, --data-dir): an in-memory server has nothing to restart from")

// Recovery reports what the last Open or RestartStore found in DataDir (the
// zero Recovery without one). A damaged log tail shows here; Open also logs
// it through Options.Logger.
func (s *Server) Recovery() Recovery {
	return s.store.Recovery()
}

// RestartStore simulates a crash and restart of the server's storage, in
// process: what is not yet durable is dropped (its writers get 503), every
// watch is closed, and the state is read back from DataDir, so what a client
// sees is what it would see after kill -9 and a restart: every acknowledged
// object, a resourceVersion that went forward, and 410 Expired for a watch
// or exact list at any older version. Without DataDir it is an error: an
// in-memory server has nothing to restart from.
func (s *Server) RestartStore() error {
	if !s.store.Durable() {
		return ErrNoDataDir
	}
	if s.tracer.On() {
		s.tracer.Event("fault: storage restart", trace.RV(strconv.FormatUint(s.store.Rev(), 10)))
	}
	if err := s.store.Restart(); err != nil {
		return fmt.Errorf("fakeapiserver: restarting the storage: %w", err)
	}
	if err := s.afterRecovery(); err != nil {
		return fmt.Errorf("fakeapiserver: restarting the storage: %w", err)
	}
	return nil
}

// afterRecovery creates the namespaces every cluster has if they are
// missing, and starts the history after them.
func (s *Server) afterRecovery() error {
	for _, ns := range protectedNamespaces {
		if _, err := s.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil {
			var status *api.Status
			if errors.As(err, &status) && status.Reason == api.StatusReasonAlreadyExists {
				continue
			}
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	s.store.ForgetHistory()
	return nil
}

// closeDataDir logs a clean shutdown and closes the log. Close calls it.
func (s *Server) closeDataDir() {
	if err := s.store.Close(); err != nil && s.opts.Logger != nil {
		s.opts.Logger.Error("fakeapiserver: closing the write-ahead log", "err", err)
	}
}

// decodeRecovered is the storage's Options.Decode: the recovered key/values
// (in key order) as records. The CRDs are decoded first and their rows
// made (in the order the CRDs were created), so every custom object finds
// its row; the rows replace the server's. A value under no row's prefix,
// or stored under a key that is not its own, is an error.
func (s *Server) decodeRecovered(kvs []storage.KeyValue) ([]*record, error) {
	rows := slices.Clone(builtinResources)
	type crd struct {
		obj     map[string]any
		created string
		rv      uint64
	}
	var crds []crd
	for _, kv := range kvs {
		if strings.HasPrefix(kv.Key, crdRow.keyPrefix()) {
			obj, err := decodeObject(kv.Value)
			if err != nil {
				return nil, fmt.Errorf("object %s: %w", kv.Key, err)
			}
			crds = append(crds, crd{obj, stringAt(mapAt(obj, "metadata"), "creationTimestamp"), kv.Rev})
		}
	}
	slices.SortStableFunc(crds, func(a, b crd) int { return strings.Compare(a.created, b.created) })
	for _, c := range crds {
		if r := customRow(c.obj); r != nil {
			rows = append(rows, r)
		}
	}
	out := make([]*record, len(kvs))
	for i, kv := range kvs {
		r := rowForKey(rows, kv.Key)
		if r == nil {
			return nil, fmt.Errorf("no resource is stored under %s", kv.Key)
		}
		obj, err := decodeObject(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", kv.Key, err)
		}
		if r.custom != nil {
			obj["apiVersion"] = r.GroupVersion() // written before its CRD's storage version changed
		}
		rec := newRecord(r, obj, kv.Rev)
		if rec.storageKey() != kv.Key {
			return nil, fmt.Errorf("object %s %q is stored under key %q", r.GroupResource(), rec.key, kv.Key)
		}
		out[i] = rec
	}
	s.setRowsLocked(rows)
	return out, nil
}
