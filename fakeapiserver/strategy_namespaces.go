package fakeapiserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The namespace strategy: kube-apiserver's
// pkg/registry/core/namespace/strategy.go (namespaceStrategy,
// namespaceStatusStrategy, namespaceFinalizeStrategy) with the rules of
// ValidateNamespace, ValidateNamespaceStatusUpdate and
// ValidateNamespaceFinalizeUpdate. A namespace's spec.finalizers change
// only through /finalize (validateNamespaceFinalize); an update or a
// /status write keeps them.
var namespaceStrategy = strategy{
	Default: defaultNamespace,
	// PrepareForCreate: the status is Active, and the "kubernetes"
	// finalizer is added when the body lacks it (on create only: it may be
	// removed later through /finalize).
	InitialStatus: func(obj map[string]any) map[string]any {
		spec := ensureMap(obj, "spec")
		finalizers, _ := spec["finalizers"].([]any)
		if !slices.Contains(finalizers, any(namespaceFinalizerKubernetes)) {
			spec["finalizers"] = append(finalizers, namespaceFinalizerKubernetes)
		}
		return map[string]any{"phase": "Active"}
	},
	// ValidateNamespace, on create and on every update of the main
	// resource (namespaceStrategy.ValidateUpdate runs it again).
	Validate: validateNamespace,
	PrepareForUpdate: func(obj, old map[string]any) {
		copyNamespaceFinalizers(obj, old)
	},
	// The body's status decodes with SetDefaults_NamespaceStatus: an empty
	// phase is Active.
	PrepareForStatusUpdate: func(obj, _ map[string]any) {
		status := ensureMap(obj, "status")
		if stringAt(status, "phase") == "" {
			status["phase"] = "Active"
		}
	},
	ValidateStatusUpdate: validateNamespaceStatusUpdate,
}

const namespaceFinalizerKubernetes = "kubernetes"

// namespaceStandardFinalizers are the finalizer names that need no
// domain prefix (helper.IsStandardFinalizerName).
var namespaceStandardFinalizers = []string{namespaceFinalizerKubernetes, "orphan", "foregroundDeletion"}

func defaultNamespace(obj map[string]any) {
	meta := ensureMap(obj, "metadata")
	labels := ensureMap(meta, "labels")
	labels["kubernetes.io/metadata.name"] = stringAt(meta, "name")
}

// copyNamespaceFinalizers keeps old's spec.finalizers (and no more of the
// spec, which has nothing else).
func copyNamespaceFinalizers(obj, old map[string]any) {
	oldSpec := mapAt(old, "spec")
	if _, ok := oldSpec["finalizers"]; !ok {
		if spec := mapAt(obj, "spec"); spec != nil {
			delete(spec, "finalizers")
			if len(spec) == 0 {
				delete(obj, "spec")
			}
		}
		return
	}
	copyField(ensureMap(obj, "spec"), oldSpec, "finalizers")
}

// validateNamespaceFinalizerName is validateFinalizerName: a qualified
// name (apimachinery's ValidateFinalizerName) that, without a domain
// prefix, must be a standard one (validateKubeFinalizerName).
func validateNamespaceFinalizerName(name, field string) []api.StatusCause {
	var causes []api.StatusCause
	if msg := isQualifiedName(name); msg != "" {
		causes = append(causes, invalid(field, name, msg))
	}
	if !strings.Contains(name, "/") && !slices.Contains(namespaceStandardFinalizers, name) {
		causes = append(causes, invalid(field, name, "name is neither a standard finalizer name nor is it fully qualified"))
	}
	return causes
}

// validateNamespace is ValidateNamespace beyond the metadata: each of
// spec.finalizers, reported on the list's path (no index).
func validateNamespace(obj map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	for _, f := range stringList(valueAt(obj, "spec", "finalizers")) {
		causes = append(causes, validateNamespaceFinalizerName(f, "spec.finalizers")...)
	}
	return causes
}

// validateNamespaceFinalize is ValidateNamespaceFinalizeUpdate beyond the
// metadata: each of spec.finalizers, reported at its index. It is the
// check of PUT /api/v1/namespaces/{name}/finalize.
func validateNamespaceFinalize(obj, _ map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	for i, f := range stringList(valueAt(obj, "spec", "finalizers")) {
		causes = append(causes, validateNamespaceFinalizerName(f, fmt.Sprintf("spec.finalizers[%d]", i))...)
	}
	return causes
}

// validateNamespaceStatusUpdate is ValidateNamespaceStatusUpdate: the
// phase is Active while the namespace is not being deleted, Terminating
// once it is. The field is "status.Phase", capital P, as the real server
// spells it.
func validateNamespaceStatusUpdate(obj, _ map[string]any) []api.StatusCause {
	phase := stringAt(mapAt(obj, "status"), "phase")
	if valueAt(obj, "metadata", "deletionTimestamp") == nil {
		if phase != "Active" {
			return []api.StatusCause{invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")}
		}
	} else if phase != "Terminating" {
		return []api.StatusCause{invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")}
	}
	return nil
}
