package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Every failure the server answers is an *api.Status with the HTTP code, the
// reason and a message worded as the real server words it (see
// the repository's testdata/kube-apiserver-1.36/07-errors-404-409-422.txt).

func newStatus(code int, reason api.StatusReason, msg string, details *api.StatusDetails) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  details,
		Code:     int32(code),
	}
}

func qualifiedDetails(r *resource, name string) *api.StatusDetails {
	return &api.StatusDetails{Name: name, Group: r.Group, Kind: r.Name}
}

func errNotFound(r *resource, name string) *api.Status {
	return newStatus(http.StatusNotFound, api.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", r.GroupResource(), name), qualifiedDetails(r, name))
}

func errNamespaceNotFound(ns string) *api.Status {
	return newStatus(http.StatusNotFound, api.StatusReasonNotFound,
		fmt.Sprintf("namespaces %q not found", ns), &api.StatusDetails{Name: ns, Kind: "namespaces"})
}

func errUnknownResource() *api.Status {
	return newStatus(http.StatusNotFound, api.StatusReasonNotFound,
		"the server could not find the requested resource", &api.StatusDetails{})
}

func errAlreadyExists(r *resource, name string) *api.Status {
	return newStatus(http.StatusConflict, api.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", r.GroupResource(), name), qualifiedDetails(r, name))
}

// errConflict is the optimistic-concurrency failure: the client's
// resourceVersion is not the stored one.
func errConflict(r *resource, name string) *api.Status {
	return newStatus(http.StatusConflict, api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", r.GroupResource(), name),
		qualifiedDetails(r, name))
}

func errPreconditionRV(r *resource, name, want string, have uint64) *api.Status {
	return newStatus(http.StatusConflict, api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%d). The object might have been modified", r.kindGroup(), name, want, have),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Kind})
}

// errPreconditionUID is a DELETE whose precondition names another uid: the
// generic registry's BeforeDelete answer, which names the kind (not the
// resource) as the group-resource.
func errPreconditionUID(r *resource, name, want, have string) *api.Status {
	return newStatus(http.StatusConflict, api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", r.kindGroup(), name, want, have),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Kind})
}

// errStorageUIDPrecondition is a PUT whose body names another uid: the
// storage layer's failed precondition (a StorageError of code 4, "invalid
// object"), which the registry turns into a 409 Conflict, key and all.
func errStorageUIDPrecondition(existing *record, uid string) *api.Status {
	r := existing.res
	key := "/registry/" + r.Name + "/" + existing.key // built-in kinds: no group in the etcd key
	return newStatus(http.StatusConflict, api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object meta: %s",
			r.GroupResource(), existing.name, key, uid, existing.uid),
		qualifiedDetails(r, existing.name))
}

func errBadRequest(format string, args ...any) *api.Status {
	return newStatus(http.StatusBadRequest, api.StatusReasonBadRequest, fmt.Sprintf(format, args...), nil)
}

// errInvalid is a 422 listing every invalid field, as
// `Pod "bad" is invalid: spec.containers: Required value`. The message names
// the kind qualified by its group ("ReplicaSet.apps", "ListOptions.meta.k8s.io");
// the details keep kind and group apart, as the real server's do.
//
// Every cause stays in the details, but the message lists each distinct
// "field: message" once, as field.ErrorList.ToAggregate does: the real
// server validates an update's metadata up to four times (rest.BeforeUpdate's
// common checks, then the kind's own create and update rules), so one bad
// label is four causes behind a one-line message
// (15-differential: update/label-invalid, patch-invalid/uid-change).
func errInvalid(kind, group, name string, causes []api.StatusCause) *api.Status {
	parts := make([]string, 0, len(causes))
	seen := make(map[string]bool, len(causes))
	for _, c := range causes {
		part := c.Field + ": " + c.Message
		if !seen[part] {
			seen[part] = true
			parts = append(parts, part)
		}
	}
	qualified := kind
	if group != "" {
		qualified += "." + group
	}
	msg := fmt.Sprintf("%s %q is invalid: ", qualified, name)
	if len(parts) == 1 {
		msg += parts[0]
	} else {
		msg += "[" + strings.Join(parts, ", ") + "]"
	}
	return newStatus(http.StatusUnprocessableEntity, api.StatusReasonInvalid, msg,
		&api.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

func required(field string) api.StatusCause {
	return api.StatusCause{Type: api.CauseTypeFieldValueRequired, Field: field, Message: "Required value"}
}

// requiredWhy is field.Required with a detail: "Required value: <detail>".
func requiredWhy(field, detail string) api.StatusCause {
	c := required(field)
	c.Message += ": " + detail
	return c
}

func invalid(field string, value any, detail string) api.StatusCause {
	return api.StatusCause{Type: api.CauseTypeFieldValueInvalid, Field: field,
		Message: fmt.Sprintf("Invalid value: %s: %s", quoteValue(value), detail)}
}

func forbidden(field, detail string) api.StatusCause {
	return api.StatusCause{Type: api.CauseTypeFieldValueForbidden, Field: field, Message: "Forbidden: " + detail}
}

func notSupported(field, value string, supported ...string) api.StatusCause {
	quoted := make([]string, len(supported))
	for i, v := range supported {
		quoted[i] = fmt.Sprintf("%q", v)
	}
	return api.StatusCause{Type: api.CauseTypeFieldValueNotSupported, Field: field,
		Message: fmt.Sprintf("Unsupported value: %q: supported values: %s", value, strings.Join(quoted, ", "))}
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return string(encodeObject(v))
}

// errExpired is the 410 for a resourceVersion older than the kept history.
func errExpired(msg string) *api.Status {
	return newStatus(http.StatusGone, api.StatusReasonExpired, msg, nil)
}

// errTooLargeResourceVersion is the 504 for a resourceVersion the server has
// not reached yet, after waiting for it.
func errTooLargeResourceVersion(asked, current uint64) *api.Status {
	return newStatus(http.StatusGatewayTimeout, api.StatusReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", asked, current),
		&api.StatusDetails{
			Causes:            []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		})
}

// errMethodNotAllowed is go-restful's 405 as the real server answers it
// (NewGenericServerResponse): the message does not name the method
// (15-differential: deletecollection/not-allowed,
// deletecollection/all-namespaces-not-allowed).
func errMethodNotAllowed(_ string) *api.Status {
	return newStatus(http.StatusMethodNotAllowed, api.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &api.StatusDetails{})
}

func errUnauthorized() *api.Status {
	return newStatus(http.StatusUnauthorized, api.StatusReasonUnauthorized, "Unauthorized", nil)
}

func errForbidden(r *resource, name, why string) *api.Status {
	return newStatus(http.StatusForbidden, api.StatusReasonForbidden,
		fmt.Sprintf("%s %q is forbidden: %s", r.GroupResource(), name, why), qualifiedDetails(r, name))
}

func errTooLarge(limit int64) *api.Status {
	return newStatus(http.StatusRequestEntityTooLarge, api.StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("Request entity too large: limit is %d", limit), nil)
}

func errUnsupportedMediaType(contentType string, supported []string) *api.Status {
	return newStatus(http.StatusUnsupportedMediaType, api.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (this fake API server reads JSON and YAML bodies only; got %q)",
			strings.Join(supported, ", "), contentType), nil)
}

// errUnknownBodyFormat is the 415 of a create or update whose Content-Type
// no serializer of the real server reads (NegotiateInputSerializer), listing
// what it reads (15-differential: create-invalid/content-type-text).
func errUnknownBodyFormat(accepted []string) *api.Status {
	return newStatus(http.StatusUnsupportedMediaType, api.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "), nil)
}

// errRouteUnsupportedMediaType is the 415 of a PATCH whose Content-Type is
// none of the patch types: go-restful finds no route that consumes it and
// answers its own text, which the real server wraps in a Status
// (NewGenericServerResponse) (15-differential: patch-invalid/content-type-json,
// patch-invalid/content-type-text).
func errRouteUnsupportedMediaType() *api.Status {
	return newStatus(http.StatusUnsupportedMediaType, api.StatusReasonUnsupportedMediaType,
		"415: Unsupported Media Type", &api.StatusDetails{})
}

func errNotAcceptable() *api.Status {
	return newStatus(http.StatusNotAcceptable, api.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io (this fake API server speaks JSON only)", nil)
}

func errInternal(msg string) *api.Status {
	return newStatus(http.StatusInternalServerError, api.StatusReasonInternalError,
		"Internal error occurred: "+msg, &api.StatusDetails{Causes: []api.StatusCause{{Message: msg}}})
}

func errTooManyRequests(retryAfterSeconds int32) *api.Status {
	return newStatus(http.StatusTooManyRequests, api.StatusReasonTooManyRequests,
		"Too many requests, please try again later.", &api.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

func errServiceUnavailable(msg string) *api.Status {
	return newStatus(http.StatusServiceUnavailable, api.StatusReasonServiceUnavailable, msg, nil)
}

// deletedStatus is the answer of a DELETE that removed an object of a
// resource without ReturnDeletedObject (a ConfigMap, a ReplicaSet, a custom
// resource): the generic registry's Status of status Success naming what
// was deleted, the resource (not the kind) in details.kind, with its uid
// (15-differential: delete/existing, existing-dry-run, existing-grace-0,
// existing-precondition-uid-ok and their siblings). A dry run that would
// remove the object answers the same.
func deletedStatus(rec *record) []byte {
	st := &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusSuccess,
		Details: &api.StatusDetails{Name: rec.name, Group: rec.res.Group, Kind: rec.res.Name,
			UID: rec.uid},
	}
	b, _ := json.Marshal(st)
	return b
}
