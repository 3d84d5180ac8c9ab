package fakeapiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The real patch handler decodes a patch body before applying it, and its
// 400 for a body that does not decode carries the decoder's own words, Go
// type names and all, which is what a user sees (patch.go, with the default
// fieldValidation, Warn):
//
//	json patch       error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp
//	merge patch      error decoding patch: unexpected end of JSON input
//	merge patch null Invalid JSON Patch (json-patch v4's ErrBadJSONPatch)
//	strategic        unexpected end of JSON input (no prefix)
//
// (15-differential: patch-invalid/json-patch-not-array,
// patch-invalid/malformed-json-patch, patch-invalid/malformed-merge,
// patch-invalid/merge-null-body, patch-invalid/malformed-smp.) With
// fieldValidation=Ignore the real handler skips that first decode and its
// words differ again; the fake answers as for the default.

// jsonPatchOp is the struct the real handler decodes a JSON patch into;
// its Go name is part of the real message ("[]handlers.jsonPatchOp").
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// patchBodyStatus is the real server's 400 for a patch body that fails its
// first decode, or nil if the body decodes (the fake's engine then has the
// word).
func patchBodyStatus(pt PatchType, body []byte) *api.Status {
	var err error
	switch pt {
	case JSONPatchType:
		var ops []jsonPatchOp
		if err = json.Unmarshal(body, &ops); err != nil {
			return errBadRequest("error decoding patch: %s", realDecodeError(err))
		}
	case MergePatchType:
		var m map[string]any
		if err = json.Unmarshal(body, &m); err != nil {
			return errBadRequest("error decoding patch: %s", realDecodeError(err))
		}
		if m == nil { // null: json-patch v4's MergePatch refuses it
			return errBadRequest("Invalid JSON Patch")
		}
	case StrategicMergePatchType:
		var m map[string]any
		if err = json.Unmarshal(body, &m); err != nil {
			return errBadRequest("%s", realDecodeError(err))
		}
	}
	return nil
}

// realDecodeError is an encoding/json error with the Go type names the
// real server's types have: this package's jsonPatchOp is its
// handlers.jsonPatchOp.
func realDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		typ := strings.ReplaceAll(te.Type.String(), "fakeapiserver.", "handlers.")
		if te.Struct != "" || te.Field != "" {
			return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s.%s of type %s", te.Value, te.Struct, te.Field, typ)
		}
		return fmt.Sprintf("json: cannot unmarshal %s into Go value of type %s", te.Value, typ)
	}
	return err.Error()
}
