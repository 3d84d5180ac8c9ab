package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
)

// Server-side printing. kubectl get asks for
// "application/json;as=Table;v=v1;g=meta.k8s.io" and prints whatever
// columns the server sends back, so the columns kubectl shows for pods
// (NAME READY STATUS RESTARTS AGE) come from here, as on the real server.

// column is one kubectl get column. Priority 0 columns always show;
// priority 1 only with -o wide.
type column struct {
	Name        string
	Type        string // "string", "integer", "date"
	Format      string // "name" for the NAME column
	Description string
	Priority    int
	Cell        func(obj map[string]any, now time.Time) any
}

var nameColumn = column{Name: "Name", Type: "string", Format: "name",
	Description: "Name must be unique within a namespace.",
	Cell:        func(obj map[string]any, _ time.Time) any { return valueAt(obj, "metadata", "name") }}

var ageColumn = column{Name: "Age", Type: "string",
	Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
	Cell: func(obj map[string]any, now time.Time) any {
		ts, err := time.Parse(time.RFC3339, scalarString(valueAt(obj, "metadata", "creationTimestamp")))
		if err != nil {
			return "<unknown>"
		}
		return humanDuration(now.Sub(ts))
	}}

func noneIfEmpty(v any) any {
	if s := scalarString(v); s != "" {
		return s
	}
	return "<none>"
}

