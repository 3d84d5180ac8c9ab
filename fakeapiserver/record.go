package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
)

// The registry's side of storage: what it stores (a record per object
// version), under which key, and how storage's errors become the API's
// answers. The store itself is the storage package: revisions, the history,
// compaction, watches, the log.

// record is one stored version of one object. A record is never changed
// after it is made: a write makes a new record, so readers and watchers can
// hold on to old ones without locks. It is the storage.Object the server
// keeps.
//
// A record keeps the object as its JSON (raw), as etcd keeps it, and not
// decoded: a decoded pod (map[string]any) takes about five times the bytes
// of its JSON, which a server of a million pods cannot afford
// (docs/fakeapiserver.md, "Memory per object"). A write that needs the
// object decodes it (object); everything a read or a watch needs without
// decoding is kept beside the bytes.
type record struct {
	res    *resource
	key    string // "namespace/name", or "name" for a cluster-scoped object: the key clients know
	ns     string
	name   string
	uid    string
	rv     uint64
	raw    []byte // the whole object as the client sent it, plus server-set fields, encoded once, served to every reader
	labels map[string]string
	fields []string // the values of res.Fields, in order (fieldSet)
}

// UID and Bytes make a record a storage.Object.
func (rec *record) UID() string   { return rec.uid }
func (rec *record) Bytes() []byte { return rec.raw }

// object decodes the stored object into a map the caller owns (numbers as
// json.Number, as every object the server handles). raw is always one
// valid JSON object (encodeObject's output, or an object Load checked), so
// decoding it cannot fail; if it ever did, the answer is an empty object
// rather than a panic.
func (rec *record) object() map[string]any {
	dec := json.NewDecoder(bytes.NewReader(rec.raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return map[string]any{}
	}
	return obj
}

// recordStore is the server's etcd.
type recordStore = storage.Store[*record]

type recordTx = storage.Tx[*record]

func objectKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// keyPrefix is where r's objects live in storage, as in etcd:
// /registry/{group/}{resource}/; the core group has no segment. A CRD's
// rows for its versions share it.
func (r *resource) keyPrefix() string {
	if r.Group == "" {
		return "/registry/" + r.Name + "/"
	}
	return "/registry/" + r.Group + "/" + r.Name + "/"
}

// nsPrefix is the prefix of r's objects in namespace ns ("": all).
func (r *resource) nsPrefix(ns string) string {
	if ns == "" {
		return r.keyPrefix()
	}
	return r.keyPrefix() + ns + "/"
}

// storageKey is the key of the object ns/name of r.
func storageKey(r *resource, ns, name string) string {
	return r.keyPrefix() + objectKey(ns, name)
}

func (rec *record) storageKey() string { return storageKey(rec.res, rec.ns, rec.name) }

// newRecord stamps obj with rv, encodes it and indexes it. It takes
// ownership of obj, which it does not keep.
func newRecord(r *resource, obj map[string]any, rv uint64) *record {
	meta := ensureMap(obj, "metadata")
	meta["resourceVersion"] = strconv.FormatUint(rv, 10)
	key, ns, name := recordKey(stringAt(meta, "namespace"), stringAt(meta, "name"))
	return &record{
		res:    r,
		key:    key,
		ns:     ns,
		name:   name,
		uid:    stringAt(meta, "uid"),
		rv:     rv,
		raw:    encodeObject(obj),
		labels: stringMap(meta["labels"]),
		fields: r.fieldValues(obj),
	}
}

// recordKey is objectKey(ns, name), and ns and name as parts of it: one
// string for the three.
func recordKey(ns, name string) (key, keyNS, keyName string) {
	key = objectKey(ns, name)
	return key, key[:len(ns)], key[len(key)-len(name):]
}

// withRV returns a copy of rec stamped with another resourceVersion: the
// object a DELETED event carries (the storage's Versioner).
func (rec *record) withRV(rv uint64) *record {
	return newRecord(rec.res, rec.object(), rv)
}

// fail returns st as an error; a nil *api.Status is a nil error (not an
// error holding a nil pointer).
func fail(st *api.Status) error {
	if st == nil {
		return nil
	}
	return st
}

// asStatus is the API's answer to an error from a storage transaction: the
// registry's own *api.Status as it is, or storage's failures as the server
// answers them.
func asStatus(err error) *api.Status {
	if err == nil {
		return nil
	}
	var st *api.Status
	var failed *storage.FailedError
	var notDurable *storage.NotDurableError
	switch {
	case errors.As(err, &st):
		return st
	case errors.Is(err, storage.ErrClosed):
		return errServiceUnavailable("the storage is closed")
	case errors.As(err, &failed):
		return errInternal(failed.Error())
	case errors.As(err, &notDurable) && errors.Is(err, storage.ErrUnavailable):
		return errServiceUnavailable(notDurable.Error())
	}
	return errInternal(err.Error())
}

// The registry's reads. HTTP (list.go, watch.go, writes.go) and the Go
// API (goapi.go) read through these, which know where a resource's objects
// live in storage and whether it is still served.

// get returns the object ns/name of r.
func (s *Server) get(r *resource, ns, name string) (*record, *api.Status) {
	rec, err := s.store.Get(storageKey(r, ns, name))
	if err != nil {
		return nil, errNotFound(r, name)
	}
	return rec, nil
}

// listRecords lists the objects of r in namespace ns ("" for all), in key
// order, as opts asks (opts.From is a storage key).
func (s *Server) listRecords(r *resource, ns string, opts storage.ListOptions[*record]) (storage.ListResult[*record], error) {
	return s.store.List(r.nsPrefix(ns), opts)
}

// watchRecords opens a storage watch of r's objects in namespace ns (""
// for all), or of the one object ns/name. A watch opened once the server
// is closing (Close ran after the request got past its check), or of a row
// no longer served (its CRD was deleted after the request looked it up),
// starts ended.
func (s *Server) watchRecords(r *resource, ns, name string, opts storage.WatchOptions[*record]) (*watcher, []*watchEvent, error) {
	key := r.nsPrefix(ns)
	if name != "" {
		key = storageKey(r, ns, name)
	}
	opts.Admit = func() bool { return !s.isClosed() && s.servesLocked(r) }
	return s.store.Watch(key, opts)
}

// describeKey names a storage key in the trace: the resource and the key a
// client knows. Called under the storage's lock.
func (s *Server) describeKey(key string) (string, string) {
	for _, r := range s.rows {
		if rest, ok := strings.CutPrefix(key, r.keyPrefix()); ok {
			return r.Name, rest
		}
	}
	return "", key
}

// rowForKey is the served row whose prefix key is under.
func rowForKey(rows []*resource, key string) *resource {
	for _, r := range rows {
		if strings.HasPrefix(key, r.keyPrefix()) {
			return r
		}
	}
	return nil
}
