package api

// Compaction after decoding.
//
// A cached object lives for as long as the informer runs, so every byte
// encoding/json leaves behind is paid for once per cached object. It leaves
// three kinds of waste that compactAfterDecode removes, without changing
// any value the object holds (TestCompactAfterDecode_RoundTrips):
//
//   - slices grown by appending: json grows a slice as it meets elements,
//     so five pod conditions sit in a backing array with room for eight.
//     Each such slice is copied into one of exactly its length.
//   - repeated strings: label and annotation keys and values, owner
//     references, images, condition types... are the same across the pods
//     of a workload but decoded into fresh copies; they are interned
//     (intern.go).
//   - maps: the keys and values of labels and annotations are interned
//     in place (the maps themselves cannot be shared: they are mutable).
//
// It is a named step, CompactAfterDecode, that package listwatch calls on
// every object it decodes (an object with the method: Pod,
// PartialObjectMetadata, or a program's own type), so the mechanism is
// visible and costs one walk over the decoded object. json.Unmarshal alone
// does not compact: an UnmarshalJSON method would have made encoding/json
// scan each pod twice more (once to find its end, once to check it again
// before decoding), which cost more time than the compaction itself
// (docs/performance.md, "What was tried").

// CompactAfterDecode drops what decoding p left behind beyond the values
// it holds: slack capacity and duplicate strings. Every value stays the
// same (TestCompactAfterDecode_RoundTrips). listwatch calls it on each pod
// it decodes; call it yourself on a pod you decode and keep for long.
func (p *Pod) CompactAfterDecode() { p.compactAfterDecode() }

// CompactAfterDecode interns p's metadata: a metadata informer caches
// nothing else.
func (p *PartialObjectMetadata) CompactAfterDecode() {
	in := decodeInterner
	p.TypeMeta.compactAfterDecode(in)
	p.ObjectMeta.compactAfterDecode(in)
}

// compactAfterDecode drops what decoding p left behind beyond the values it
// holds: slack capacity, duplicate strings, oversized maps.
func (p *Pod) compactAfterDecode() {
	in := decodeInterner
	p.TypeMeta.compactAfterDecode(in)
	p.ObjectMeta.compactAfterDecode(in)
	p.Spec.compactAfterDecode(in)
	s := &p.Status
	s.Phase = PodPhase(in.intern(string(s.Phase)))
	s.Conditions = exactSlice(s.Conditions)
	for i := range s.Conditions {
		c := &s.Conditions[i]
		c.Type = PodConditionType(in.intern(string(c.Type)))
		c.Status = ConditionStatus(in.intern(string(c.Status)))
		c.Reason = in.intern(c.Reason)
		c.Message = in.intern(c.Message)
	}
}

func (t *TypeMeta) compactAfterDecode(in *interner) {
	t.Kind = in.intern(t.Kind)
	t.APIVersion = in.intern(t.APIVersion)
}

// compactAfterDecode interns the metadata that repeats across objects
// (namespace, generateName, labels, annotations, owners, finalizers) and
// leaves what is unique to the object (name, uid, resourceVersion) alone.
func (m *ObjectMeta) compactAfterDecode(in *interner) {
	m.Namespace = in.intern(m.Namespace)
	m.GenerateName = in.intern(m.GenerateName)
	m.Labels = in.internMap(m.Labels)
	m.Annotations = in.internMap(m.Annotations)
	m.OwnerReferences = exactSlice(m.OwnerReferences)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion = in.intern(r.APIVersion)
		r.Kind = in.intern(r.Kind)
		r.Name = in.intern(r.Name)
		r.UID = in.intern(r.UID)
	}
	m.Finalizers = exactSlice(m.Finalizers)
	for i, f := range m.Finalizers {
		m.Finalizers[i] = in.intern(f)
	}
}

func (s *PodSpec) compactAfterDecode(in *interner) {
	s.Containers = exactSlice(s.Containers)
	for i := range s.Containers {
		c := &s.Containers[i]
		c.Name = in.intern(c.Name)
		c.Image = in.intern(c.Image)
	}
	s.NodeName = in.intern(s.NodeName)
	s.RestartPolicy = RestartPolicy(in.intern(string(s.RestartPolicy)))
}

// exactSlice returns s in a backing array of exactly len(s), copying only
// if s has spare capacity. nil and empty stay as they are, so a decoded []
// stays non-nil and a missing field stays nil.
func exactSlice[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}
