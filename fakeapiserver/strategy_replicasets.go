package fakeapiserver

import (
	"encoding/json"
	"fmt"

	"github.com/kinformer/kinformer/api"
)

// The ReplicaSet strategy: kube-apiserver's
// pkg/registry/apps/replicaset/strategy.go and the ReplicaSet rules of
// pkg/apis/apps/validation.
//
// PrepareForUpdate (status kept from old, generation bumped when the spec
// changes) and PrepareForStatusUpdate (spec kept from old) are the generic
// ones of strategy.go and ops.go.
var replicaSetStrategy = strategy{
	Default:              defaultReplicaSet,
	InitialStatus:        func(map[string]any) map[string]any { return map[string]any{"replicas": jsonInt(0)} },
	Validate:             validateReplicaSet,
	ValidateUpdate:       validateReplicaSetUpdate,
	ValidateStatusUpdate: validateReplicaSetStatusUpdate,
	UpdateOrder:          createFirst,
}

func defaultReplicaSet(obj map[string]any) {
	spec := ensureMap(obj, "spec")
	setDefault(spec, "replicas", jsonInt(1))
	template := ensureMap(spec, "template")
	defaultPodSpec(ensureMap(template, "spec"))
}

// validateReplicaSet is ValidateReplicaSetSpec (pkg/apis/apps/validation),
// the causes in its order.
func validateReplicaSet(obj map[string]any) []api.StatusCause {
	spec := mapAt(obj, "spec")
	var causes []api.StatusCause
	if n := intAt(spec, "replicas"); n < 0 {
		causes = append(causes, invalid("spec.replicas", n, "must be greater than or equal to 0"))
	}
	if n := intAt(spec, "minReadySeconds"); n < 0 {
		causes = append(causes, invalid("spec.minReadySeconds", n, "must be greater than or equal to 0"))
	}

	sel, hasSelector := spec["selector"].(map[string]any)
	if !hasSelector {
		// A nil selector: Required, and LabelSelectorAsSelector(nil) is
		// labels.Nothing(), which is not Empty and matches no template
		// labels, so the mismatch below is reported too.
		causes = append(causes, required("spec.selector"))
	} else {
		causes = append(causes, validateReplicaSetLabelSelector(sel, "spec.selector")...)
		exprs, _ := sel["matchExpressions"].([]any)
		if len(mapAt(sel, "matchLabels"))+len(exprs) == 0 {
			causes = append(causes, invalid("spec.selector", replicaSetSelectorValue(sel), "empty selector is invalid for deployment"))
		}
	}

	selector := api.Nothing()
	if hasSelector {
		var err error
		if selector, err = labelSelectorOf(sel); err != nil {
			return append(causes, invalid("spec.selector", replicaSetSelectorValue(sel), "invalid label selector"))
		}
	}
	return append(causes, validateReplicaSetTemplate(mapAt(spec, "template"), selector)...)
}

