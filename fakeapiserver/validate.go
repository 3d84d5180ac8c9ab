package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
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
		return "must be no more than 253 bytes"
	}
	if !dns1123SubdomainRe.MatchString(s) {
		return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" + dns1123SubdomainFmt + "')"
	}
	return ""
}

func isDNS1123Label(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 bytes"
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
		return "name part must be no more than 63 bytes"
	}
	if !qualifiedNameRe.MatchString(name) {
		return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" + qualifiedNameFmt + "')"
	}
	return ""
}

func isLabelValue(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 bytes"
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
	// A finalizer is a qualified name, like a label key (apimachinery's
	// ValidateFinalizerName); one without a domain only draws a warning.
	for _, f := range stringList(meta["finalizers"]) {
		if msg := isQualifiedName(f); msg != "" {
			causes = append(causes, invalid("metadata.finalizers", f, msg))
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

// validateMetaUpdate is apimachinery's ValidateObjectMetaUpdate: what an
// update may not change about an object's identity and deletion. It runs
// after beforeUpdate, so only what the client really changed is left.
func validateMetaUpdate(meta, oldMeta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	if oldMeta["deletionTimestamp"] != nil {
		old := stringList(oldMeta["finalizers"])
		for _, f := range stringList(meta["finalizers"]) {
			if !slices.Contains(old, f) {
				causes = append(causes, forbidden("metadata.finalizers",
					fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers []string{%q}", f)))
			}
		}
	}
	for _, f := range []string{"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if !jsonEqual(meta[f], oldMeta[f]) {
			causes = append(causes, invalid("metadata."+f, immutableValue(meta[f]), "field is immutable"))
		}
	}
	return causes
}

// immutableValue is how field.Invalid prints a missing value: null.
func immutableValue(v any) any {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}
