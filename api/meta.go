package api

// TypeMeta names an object's schema: its kind and the group/version it belongs
// to. It is embedded inline, so on the wire it is the top-level "kind" and
// "apiVersion" fields.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetObjectKind returns the TypeMeta itself, so callers can read and set the
// kind and apiVersion of any Object.
func (t *TypeMeta) GetObjectKind() *TypeMeta { return t }

// Group returns the API group of APIVersion: "apps" for "apps/v1", "" for "v1".
func (t *TypeMeta) Group() string {
	for i := 0; i < len(t.APIVersion); i++ {
		if t.APIVersion[i] == '/' {
			return t.APIVersion[:i]
		}
	}
	return ""
}

// ObjectMeta is the "metadata" of every persisted object.
//
// The server owns uid, resourceVersion, generation, creationTimestamp and
// deletionTimestamp: it sets them and ignores what a client sends.
// resourceVersion is an opaque string that changes on every write; clients
// may only compare two for equality and hand one back to the server.
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          Time              `json:"creationTimestamp,omitzero"`
	DeletionTimestamp          *Time             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
}

// OwnerReference points from a dependent to its owner, e.g. from a Pod to
// the ReplicaSet that created it. Controller marks the one managing owner.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ListMeta is the "metadata" of a list. ResourceVersion is the version of the
// whole list (the point to start a watch from); Continue, when not empty,
// fetches the next page of the same snapshot; RemainingItemCount estimates
// how many items the later pages hold.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// Accessors. They are promoted to every type that embeds ObjectMeta, which is
// how each resource satisfies Object.

func (m *ObjectMeta) GetObjectMeta() *ObjectMeta               { return m }
func (m *ObjectMeta) GetName() string                          { return m.Name }
func (m *ObjectMeta) SetName(name string)                      { m.Name = name }
func (m *ObjectMeta) GetGenerateName() string                  { return m.GenerateName }
func (m *ObjectMeta) GetNamespace() string                     { return m.Namespace }
func (m *ObjectMeta) SetNamespace(ns string)                   { m.Namespace = ns }
func (m *ObjectMeta) GetUID() string                           { return m.UID }
func (m *ObjectMeta) GetResourceVersion() string               { return m.ResourceVersion }
func (m *ObjectMeta) SetResourceVersion(rv string)             { m.ResourceVersion = rv }
func (m *ObjectMeta) GetGeneration() int64                     { return m.Generation }
func (m *ObjectMeta) GetCreationTimestamp() Time               { return m.CreationTimestamp }
func (m *ObjectMeta) GetDeletionTimestamp() *Time              { return m.DeletionTimestamp }
func (m *ObjectMeta) GetLabels() map[string]string             { return m.Labels }
func (m *ObjectMeta) SetLabels(labels map[string]string)       { m.Labels = labels }
func (m *ObjectMeta) GetAnnotations() map[string]string        { return m.Annotations }
func (m *ObjectMeta) SetAnnotations(a map[string]string)       { m.Annotations = a }
func (m *ObjectMeta) GetOwnerReferences() []OwnerReference     { return m.OwnerReferences }
func (m *ObjectMeta) SetOwnerReferences(refs []OwnerReference) { m.OwnerReferences = refs }
func (m *ObjectMeta) GetFinalizers() []string                  { return m.Finalizers }
func (m *ObjectMeta) SetFinalizers(f []string)                 { m.Finalizers = f }

// DeepCopy returns a copy of m that shares no maps or slices with it.
func (m *ObjectMeta) DeepCopy() *ObjectMeta {
	if m == nil {
		return nil
	}
	c := new(ObjectMeta)
	m.DeepCopyInto(c)
	return c
}

// DeepCopyInto copies m into out, sharing nothing.
func (m *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *m
	out.DeletionTimestamp = m.DeletionTimestamp.DeepCopy()
	out.DeletionGracePeriodSeconds = copyPtr(m.DeletionGracePeriodSeconds)
	out.Labels = copyMap(m.Labels)
	out.Annotations = copyMap(m.Annotations)
	if m.OwnerReferences != nil {
		out.OwnerReferences = make([]OwnerReference, len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			r.Controller = copyPtr(r.Controller)
			r.BlockOwnerDeletion = copyPtr(r.BlockOwnerDeletion)
			out.OwnerReferences[i] = r
		}
	}
	out.Finalizers = copySlice(m.Finalizers)
}

// GetControllerOf returns the owner reference marked Controller, or nil.
func GetControllerOf(obj Object) *OwnerReference {
	for i, r := range obj.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller {
			return &obj.GetOwnerReferences()[i]
		}
	}
	return nil
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func copySlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
