package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/internal/patch"
)

// Answers to patches that the real patch handler words with the words of
// the library it runs, not its own.

// unknownDirectiveStatus answers a strategic merge patch whose "$patch"
// directive is neither "replace" nor "delete" (nor, in a list, "merge"):
// apimachinery's strategicpatch fails with
//
//	unknown patch type: bogus in map: map[$patch:bogus]
//
// (the directive, then the patch object holding it as Go prints a map),
// and the handler, which converts only a few of that package's errors,
// answers it as an unknown error: 500 without a reason
// (15-differential: patch-invalid/smp-bogus-directive).
func unknownDirectiveStatus(e *patch.UnknownDirectiveError) *api.Status {
	msg := fmt.Sprintf("unknown patch type: %s in map: %v", goJSONValue(e.Directive), goJSONValue(deepCopy(e.Map)))
	return newStatus(http.StatusInternalServerError, "", msg, nil)
}

// goJSONValue turns the json.Numbers of a decoded value into the int64 or
// float64 apimachinery's decoder makes of them, so that fmt prints the
// value as the real server does (%s of a number: %!s(int64=1)).
func goJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = goJSONValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = goJSONValue(e)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}

// applyWithoutFieldManager answers a server-side apply patch without a
// fieldManager as ValidatePatchOptions does, before the fake's 415 for
// apply: 422 on PatchOptions, the fieldManager cause first, then those of
// the other options (15-differential:
// patch-invalid/apply-patch-no-field-manager).
func applyWithoutFieldManager(req *http.Request) *api.Status {
	causes := []api.StatusCause{{Type: api.CauseTypeFieldValueRequired, Field: "fieldManager",
		Message: "Required value: is required for apply patch"}}
	if _, st := writeOptions(req, "PatchOptions"); st != nil && st.Details != nil {
		causes = append(causes, st.Details.Causes...)
	}
	return errInvalid("PatchOptions", "meta.k8s.io", "", causes)
}
