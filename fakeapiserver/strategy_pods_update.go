package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The pod strategy's update and status rules: pkg/apis/core/validation's
// ValidatePodUpdate (a pod's spec is immutable but for a few fields) and
// ValidatePodStatusUpdate, and the pod status strategy's PrepareForUpdate.
// Create-time rules are in strategy_pods.go.

// podUpdatableSpecFields is updatablePodSpecFields, joined with "," as
// ValidatePodUpdate does.
const podUpdatableSpecFields = "`spec.containers[*].image`," +
	"`spec.initContainers[*].image`," +
	"`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodUpdate is the spec part of ValidatePodUpdate (the metadata
// part is validateMetaUpdate, the spec rules of a new pod ran in Validate).
// What it does not repeat: ValidateContainerUpdates' image Required and
// whitespace causes, which Validate already reported (the real server lists
// those causes twice; its message, deduplicated, is the same). What it
// leaves out: the validation of the new tolerations themselves, and the
// nodeSelector and nodeAffinity changes a pod with scheduling gates allows.
//
// Deliberate difference: spec.nodeName may be set once, from empty. On the
// real server only the pods/binding subresource binds a pod; the fake has
// no binding subresource and the demo's kubelet binds with an update.
func validatePodUpdate(obj, old map[string]any) []api.StatusCause {
	spec, oldSpec := mapAt(obj, "spec"), mapAt(old, "spec")
	var causes []api.StatusCause
	for _, key := range []string{"containers", "initContainers"} {
		n, _ := spec[key].([]any)
		o, _ := oldSpec[key].([]any)
		if len(n) != len(o) {
			return append(causes, forbidden("spec."+key, "pod updates may not add or remove containers"))
		}
	}

	// activeDeadlineSeconds: set from nil, or lowered; never removed.
	newADS, newSet := spec["activeDeadlineSeconds"].(json.Number)
	oldADS, oldSet := oldSpec["activeDeadlineSeconds"].(json.Number)
	switch {
	case newSet:
		n, _ := newADS.Int64()
		if n < 0 || n > math.MaxInt32 {
			return append(causes, invalid("spec.activeDeadlineSeconds", newADS, "must be between 0 and 2147483647, inclusive"))
		}
		if o, _ := oldADS.Int64(); oldSet && o < n {
			return append(causes, invalid("spec.activeDeadlineSeconds", newADS, "must be less than or equal to previous value"))
		}
	case oldSet:
		causes = append(causes, invalid("spec.activeDeadlineSeconds", "null", "must not update from a positive integer to nil value"))
	}

	causes = append(causes, validatePodTolerationsAdded(spec, oldSpec)...)
	causes = append(causes, validatePodGatesDeleted(spec, oldSpec)...)

	if podSpecEqual(spec, oldSpec) {
		return causes
	}
	munged := deepCopy(spec).(map[string]any)
	for _, key := range []string{"containers", "initContainers"} {
		n, _ := munged[key].([]any)
		o, _ := oldSpec[key].([]any)
		for i := range n {
			nm, _ := n[i].(map[string]any)
			om, _ := o[i].(map[string]any)
			if nm != nil {
				copyField(nm, om, "image")
			}
		}
	}
	copyField(munged, oldSpec, "activeDeadlineSeconds")
	copyField(munged, oldSpec, "schedulingGates")
	copyField(munged, oldSpec, "tolerations")
	if g, ok := oldSpec["terminationGracePeriodSeconds"].(json.Number); ok && strings.HasPrefix(string(g), "-") &&
		jsonEqual(munged["terminationGracePeriodSeconds"], jsonInt(1)) {
		munged["terminationGracePeriodSeconds"] = g
	}
	if stringAt(oldSpec, "nodeName") == "" {
		copyField(munged, oldSpec, "nodeName") // the fake's stand-in for pods/binding
	}
	if !podSpecEqual(munged, oldSpec) {
		// The real message goes on with "\n" and a cmp.Diff of the old and
		// the munged spec (Go types, internal field names); the fake leaves
		// the diff out.
		causes = append(causes, forbidden("spec", "pod updates may not change fields other than "+podUpdatableSpecFields))
	}
	return causes
}

