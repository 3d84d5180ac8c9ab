package api

// Pod is a group of containers scheduled together (core/v1).
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       PodSpec   `json:"spec"`
	Status     PodStatus `json:"status"`
}

// PodSpec is the desired state of a Pod.
type PodSpec struct {
	Containers    []Container   `json:"containers"`
	NodeName      string        `json:"nodeName,omitempty"`
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
}

// Container is one container of a Pod.
type Container struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

// RestartPolicy says when the kubelet restarts a Pod's containers.
type RestartPolicy string

const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// PodStatus is the observed state of a Pod.
type PodStatus struct {
	Phase      PodPhase       `json:"phase,omitempty"`
	Conditions []PodCondition `json:"conditions,omitempty"`
	PodIP      string         `json:"podIP,omitempty"`
}

// PodPhase is the coarse lifecycle stage of a Pod.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodCondition is one observed aspect of a Pod, such as Ready.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitzero"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitzero"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// PodConditionType names a PodCondition.
type PodConditionType string

const (
	PodScheduled    PodConditionType = "PodScheduled"
	PodInitialized  PodConditionType = "Initialized"
	ContainersReady PodConditionType = "ContainersReady"
	PodReady        PodConditionType = "Ready"
)

// ConditionStatus is "True", "False" or "Unknown".
type ConditionStatus string

const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// IsPodReady reports whether the Pod's Ready condition is True.
func IsPodReady(p *Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == PodReady {
			return c.Status == ConditionTrue
		}
	}
	return false
}

// DeepCopy returns a copy of p that shares nothing with it.
func (p *Pod) DeepCopy() *Pod {
	if p == nil {
		return nil
	}
	c := new(Pod)
	c.TypeMeta = p.TypeMeta
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	p.Spec.DeepCopyInto(&c.Spec)
	c.Status = p.Status
	c.Status.Conditions = copySlice(p.Status.Conditions)
	return c
}

// DeepCopyObject implements Object.
func (p *Pod) DeepCopyObject() Object { return p.DeepCopy() }

// DeepCopyInto copies s into out, sharing nothing.
func (s *PodSpec) DeepCopyInto(out *PodSpec) {
	*out = *s
	out.Containers = copySlice(s.Containers)
}
