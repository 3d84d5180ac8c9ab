package patch

// MergeKeys tells StrategicMergePatch which lists to merge instead of
// replace, standing in for the patchStrategy/patchMergeKey struct tags that
// real Kubernetes reads from its Go types (or its OpenAPI schema).
//
// A key is the list's path: the field names from the object's root joined
// with dots, with no array indices, so a list inside list elements is
// addressed through its parent's path: "spec.containers" names the
// containers list and "spec.containers.env" the env list of every container.
// A value is one of:
//
//   - the name of the field that identifies an element: "name" for
//     containers, "type" for conditions, "uid" for ownerReferences. Patch
//     elements are matched to the object's elements by that field and merged
//     with them; unmatched patch elements are added.
//   - MergeAsSet, for a list of strings or numbers merged as a set
//     (Kubernetes' patchStrategy:"merge" without a patchMergeKey, as on
//     metadata.finalizers): the patch's values are added, duplicates dropped.
//
// Every list whose path is not a key is replaced whole, as in a merge patch.
// (Kubernetes calls such lists atomic; tolerations are one.)
type MergeKeys map[string]string

// MergeAsSet, as a MergeKeys value, declares a list of primitives merged as
// a set. It is not a valid field name, so it cannot be mistaken for one.
const MergeAsSet = "$set"

// DefaultMergeKeys lists the lists Kubernetes merges in the four resources
// the fake API server serves (Pod, ReplicaSet, ConfigMap, Namespace), taken
// from the patchStrategy:"merge" tags in k8s.io/api: a Pod's spec at "spec",
// the same PodSpec inside a ReplicaSet at "spec.template.spec", ObjectMeta at
// "metadata" and "spec.template.metadata", and the status conditions of
// Pods, ReplicaSets and Namespaces. Lists that Kubernetes keeps atomic, such
// as tolerations, containerStatuses and a Namespace's spec.finalizers, are
// left out on purpose: a patch replaces them.
//
// Treat it as read-only; copy it (maps.Clone) to add paths.
var DefaultMergeKeys = defaultMergeKeys()

func defaultMergeKeys() MergeKeys {
	keys := MergeKeys{
		"status.conditions": "type", // Pod, ReplicaSet and Namespace conditions
		"status.podIPs":     "ip",
		"status.hostIPs":    "ip",
	}
	for _, meta := range []string{"metadata", "spec.template.metadata"} {
		keys[meta+".finalizers"] = MergeAsSet
		keys[meta+".ownerReferences"] = "uid"
	}
	// A Pod's own spec, and the pod template's spec inside a ReplicaSet.
	for _, spec := range []string{"spec", "spec.template.spec"} {
		keys[spec+".volumes"] = "name"
		keys[spec+".imagePullSecrets"] = "name"
		keys[spec+".hostAliases"] = "ip"
		keys[spec+".schedulingGates"] = "name"
		keys[spec+".resourceClaims"] = "name"
		keys[spec+".topologySpreadConstraints"] = "topologyKey"
		for _, containers := range []string{"containers", "initContainers", "ephemeralContainers"} {
			list := spec + "." + containers
			keys[list] = "name"
			keys[list+".env"] = "name"
			keys[list+".ports"] = "containerPort"
			keys[list+".volumeMounts"] = "mountPath"
			keys[list+".volumeDevices"] = "devicePath"
		}
	}
	return keys
}
