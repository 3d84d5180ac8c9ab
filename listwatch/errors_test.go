package listwatch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/trace"
)

// Every way the fake server (worded as the real one, reference 07 and 08)
// says no, and the helper that recognizes it.
func TestErrorKindsFromServer(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	ctx := context.Background()
	pods := For[*api.Pod](e.client, Pods)
	stored := e.create(t, pod("default", "exists", nil)).(*api.Pod)
	stale := stored.DeepCopy()
	stored.Labels = map[string]string{"v": "2"}
	_, err := e.srv.Update(stored)
	require.NoError(t, err)

	tests := []struct {
		name   string
		call   func() error
		is     func(error) bool
		reason api.StatusReason
		code   int32
	}{
		{"get a missing pod: NotFound", func() error { _, err := pods.Get(ctx, "default", "missing"); return err },
			IsNotFound, api.StatusReasonNotFound, 404},
		{"create a duplicate: AlreadyExists", func() error { _, err := pods.Create(ctx, "", pod("default", "exists", nil)); return err },
			IsAlreadyExists, api.StatusReasonAlreadyExists, 409},
		{"update with a stale resourceVersion: Conflict", func() error { _, err := pods.Update(ctx, "", stale); return err },
			IsConflict, api.StatusReasonConflict, 409},
		{"delete with a failed precondition: Conflict", func() error {
			return pods.Delete(ctx, "default", "exists", DeleteOptions{Preconditions: &Preconditions{ResourceVersion: ptr(stale.ResourceVersion)}})
		}, IsConflict, api.StatusReasonConflict, 409},
		{"create a pod without containers: Invalid", func() error {
			_, err := pods.Create(ctx, "default", &api.Pod{ObjectMeta: api.ObjectMeta{Name: "bad"}})
			return err
		}, IsInvalid, api.StatusReasonInvalid, 422},
		{"a selector that does not parse: BadRequest", func() error {
			_, err := pods.List(ctx, "default", ListOptions{LabelSelector: "app in (("})
			return err
		}, IsBadRequest, api.StatusReasonBadRequest, 400},
		{"deleting a protected namespace: Forbidden", func() error {
			return For[*api.Namespace](e.client, Namespaces).Delete(ctx, "", "default", DeleteOptions{})
		}, IsForbidden, api.StatusReasonForbidden, 403},
		{"injected 500: InternalError", func() error {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: 500})
			_, err := pods.List(ctx, "default", ListOptions{})
			return err
		}, IsInternalError, api.StatusReasonInternalError, 500},
		{"injected 503: ServiceUnavailable", func() error {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "get", Resource: "pods", Code: 503})
			_, err := pods.Get(ctx, "default", "exists")
			return err
		}, IsServiceUnavailable, api.StatusReasonServiceUnavailable, 503},
		{"injected 410 on a list: Expired", func() error {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: 410})
			_, err := pods.List(ctx, "default", ListOptions{})
			return err
		}, IsResourceExpired, api.StatusReasonExpired, 410},
		{"injected 504: too large resource version", func() error {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: 504})
			_, err := pods.List(ctx, "default", ListOptions{})
			return err
		}, IsTooLargeResourceVersion, api.StatusReasonTimeout, 504},
		{"injected 429: TooManyRequests", func() error {
			e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: 429, RetryAfter: 2 * time.Second})
			_, err := pods.Watch(ctx, "default", ListOptions{})
			return err
		}, IsTooManyRequests, api.StatusReasonTooManyRequests, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			var se *StatusError
			require.True(t, errors.As(err, &se), "a *StatusError, got %T: %v", err, err)
			assert.True(t, tt.is(err), "%v", err)
			assert.Equal(t, tt.reason, ReasonForError(err))
			assert.Equal(t, tt.code, se.Status().Code)
			assert.NotEmpty(t, err.Error())
			wrapped := fmt.Errorf("reconciling default/exists: %w", err)
			assert.True(t, tt.is(wrapped), "the helpers see through wrapping")
		})
	}
}

