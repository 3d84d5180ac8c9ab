package listwatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kinformer/kinformer/api"
)

// StatusError is an API server's refusal: every non-2xx answer, and every
// ERROR frame of a watch, becomes one. It carries the server's Status
// (client-go's apierrors.StatusError). Unwrap returns the *api.Status, so
// errors.As finds either.
type StatusError struct {
	ErrStatus *api.Status
}

// Error is the server's message.
func (e *StatusError) Error() string { return e.ErrStatus.Error() }

// Status returns the Status the server sent (or the one synthesized for it).
func (e *StatusError) Status() *api.Status { return e.ErrStatus }

// Unwrap returns the Status.
func (e *StatusError) Unwrap() error { return e.ErrStatus }

// NewNotFound returns the error the API server answers for a missing
// object, resource (a GroupResource, "pods", or a type name, "pod") and name
// naming it: a 404 NotFound Status with the message `pods "web-0" not
// found`. Listers return it for a cache miss (client-go's
// apierrors.NewNotFound), so IsNotFound, errors.As to a *StatusError and
// Status() treat a miss in the cache and on the server alike.
func NewNotFound(resource, name string) *StatusError {
	return &StatusError{ErrStatus: &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  fmt.Sprintf("%s %q not found", resource, name),
		Reason:   api.StatusReasonNotFound,
		Details:  &api.StatusDetails{Name: name, Kind: resource},
		Code:     http.StatusNotFound,
	}}
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// errorFromResponse turns a non-2xx response into a *StatusError and closes
// its body. A body that is a Status is used as is; anything else (an HTML
// page from a proxy, plain text, nothing) gives a Status synthesized from
// the HTTP code, as client-go's NewGenericServerResponse does. A
// Retry-After header the Status does not repeat is copied into
// details.retryAfterSeconds, so RetryAfter sees it either way.
func errorFromResponse(resp *http.Response, verb string, r Resource, name string) *StatusError {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	st := decodeStatus(body)
	if st == nil {
		st = statusForCode(resp.StatusCode, verb, r, name, body)
	}
	if st.Code == 0 {
		st.Code = int32(resp.StatusCode)
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
		if st.Details == nil {
			st.Details = &api.StatusDetails{}
		}
		if st.Details.RetryAfterSeconds == 0 {
			st.Details.RetryAfterSeconds = int32(secs)
		}
	}
	return &StatusError{ErrStatus: st}
}

// decodeStatus returns body as a failure Status, or nil if it is not one.
func decodeStatus(body []byte) *api.Status {
	st := &api.Status{}
	if json.Unmarshal(body, st) != nil || st.Kind != "Status" || st.Status == api.StatusSuccess {
		return nil
	}
	return st
}

// statusForCode synthesizes the Status a server that sent no Status meant.
func statusForCode(code int, verb string, r Resource, name string, body []byte) *api.Status {
	reason := reasonForCode(code)
	msg := fmt.Sprintf("the server answered %d %s to %s %s", code, http.StatusText(code), verb, r.GroupResource())
	if name != "" {
		msg += fmt.Sprintf(" %q", name)
	}
	if text := strings.TrimSpace(string(body)); text != "" {
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		msg += ": " + text
	}
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  &api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource},
		Code:     int32(code),
	}
}

func reasonForCode(code int) api.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return api.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return api.StatusReasonUnauthorized
	case http.StatusForbidden:
		return api.StatusReasonForbidden
	case http.StatusNotFound:
		return api.StatusReasonNotFound
	case http.StatusMethodNotAllowed:
		return api.StatusReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return api.StatusReasonNotAcceptable
	case http.StatusConflict:
		return api.StatusReasonConflict
	case http.StatusGone:
		return api.StatusReasonGone
	case http.StatusRequestEntityTooLarge:
		return api.StatusReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return api.StatusReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return api.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return api.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		return api.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		return api.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return api.StatusReasonTimeout
	}
	return ""
}

// statusOf finds the Status in err's chain, if any.
func statusOf(err error) *api.Status {
	var st *api.Status
	if errors.As(err, &st) && st != nil {
		return st
	}
	return nil
}

// ReasonForError returns the Reason of the Status in err's chain, or "" if
// err is not an API error.
func ReasonForError(err error) api.StatusReason {
	if st := statusOf(err); st != nil {
		return st.Reason
	}
	return ""
}

// hasReason reports whether err is an API error with this reason, or, when
// the server gave no reason, with this HTTP code (client-go's
// reasonAndCodeForError rule).
func hasReason(err error, reason api.StatusReason, code int) bool {
	st := statusOf(err)
	if st == nil {
		return false
	}
	if st.Reason == reason {
		return true
	}
	return st.Reason == "" && code != 0 && int(st.Code) == code
}

// IsNotFound: 404, the object (or the resource, or its namespace) does not exist.
func IsNotFound(err error) bool { return hasReason(err, api.StatusReasonNotFound, http.StatusNotFound) }

