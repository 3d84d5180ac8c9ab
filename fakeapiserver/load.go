package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
)

// Load is the bulk path into the server: objects stored as they are, the
// way an etcd restore puts them back, not written the way a client writes
// them. A create decodes the body, applies the kind's defaults, admission
// and validation, and encodes the result several times: 0.2–1.5 ms a pod,
// so half an hour for a million. Load takes a million realistic pods in
// seconds (cmd/benchscale seeds its server with it, then drives its
// updates through it); for anything a client could do, use Create.

// Load stores objects of resource ("pods") as they are: each one JSON
// object of the resource's kind and apiVersion, with metadata.name,
// metadata.uid and, for a namespaced resource, metadata.namespace (which
// must exist). The server stamps only metadata.resourceVersion (each object
// takes the next one, in order); nothing is defaulted, admitted or
// validated beyond the object's syntax and its name (not even its labels'
// keys: their regular expressions cost as much as reading the object).
// An object whose key holds nothing is added (watches see ADDED); one
// whose key holds an object with the same uid replaces it (MODIFIED);
// another uid there is refused. The objects are one transaction: all are
// stored, or, if any is refused, none. Load returns the resourceVersion
// after the last one. The server keeps each object's bytes as given
// (compacted to one line if they were not), so a GET answers them as they
// were loaded; after a restart of a durable server they come back encoded
// as the server encodes what it decodes.
//
// CustomResourceDefinitions cannot be loaded: a CRD changes what the
// server serves, which a create does.
func (s *Server) Load(resource string, objects [][]byte) (string, error) {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return "", err
	}
	if isCRDRow(r) {
		return "", fmt.Errorf("fakeapiserver: Load does not take %s: create them", r.GroupResource())
	}
	loaded, err := readLoaded(r, loadWanted(r), objects)
	if err != nil {
		return "", err
	}
	var rev uint64
	err = s.store.Update(func(tx *recordTx) error {
		if !s.servesLocked(r) {
			return errUnknownResource()
		}
		if err := s.checkLoadedLocked(tx, r, loaded); err != nil {
			return err
		}
		rev = tx.NextRev() - 1 // nothing to load: the version now
		for _, l := range loaded {
			rec := l.rec
			rec.rv = tx.NextRev()
			rec.raw = stampLoaded(rec.raw, &l.view, rec.rv)
			key := rec.storageKey()
			var werr error
			if _, _, gerr := tx.Get(key); gerr == nil {
				werr = tx.Update(key, rec, storage.Preconditions{UID: rec.uid})
			} else {
				werr = tx.Create(key, rec)
			}
			if werr != nil { // checked above: cannot happen
				return fmt.Errorf("fakeapiserver: loading %s %s: %w", r.Kind, rec.key, werr)
			}
			rev = rec.rv
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(rev, 10), nil
}

// loadedObject is one object Load read, its record still without its
// resourceVersion.
type loadedObject struct {
	rec  *record
	view loadView
}

// readLoaded reads every object, on every core: it is most of Load's work,
// and needs no lock. The first object refused (in order) is the error.
func readLoaded(r *resource, want loadWant, objects [][]byte) ([]loadedObject, error) {
	out := make([]loadedObject, len(objects))
	errs := make([]error, len(objects))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(objects)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(objects); i += workers {
				out[i], errs[i] = readOneLoaded(r, want, objects[i])
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("fakeapiserver: Load: object %d: %w", i, err)
		}
	}
	return out, nil
}

func readOneLoaded(r *resource, want loadWant, raw []byte) (loadedObject, error) {
	if bytes.IndexByte(raw, '\n') >= 0 || bytes.IndexByte(raw, '\r') >= 0 { // a watch frame is one line
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return loadedObject{}, err
		}
		raw = buf.Bytes()
	}
	v, err := scanLoaded(raw, want)
	if err != nil {
		return loadedObject{}, err
	}
	if kind, version := v.obj["kind"], v.obj["apiVersion"]; kind != r.Kind || version != r.GroupVersion() {
		return loadedObject{}, fmt.Errorf("kind %v, apiVersion %v: want %s, %s", kind, version, r.Kind, r.GroupVersion())
	}
	meta := mapAt(v.obj, "metadata")
	name, ns, uid := stringAt(meta, "name"), stringAt(meta, "namespace"), stringAt(meta, "uid")
	var causes []api.StatusCause
	if name == "" {
		causes = append(causes, requiredWhy("metadata.name", "a loaded object needs a name"))
	} else {
		for _, msg := range nameErrors(r, name, false) {
			causes = append(causes, invalid("metadata.name", name, msg))
		}
	}
	if uid == "" {
		causes = append(causes, requiredWhy("metadata.uid", "a loaded object needs a uid"))
	}
	if r.Namespaced != (ns != "") {
		causes = append(causes, invalid("metadata.namespace", ns, "a namespaced object needs one, any other none"))
	}
	if len(causes) > 0 {
		return loadedObject{}, errInvalid(r.Kind, r.Group, name, causes)
	}
	labels, _ := meta["labels"].(map[string]string)
	if len(labels) == 0 {
		labels = nil
	}
	key, ns, name := recordKey(ns, name)
	return loadedObject{view: v, rec: &record{
		res: r, key: key, ns: ns, name: name, uid: uid, raw: raw,
		labels: labels, fields: r.fieldValues(v.obj),
	}}, nil
}

// checkLoadedLocked refuses the whole load before anything is written: a
// namespace that does not exist or is being deleted, a key that holds
// another object.
func (s *Server) checkLoadedLocked(tx *recordTx, r *resource, loaded []loadedObject) error {
	namespaces := map[string]*api.Status{}
	for i, l := range loaded {
		rec := l.rec
		if r.Namespaced {
			st, seen := namespaces[rec.ns]
			if !seen {
				st = s.namespaceWritableLocked(tx, r, rec.ns, rec.name)
				namespaces[rec.ns] = st
			}
			if st != nil {
				return fmt.Errorf("fakeapiserver: Load: object %d: %w", i, st)
			}
		}
		if cur, _, err := tx.Get(rec.storageKey()); err == nil && cur.uid != rec.uid {
			return fmt.Errorf("fakeapiserver: Load: object %d: %w", i, errStorageUIDPrecondition(cur, rec.uid))
		}
	}
	return nil
}