var podColumns = []column{
	nameColumn,
	{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic.", Cell: podReady},
	{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod.", Cell: podStatus},
	{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted.", Cell: podRestarts},
	ageColumn,
	{Name: "IP", Type: "string", Priority: 1, Description: "podIP address allocated to the pod.",
		Cell: func(o map[string]any, _ time.Time) any { return noneIfEmpty(valueAt(o, "status", "podIP")) }},
	{Name: "Node", Type: "string", Priority: 1, Description: "NodeName indicates in which node this pod is scheduled.",
		Cell: func(o map[string]any, _ time.Time) any { return noneIfEmpty(valueAt(o, "spec", "nodeName")) }},
	{Name: "Nominated Node", Type: "string", Priority: 1, Description: "nominatedNodeName is set only when this pod preempts other pods on the node.",
		Cell: func(o map[string]any, _ time.Time) any { return noneIfEmpty(valueAt(o, "status", "nominatedNodeName")) }},
	{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "If specified, all readiness gates will be evaluated for pod readiness.",
		Cell: func(map[string]any, time.Time) any { return "<none>" }},
}

// podReady counts ready containers from status.containerStatuses; a pod
// without container statuses (nothing here runs a kubelet) counts all its
// containers ready when its Ready condition is True.
func podReady(obj map[string]any, _ time.Time) any {
	containers, _ := valueAt(obj, "spec", "containers").([]any)
	statuses, _ := valueAt(obj, "status", "containerStatuses").([]any)
	ready := 0
	if len(statuses) > 0 {
		for _, cs := range statuses {
			if m, ok := cs.(map[string]any); ok && m["ready"] == true {
				ready++
			}
		}
	} else if podConditionTrue(obj, "Ready") {
		ready = len(containers)
	}
	return fmt.Sprintf("%d/%d", ready, len(containers))
}

func podConditionTrue(obj map[string]any, typ string) bool {
	conds, _ := valueAt(obj, "status", "conditions").([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

func podStatus(obj map[string]any, _ time.Time) any {
	if valueAt(obj, "metadata", "deletionTimestamp") != nil {
		return "Terminating"
	}
	if reason := scalarString(valueAt(obj, "status", "reason")); reason != "" {
		return reason
	}
	return scalarString(valueAt(obj, "status", "phase"))
}

func podRestarts(obj map[string]any, _ time.Time) any {
	statuses, _ := valueAt(obj, "status", "containerStatuses").([]any)
	var n int64
	for _, cs := range statuses {
		if m, ok := cs.(map[string]any); ok {
			n += intAt(m, "restartCount")
		}
	}
	return fmt.Sprint(n)
}

var replicaSetColumns = []column{
	nameColumn,
	{Name: "Desired", Type: "integer", Description: "Number of desired pods.",
		Cell: func(o map[string]any, _ time.Time) any { return intAt(mapAt(o, "spec"), "replicas") }},
	{Name: "Current", Type: "integer", Description: "Number of pods currently running.",
		Cell: func(o map[string]any, _ time.Time) any { return intAt(mapAt(o, "status"), "replicas") }},
	{Name: "Ready", Type: "integer", Description: "Number of pods ready.",
		Cell: func(o map[string]any, _ time.Time) any { return intAt(mapAt(o, "status"), "readyReplicas") }},
	ageColumn,
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template.",
		Cell: func(o map[string]any, _ time.Time) any { return containerField(o, "name") }},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template.",
		Cell: func(o map[string]any, _ time.Time) any { return containerField(o, "image") }},
	{Name: "Selector", Type: "string", Priority: 1, Description: "Label selector for pods.",
		Cell: func(o map[string]any, _ time.Time) any {
			sel, err := labelSelectorOf(mapAt(mapAt(o, "spec"), "selector"))
			if err != nil {
				return "<invalid>"
			}
			return sel.String()
		}},
}

func containerField(rs map[string]any, field string) string {
	containers, _ := valueAt(rs, "spec", "template", "spec", "containers").([]any)
	var out []string
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok {
			out = append(out, stringAt(m, field))
		}
	}
	return strings.Join(out, ",")
}

var configMapColumns = []column{
	nameColumn,
	{Name: "Data", Type: "string", Description: "Number of entries in data and binaryData.",
		Cell: func(o map[string]any, _ time.Time) any {
			return fmt.Sprint(len(mapAt(o, "data")) + len(mapAt(o, "binaryData")))
		}},
	ageColumn,
}

var namespaceColumns = []column{
	nameColumn,
	{Name: "Status", Type: "string", Description: "The status of the namespace.",
		Cell: func(o map[string]any, _ time.Time) any { return valueAt(o, "status", "phase") }},
	ageColumn,
}

// renderTable builds a meta.k8s.io/v1 Table of records; each row carries the
// object's metadata as a PartialObjectMetadata, as kubectl expects.
func (s *Server) renderTable(r *resource, meta api.ListMeta, items []*record) []byte {
	type columnDefinition struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Format      string `json:"format"`
		Description string `json:"description"`
		Priority    int    `json:"priority"`
	}
	type row struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	}
	table := struct {
		Kind    string             `json:"kind"`
		Version string             `json:"apiVersion"`
		Meta    api.ListMeta       `json:"metadata"`
		Columns []columnDefinition `json:"columnDefinitions"`
		Rows    []row              `json:"rows"`
	}{Kind: "Table", Version: "meta.k8s.io/v1", Meta: meta, Rows: []row{}}
	for _, c := range r.Columns {
		table.Columns = append(table.Columns, columnDefinition{c.Name, c.Type, c.Format, c.Description, c.Priority})
	}
	now := s.clock.Now()
	for _, rec := range items {
		obj := rec.object()
		cells := make([]any, len(r.Columns))
		for i, c := range r.Columns {
			cells[i] = c.Cell(obj, now)
		}
		table.Rows = append(table.Rows, row{Cells: cells, Object: partialObjectOf(obj)})
	}
	b, _ := json.Marshal(table) // cannot fail: strings, numbers and raw JSON
	return b
}

// humanDuration prints an age as kubectl does: 5s, 3m20s, 7h, 4d, 2y.
func humanDuration(d time.Duration) string {
	if d < -time.Second {
		return "<invalid>"
	}
	if d < 0 {
		d = 0
	}
	seconds := int(d.Round(time.Second) / time.Second)
	switch {
	case seconds < 60*2:
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := seconds % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	}
	if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := minutes % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dd := (hours / 24) % 365; dd != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dd)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}
