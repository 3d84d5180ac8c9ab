package fakeapiserver

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Validation: names, labels, and the few per-resource rules a learner is
// likely to trip over (a pod without containers, a ReplicaSet whose
// selector does not match its template). Messages follow the real server's
// wording, so a 422 from here reads like one from kube-apiserver.

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
)

var (
	dns1123LabelRe     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRe = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	qualifiedNameRe    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRe       = regexp.MustCompile("^" + labelValueFmt + "$")
)

func isDNS1123Subdomain(s string) string {
	if len(s) > 253 {
		return "must be no more than 253 characters"
	}
	if !dns1123SubdomainRe.MatchString(s) {
		return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" + dns1123SubdomainFmt + "')"
	}
	return ""
}

func isDNS1123Label(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 characters"
	}
	if !dns1123LabelRe.MatchString(s) {
		return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '" + dns1123LabelFmt + "')"
	}
	return ""
}

// isQualifiedName checks a label or annotation key: [prefix/]name.
func isQualifiedName(s string) string {
	name := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		prefix := s[:i]
		name = s[i+1:]
		if prefix == "" {
			return "prefix part must be non-empty"
		}
		if msg := isDNS1123Subdomain(prefix); msg != "" {
			return "prefix part " + msg
		}
	}
	if name == "" {
		return "name part must be non-empty"
	}
	if len(name) > 63 {
		return "name part must be no more than 63 characters"
	}
	if !qualifiedNameRe.MatchString(name) {
		return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" + qualifiedNameFmt + "')"
	}
	return ""
}

func isLabelValue(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 characters"
	}
	if !labelValueRe.MatchString(s) {
		return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '" + labelValueFmt + "')"
	}
	return ""
}

// validateMeta checks what every object's metadata must satisfy.
func validateMeta(r *resource, meta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	name := stringAt(meta, "name")
	if name == "" {
		causes = append(causes, required("metadata.name"))
	} else {
		check := isDNS1123Subdomain
		if r.Name == "namespaces" {
			check = isDNS1123Label
		}
		if msg := check(name); msg != "" {
			causes = append(causes, invalid("metadata.name", name, msg))
		}
	}
	causes = append(causes, validateStringMap(meta["labels"], "metadata.labels", true)...)
	causes = append(causes, validateStringMap(meta["annotations"], "metadata.annotations", false)...)
	causes = append(causes, validateAnnotationsSize(meta["annotations"])...)
	if f, ok := meta["finalizers"]; ok && f != nil {
		if _, ok := f.([]any); !ok || len(stringList(f)) != len(f.([]any)) {
			causes = append(causes, invalid("metadata.finalizers", f, "must be a list of strings"))
		}
	}
	return causes
}

func validateStringMap(v any, field string, isLabels bool) []api.StatusCause {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []api.StatusCause{invalid(field, v, "must be an object of strings")}
	}
	var causes []api.StatusCause
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			causes = append(causes, invalid(field, e, fmt.Sprintf("the value of %q must be a string", k)))
			continue
		}
		if msg := isQualifiedName(k); msg != "" {
			causes = append(causes, invalid(field, k, msg))
		}
		if isLabels {
			if msg := isLabelValue(s); msg != "" {
				causes = append(causes, invalid(field, s, msg))
			}
		}
	}
	return causes
}

func validatePod(obj map[string]any) []api.StatusCause {
	return validatePodSpec(mapAt(obj, "spec"), "spec")
}

func validatePodSpec(spec map[string]any, path string) []api.StatusCause {
	containers, _ := valueAt(spec, "containers").([]any)
	if len(containers) == 0 {
		return []api.StatusCause{required(path + ".containers")}
	}
	var causes []api.StatusCause
	seen := map[string]bool{}
	for i, c := range containers {
		field := fmt.Sprintf("%s.containers[%d]", path, i)
		cm, ok := c.(map[string]any)
		if !ok {
			causes = append(causes, invalid(field, c, "must be an object"))
			continue
		}
		name := stringAt(cm, "name")
		switch {
		case name == "":
			causes = append(causes, required(field+".name"))
		case isDNS1123Label(name) != "":
			causes = append(causes, invalid(field+".name", name, isDNS1123Label(name)))
		case seen[name]:
			causes = append(causes, api.StatusCause{Type: api.CauseTypeFieldValueDuplicate, Field: field + ".name", Message: fmt.Sprintf("Duplicate value: %q", name)})
		}
		seen[name] = true
		if stringAt(cm, "image") == "" {
			causes = append(causes, required(field+".image"))
		}
	}
	switch p := stringAt(spec, "restartPolicy"); p {
	case "", "Always", "OnFailure", "Never":
	default:
		causes = append(causes, notSupported(path+".restartPolicy", p, "Always", "OnFailure", "Never"))
	}
	return causes
}

func validateReplicaSet(obj map[string]any) []api.StatusCause {
	spec := mapAt(obj, "spec")
	var causes []api.StatusCause
	if n := intAt(spec, "replicas"); n < 0 {
		causes = append(causes, invalid("spec.replicas", spec["replicas"], "must be greater than or equal to 0"))
	}
	sel := mapAt(spec, "selector")
	exprs, _ := valueAt(sel, "matchExpressions").([]any)
	if len(mapAt(sel, "matchLabels")) == 0 && len(exprs) == 0 {
		causes = append(causes, required("spec.selector"))
		return causes
	}
	selector, err := labelSelectorOf(sel)
	if err != nil {
		return append(causes, invalid("spec.selector", sel, err.Error()))
	}
	template := mapAt(spec, "template")
	tmplLabels := stringMap(valueAt(template, "metadata", "labels"))
	if !selector.Matches(tmplLabels) {
		causes = append(causes, invalid("spec.template.metadata.labels", valueAt(template, "metadata", "labels"), "`selector` does not match template `labels`"))
	}
	return append(causes, validatePodSpec(mapAt(template, "spec"), "spec.template.spec")...)
}

// labelSelectorOf turns a decoded metav1.LabelSelector into a Selector.
func labelSelectorOf(sel map[string]any) (api.Selector, error) {
	var ls api.LabelSelector
	if err := remarshal(sel, &ls); err != nil {
		return api.Selector{}, err
	}
	return ls.AsSelector()
}
