package api

import "fmt"

// Status is what the API server answers when a request fails (and, as the
// object of an ERROR watch event, when a watch fails):
//
//	{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
//	 "message":"pods \"foo\" not found","reason":"NotFound",
//	 "details":{"name":"foo","kind":"pods"},"code":404}
//
// Code repeats the HTTP status code; Reason is the machine-readable cause
// clients switch on. *Status implements error.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Status   string         `json:"status,omitempty"`
	Message  string         `json:"message,omitempty"`
	Reason   StatusReason   `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitempty"`
}

// StatusDetails says which object a failure is about and, for validation
// failures, which fields.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason a request failed, often one invalid field.
type StatusCause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// StatusReason is the machine-readable Reason of a Status.
type StatusReason string

// The reasons kinformer's server sends and its client recognizes, with the
// HTTP code each goes with.
const (
	StatusReasonBadRequest            StatusReason = "BadRequest"            // 400
	StatusReasonUnauthorized          StatusReason = "Unauthorized"          // 401
	StatusReasonForbidden             StatusReason = "Forbidden"             // 403
	StatusReasonNotFound              StatusReason = "NotFound"              // 404
	StatusReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"      // 405
	StatusReasonNotAcceptable         StatusReason = "NotAcceptable"         // 406
	StatusReasonAlreadyExists         StatusReason = "AlreadyExists"         // 409
	StatusReasonConflict              StatusReason = "Conflict"              // 409
	StatusReasonGone                  StatusReason = "Gone"                  // 410 (legacy)
	StatusReasonExpired               StatusReason = "Expired"               // 410
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge" // 413
	StatusReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"  // 415
	StatusReasonInvalid               StatusReason = "Invalid"               // 422
	StatusReasonTooManyRequests       StatusReason = "TooManyRequests"       // 429
	StatusReasonInternalError         StatusReason = "InternalError"         // 500
	StatusReasonServiceUnavailable    StatusReason = "ServiceUnavailable"    // 503
	StatusReasonTimeout               StatusReason = "Timeout"               // 504
)

// CauseType is the machine-readable reason of a StatusCause.
type CauseType string

const (
	CauseTypeFieldValueRequired      CauseType = "FieldValueRequired"
	CauseTypeFieldValueInvalid       CauseType = "FieldValueInvalid"
	CauseTypeFieldValueForbidden     CauseType = "FieldValueForbidden"
	CauseTypeFieldValueNotSupported  CauseType = "FieldValueNotSupported"
	CauseTypeFieldValueDuplicate     CauseType = "FieldValueDuplicate"
	CauseTypeResourceVersionTooLarge CauseType = "ResourceVersionTooLarge"
)

// Status values.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Error makes *Status an error; the text is the server's message.
func (s *Status) Error() string {
	if s.Message != "" {
		return s.Message
	}
	return fmt.Sprintf("the server answered %d %s", s.Code, s.Reason)
}

// DeepCopy returns a copy of s that shares nothing with it.
func (s *Status) DeepCopy() *Status {
	if s == nil {
		return nil
	}
	c := *s
	c.RemainingItemCount = copyPtr(s.RemainingItemCount)
	if s.Details != nil {
		d := *s.Details
		d.Causes = copySlice(s.Details.Causes)
		c.Details = &d
	}
	return &c
}
