package api

// PartialObjectMetadata is an object's kind and metadata only: what the
// API server answers instead of the whole object when asked with
//
//	Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1
//
// (and as=PartialObjectMetadataList for a list). It is what client-go's
// metadata client and metadata informer (k8s.io/client-go/metadata,
// metadatainformer) cache: enough to key, index, select by label, follow
// owner references and finalizers, and nothing of spec or status, so a
// cache of many large objects costs a fraction of the memory. See
// listwatch.MetadataOnly and docs/dynamic.md.
//
// As the server sends it, Kind is "PartialObjectMetadata" and APIVersion
// "meta.k8s.io/v1", whatever the resource; the resource is the one the
// request named. Metadata fields ObjectMeta does not declare (managedFields
// and the like) are dropped, which saves more still.
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
}

// PartialObjectMetadataList is a page of PartialObjectMetadata.
type PartialObjectMetadataList = List[*PartialObjectMetadata]

// DeepCopy returns a copy of p that shares nothing with it.
func (p *PartialObjectMetadata) DeepCopy() *PartialObjectMetadata {
	if p == nil {
		return nil
	}
	c := &PartialObjectMetadata{TypeMeta: p.TypeMeta}
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return c
}

// DeepCopyObject implements Object.
func (p *PartialObjectMetadata) DeepCopyObject() Object { return p.DeepCopy() }

var _ Object = (*PartialObjectMetadata)(nil)
