package fakeapiserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// How the real server's decoder answers a body (or a patched object) whose
// apiVersion and kind are not the endpoint's. It fills what the body leaves
// out from the endpoint (gvkWithDefaults), then asks its scheme for a Go
// type of that version and kind: with none, `no kind "Pod" is registered
// for version "apps/v1" in scheme "..."`; with one (another kind of a
// version it serves), it decodes and then fails to convert,
// `converting (v1.ConfigMap) to (core.Pod): unknown conversion`
// (15-differential: create-invalid/apiversion-wrong, create-invalid/kind-wrong,
// update/kind-wrong, patch-invalid/kind-change, patch-invalid/apiversion-change).
// The scheme the fake knows is schemeKinds: the kinds kube-apiserver 1.36
// registers for core v1 and apps/v1 (the built-in kinds the fake serves
// live there).

// Scheme names as the real messages print them: a create's or update's
// body is decoded through one (recorded, 15-differential), a patched
// object through the legacy scheme (testdata/kube-apiserver-1.36-source/01-metadata.txt).
const (
	bodyDecodeScheme  = "pkg/runtime/scheme.go:111"
	patchDecodeScheme = "pkg/api/legacyscheme/scheme.go:30"
)

// schemeKinds are the kinds registered per group/version, besides the
// options kinds every version has (optionsKinds).
var schemeKinds = map[string][]string{
	"v1": {"Binding", "ComponentStatus", "ConfigMap", "Endpoints", "EphemeralContainers", "Event",
		"LimitRange", "List", "Namespace", "Node", "NodeProxyOptions", "PersistentVolume",
		"PersistentVolumeClaim", "Pod", "PodAttachOptions", "PodExecOptions", "PodLogOptions",
		"PodPortForwardOptions", "PodProxyOptions", "PodStatusResult", "PodTemplate",
		"RangeAllocation", "ReplicationController", "ResourceQuota", "Secret", "SerializedReference",
		"Service", "ServiceAccount", "ServiceProxyOptions"},
	"apps/v1": {"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"},
}

// optionsKinds are registered in every version the scheme serves
// (metav1.AddToGroupVersion).
var optionsKinds = []string{"CreateOptions", "DeleteOptions", "GetOptions", "ListOptions", "PatchOptions", "UpdateOptions", "WatchEvent"}

// schemeKnows reports whether the scheme has a type for kind in gv
// (lists included: "PodList").
func schemeKnows(gv, kind string) bool {
	kinds, ok := schemeKinds[gv]
	if !ok {
		return false
	}
	base := strings.TrimSuffix(kind, "List")
	return slices.Contains(kinds, kind) || (base != kind && slices.Contains(kinds, base)) || slices.Contains(optionsKinds, kind)
}

// bodyGVK is the version and kind a body declares, completed from the
// endpoint's.
type bodyGVK struct{ group, version, kind string }

func (g bodyGVK) groupVersion() string {
	if g.group == "" {
		return g.version
	}
	return g.group + "/" + g.version
}

// declaredKind reads apiVersion and kind as the decoder does
// (schema.ParseGroupVersion, then gvkWithDefaults).
func declaredKind(r *resource, apiVersion, kind string) (bodyGVK, error) {
	var g bodyGVK
	switch strings.Count(apiVersion, "/") {
	case 0:
		g.version = apiVersion
	case 1:
		g.group, g.version, _ = strings.Cut(apiVersion, "/")
	default:
		return g, fmt.Errorf("unexpected GroupVersion string: %s", apiVersion)
	}
	if apiVersion == "/" {
		g = bodyGVK{}
	}
	g.kind = kind
	if g.kind == "" {
		g.kind = r.Kind
	}
	if g.version == "" && (g.group == "" || g.group == r.Group) {
		g.group, g.version = r.Group, r.Version
	}
	return g, nil
}

// isEndpoint: the declared kind is the endpoint's own.
func (g bodyGVK) isEndpoint(r *resource) bool {
	return g.group == r.Group && g.version == r.Version && g.kind == r.Kind
}

// decodeKindMessage is the decoder's error for a declared kind that is not
// the endpoint's (the Go type names as the real packages spell them: the
// external v1.X, the internal core.X or apps.X).
func decodeKindMessage(r *resource, g bodyGVK, scheme string) string {
	if schemeKnows(g.groupVersion(), g.kind) {
		internal := "core"
		if r.Group != "" {
			internal, _, _ = strings.Cut(r.Group, ".")
		}
		return fmt.Sprintf("converting (%s.%s) to (%s.%s): unknown conversion", g.version, g.kind, internal, r.Kind)
	}
	return fmt.Sprintf("no kind %q is registered for version %q in scheme %q", g.kind, g.groupVersion(), scheme)
}

// checkTypeMeta fills in kind and apiVersion if the body left them out (or
// left them empty) and rejects a body meant for another resource: for a
// built-in kind with the real decoder's words.
func checkTypeMeta(r *resource, obj map[string]any) *api.Status {
	switch {
	case builtinKind(r):
		version, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		g, err := declaredKind(r, version, kind)
		if err != nil {
			// The real message quotes the body as sent; the fake has only
			// the decoded object, re-encoded.
			return errBadRequest("the object provided is unrecognized (must be of type %s): %v (%s)", r.Kind, err, summarizeBody(encodeObject(obj)))
		}
		if !g.isEndpoint(r) {
			return errBadRequest("%s in version %q cannot be handled as a %s: %s", g.kind, g.version, r.Kind, decodeKindMessage(r, g, bodyDecodeScheme))
		}
	case obj["apiVersion"] != nil && obj["apiVersion"] != r.GroupVersion():
		return errBadRequest("the API version in the data (%v) does not match the expected API version (%s)", obj["apiVersion"], r.GroupVersion())
	case obj["kind"] != nil && obj["kind"] != r.Kind:
		return errBadRequest("the kind in the data (%v) does not match the expected kind (%s) of this endpoint", obj["kind"], r.Kind)
	}
	obj["apiVersion"] = r.GroupVersion()
	obj["kind"] = r.Kind
	return nil
}

// checkPatchedTypeMeta answers a patch that changes kind or apiVersion as
// the real server does: a JSON or merge patch's result is decoded by the
// codec, which looks the new kind up in its scheme and fails (422 on the
// field "patch", quoting the result as patchedJSON renders it); a strategic
// merge patch's result goes through the unstructured converter into the
// typed object, which ignores both.
func checkPatchedTypeMeta(r *resource, pt PatchType, original, patched map[string]any, body []byte) *api.Status {
	kind, _ := patched["kind"].(string)
	version, _ := patched["apiVersion"].(string)
	if pt != StrategicMergePatchType && (kind != r.Kind || version != r.GroupVersion()) {
		msg := fmt.Sprintf("no kind %q is registered for version %q in scheme %q", kind, version, patchDecodeScheme)
		if builtinKind(r) && kind != "" && version != "" {
			if g, err := declaredKind(r, version, kind); err != nil {
				msg = err.Error()
			} else {
				msg = decodeKindMessage(r, g, patchDecodeScheme)
			}
		}
		return errInvalid("", "", "", []api.StatusCause{invalid("patch", patchedJSON(pt, original, patched, body), msg)})
	}
	patched["kind"] = r.Kind
	patched["apiVersion"] = r.GroupVersion()
	return nil
}
