package listwatch

import (
	"fmt"
	"net/http"

	"github.com/kinformer/kinformer/api"
)

// Resources without a Go type of their own, and metadata-only access:
// client-go's dynamic client (k8s.io/client-go/dynamic) and metadata
// client (k8s.io/client-go/metadata), and the informers built on them.
// See docs/dynamic.md.

// DynamicResource describes any resource, whose objects are kept as
// *api.Unstructured (their whole JSON: nothing the server sends is
// dropped). For pods:
//
//	listwatch.DynamicResource("", "v1", "pods", "Pod", true)
//
// The kind is what list items (which carry none) are labelled with. It is
// client-go's dynamic client for a schema.GroupVersionResource.
func DynamicResource(group, version, resource, kind string, namespaced bool) Resource {
	return Resource{Group: group, Version: version, Resource: resource, Kind: kind, Namespaced: namespaced,
		New: func() api.Object { return &api.Unstructured{} }}
}

// MetadataOnly returns r asking for its objects' metadata only: lists,
// gets and watches send the Accept header client-go's metadata client
// sends (minus protobuf), and decode the answer into
// *api.PartialObjectMetadata:
//
//	list:      Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json
//	get/watch: Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json
//
// The server answers kind PartialObjectMetadata(List), apiVersion
// meta.k8s.io/v1, and the objects keep that kind. (A server that does not
// know the form falls back to the plain JSON the last media type allows;
// its objects still decode, metadata kept and the rest dropped, with their
// own kind.) Patch and delete work too; create and update are refused,
// since a body of metadata only is not an object.
//
// For an informer: NewFilteredListWatchFromClient(c, MetadataOnly(Pods),
// ...) with &api.PartialObjectMetadata{} as its example object, or
// factory.InformerFor(MetadataOnly(Pods)) on a factory of its own (a
// factory keys informers by GroupResource, so the same factory would hand
// back the typed pod informer: client-go, too, has a separate metadata
// informer factory).
func MetadataOnly(r Resource) Resource {
	r.MetadataOnly = true
	r.New = func() api.Object { return &api.PartialObjectMetadata{} }
	return r
}

// The media types of metadata-only requests, and the kind of the answer.
const (
	acceptPartialObjectMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"
	acceptPartialObjectMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json"
	partialObjectMetadataKind       = "PartialObjectMetadata"
	metaV1                          = "meta.k8s.io/v1"
)

// accept is the Accept header of rq.
func (rq *request) accept() string {
	switch {
	case !rq.resource.MetadataOnly:
		return "application/json"
	case rq.verb == "list":
		return acceptPartialObjectMetadataList
	default:
		return acceptPartialObjectMetadata
	}
}

// checkMetadataOnly refuses a write whose body would be metadata only.
func (rq *request) checkMetadataOnly() error {
	if rq.resource.MetadataOnly && (rq.method == http.MethodPost || rq.method == http.MethodPut) {
		return fmt.Errorf("listwatch: %s %s: a metadata-only resource can get, list, watch, patch and delete, not %s",
			rq.verb, rq.resource.GroupResource(), rq.verb)
	}
	return nil
}
