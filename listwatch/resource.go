package listwatch

import (
	"net/url"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Resource describes one kind of object the API server serves: where it
// lives in the URL space and which Go type its JSON decodes into. It is
// client-go's schema.GroupVersionResource and the Kind of a generated
// clientset in one row.
type Resource struct {
	Group      string // "" for the core group ("v1"), "apps" for apps/v1
	Version    string // "v1"
	Resource   string // the plural in the URL: "pods"
	Kind       string // the Kind in the JSON: "Pod"
	Namespaced bool   // false for cluster-scoped resources such as namespaces
	// New returns an empty object of the resource's Go type (&api.Pod{}).
	// List items and watch objects are decoded into values it returns.
	New func() api.Object
	// MetadataOnly asks the server for the objects' metadata only
	// (PartialObjectMetadata, see MetadataOnly in dynamic.go); New must
	// then make *api.PartialObjectMetadata values.
	MetadataOnly bool
}

// The resources kinformer knows, with their Go types from package api.
var (
	Pods = Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
		New: func() api.Object { return &api.Pod{} }}
	ConfigMaps = Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &api.ConfigMap{} }}
	Namespaces = Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace", Namespaced: false,
		New: func() api.Object { return &api.Namespace{} }}
	ReplicaSets = Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true,
		New: func() api.Object { return &api.ReplicaSet{} }}
)

// GroupVersion is the apiVersion of the resource's objects: "v1" for the
// core group, "apps/v1" for a named group.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource names the resource as the API server's messages do: "pods",
// "replicasets.apps".
func (r Resource) GroupResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// String is the GroupResource.
func (r Resource) String() string { return r.GroupResource() }

// Path builds the URL path of the resource as the real API lays it out:
//
//	/api/v1/pods                                  every namespace (namespace "")
//	/api/v1/namespaces/default/pods               one namespace
//	/api/v1/namespaces/default/pods/web-0         one object (name)
//	/api/v1/namespaces/default/pods/web-0/status  its status subresource
//	/api/v1/namespaces/kube-system                a cluster-scoped object
//	/apis/apps/v1/namespaces/default/replicasets  a named group
//
// namespace is ignored for a cluster-scoped resource, as client-go's
// NamespaceIfScoped does. Names are path-escaped.
func (r Resource) Path(namespace, name, subresource string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(r.Group)
		b.WriteByte('/')
	}
	b.WriteString(r.Version)
	if r.Namespaced && namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteByte('/')
	b.WriteString(r.Resource)
	if name != "" {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(name))
		if subresource != "" {
			b.WriteByte('/')
			b.WriteString(subresource)
		}
	}
	return b.String()
}

// setKind fills in an object's kind and apiVersion when the JSON left them
// out, as a list's items do. (client-go's typed clients leave them empty, a
// well-known surprise; kinformer's objects always say what they are.)
//
// A metadata-only answer says what it is (PartialObjectMetadata,
// meta.k8s.io/v1), which is kept; an item without a kind gets that too.
// An *api.Unstructured is set through its setters, so its Object says it
// as well.
func (r Resource) setKind(obj api.Object) {
	kind, apiVersion := r.Kind, r.GroupVersion()
	if r.MetadataOnly {
		kind, apiVersion = partialObjectMetadataKind, metaV1
	}
	tm := obj.GetObjectKind()
	setKind, setAPIVersion := func(k string) { tm.Kind = k }, func(v string) { tm.APIVersion = v }
	if u, ok := obj.(*api.Unstructured); ok {
		setKind, setAPIVersion = u.SetKind, u.SetAPIVersion
	}
	if tm.Kind == "" {
		setKind(kind)
	}
	if tm.APIVersion == "" {
		setAPIVersion(apiVersion)
	}
}
