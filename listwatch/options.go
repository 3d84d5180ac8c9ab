package listwatch

import (
	"net/url"
	"strconv"
)

// The values of ListOptions.ResourceVersionMatch.
const (
	// ResourceVersionMatchExact: the list at exactly ResourceVersion, or
	// 410 Expired if that is no longer kept.
	ResourceVersionMatchExact = "Exact"
	// ResourceVersionMatchNotOlderThan: any state at least as new as
	// ResourceVersion; a streaming list (SendInitialEvents) requires it.
	ResourceVersionMatchNotOlderThan = "NotOlderThan"
)

// query encodes the options as the API server reads them; options left at
// their zero value are not sent. watch adds watch=true.
func (o ListOptions) query(watch bool) url.Values {
	q := url.Values{}
	if watch {
		q.Set("watch", "true")
	}
	set := func(key, value string) {
		if value != "" {
			q.Set(key, value)
		}
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", o.ResourceVersionMatch)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	set("continue", o.Continue)
	if o.TimeoutSeconds != nil {
		q.Set("timeoutSeconds", strconv.FormatInt(*o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	return q
}

// PatchType is the Content-Type of a PATCH: it says how the server applies
// the patch to the stored object.
type PatchType string

const (
	// JSONPatchType: RFC 6902, a list of operations
	// ([{"op":"replace","path":"/metadata/labels/app","value":"web"}]).
	JSONPatchType PatchType = "application/json-patch+json"
	// MergePatchType: RFC 7386, a partial object; null deletes a key, a
	// list replaces the whole list.
	MergePatchType PatchType = "application/merge-patch+json"
	// StrategicMergePatchType: Kubernetes' merge patch that merges lists
	// of named items (containers by name) instead of replacing them.
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
)

// DeleteOptions are the options of a delete (metav1.DeleteOptions, the
// parts kinformer sends). The zero value deletes unconditionally with the
// object's default grace period.
type DeleteOptions struct {
	// GracePeriodSeconds overrides the object's grace period; 0 deletes
	// at once.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Preconditions make the delete fail with 409 Conflict unless the
	// object still has this UID and/or resourceVersion.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
}

// Preconditions of a delete.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// isZero reports whether o sets nothing (then no body is sent).
func (o DeleteOptions) isZero() bool {
	return o.GracePeriodSeconds == nil && o.Preconditions == nil
}

// deleteOptionsBody is DeleteOptions as it travels, with its TypeMeta.
type deleteOptionsBody struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	DeleteOptions
}
