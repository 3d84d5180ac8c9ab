package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
)

// The Go API: what a test does to the server without HTTP. It runs the same
// operations as the HTTP handlers, so an object created here is seen by
// every open watch exactly as one created with kubectl. Errors are
// *api.Status, as the HTTP API would have answered.

// Create stores a new object (its type picks the resource) and returns it as
// stored: with name (if generateName was used), uid, resourceVersion and
// creationTimestamp set. A namespaced object without a namespace goes to
// "default".
func (s *Server) Create(obj api.Object) (api.Object, error) {
	r, m, err := s.toMap(obj)
	if err != nil {
		return nil, err
	}
	ns := obj.GetNamespace()
	if r.Namespaced && ns == "" {
		ns = api.NamespaceDefault
	}
	rec, st := s.create(r, ns, m, false, nil)
	return decodeRecord(rec, st)
}

// Update replaces an object; a non-empty resourceVersion must match the
// stored one (else a 409 Conflict). Status changes are ignored: use
// UpdateStatus.
func (s *Server) Update(obj api.Object) (api.Object, error) {
	return s.updateObject(obj, "")
}

// UpdateStatus replaces only an object's status, as PUT .../status does.
func (s *Server) UpdateStatus(obj api.Object) (api.Object, error) {
	return s.updateObject(obj, "status")
}

func (s *Server) updateObject(obj api.Object, sub string) (api.Object, error) {
	r, m, err := s.toMap(obj)
	if err != nil {
		return nil, err
	}
	ns := obj.GetNamespace()
	if r.Namespaced && ns == "" {
		ns = api.NamespaceDefault
	}
	rec, st := s.update(r, ns, obj.GetName(), sub, m, false, nil)
	return decodeRecord(rec, st)
}

// Patch applies a patch of the given type to an object of resource ("pods").
func (s *Server) Patch(resource, namespace, name string, pt PatchType, data []byte) (api.Object, error) {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return nil, err
	}
	rec, st := s.patchObject(r, namespace, name, "", pt, data, false, false)
	return decodeRecord(rec, st)
}

// Get returns the stored object.
func (s *Server) Get(resource, namespace, name string) (api.Object, error) {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return nil, err
	}
	rec, st := s.get(r, namespace, name)
	return decodeRecord(rec, st)
}

// Delete deletes an object as DELETE would (finalizers and graceful pod
// deletion included) and returns its last state.
func (s *Server) Delete(resource, namespace, name string) (api.Object, error) {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return nil, err
	}
	rec, _, st := s.deleteObject(r, namespace, name, deleteOptions{})
	return decodeRecord(rec, st)
}

// List returns every object of the resource in namespace ("" for all) in
// key order, and the list's resourceVersion.
func (s *Server) List(resource, namespace string) ([]api.Object, string, error) {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return nil, "", err
	}
	l, _ := s.listRecords(r, namespace, storage.ListOptions[*record]{})
	recs, rv := l.Items, strconv.FormatUint(l.Rev, 10)
	out := make([]api.Object, 0, len(recs))
	for _, rec := range recs {
		obj, err := decodeRecord(rec, nil)
		if err != nil {
			return nil, "", err
		}
		out = append(out, obj)
	}
	return out, rv, nil
}

func (s *Server) resourceNamed(name string) (*resource, error) {
	for _, r := range s.servedResources() {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, errUnknownResource()
}

// resourceFor finds the resource an object's Go type belongs to.
func resourceFor(obj api.Object) (*resource, error) {
	t := reflect.TypeOf(obj)
	for _, r := range builtinResources {
		if r.New != nil && reflect.TypeOf(r.New()) == t {
			return r, nil
		}
	}
	return nil, fmt.Errorf("fakeapiserver: no resource serves %T", obj)
}

// toMap turns a typed object into the server's JSON form.
func (s *Server) toMap(obj api.Object) (*resource, map[string]any, error) {
	r, err := resourceFor(obj)
	if err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeapiserver: encoding %T: %w", obj, err)
	}
	m, err := decodeObject(b)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeapiserver: encoding %T: %w", obj, err)
	}
	return r, m, nil
}

// decodeRecord turns a stored record into a fresh typed object.
func decodeRecord(rec *record, st *api.Status) (api.Object, error) {
	if st != nil {
		return nil, st
	}
	if rec.res.New == nil {
		return nil, fmt.Errorf("fakeapiserver: %s has no Go type: use the HTTP API", rec.res.GroupResource())
	}
	obj := rec.res.New()
	dec := json.NewDecoder(bytes.NewReader(rec.raw))
	if err := dec.Decode(obj); err != nil {
		return nil, fmt.Errorf("fakeapiserver: decoding stored %s: %w", rec.res.Kind, err)
	}
	return obj, nil
}
