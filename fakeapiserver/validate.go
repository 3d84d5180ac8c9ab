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
	if msgs := dns1123SubdomainErrors(s); len(msgs) > 0 {
		return msgs[0]
	}
	return ""
}

func isDNS1123Label(s string) string {
	if msgs := dns1123LabelErrors(s); len(msgs) > 0 {
		return msgs[0]
	}
	return ""
}

// dns1123SubdomainErrors is apimachinery's IsDNS1123Subdomain: every rule
// the value breaks, the length first.
func dns1123SubdomainErrors(s string) []string {
	var msgs []string
	if len(s) > 253 {
		msgs = append(msgs, "must be no more than 253 bytes")
	}
	if !dns1123SubdomainRe.MatchString(s) {
		msgs = append(msgs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"+dns1123SubdomainFmt+"')")
	}
	return msgs
}

// dns1123LabelErrors is apimachinery's IsDNS1123Label: a value that would
// be a good subdomain is told it may not contain dots.
func dns1123LabelErrors(s string) []string {
	var msgs []string
	if len(s) > 63 {
		msgs = append(msgs, "must be no more than 63 bytes")
	}
	switch {
	case dns1123LabelRe.MatchString(s):
	case dns1123SubdomainRe.MatchString(s):
		msgs = append(msgs, "must not contain dots")
	default:
		msgs = append(msgs, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '"+dns1123LabelFmt+"')")
	}
	return msgs
}

// nameErrors checks an object's name (or, prefix set, its generateName) as
// the kind's name rule does: a namespace's is a DNS label, every other a
// DNS subdomain. A generateName gets a random suffix, so a trailing dash is
// masked first, as apimachinery's maskTrailingDash does (it drops the last
// two characters and appends an "a").
func nameErrors(r *resource, name string, prefix bool) []string {
	if prefix && strings.HasSuffix(name, "-") {
		name = name[:max(len(name)-2, 0)] + "a"
	}
	if r.Name == "namespaces" && r.Group == "" {
		return dns1123LabelErrors(name)
	}
	return dns1123SubdomainErrors(name)
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

// The metadata rules, and how many times the real server applies them.
//
// A create runs the kind's own rules once (its strategy's Validate:
// validateObjectMeta, plus for a built-in kind the standard-finalizer check
// of pkg/apis/core/validation's ValidateObjectMeta). An update runs the
// generic registry's rules first (rest.BeforeUpdate's validateCommonFields:
// ValidateObjectMetaAccessor, then ValidateObjectMetaAccessorUpdate), then
// the kind's, which for a built-in kind repeat both (its ValidateUpdate
// calls its create rules and ValidateObjectMetaUpdate). So one invalid label
// is four causes on an update, and a changed uid two; the message lists
// each once (errInvalid) while the details keep them all
// (15-differential: update/label-invalid, patch-invalid/label-invalid-smp,
// patch-invalid/label-invalid-merge, patch-invalid/uid-change,
// patch-invalid/deletion-timestamp-set, patch-strategic/finalizer-add-other).

// builtinKind: the kind is validated by pkg/apis/core or pkg/apis/apps
// (not a CRD, not a custom resource).
func builtinKind(r *resource) bool { return r.custom == nil && !isCRDRow(r) }

// validateMeta is the kind's create-time metadata rules (its strategy's
// Validate runs them before its own).
func validateMeta(r *resource, meta map[string]any) []api.StatusCause {
	causes := validateObjectMeta(r, meta)
	if builtinKind(r) {
		causes = append(causes, validateKubeFinalizers(meta)...)
	}
	return causes
}

// validateObjectMeta is apimachinery's ValidateObjectMetaAccessor with the
// kind's name rule: a generateName must make a good name, a name is
// required (15-differential: create-invalid/name-missing,
// create-invalid/generate-name-invalid), then the rules every metadata
// shares (validateMetaCommon).
func validateObjectMeta(r *resource, meta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	if gen := stringAt(meta, "generateName"); gen != "" {
		for _, msg := range nameErrors(r, gen, true) {
			causes = append(causes, invalid("metadata.generateName", gen, msg))
		}
	}
	if name := stringAt(meta, "name"); name == "" {
		causes = append(causes, requiredWhy("metadata.name", "name or generateName is required"))
	} else {
		for _, msg := range nameErrors(r, name, false) {
			causes = append(causes, invalid("metadata.name", name, msg))
		}
	}
	return append(causes, validateMetaCommon(meta)...)
}

// validateMetaCommon is what ValidateObjectMetaAccessor checks beyond the
// name: labels, annotations (keys, then their total size), finalizers
// (ValidateFinalizers: each a qualified name). rest.BeforeUpdate runs it on
// every update (its name rule, ValidatePathSegmentName, cannot fail on a
// name the create accepted).
func validateMetaCommon(meta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	causes = append(causes, validateStringMap(meta["labels"], "metadata.labels", true)...)
	causes = append(causes, validateStringMap(meta["annotations"], "metadata.annotations", false)...)
	causes = append(causes, validateAnnotationsSize(meta["annotations"])...)
	if f, ok := meta["finalizers"]; ok && f != nil {
		if _, ok := f.([]any); !ok || len(stringList(f)) != len(f.([]any)) {
			causes = append(causes, invalid("metadata.finalizers", f, "must be a list of strings"))
		}
	}
	for _, f := range stringList(meta["finalizers"]) {
		if msg := isQualifiedName(f); msg != "" {
			causes = append(causes, invalid("metadata.finalizers", f, msg))
		}
	}
	return causes
}

// validateKubeFinalizers is the check pkg/apis/core/validation adds for
// built-in kinds (validateKubeFinalizerName): a finalizer without a "/"
// must be a standard one. A custom resource's only draws a warning
// (15-differential: create-invalid/finalizer-invalid, whose real message
// lists metadata.finalizers and metadata.finalizers[0]).
func validateKubeFinalizers(meta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	for i, f := range stringList(meta["finalizers"]) {
		if !strings.Contains(f, "/") && !slices.Contains(standardFinalizers, f) {
			causes = append(causes, invalid(fmt.Sprintf("metadata.finalizers[%d]", i), f,
				"name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return causes
}

// standardFinalizers are the finalizer names that need no domain
// (helper.IsStandardFinalizerName).
var standardFinalizers = []string{namespaceFinalizerKubernetes, "orphan", "foregroundDeletion"}

// validateKindMetaUpdate is the kind's own update-time metadata rules: for a
// built-in kind pkg/apis/core/validation's ValidateObjectMetaUpdate
// (apimachinery's, then the standard-finalizer check), for a CRD or a
// custom resource apimachinery's alone.
func validateKindMetaUpdate(r *resource, meta, oldMeta map[string]any) []api.StatusCause {
	causes := validateMetaUpdate(meta, oldMeta)
	if builtinKind(r) {
		causes = append(causes, validateKubeFinalizers(meta)...)
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

// validateMetaUpdate is apimachinery's ValidateObjectMetaAccessorUpdate:
// what an update may not change about an object's identity and deletion,
// then the new labels and annotations. It runs after beforeUpdate, so only
// what the client really changed is left.
func validateMetaUpdate(meta, oldMeta map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	if oldMeta["deletionTimestamp"] != nil {
		// One cause naming every new finalizer, sorted, as a Go []string
		// (ValidateNoNewFinalizers prints the set's List() with %#v).
		old := stringList(oldMeta["finalizers"])
		var added []string
		for _, f := range stringList(meta["finalizers"]) {
			if !slices.Contains(old, f) && !slices.Contains(added, f) {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			slices.Sort(added)
			causes = append(causes, forbidden("metadata.finalizers",
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added)))
		}
	}
	for _, f := range []string{"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if !jsonEqual(meta[f], oldMeta[f]) {
			causes = append(causes, invalid("metadata."+f, immutableValue(meta[f]), "field is immutable"))
		}
	}
	causes = append(causes, validateStringMap(meta["labels"], "metadata.labels", true)...)
	causes = append(causes, validateStringMap(meta["annotations"], "metadata.annotations", false)...)
	return append(causes, validateAnnotationsSize(meta["annotations"])...)
}

// immutableValue is how field.Invalid prints a missing value: null.
func immutableValue(v any) any {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// generatedName is the name a generateName makes: the real server's
// SimpleNameGenerator cuts the base to 58 characters (so that with its five
// random ones a name fits a DNS label) and appends the suffix.
func generatedName(base string) string {
	const maxGeneratedNameLength = 63 - 5
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return base + generateNameSuffix()
}
