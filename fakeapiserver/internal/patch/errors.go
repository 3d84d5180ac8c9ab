package patch

import (
	"errors"
	"fmt"
)

// The kinds of failure a patch can meet. Every error this package returns
// wraps exactly one of them, so the server can pick the HTTP answer with
// errors.Is, the way kube-apiserver does:
//
//   - ErrMalformed: the body is not JSON, or not the shape its patch type
//     requires (a merge patch that is not an object, a JSON patch that is
//     not an array of objects or whose "op" is not a string, an unknown
//     directive). kube-apiserver answers 400 BadRequest.
//   - ErrNotApplicable: the patch is well formed but cannot be applied to
//     this object (a JSON pointer to a missing member, an index out of range,
//     a failed "test" operation, an unknown JSON patch op, copies adding up
//     to more than 3 MiB). kube-apiserver answers 422 Unprocessable Entity
//     for these.
//   - ErrTooLarge: a JSON patch with more operations than kube-apiserver
//     allows (10000; it answers 413 Request Entity Too Large), or one whose
//     cost would balloon: copies that double the object again and again, or
//     thousands of insertions at the front of a huge array. The server can
//     answer 413 for these too.
var (
	ErrMalformed     = errors.New("malformed patch")
	ErrNotApplicable = errors.New("patch cannot be applied")
	ErrTooLarge      = errors.New("patch too large")
)

// patchError carries a readable message and says, through Unwrap, which of
// the three kinds it is. The message does not repeat the kind's text, so the
// error reads like one sentence: `add operation does not apply: doc is
// missing path: "/a/b": missing value`. cause is the formatted error itself, so an error wrapped
// with %w (say a *json.SyntaxError) stays reachable through errors.As.
type patchError struct {
	kind  error
	cause error
}

func (e *patchError) Error() string   { return e.cause.Error() }
func (e *patchError) Unwrap() []error { return []error{e.kind, e.cause} }

// malformedf returns an ErrMalformed error with a formatted message.
func malformedf(format string, args ...any) error {
	return &patchError{kind: ErrMalformed, cause: fmt.Errorf(format, args...)}
}

// notApplicablef returns an ErrNotApplicable error with a formatted message.
func notApplicablef(format string, args ...any) error {
	return &patchError{kind: ErrNotApplicable, cause: fmt.Errorf(format, args...)}
}

// tooLargef returns an ErrTooLarge error with a formatted message.
func tooLargef(format string, args ...any) error {
	return &patchError{kind: ErrTooLarge, cause: fmt.Errorf(format, args...)}
}

// UnknownDirectiveError is a "$patch" directive a strategic merge patch does
// not know, in an object or in a list element. It is ErrMalformed, but the
// server needs the object that carries the directive: kube-apiserver passes
// apimachinery's error about it through unconverted (a 500 naming that
// object), so the server words the answer itself.
type UnknownDirectiveError struct {
	Path      string         // where, as in the other messages
	Directive any            // the directive's value
	Map       map[string]any // the patch object holding it
	InList    bool           // an element of a list merged by key
}

func (e *UnknownDirectiveError) Error() string {
	if e.InList {
		return fmt.Sprintf(`%s: unknown "$patch" directive %s (want "delete" or "replace")`, e.Path, brief(e.Directive))
	}
	return fmt.Sprintf(`%s: unknown "$patch" directive %s in an object (want "replace" or "delete")`, e.Path, brief(e.Directive))
}

func (e *UnknownDirectiveError) Unwrap() error { return ErrMalformed }
