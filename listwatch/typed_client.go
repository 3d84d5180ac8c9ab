package listwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/kinformer/kinformer/api"
)

// TypedClient reads and writes one resource with its Go type T:
//
//	pods := listwatch.For[*api.Pod](client, listwatch.Pods)
//	pod, err := pods.Get(ctx, "default", "web-0")
//
// It is what client-go's generated clientset gives per resource
// (clientset.CoreV1().Pods(ns)), written once with generics instead of
// generated per type. The namespace is an argument of each call rather
// than of the client; "" lists and watches every namespace, and is ignored
// for a cluster-scoped resource.
type TypedClient[T api.Object] struct {
	client   *Client
	resource Resource
	err      error // a For misuse, reported by every call
}

// For returns the typed client of resource r, whose New must make T
// values (For[*api.Pod](c, Pods)). A mismatch is reported by every call.
func For[T api.Object](c *Client, r Resource) *TypedClient[T] {
	tc := &TypedClient[T]{client: c, resource: r}
	switch {
	case r.New == nil:
		tc.err = errNoNew(r)
	default:
		if _, ok := r.New().(T); !ok {
			var want T
			tc.err = fmt.Errorf("listwatch: For[%T] was given resource %s, whose objects are %T", want, r.GroupResource(), r.New())
		}
	}
	return tc
}

// List lists one page (opts.Limit and opts.Continue page through one
// snapshot; see ListOptions for the resourceVersion rules).
func (tc *TypedClient[T]) List(ctx context.Context, namespace string, opts ListOptions) (*api.List[T], error) {
	if tc.err != nil {
		return nil, tc.err
	}
	objs, err := tc.client.listObjects(ctx, tc.resource, namespace, opts)
	if err != nil {
		return nil, err
	}
	list := &api.List[T]{
		TypeMeta: api.TypeMeta{Kind: tc.resource.Kind + "List", APIVersion: tc.resource.GroupVersion()},
		ListMeta: objs.ListMeta,
		Items:    make([]T, len(objs.Items)),
	}
	for i, obj := range objs.Items {
		list.Items[i] = obj.(T) // For checked that r.New makes T values
	}
	return list, nil
}

// Watch opens a watch; its events carry T values (as api.Object).
func (tc *TypedClient[T]) Watch(ctx context.Context, namespace string, opts ListOptions) (Watch, error) {
	if tc.err != nil {
		return nil, tc.err
	}
	return tc.client.watch(ctx, tc.resource, namespace, opts)
}

// Get reads one object.
func (tc *TypedClient[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	return tc.call(ctx, &request{verb: "get", method: http.MethodGet, namespace: namespace, name: name})
}

// Create creates obj in namespace ("" = obj's own namespace) and returns
// it as stored (with uid, resourceVersion, defaults).
func (tc *TypedClient[T]) Create(ctx context.Context, namespace string, obj T) (T, error) {
	return tc.write(ctx, "create", http.MethodPost, namespace, "", "", obj)
}

// Update replaces obj (found by its name in namespace, "" = its own). Its
// metadata.resourceVersion must be the stored one, else the server answers
// 409 Conflict (IsConflict): someone else wrote in between.
func (tc *TypedClient[T]) Update(ctx context.Context, namespace string, obj T) (T, error) {
	return tc.write(ctx, "update", http.MethodPut, namespace, obj.GetName(), "", obj)
}

// UpdateStatus replaces obj's status through the status subresource (its
// spec and metadata changes are ignored there).
func (tc *TypedClient[T]) UpdateStatus(ctx context.Context, namespace string, obj T) (T, error) {
	return tc.write(ctx, "update", http.MethodPut, namespace, obj.GetName(), "status", obj)
}

// Patch applies data, a patch of type pt (MergePatchType: a partial
// object), to the object and returns the result.
func (tc *TypedClient[T]) Patch(ctx context.Context, namespace, name string, pt PatchType, data []byte) (T, error) {
	return tc.call(ctx, &request{verb: "patch", method: http.MethodPatch, namespace: namespace, name: name,
		contentType: string(pt), body: data})
}

// Delete deletes the object. With opts.Preconditions it fails with 409
// Conflict unless the object still has that UID/resourceVersion. (A pod, or
// an object with finalizers, may live on for a while marked with a
// deletionTimestamp; its watchers see MODIFIED, then DELETED.)
func (tc *TypedClient[T]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) error {
	rq := &request{verb: "delete", method: http.MethodDelete, namespace: namespace, name: name}
	if !opts.isZero() {
		body, err := json.Marshal(deleteOptionsBody{Kind: "DeleteOptions", APIVersion: "v1", DeleteOptions: opts})
		if err != nil {
			return fmt.Errorf("delete %s %q: encoding the options: %w", tc.resource.GroupResource(), name, err)
		}
		rq.contentType, rq.body = "application/json", body
	}
	if tc.err != nil {
		return tc.err
	}
	rq.resource = tc.resource
	ctx, cancel := tc.client.withTimeout(ctx)
	defer cancel()
	resp, err := tc.client.do(ctx, rq)
	if err != nil {
		return err
	}
	// The answer is the object's last state or a Status of kind Success,
	// depending on the resource; neither is needed.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return resp.Body.Close()
}

// write sends obj (with its kind filled in) to be created or updated.
func (tc *TypedClient[T]) write(ctx context.Context, verb, method, namespace, name, sub string, obj T) (T, error) {
	var zero T
	if tc.err != nil {
		return zero, tc.err
	}
	if namespace == "" {
		namespace = obj.GetNamespace()
	}
	if tm := obj.GetObjectKind(); tm.Kind == "" || tm.APIVersion == "" {
		copied := obj.DeepCopyObject() // do not change the caller's object
		tc.resource.setKind(copied)
		obj = copied.(T)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return zero, fmt.Errorf("%s %s %q: encoding the object: %w", verb, tc.resource.GroupResource(), obj.GetName(), err)
	}
	return tc.call(ctx, &request{verb: verb, method: method, namespace: namespace, name: name, subresource: sub,
		contentType: "application/json", body: body})
}

// call sends one request about a single object and decodes the object the
// server answers with.
func (tc *TypedClient[T]) call(ctx context.Context, rq *request) (T, error) {
	var zero T
	if tc.err != nil {
		return zero, tc.err
	}
	rq.resource = tc.resource
	ctx, cancel := tc.client.withTimeout(ctx)
	defer cancel()
	resp, err := tc.client.do(ctx, rq)
	if err != nil {
		return zero, err
	}
	defer resp.Body.Close()
	obj := tc.resource.New().(T)
	if err := tc.client.decoder.object(resp.Body, obj, tc.resource); err != nil {
		return zero, fmt.Errorf("%s %s %q: decoding the response: %w", rq.verb, tc.resource.GroupResource(), rq.name, err)
	}
	return obj, nil
}
