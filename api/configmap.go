package api

// ConfigMap holds configuration data as string key/value pairs (core/v1).
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
	Immutable  *bool             `json:"immutable,omitempty"`
}

// DeepCopy returns a copy of cm that shares nothing with it.
func (cm *ConfigMap) DeepCopy() *ConfigMap {
	if cm == nil {
		return nil
	}
	c := new(ConfigMap)
	c.TypeMeta = cm.TypeMeta
	cm.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Data = copyMap(cm.Data)
	if cm.BinaryData != nil {
		c.BinaryData = make(map[string][]byte, len(cm.BinaryData))
		for k, v := range cm.BinaryData {
			c.BinaryData[k] = copySlice(v)
		}
	}
	c.Immutable = copyPtr(cm.Immutable)
	return c
}

// DeepCopyObject implements Object.
func (cm *ConfigMap) DeepCopyObject() Object { return cm.DeepCopy() }