// 429 with Retry-After: the server's wish is readable from the error.
func TestTooManyRequestsRetryAfter(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.srv.FailRequests(fakeapiserver.Fault{Verb: "list", Resource: "pods", Code: 429, RetryAfter: 3 * time.Second})
	_, err := For[*api.Pod](e.client, Pods).List(context.Background(), "default", ListOptions{})
	require.True(t, IsTooManyRequests(err), "%v", err)
	after, ok := RetryAfter(err)
	require.True(t, ok)
	assert.Equal(t, 3*time.Second, after)

	_, ok = RetryAfter(errors.New("not an API error"))
	assert.False(t, ok)
}

// A body that is not a Status (a proxy's HTML page, plain text, nothing)
// still becomes a *StatusError, its reason taken from the HTTP code, as
// client-go's NewGenericServerResponse does; a Retry-After header alone is
// enough for RetryAfter.
func TestStatusErrorSynthesizedFromNonStatusBody(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		body       string
		retryAfter string
		is         func(error) bool
		reason     api.StatusReason
	}{
		{"plain-text 404", 404, "404 page not found", "", IsNotFound, api.StatusReasonNotFound},
		{"HTML 401 from a proxy", 401, "<html>login</html>", "", IsUnauthorized, api.StatusReasonUnauthorized},
		{"empty 429 with Retry-After", 429, "", "7", IsTooManyRequests, api.StatusReasonTooManyRequests},
		{"JSON that is not a Status, 500", 500, `{"error":"boom"}`, "", IsInternalError, api.StatusReasonInternalError},
		{"410 without a reason", 410, "", "", IsResourceExpired, api.StatusReasonGone},
		{"502 bad gateway", 502, "upstream down", "", func(err error) bool { return ReasonForError(err) == "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.code)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer hs.Close()
			c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: hs.URL})
			require.NoError(t, err)
			_, err = For[*api.Pod](c, Pods).Get(context.Background(), "default", "web-0")
			t.Logf("listwatch: server answered %d %q: the client's error: %v (reason %q)", tt.code, tt.body, err, ReasonForError(err))
			var se *StatusError
			require.True(t, errors.As(err, &se), "%T: %v", err, err)
			assert.True(t, tt.is(err), "%v", err)
			assert.Equal(t, tt.reason, ReasonForError(err))
			assert.Equal(t, int32(tt.code), se.Status().Code)
			assert.Contains(t, err.Error(), fmt.Sprint(tt.code))
			assert.Contains(t, err.Error(), tt.body)
			if tt.retryAfter != "" {
				after, ok := RetryAfter(err)
				assert.True(t, ok)
				assert.Equal(t, 7*time.Second, after)
			}
		})
	}
}

