package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kinformer/kinformer/api"
)

// listOptions are the query parameters of list and watch requests
// (metav1.ListOptions), parsed and validated as the real server does.
type listOptions struct {
	labels            api.Selector
	fields            api.FieldSelector
	labelsSet         bool // a label or field selector was given
	resourceVersion   string
	rvMatch           string // "", "Exact" or "NotOlderThan"
	limit             int64
	continueToken     string
	timeoutSeconds    int64 // 0: not given
	allowBookmarks    bool
	sendInitialEvents *bool
}

func parseListOptions(q url.Values, r *resource, watch bool) (listOptions, *api.Status) {
	var o listOptions
	var err error
	if o.labels, err = api.ParseSelector(q.Get("labelSelector")); err != nil {
		return o, errBadRequest("%s", selectorMessage(err))
	}
	if o.fields, err = api.ParseFieldSelector(q.Get("fieldSelector")); err != nil {
		return o, errBadRequest("%s", selectorMessage(err))
	}
	for _, req := range o.fields.Requirements() {
		if !r.supportsField(req.Field) {
			return o, errBadRequest("%s", r.unsupportedFieldMessage(req.Field))
		}
	}
	o.labelsSet = !o.labels.Empty() || !o.fields.Empty()

	o.resourceVersion = q.Get("resourceVersion")
	o.rvMatch = q.Get("resourceVersionMatch")
	o.continueToken = q.Get("continue")
	// A number that does not parse is the query decoder's bare strconv
	// error, as the real server words it (15-differential:
	// list-invalid/limit-not-a-number, list-invalid/timeout-invalid,
	// watch-invalid/timeout-invalid).
	if v := q.Get("limit"); v != "" {
		if o.limit, err = strconv.ParseInt(v, 10, 64); err != nil {
			return o, errBadRequest("%v", err)
		}
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		// A negative value is accepted, as by the real server: a watch
		// with it ends at once (its timer has already fired), a list
		// ignores it.
		if o.timeoutSeconds, err = strconv.ParseInt(v, 10, 64); err != nil {
			return o, errBadRequest("%v", err)
		}
	}
	o.allowBookmarks = boolParam(q, "allowWatchBookmarks")
	if _, ok := q["sendInitialEvents"]; ok {
		v := boolParam(q, "sendInitialEvents")
		o.sendInitialEvents = &v
	}
	if causes := o.validate(watch); len(causes) > 0 {
		return o, errInvalid("ListOptions", "meta.k8s.io", "", causes)
	}
	// The version is parsed by the storage layer, after the options were
	// validated. A list's storage answers a malformed one 400 BadRequest
	// (13-gone-410-and-too-large.txt); a watch's passes the versioner's
	// plain error up unconverted, which the handler answers 500 without a
	// reason (15-differential: watch-invalid/rv-invalid).
	if st := checkResourceVersion(o.resourceVersion, watch); st != nil {
		return o, st
	}
	if !watch && o.continueToken != "" && o.resourceVersion != "" && o.resourceVersion != "0" {
		return o, errBadRequest("specifying resource version is not allowed when using continue")
	}
	return o, nil
}

// validate applies the real server's ListOptions rules (apimachinery's
// ValidateListOptions and validateWatchOptions); each violation is a 422
// cause, all of them reported together.
func (o *listOptions) validate(watch bool) []api.StatusCause {
	// A negative limit is not refused: the real server lists as if no
	// limit were given (15-differential: list-invalid/limit-negative).
	var causes []api.StatusCause
	if watch {
		if o.sendInitialEvents != nil && o.rvMatch != "NotOlderThan" {
			causes = append(causes, forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if o.rvMatch != "" {
			if o.sendInitialEvents == nil {
				causes = append(causes, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if o.rvMatch != "NotOlderThan" {
				causes = append(causes, notSupported("resourceVersionMatch", o.rvMatch, "NotOlderThan"))
			}
		}
		if o.continueToken != "" {
			// Forbidden with or without resourceVersionMatch: a watch with
			// continue alone is refused too, on the field
			// resourceVersionMatch (15-differential:
			// watch-invalid/continue-on-watch).
			causes = append(causes, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
		}
		return causes
	}
	if o.rvMatch != "" {
		if o.resourceVersion == "" {
			causes = append(causes, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.continueToken != "" {
			causes = append(causes, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.rvMatch != "Exact" && o.rvMatch != "NotOlderThan" {
			causes = append(causes, notSupported("resourceVersionMatch", o.rvMatch, "Exact", "NotOlderThan", ""))
		}
		if o.rvMatch == "Exact" && o.resourceVersion == "0" {
			causes = append(causes, forbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""))
		}
	}
	if o.sendInitialEvents != nil {
		causes = append(causes, forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
	}
	return causes
}

// checkResourceVersion answers a resourceVersion that is not a number as
// the storage layer does: 400 for a list (apiserver wraps the versioner's
// error as a BadRequest there), 500 without a reason for a watch or a get,
// whose storage returns the versioner's error as it is (15-differential:
// get/existing-rv-invalid, get/missing-rv-invalid, watch-invalid/rv-invalid).
func checkResourceVersion(rv string, watchOrGet bool) *api.Status {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		msg := fmt.Sprintf("resourceVersion: Invalid value: %q: %v", rv, err)
		if watchOrGet {
			return newStatus(http.StatusInternalServerError, "", msg, nil)
		}
		return errBadRequest("invalid resource version: %s", msg)
	}
	return nil
}

// selectorMessage is a selector parse error as the real server words it.
func selectorMessage(err error) string {
	var se *api.SelectorError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

func (o *listOptions) matches(rec *record) bool {
	return o.labels.Matches(rec.labels) && (o.fields.Empty() || o.fields.Matches(rec.fieldSet()))
}

// waitForResourceVersion waits, up to the configured time, for the server to
// reach rv. A list or get at a version the server has not reached yet (a
// client that talked to a newer server, say) waits briefly and then gets
// 504 with cause ResourceVersionTooLarge, as from the real server.
func (s *Server) waitForResourceVersion(ctx context.Context, rv uint64) *api.Status {
	var timeout <-chan time.Time
	for {
		current, changed := s.store.RevChanged()
		if current >= rv {
			return nil
		}
		if timeout == nil {
			timeout = s.clock.After(s.opts.TooLargeResourceVersionWait)
		}
		select {
		case <-changed:
		case <-timeout:
			return errTooLargeResourceVersion(rv, current)
		case <-ctx.Done():
			return errTooLargeResourceVersion(rv, current)
		case <-s.closed:
			return errServiceUnavailable("the server is shutting down")
		}
	}
}
