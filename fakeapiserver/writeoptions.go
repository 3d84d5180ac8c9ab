package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kinformer/kinformer/api"
)

// writeOptions checks the query parameters of a create, update or patch as
// the real server does (apimachinery's ValidateCreateOptions,
// ValidateUpdateOptions, ValidatePatchOptions: ValidateDryRun, then
// ValidateFieldValidation): every invalid value is a cause of one 422 on the
// options kind, e.g.
//
//	CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"
//
// kind is "CreateOptions", "UpdateOptions" or "PatchOptions".
func writeOptions(req *http.Request, kind string) (dryRun bool, st *api.Status) {
	q := req.URL.Query()
	var causes []api.StatusCause
	if values := q["dryRun"]; len(values) > 0 {
		dryRun = true
		for _, v := range values {
			if v != "All" {
				causes = append(causes, dryRunNotSupported(values))
				break
			}
		}
	}
	if v := q.Get("fieldValidation"); v != "" && v != "Ignore" && v != "Warn" && v != "Strict" {
		// The real server lists the allowed values sorted, "" first.
		causes = append(causes, notSupported("fieldValidation", v, "", "Ignore", "Strict", "Warn"))
	}
	if len(causes) > 0 {
		return false, errInvalid(kind, "meta.k8s.io", "", causes)
	}
	return dryRun, nil
}

// dryRunNotSupported is ValidateDryRun's cause: the value is the whole
// list, which field.Error prints as JSON, ["All","Bogus"]
// (15-differential: create-invalid/dry-run-bogus, delete/body-dry-run-bogus).
func dryRunNotSupported(values []string) api.StatusCause {
	list, _ := json.Marshal(values) // a []string always encodes
	return api.StatusCause{Type: api.CauseTypeFieldValueNotSupported, Field: "dryRun",
		Message: fmt.Sprintf(`Unsupported value: %s: supported values: "All"`, list)}
}