// IsAlreadyExists: 409 on create, an object of that name exists.
func IsAlreadyExists(err error) bool { return hasReason(err, api.StatusReasonAlreadyExists, 0) }

// IsConflict: 409, the object changed since the resourceVersion the write
// carried (optimistic concurrency), or a delete precondition failed.
func IsConflict(err error) bool { return hasReason(err, api.StatusReasonConflict, http.StatusConflict) }

// IsGone: 410 with the legacy reason Gone.
func IsGone(err error) bool { return hasReason(err, api.StatusReasonGone, http.StatusGone) }

// IsResourceExpired: 410, the resourceVersion or continue token asked for is
// older than the history the server keeps. A Reflector relists. Both
// reasons count (Expired, and the older Gone), as client-go's reflector
// checks both.
func IsResourceExpired(err error) bool {
	return hasReason(err, api.StatusReasonExpired, 0) || IsGone(err)
}

// IsTooManyRequests: 429, the server sheds load; see RetryAfter.
func IsTooManyRequests(err error) bool {
	return hasReason(err, api.StatusReasonTooManyRequests, http.StatusTooManyRequests)
}

// IsTimeout: 504, the server gave up waiting.
func IsTimeout(err error) bool {
	return hasReason(err, api.StatusReasonTimeout, http.StatusGatewayTimeout)
}

// IsTooLargeResourceVersion: the resourceVersion asked for is newer than
// the server has seen (it waited about 3 s for it, then gave up with a 504
// Timeout). A Reflector relists from "". Servers have said so in three
// ways, and each is recognized, as client-go's reflector recognizes them:
//
//   - since 1.18.6: a cause of type ResourceVersionTooLarge (whatever the
//     code and message around it);
//   - 1.17.0 to 1.18.5: a 504 Timeout whose cause has no type, only the
//     message "Too large resource version" (the Status message then reads
//     "Timeout: too large resource version: ...");
//   - before 1.17: a 504 Timeout that says "Too large resource version" in
//     its message only.
//
// Any other 504 is an ordinary timeout.
func IsTooLargeResourceVersion(err error) bool {
	st := statusOf(err)
	if st == nil {
		return false
	}
	if hasCause(st, func(c api.StatusCause) bool { return c.Type == api.CauseTypeResourceVersionTooLarge }) {
		return true
	}
	if !IsTimeout(err) {
		return false
	}
	return hasCause(st, func(c api.StatusCause) bool { return c.Message == tooLargeResourceVersion }) ||
		strings.Contains(st.Message, tooLargeResourceVersion)
}

// tooLargeResourceVersion is the wording servers before 1.18.6 used, in a
// cause's message (1.17.0 to 1.18.5) or in the Status message (before 1.17).
const tooLargeResourceVersion = "Too large resource version"

// hasCause reports whether one of st's causes matches.
func hasCause(st *api.Status, match func(api.StatusCause) bool) bool {
	if st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if match(c) {
			return true
		}
	}
	return false
}

// IsInternalError: 500.
func IsInternalError(err error) bool {
	return hasReason(err, api.StatusReasonInternalError, http.StatusInternalServerError)
}

// IsServiceUnavailable: 503.
func IsServiceUnavailable(err error) bool {
	return hasReason(err, api.StatusReasonServiceUnavailable, http.StatusServiceUnavailable)
}

// IsUnauthorized: 401, no or a wrong bearer token.
func IsUnauthorized(err error) bool {
	return hasReason(err, api.StatusReasonUnauthorized, http.StatusUnauthorized)
}

// IsForbidden: 403, the credentials may not do this.
func IsForbidden(err error) bool {
	return hasReason(err, api.StatusReasonForbidden, http.StatusForbidden)
}

// IsBadRequest: 400, e.g. a selector that does not parse.
func IsBadRequest(err error) bool {
	return hasReason(err, api.StatusReasonBadRequest, http.StatusBadRequest)
}

// IsInvalid: 422, the object or the options break a validation rule;
// details.causes says which fields.
func IsInvalid(err error) bool {
	return hasReason(err, api.StatusReasonInvalid, http.StatusUnprocessableEntity)
}

// RetryAfter returns how long the server asked the client to wait before
// retrying (the Retry-After header, or details.retryAfterSeconds of the
// Status), and whether it asked at all (client-go's SuggestsClientDelay).
func RetryAfter(err error) (time.Duration, bool) {
	st := statusOf(err)
	if st == nil || st.Details == nil || st.Details.RetryAfterSeconds <= 0 {
		return 0, false
	}
	return time.Duration(st.Details.RetryAfterSeconds) * time.Second, true
}

// IsConnectionRefused reports whether err is a refused TCP connection: the
// server is not listening (yet, or any more). A Reflector retries such
// watches after a backoff instead of relisting.
func IsConnectionRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}
