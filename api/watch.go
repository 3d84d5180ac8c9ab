package api

import "encoding/json"

// EventType is the "type" of a watch event.
type EventType string

const (
	// Added: the object is new to this watch (created, or started matching its selector).
	Added EventType = "ADDED"
	// Modified: the object changed.
	Modified EventType = "MODIFIED"
	// Deleted: the object is gone (deleted, or stopped matching the selector);
	// the object is its last state, with the resourceVersion of the deletion.
	Deleted EventType = "DELETED"
	// Bookmark: no object changed; the object carries only a resourceVersion
	// the watch has reached, to resume from.
	Bookmark EventType = "BOOKMARK"
	// Error: the watch failed; the object is a Status.
	Error EventType = "ERROR"
)

// InitialEventsAnnotationKey marks the BOOKMARK that ends the initial events
// of a watch opened with sendInitialEvents=true (a "streaming list").
const InitialEventsAnnotationKey = "k8s.io/initial-events-end"

// WatchEvent is one frame of a watch stream, exactly as it travels:
//
//	{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{...},...}}
//
// Object is left raw; a client decodes it once it knows the type.
type WatchEvent struct {
	Type   EventType       `json:"type"`
	Object json.RawMessage `json:"object"`
}
