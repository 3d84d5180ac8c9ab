package api

import "reflect"

// Object is any Kubernetes object kinformer handles: its kind, its metadata
// and a deep copy. Every resource type in this package implements it through
// the embedded TypeMeta and ObjectMeta.
//
// It plays the part of client-go's runtime.Object plus metav1.Object. The
// setters are few on purpose: code that needs to change metadata reaches it
// through GetObjectMeta.
type Object interface {
	GetObjectKind() *TypeMeta
	GetObjectMeta() *ObjectMeta

	GetName() string
	GetGenerateName() string
	GetNamespace() string
	GetUID() string
	GetResourceVersion() string
	SetResourceVersion(string)
	GetGeneration() int64
	GetCreationTimestamp() Time
	GetDeletionTimestamp() *Time
	GetLabels() map[string]string
	GetAnnotations() map[string]string
	GetOwnerReferences() []OwnerReference
	GetFinalizers() []string

	// DeepCopyObject returns a copy that shares no memory with the original.
	DeepCopyObject() Object
}

// IsNil reports whether obj is nil or a nil pointer in an interface (a
// (*Pod)(nil) stored in an Object is not == nil, and calling its accessors
// would panic).
func IsNil(obj Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// List is a page of objects of one kind, as a list request answers it:
// {"kind":"PodList","apiVersion":"v1","metadata":{...},"items":[...]}.
type List[T Object] struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []T `json:"items"`
}

// The lists of the four resources.
type (
	PodList        = List[*Pod]
	ReplicaSetList = List[*ReplicaSet]
	ConfigMapList  = List[*ConfigMap]
	NamespaceList  = List[*Namespace]
)

// Well-known names.
const (
	// NamespaceDefault is where objects go when no namespace is given.
	NamespaceDefault = "default"
	// NamespaceAll, as a namespace, means every namespace.
	NamespaceAll = ""
	// NamespaceSystem holds the cluster's own components.
	NamespaceSystem = "kube-system"
	// NamespacePublic is readable by everyone.
	NamespacePublic = "kube-public"
)
