package fakeapiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Type checking: the server keeps every object as its full JSON, so that
// fields the api package does not know survive, but every field the api
// package's Go type declares must hold the JSON type that type expects. If
// one did not ("spec":{"nodeName":5}), every typed LIST of the resource
// would fail to decode from then on and no informer could ever sync it.
//
// The check decodes the object into its Go type with encoding/json, the
// decoder kinformer's clients use, so "the stored object decodes" holds by
// construction. (encoding/json matches field names case-insensitively,
// unlike the real server's decoder: a "NodeName": 5 next to "nodeName" is
// refused here, where the real server would keep it as an unknown field.
// Refusing it is what keeps kinformer's own decoding safe.)
//
// How a failure is answered depends on the verb, as on the real server:
//
//   - create and update (of the object or its status) decode the request
//     body before anything else: 400 BadRequest, `Pod in version "v1"
//     cannot be handled as a Pod: json: cannot unmarshal number into Go
//     struct field PodSpec.spec.nodeName of type string`.
//   - a patch is decoded after it is applied: 422 Invalid on the field
//     "patch", ` "" is invalid: patch: Invalid value: "<the patched
//     object>": json: cannot unmarshal ...`. A strategic merge patch shows
//     the patch itself (Go's %+v of it) and the message of apimachinery's
//     unstructured converter ("cannot convert int64 to string",
//     "unrecognized type: int32") instead, since that is what it runs.

// decodeTyped decodes obj into its resource's Go type, returning the
// decoder's error.
func decodeTyped(r *resource, obj map[string]any) error {
	if r.New == nil {
		return nil
	}
	return decodeTypedJSON(r, encodeObject(obj))
}

// decodeTypedJSON decodes raw into the resource's Go type. The error is
// encoding/json's own, unwrapped: its words become the answer's.
func decodeTypedJSON(r *resource, raw []byte) error {
	if r.New == nil {
		return nil // a custom resource or a CRD: no Go type to check against
	}
	return json.Unmarshal(raw, r.New())
}

// typeCheckBody is the check of a create or update body: 400 if a known
// field has the wrong JSON type.
func typeCheckBody(r *resource, obj map[string]any) *api.Status {
	err := decodeTyped(r, obj)
	if err == nil {
		return nil
	}
	return errBadRequest("%s in version %q cannot be handled as a %s: %s", r.Kind, r.Version, r.Kind, decodeMessage(err))
}

// typeCheckPatched is the check of a patch's result: 422 on the field
// "patch", as the real server's patch handler answers, quoting a JSON or
// merge patch's result as json-patch v4 writes it (patchedJSON).
func typeCheckPatched(r *resource, pt PatchType, original, patched map[string]any, body []byte) *api.Status {
	raw := encodeObject(patched)
	msg := ""
	if err := versionKindError(raw); err != nil {
		// The decoder looks for apiVersion and kind first.
		msg = "couldn't get version/kind; json parse error: " + err.Error()
	} else if err := decodeTypedJSON(r, raw); err != nil {
		msg = decodeMessage(err)
		if pt == StrategicMergePatchType {
			msg = converterMessage(err)
		}
	} else {
		return nil
	}
	value := patchedJSON(pt, original, patched, body)
	if pt == StrategicMergePatchType {
		value = patchMapString(body)
	}
	return errInvalid("", "", "", []api.StatusCause{invalid("patch", value, msg)})
}

// decodeMessage is the decoder's error as the real server words it: its
// Go types live in packages named v1 (core/v1, apps/v1, meta/v1), ours in
// package api.
func decodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s.%s of type %s",
			te.Value, te.Struct, te.Field, goTypeName(te.Type))
	}
	return err.Error() // a field's own UnmarshalJSON (api.Time) words it
}

func goTypeName(t reflect.Type) string {
	return strings.ReplaceAll(t.String(), "api.", "v1.")
}

// converterMessage words a type error as apimachinery's unstructured
// converter (runtime.DefaultUnstructuredConverter.FromUnstructured) does;
// the real server's strategic merge patch runs it instead of a JSON decoder.
func converterMessage(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return decodeMessage(err)
	}
	src := converterSourceType(te.Value)
	dst := te.Type
	for dst.Kind() == reflect.Pointer {
		dst = dst.Elem()
	}
	switch dst.Kind() {
	case reflect.Map:
		return "cannot restore map from " + kindOfSource(src)
	case reflect.Slice:
		return "cannot restore slice from " + kindOfSource(src)
	case reflect.Struct:
		return "cannot restore struct from: " + kindOfSource(src)
	case reflect.String:
		if src == "int64" || src == "float64" { // Go can convert a number to a string; JSON cannot
			return fmt.Sprintf("cannot convert %s to %s", src, dst.Kind())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if src == "float64" {
			return fmt.Sprintf("cannot convert %s to %s", src, dst.Kind())
		}
	}
	return fmt.Sprintf("unrecognized type: %s", dst.Kind())
}

// converterSourceType is the Go type a JSON value has in the unstructured
// map the converter reads, from the decoder's description of the value
// ("number", "number 3.5", "string", "object", ...).
func converterSourceType(value string) string {
	switch {
	case value == "number":
		// The decoder names no literal when the field is not a number;
		// assume an integer, the usual case (the real message would say
		// float64 for 1.5).
		return "int64"
	case strings.HasPrefix(value, "number "):
		if strings.ContainsAny(value[len("number "):], ".eE") {
			return "float64"
		}
		return "int64"
	case value == "object":
		return "map[string]interface {}"
	case value == "array":
		return "[]interface {}"
	}
	return value // string, bool
}

func kindOfSource(src string) string {
	switch {
	case strings.HasPrefix(src, "map"):
		return "map"
	case strings.HasPrefix(src, "[]"):
		return "slice"
	}
	return src
}

// patchMapString renders a patch body as Go's %+v renders the map the real
// server decoded it into: map[spec:map[nodeName:5]].
func patchMapString(body []byte) string {
	v, err := decodeObject(body)
	if err != nil {
		return string(body)
	}
	return fmt.Sprintf("%+v", stripNumbers(v))
}

// stripNumbers turns json.Number into its literal so %+v prints 5, not {5}.
func stripNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = stripNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripNumbers(e)
		}
	case json.Number:
		return rawNumber(x)
	}
	return v
}

// rawNumber prints as the number's literal under %v.
type rawNumber string

func (n rawNumber) String() string { return string(n) }