// The "too large resource version" answer is recognized in every format
// real servers have sent (client-go's reflector recognizes the same ones),
// and other 504s are not.
func TestIsTooLargeResourceVersion(t *testing.T) {
	timeout := func(msg string, causes ...api.StatusCause) *api.Status {
		st := &api.Status{Code: 504, Reason: api.StatusReasonTimeout, Message: msg}
		if causes != nil {
			st.Details = &api.StatusDetails{Causes: causes, RetryAfterSeconds: 1}
		}
		return st
	}
	tests := []struct {
		name string
		st   *api.Status
		want bool
	}{
		{"1.18.6 and later: the cause type (as kube-apiserver 1.36 sends it)",
			timeout("Timeout: Too large resource version: 999999999, current: 46253",
				api.StatusCause{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}), true},
		{"the cause type alone, whatever the message",
			timeout("Timeout: request did not complete", api.StatusCause{Type: api.CauseTypeResourceVersionTooLarge}), true},
		{"the cause type, even outside a 504",
			&api.Status{Code: 500, Details: &api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge}}}}, true},
		{"1.17.0-1.18.5: the text in a cause's message, none in the Status message",
			timeout("Timeout: too large resource version: 9, current: 3", api.StatusCause{Message: "Too large resource version"}), true},
		{"before 1.17: the Status message only",
			timeout("Timeout: Too large resource version: 9, current: 3"), true},
		{"before 1.17, with details but no causes",
			&api.Status{Code: 504, Reason: api.StatusReasonTimeout, Message: "Timeout: Too large resource version: 9, current: 3",
				Details: &api.StatusDetails{RetryAfterSeconds: 1}}, true},
		{"a 504 with no reason, only the code",
			&api.Status{Code: 504, Message: "Too large resource version: 9, current: 3"}, true},
		{"an ordinary timeout", timeout("Timeout: request did not complete"), false},
		{"an ordinary timeout with an unrelated cause", timeout("Timeout: request did not complete", api.StatusCause{Message: "etcd is slow"}), false},
		{"the words in a 500", &api.Status{Code: 500, Reason: api.StatusReasonInternalError, Message: "Too large resource version",
			Details: &api.StatusDetails{Causes: []api.StatusCause{{Message: "Too large resource version"}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("listwatch: %d %s %q: IsTooLargeResourceVersion = %v", tt.st.Code, tt.st.Reason, tt.st.Message, IsTooLargeResourceVersion(tt.st))
			assert.Equal(t, tt.want, IsTooLargeResourceVersion(&StatusError{ErrStatus: tt.st}))
			assert.Equal(t, tt.want, IsTooLargeResourceVersion(fmt.Errorf("list pods: %w", &StatusError{ErrStatus: tt.st})), "through wrapping")
			assert.Equal(t, tt.want, IsTooLargeResourceVersion(tt.st), "a bare *api.Status works too")
		})
	}
	assert.False(t, IsTooLargeResourceVersion(nil))
	assert.False(t, IsTooLargeResourceVersion(errors.New("Timeout: Too large resource version")), "not an API error")
}

// Both 410 reasons mean "relist" (client-go's reflector checks both).
func TestIsResourceExpiredAcceptsExpiredAndGone(t *testing.T) {
	expired := &StatusError{ErrStatus: &api.Status{Code: 410, Reason: api.StatusReasonExpired}}
	gone := &StatusError{ErrStatus: &api.Status{Code: 410, Reason: api.StatusReasonGone}}
	t.Logf("listwatch: 410 Expired: IsResourceExpired=%v IsGone=%v; 410 Gone: IsResourceExpired=%v IsGone=%v",
		IsResourceExpired(expired), IsGone(expired), IsResourceExpired(gone), IsGone(gone))
	assert.True(t, IsResourceExpired(expired))
	assert.True(t, IsResourceExpired(gone))
	assert.False(t, IsGone(expired))
	assert.True(t, IsGone(gone))
	assert.False(t, IsResourceExpired(&StatusError{ErrStatus: &api.Status{Code: 409, Reason: api.StatusReasonConflict}}))
	assert.False(t, IsResourceExpired(errors.New("410")))
}

// A refused connection (nothing listening) is told apart from API errors.
func TestIsConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // now nothing listens there

	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: "http://" + addr})
	require.NoError(t, err)
	_, err = NewFilteredListWatchFromClient(c, Pods, "default", nil).Watch(context.Background(), ListOptions{})
	require.Error(t, err)
	assert.True(t, IsConnectionRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "watch pods")
	assert.Equal(t, api.StatusReason(""), ReasonForError(err))
	assert.False(t, IsConnectionRefused(&StatusError{ErrStatus: &api.Status{Code: 503}}))
}

// NewNotFound is what the server answers for a missing object, so the
// helpers and errors.As see a lister's miss as they see a 404.
func TestNewNotFound(t *testing.T) {
	err := NewNotFound("pods", "web-0")
	require.True(t, IsNotFound(err))
	require.Equal(t, api.StatusReasonNotFound, ReasonForError(err))
	require.EqualError(t, err, `pods "web-0" not found`)
	require.EqualValues(t, 404, err.Status().Code)
	var st *api.Status
	require.ErrorAs(t, err, &st, "Unwrap gives the Status")
	require.False(t, IsConflict(err))
}