// podSpecEqual compares two specs as the real server compares its Go
// structs (apiequality.Semantic.DeepEqual): an absent field equals its
// zero value, so "nodeName": "" or "hostNetwork": false is no change.
func podSpecEqual(a, b map[string]any) bool {
	return jsonEqual(podDropZero(deepCopy(a)), podDropZero(deepCopy(b)))
}

// podDropZero removes nulls, empty strings, false, empty lists and empty
// maps below the top level, recursively.
func podDropZero(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e = podDropZero(e)
			switch e := e.(type) {
			case nil:
				delete(v, k)
				continue
			case string:
				if e == "" {
					delete(v, k)
					continue
				}
			case bool:
				if !e {
					delete(v, k)
					continue
				}
			case []any:
				if len(e) == 0 {
					delete(v, k)
					continue
				}
			case map[string]any:
				if len(e) == 0 {
					delete(v, k)
					continue
				}
			}
			v[k] = e
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = podDropZero(e)
		}
		return v
	}
	return v
}

// validatePodTolerationsAdded is validateOnlyAddedTolerations: every old
// toleration must still be there, only its tolerationSeconds may change.
func validatePodTolerationsAdded(spec, oldSpec map[string]any) []api.StatusCause {
	newT, _ := spec["tolerations"].([]any)
	oldT, _ := oldSpec["tolerations"].([]any)
	for _, o := range oldT {
		found := false
		for _, n := range newT {
			om, _ := deepCopy(o).(map[string]any)
			nm, _ := n.(map[string]any)
			if om == nil || nm == nil {
				continue
			}
			copyField(om, nm, "tolerationSeconds")
			if podSpecEqual(om, nm) {
				found = true
				break
			}
		}
		if !found {
			return []api.StatusCause{forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// validatePodGatesDeleted is validateOnlyDeletedSchedulingGates.
func validatePodGatesDeleted(spec, oldSpec map[string]any) []api.StatusCause {
	oldNames := map[string]bool{}
	oldG, _ := oldSpec["schedulingGates"].([]any)
	for _, g := range oldG {
		gm, _ := g.(map[string]any)
		oldNames[stringAt(gm, "name")] = true
	}
	var causes []api.StatusCause
	newG, _ := spec["schedulingGates"].([]any)
	for i, g := range newG {
		gm, _ := g.(map[string]any)
		if name := stringAt(gm, "name"); !oldNames[name] {
			causes = append(causes, forbidden(fmt.Sprintf("spec.schedulingGates[%d].name", i),
				fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", name)))
		}
	}
	return causes
}

// preparePodStatusUpdate is podStatusStrategy.PrepareForUpdate (the
// generic code already kept the spec): ownerReferences are kept from old
// (old kubelets corrupted them), an empty qosClass is backfilled from old.
// It also does what the v1 -> internal conversion does to the pod IPs
// (Convert_v1_PodStatus_To_core_PodStatus and back): podIP is authoritative,
// podIPs[0] follows it, and podIP is podIPs[0] again on the way out.
func preparePodStatusUpdate(obj, old map[string]any) {
	copyField(ensureMap(obj, "metadata"), mapAt(old, "metadata"), "ownerReferences")
	status := ensureMap(obj, "status")
	if stringAt(status, "qosClass") == "" {
		copyField(status, mapAt(old, "status"), "qosClass")
	}
	podPodIPs(status, "podIP", "podIPs")
	podPodIPs(status, "hostIP", "hostIPs")
}

// podPodIPs keeps a singular IP field and its list in step, as the
// conversion of PodStatus does.
func podPodIPs(status map[string]any, single, plural string) {
	ip := stringAt(status, single)
	list, _ := status[plural].([]any)
	first := ""
	if len(list) > 0 {
		fm, _ := list[0].(map[string]any)
		first = stringAt(fm, "ip")
	}
	switch {
	case ip != "" && (len(list) == 0 || first != ip):
		status[plural] = []any{map[string]any{"ip": ip}}
	case ip == "" && len(list) > 0:
		status[single] = first
	}
}

// validatePodStatusUpdate is the status part of ValidatePodStatusUpdate
// (the metadata part is validateMetaUpdate). Left out: the custom condition
// type names, the dual-stack and duplicate checks of podIPs and hostIPs,
// resourceClaimStatuses and the container status users and resources.
func validatePodStatusUpdate(obj, old map[string]any) []api.StatusCause {
	status, oldStatus := mapAt(obj, "status"), mapAt(old, "status")
	var causes []api.StatusCause
	if n := stringAt(status, "nominatedNodeName"); n != "" && n != stringAt(oldStatus, "nominatedNodeName") {
		if msg := isDNS1123Subdomain(n); msg != "" {
			causes = append(causes, invalid("status.nominatedNodeName", n, msg))
		}
		// A pod bound to a node is past nomination (15-differential:
		// update-status/pod-nominated-node). Only a new or changed value is
		// refused: one the pod already had stays allowed.
		if stringAt(mapAt(old, "spec"), "nodeName") != "" {
			causes = append(causes, forbidden("status.nominatedNodeName", "may not be set on pods that are already bound to a node"))
		}
	}
	// ValidateImmutableField.
	if q := stringAt(status, "qosClass"); q != stringAt(oldStatus, "qosClass") {
		causes = append(causes, invalid("status.qosClass", q, "field is immutable"))
	}
	restart := stringAt(mapAt(old, "spec"), "restartPolicy")
	causes = append(causes, podStateTransition(status, oldStatus, "containerStatuses", restart)...)
	causes = append(causes, podStateTransition(status, oldStatus, "initContainerStatuses", restart)...)
	causes = append(causes, podIPErrors(status, "podIPs", false)...)
	causes = append(causes, podIPErrors(status, "hostIPs", true)...)
	return causes
}

// podStateTransition is ValidateContainerStateTransition: unless the pod
// restarts always, a terminated container (or, with OnFailure, one that
// exited 0) may not come back to a non-terminated state. (For init
// containers the real rule also exempts restartable sidecars; the fake
// does not model them.)
func podStateTransition(status, oldStatus map[string]any, key, restart string) []api.StatusCause {
	if restart == "Always" {
		return nil
	}
	var causes []api.StatusCause
	oldList, _ := oldStatus[key].([]any)
	newList, _ := status[key].([]any)
	for i, o := range oldList {
		om, _ := o.(map[string]any)
		term, ok := valueAt(om, "state", "terminated").(map[string]any)
		if !ok {
			continue
		}
		if intAt(term, "exitCode") != 0 && restart == "OnFailure" {
			continue
		}
		for _, n := range newList {
			nm, _ := n.(map[string]any)
			if stringAt(nm, "name") != stringAt(om, "name") {
				continue
			}
			if _, still := valueAt(nm, "state", "terminated").(map[string]any); !still {
				causes = append(causes, forbidden(fmt.Sprintf("status.%s[%d].state", key, i), "may not be transitioned to non-terminated state"))
			}
		}
	}
	return causes
}

// podIPErrors is the IsValidIP part of validatePodIPs and validateHostIPs.
// The field is the list entry (status.podIPs[0]), not its ip. hostIPs[0]
// must also equal hostIP.
func podIPErrors(status map[string]any, key string, host bool) []api.StatusCause {
	list, _ := status[key].([]any)
	var causes []api.StatusCause
	if host && len(list) > 0 {
		fm, _ := list[0].(map[string]any)
		if first := stringAt(fm, "ip"); first != stringAt(status, "hostIP") {
			causes = append(causes, invalid("status.hostIPs[0].ip", first, "must be equal to `hostIP`"))
		}
	}
	for i, e := range list {
		em, _ := e.(map[string]any)
		ip := stringAt(em, "ip")
		if podParseIPSloppy(ip) == nil {
			causes = append(causes, invalid(fmt.Sprintf("status.%s[%d]", key, i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
	}
	return causes
}

// podParseIPSloppy is netutils.ParseIPSloppy: net.ParseIP, but IPv4
// octets may have leading zeros (read as decimal).
func podParseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 || strings.Contains(s, ":") {
		return nil
	}
	for i, p := range parts {
		if p == "" || len(p) > 3 {
			return nil
		}
		if t := strings.TrimLeft(p, "0"); t != "" {
			parts[i] = t
		} else {
			parts[i] = "0"
		}
	}
	return net.ParseIP(strings.Join(parts, "."))
}
