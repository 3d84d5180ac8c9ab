package fastdecode

import "github.com/kinformer/kinformer/api"

// Compaction after decoding.
//
// A cached object lives for as long as the informer runs, so every byte
// decoding leaves behind is paid for once per cached object. It leaves
// three kinds of waste that Compact removes, without changing any value
// the object holds (TestCompact_RoundTrips):
//
//   - slices grown by appending: json grows a slice as it meets elements,
//     so five pod conditions sit in a backing array with room for eight.
//     Each such slice is copied into one of exactly its length.
//   - repeated strings: label and annotation keys and values, owner
//     references, images, condition types... are the same across the pods
//     of a workload but decoded into fresh copies by encoding/json; they
//     are interned (intern.go; a Decoder interns them as it decodes).
//   - maps: the keys and values of labels and annotations are interned
//     in place (the maps themselves cannot be shared: they are mutable).
//
// It is a named step that the fast path takes on every object it decodes,
// so the mechanism is visible and costs one walk over the decoded object.
// It is not an UnmarshalJSON method on the types: that would have made
// encoding/json scan each pod twice more (once to find its end, once to
// check it again before decoding), which cost more time than the
// compaction itself (docs/performance.md, "What was tried"). Nor is it a
// method of package api: it is how one decoder keeps its objects small,
// not something a reader of the API types needs to see.

// Compact drops what decoding obj left behind beyond the values it holds:
// slack capacity and duplicate strings. Every value stays the same
// (TestCompact_RoundTrips). It knows *api.Pod and *api.PartialObjectMetadata
// (a metadata informer caches nothing else); a program's own type is
// compacted by its CompactAfterDecode method, if it has one. Other objects
// are left as they are.
//
// It is for objects decoded by encoding/json (a Get's answer, a frame
// the fast decoder refused): a Decoder interns strings as it decodes them
// and compacts its objects' lists itself.
func Compact(obj any) { compact(obj, true) }

// compact is Compact, interning strings (into sharedStrings) if intern.
func compact(obj any, intern bool) {
	var in *stringTable
	if intern {
		in = &sharedStrings
	}
	switch o := obj.(type) {
	case *api.Pod:
		compactPod(o, in)
	case *api.PartialObjectMetadata:
		compactTypeMeta(&o.TypeMeta, in)
		compactObjectMeta(&o.ObjectMeta, in)
	case compacter:
		o.CompactAfterDecode()
	}
}

// compacter is a program's own type that compacts itself after decoding.
type compacter interface{ CompactAfterDecode() }

// The functions below trim every list to its length and, if in is not
// nil, intern the strings objects repeat through it.

func compactPod(p *api.Pod, in *stringTable) {
	compactTypeMeta(&p.TypeMeta, in)
	compactObjectMeta(&p.ObjectMeta, in)
	compactPodSpec(&p.Spec, in)
	s := &p.Status
	s.Conditions = exactSlice(s.Conditions)
	if in == nil {
		return
	}
	s.Phase = api.PodPhase(in.intern(string(s.Phase)))
	for i := range s.Conditions {
		c := &s.Conditions[i]
		c.Type = api.PodConditionType(in.intern(string(c.Type)))
		c.Status = api.ConditionStatus(in.intern(string(c.Status)))
		c.Reason = in.intern(c.Reason)
		c.Message = in.intern(c.Message)
	}
}

func compactTypeMeta(t *api.TypeMeta, in *stringTable) {
	if in == nil {
		return
	}
	t.Kind = in.intern(t.Kind)
	t.APIVersion = in.intern(t.APIVersion)
}

// compactObjectMeta interns the metadata that repeats across objects
// (namespace, generateName, labels, annotations, owners, finalizers) and
// leaves what is unique to the object (name, uid, resourceVersion) alone.
func compactObjectMeta(m *api.ObjectMeta, in *stringTable) {
	m.OwnerReferences = exactSlice(m.OwnerReferences)
	m.Finalizers = exactSlice(m.Finalizers)
	if in == nil {
		return
	}
	m.Namespace = in.intern(m.Namespace)
	m.GenerateName = in.intern(m.GenerateName)
	m.Labels = in.internMap(m.Labels)
	m.Annotations = in.internMap(m.Annotations)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion = in.intern(r.APIVersion)
		r.Kind = in.intern(r.Kind)
		r.Name = in.intern(r.Name)
		r.UID = in.intern(r.UID)
	}
	for i, f := range m.Finalizers {
		m.Finalizers[i] = in.intern(f)
	}
}

func compactPodSpec(s *api.PodSpec, in *stringTable) {
	s.Containers = exactSlice(s.Containers)
	if in == nil {
		return
	}
	for i := range s.Containers {
		c := &s.Containers[i]
		c.Name = in.intern(c.Name)
		c.Image = in.intern(c.Image)
	}
	s.NodeName = in.intern(s.NodeName)
	s.RestartPolicy = api.RestartPolicy(in.intern(string(s.RestartPolicy)))
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
