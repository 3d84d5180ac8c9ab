package api

// Namespace scopes names: two objects of one kind may share a name only in
// different namespaces (core/v1, itself cluster-scoped).
type Namespace struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       NamespaceSpec   `json:"spec,omitzero"`
	Status     NamespaceStatus `json:"status,omitzero"`
}

// NamespaceSpec lists the finalizers that must run before the namespace goes.
type NamespaceSpec struct {
	Finalizers []string `json:"finalizers,omitempty"`
}

// NamespaceStatus says whether the namespace is Active or Terminating.
type NamespaceStatus struct {
	Phase NamespacePhase `json:"phase,omitempty"`
}

// NamespacePhase is Active or Terminating.
type NamespacePhase string

const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// DeepCopy returns a copy of ns that shares nothing with it.
func (ns *Namespace) DeepCopy() *Namespace {
	if ns == nil {
		return nil
	}
	c := new(Namespace)
	c.TypeMeta = ns.TypeMeta
	ns.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Finalizers = copySlice(ns.Spec.Finalizers)
	c.Status = ns.Status
	return c
}

// DeepCopyObject implements Object.
func (ns *Namespace) DeepCopyObject() Object { return ns.DeepCopy() }
