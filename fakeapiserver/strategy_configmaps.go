package fakeapiserver

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The ConfigMap strategy: kube-apiserver's
// pkg/registry/core/configmap/strategy.go, whose Validate is
// ValidateConfigMap and whose ValidateUpdate is ValidateConfigMapUpdate
// (pkg/apis/core/validation/validation.go).
var configMapStrategy = strategy{
	Validate:       validateConfigMap,
	ValidateUpdate: validateConfigMapUpdate,
	UpdateOrder:    updateFirst,
}

// maxConfigMapBytes is core.MaxSecretSize, the limit ValidateConfigMap puts
// on data and binaryData together (values only; keys do not count).
const maxConfigMapBytes = 1 << 20

const configMapKeyFmt = `[-._a-zA-Z0-9]+`

var configMapKeyRe = regexp.MustCompile("^" + configMapKeyFmt + "$")

// configMapKeyErrors is apimachinery's IsConfigMapKey: every reason key is
// not a valid data or binaryData key, in its order.
func configMapKeyErrors(key string) []string {
	var errs []string
	if len(key) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !configMapKeyRe.MatchString(key) {
		errs = append(errs, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '"+configMapKeyFmt+"')")
	}
	switch {
	case key == ".":
		errs = append(errs, "must not be '.'")
	case key == "..":
		errs = append(errs, "must not be '..'")
	case strings.HasPrefix(key, ".."):
		errs = append(errs, "must not start with '..'")
	}
	return errs
}

// validateConfigMap is ValidateConfigMap beyond the metadata: the keys of
// data and binaryData, no key in both, and at most 1 MiB of values. Keys
// are checked in sorted order (the real server walks a Go map, so its
// order of several causes varies from call to call).
func validateConfigMap(obj map[string]any) []api.StatusCause {
	var causes []api.StatusCause
	data, _ := obj["data"].(map[string]any)
	binary, _ := obj["binaryData"].(map[string]any)
	total := 0
	for _, key := range sortedConfigMapKeys(data) {
		field := "data[" + key + "]"
		for _, msg := range configMapKeyErrors(key) {
			causes = append(causes, invalid(field, key, msg))
		}
		if _, dup := binary[key]; dup {
			causes = append(causes, invalid(field, key, "duplicate of key present in binaryData"))
		}
		s, _ := data[key].(string)
		total += len(s)
	}
	for _, key := range sortedConfigMapKeys(binary) {
		for _, msg := range configMapKeyErrors(key) {
			causes = append(causes, invalid("binaryData["+key+"]", key, msg))
		}
		total += configMapBinaryLen(binary[key])
	}
	if total > maxConfigMapBytes {
		// The real server reports it on the empty path, "the whole
		// object", which prints as "[]".
		causes = append(causes, tooLong("[]", maxConfigMapBytes))
	}
	return causes
}

// configMapBinaryLen is the length of a binaryData value once decoded, as
// the real server counts the []byte.
func configMapBinaryLen(v any) int {
	s, _ := v.(string)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return len(b)
	}
	return base64.StdEncoding.DecodedLen(len(s))
}

func sortedConfigMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateConfigMapUpdate is ValidateConfigMapUpdate's own rule: once a
// ConfigMap is immutable, neither its data, its binaryData nor immutable
// itself may change; its metadata still may.
func validateConfigMapUpdate(obj, old map[string]any) []api.StatusCause {
	if old["immutable"] != true {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	var causes []api.StatusCause
	if obj["immutable"] != true {
		causes = append(causes, forbidden("immutable", msg))
	}
	if !jsonEqual(obj["data"], old["data"]) {
		causes = append(causes, forbidden("data", msg))
	}
	if !jsonEqual(obj["binaryData"], old["binaryData"]) {
		causes = append(causes, forbidden("binaryData", msg))
	}
	return causes
}