// validateReplicaSetTemplate is ValidatePodTemplateSpecForReplicaSet.
func validateReplicaSetTemplate(template map[string]any, selector api.Selector) []api.StatusCause {
	var causes []api.StatusCause
	labels := valueAt(template, "metadata", "labels")
	if !selector.Empty() && !selector.Matches(stringMap(labels)) {
		causes = append(causes, invalid("spec.template.metadata.labels", replicaSetLabelsValue(labels), "`selector` does not match template `labels`"))
	}
	// ValidatePodTemplateSpec: the template's labels and annotations are
	// checked at spec.template.labels and spec.template.annotations (its
	// fldPath.Child("labels"), without "metadata").
	causes = append(causes, validateStringMap(labels, "spec.template.labels", true)...)
	causes = append(causes, validateStringMap(valueAt(template, "metadata", "annotations"), "spec.template.annotations", false)...)
	podSpec := mapAt(template, "spec")
	causes = append(causes, validatePodSpec(podSpec, "spec.template.spec")...)
	if p := stringAt(podSpec, "restartPolicy"); p != "Always" {
		causes = append(causes, notSupported("spec.template.spec.restartPolicy", p, "Always"))
	}
	if v, ok := podSpec["activeDeadlineSeconds"]; ok && v != nil {
		causes = append(causes, forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return causes
}

// validateReplicaSetLabelSelector is apimachinery's ValidateLabelSelector
// (AllowInvalidLabelValueInSelector false): matchLabels as labels, then each
// matchExpressions requirement.
func validateReplicaSetLabelSelector(sel map[string]any, path string) []api.StatusCause {
	causes := validateStringMap(sel["matchLabels"], path+".matchLabels", true)
	exprs, _ := sel["matchExpressions"].([]any)
	for i, e := range exprs {
		req, _ := e.(map[string]any)
		field := fmt.Sprintf("%s.matchExpressions[%d]", path, i)
		values := stringList(req["values"])
		switch op := stringAt(req, "operator"); op {
		case "In", "NotIn":
			if len(values) == 0 {
				causes = append(causes, api.StatusCause{Type: api.CauseTypeFieldValueRequired, Field: field + ".values",
					Message: "Required value: must be specified when `operator` is 'In' or 'NotIn'"})
			}
		case "Exists", "DoesNotExist":
			if len(values) > 0 {
				causes = append(causes, forbidden(field+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			causes = append(causes, invalid(field+".operator", op, "not a valid selector operator"))
		}
		if key := stringAt(req, "key"); isQualifiedName(key) != "" {
			causes = append(causes, invalid(field+".key", key, isQualifiedName(key)))
		}
		for j, v := range values {
			if msg := isLabelValue(v); msg != "" {
				causes = append(causes, invalid(fmt.Sprintf("%s.values[%d]", field, j), v, msg))
			}
		}
	}
	return causes
}

// validateReplicaSetUpdate is what the strategy's ValidateUpdate adds to
// ValidateReplicaSetUpdate for apps/v1: spec.selector is immutable
// (ValidateImmutableField, a semantic DeepEqual).
func validateReplicaSetUpdate(obj, old map[string]any) []api.StatusCause {
	sel := valueAt(obj, "spec", "selector")
	oldSel := valueAt(old, "spec", "selector")
	newV, oldV := replicaSetSelectorValue(sel), replicaSetSelectorValue(oldSel)
	if string(newV) == string(oldV) {
		return nil
	}
	return []api.StatusCause{invalid("spec.selector", newV, "field is immutable")}
}

// validateReplicaSetStatusUpdate is ValidateReplicaSetStatus (the metadata
// half of ValidateReplicaSetStatusUpdate is the generic validateMetaUpdate).
func validateReplicaSetStatusUpdate(obj, _ map[string]any) []api.StatusCause {
	status := mapAt(obj, "status")
	var causes []api.StatusCause
	n := func(key string) int64 { return intAt(status, key) }
	for _, key := range []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"} {
		if n(key) < 0 {
			causes = append(causes, invalid("status."+key, n(key), "must be greater than or equal to 0"))
		}
	}
	if v, ok := status["terminatingReplicas"]; ok && v != nil && n("terminatingReplicas") < 0 {
		causes = append(causes, invalid("status.terminatingReplicas", n("terminatingReplicas"), "must be greater than or equal to 0"))
	}
	const msg = "cannot be greater than status.replicas"
	for _, key := range []string{"fullyLabeledReplicas", "readyReplicas", "availableReplicas"} {
		if n(key) > n("replicas") {
			causes = append(causes, invalid("status."+key, n(key), msg))
		}
	}
	if n("availableReplicas") > n("readyReplicas") {
		causes = append(causes, invalid("status.availableReplicas", n("availableReplicas"), "cannot be greater than readyReplicas"))
	}
	return causes
}

// replicaSetSelectorValue renders a spec.selector as field.Error renders the
// *metav1.LabelSelector (JSON of the Go struct: matchLabels then
// matchExpressions, empty ones left out; null for none). Two selectors that
// render the same are semantically equal.
func replicaSetSelectorValue(v any) json.RawMessage {
	sel, ok := v.(map[string]any)
	if !ok {
		return json.RawMessage("null")
	}
	type requirement struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	}
	var ls struct {
		MatchLabels      map[string]string `json:"matchLabels,omitempty"`
		MatchExpressions []requirement     `json:"matchExpressions,omitempty"`
	}
	ls.MatchLabels = stringMap(sel["matchLabels"])
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		req, _ := e.(map[string]any)
		ls.MatchExpressions = append(ls.MatchExpressions, requirement{
			Key: stringAt(req, "key"), Operator: stringAt(req, "operator"), Values: stringList(req["values"]),
		})
	}
	b, err := json.Marshal(ls)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// replicaSetLabelsValue renders template labels as field.Error renders a
// map[string]string: JSON with sorted keys, null for none.
func replicaSetLabelsValue(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return json.RawMessage("null")
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return v
		}
		out[k] = s
	}
	b, err := json.Marshal(out)
	if err != nil {
		return v
	}
	return json.RawMessage(b)
}

// labelSelectorOf turns a decoded metav1.LabelSelector into a Selector.
func labelSelectorOf(sel map[string]any) (api.Selector, error) {
	var ls api.LabelSelector
	if err := remarshal(sel, &ls); err != nil {
		return api.Selector{}, err
	}
	return ls.AsSelector()
}
