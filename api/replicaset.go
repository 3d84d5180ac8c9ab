package api

// ReplicaSet keeps a number of identical Pods running (apps/v1).
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       ReplicaSetSpec   `json:"spec"`
	Status     ReplicaSetStatus `json:"status"`
}

// ReplicaSetSpec is the desired state of a ReplicaSet: how many Pods, which
// Pods count (Selector), and what a new Pod looks like (Template).
type ReplicaSetSpec struct {
	Replicas *int32          `json:"replicas,omitempty"`
	Selector *LabelSelector  `json:"selector"`
	Template PodTemplateSpec `json:"template"`
}

// PodTemplateSpec is the metadata and spec of the Pods a controller creates.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata"`
	Spec       PodSpec `json:"spec"`
}

// ReplicaSetStatus is what the ReplicaSet controller last observed.
type ReplicaSetStatus struct {
	Replicas           int32 `json:"replicas"`
	ReadyReplicas      int32 `json:"readyReplicas,omitempty"`
	AvailableReplicas  int32 `json:"availableReplicas,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// LabelSelector is the structured label selector of API objects (the
// "selector" of a ReplicaSet): every matchLabels pair and every
// matchExpressions requirement must hold. AsSelector turns it into a
// Selector that can match.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector, e.g.
// {key: tier, operator: In, values: [web, api]}.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	Values   []string              `json:"values,omitempty"`
}

// LabelSelectorOperator is In, NotIn, Exists or DoesNotExist.
type LabelSelectorOperator string

const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// DeepCopy returns a copy of rs that shares nothing with it.
func (rs *ReplicaSet) DeepCopy() *ReplicaSet {
	if rs == nil {
		return nil
	}
	c := new(ReplicaSet)
	c.TypeMeta = rs.TypeMeta
	rs.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Replicas = copyPtr(rs.Spec.Replicas)
	c.Spec.Selector = rs.Spec.Selector.DeepCopy()
	rs.Spec.Template.ObjectMeta.DeepCopyInto(&c.Spec.Template.ObjectMeta)
	rs.Spec.Template.Spec.DeepCopyInto(&c.Spec.Template.Spec)
	c.Status = rs.Status
	return c
}

// DeepCopyObject implements Object.
func (rs *ReplicaSet) DeepCopyObject() Object { return rs.DeepCopy() }

// DeepCopy returns a copy of s that shares nothing with it.
func (s *LabelSelector) DeepCopy() *LabelSelector {
	if s == nil {
		return nil
	}
	c := &LabelSelector{MatchLabels: copyMap(s.MatchLabels)}
	if s.MatchExpressions != nil {
		c.MatchExpressions = make([]LabelSelectorRequirement, len(s.MatchExpressions))
		for i, r := range s.MatchExpressions {
			r.Values = copySlice(r.Values)
			c.MatchExpressions[i] = r
		}
	}
	return c
}
