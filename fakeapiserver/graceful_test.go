package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// Graceful pod deletion and DeleteOptions as kube-apiserver 1.36 answers
// them. Sources: the recordings testdata/kube-apiserver-1.36/09 (DELETE of
// an unscheduled pod: 200, deletionTimestamp = now, deletionGracePeriodSeconds
// 0, generation 2) and 10 (its watch: MODIFIED then DELETED); the pod
// strategy's CheckGracefulDelete (pkg/registry/core/pod/strategy.go: grace
// from the options, else spec.terminationGracePeriodSeconds; 0 when not
// scheduled or terminated; negative becomes 1); apiserver's
// rest.BeforeDelete (only a shorter grace changes a pending deletion) and
// Store.Delete (grace 0: the marking update, then the delete); and the
// DELETE handler (endpoints/handlers/delete.go: a body is the options, the
// query is read only when there is no body).

const podsPath = "/api/v1/namespaces/default/pods"

// postPod creates a pod in default from a JSON spec fragment and returns its resourceVersion.
func (e *env) postPod(name, spec string) string {
	e.t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"containers":[{"name":"c","image":"busybox"}]%s}}`,
		name, spec)
	r := e.do(http.MethodPost, podsPath, body)
	require.Equal(e.t, http.StatusCreated, r.code, "%s", r.body)
	var m map[string]any
	r.decode(e.t, &m)
	return m["metadata"].(map[string]any)["resourceVersion"].(string)
}

// deleted is the part of a DELETE's answer these tests compare.
type deleted struct {
	DeletionTimestamp string // "" when not set
	Grace             string // deletionGracePeriodSeconds, "" when not set
	Generation        string
	Phase             string
}

func summarizeDeleted(t *testing.T, r response) deleted {
	t.Helper()
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var m map[string]any
	r.decode(t, &m)
	meta := m["metadata"].(map[string]any)
	str := func(v any) string {
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	}
	var phase string
	if st, ok := m["status"].(map[string]any); ok {
		phase = str(st["phase"])
	}
	return deleted{str(meta["deletionTimestamp"]), str(meta["deletionGracePeriodSeconds"]), str(meta["generation"]), phase}
}

// eventTypes reads the pod watch until the sentinel pod's ADDED and
// returns the event types before it, each with its deletionGracePeriodSeconds.
func eventTypes(t *testing.T, e *env, ws *watchStream) []string {
	t.Helper()
	e.postPod("zz-sentinel", "")
	var out []string
	for {
		f := ws.next()
		m := f.meta(t)
		if m.Name == "zz-sentinel" {
			return out
		}
		s := string(f.Type)
		if m.DeletionGracePeriodSeconds != nil {
			s += fmt.Sprintf("(grace %d)", *m.DeletionGracePeriodSeconds)
		}
		out = append(out, s)
	}
}

func TestDelete_GracefulPods(t *testing.T) {
	const (
		now   = "2026-11-22T04:00:00Z" // epoch
		plus5 = "2026-11-22T04:00:05Z"
		plus1 = "2026-11-22T04:00:01Z"
		p10   = "2026-11-22T04:00:10Z"
		p30   = "2026-11-22T04:00:30Z"
	)
	type req struct{ query, body string }
	cases := []struct {
		name     string
		spec     string // JSON added to the pod's spec
		extra    func(e *env)
		deletes  []req
		want     deleted // the last DELETE's answer
		stays    bool
		events   []string
		citation string
	}{
		{name: "unbound pod: marked with grace 0 and removed", deletes: []req{{}},
			want: deleted{now, "0", "2", "Pending"}, events: []string{"MODIFIED(grace 0)", "DELETED(grace 0)"},
			citation: "09 DELETE demo-d, 10 watch-1: MODIFIED then DELETED"},
		{name: "unbound pod ignores a requested grace", deletes: []req{{query: "?gracePeriodSeconds=30"}},
			want: deleted{now, "0", "2", "Pending"}, events: []string{"MODIFIED(grace 0)", "DELETED(grace 0)"},
			citation: "CheckGracefulDelete: not scheduled, grace 0"},
		{name: "bound pod: marked with the default grace 30, stays", spec: `,"nodeName":"node-1"`, deletes: []req{{}},
			want: deleted{p30, "30", "2", "Pending"}, stays: true, events: []string{"MODIFIED(grace 30)"},
			citation: "terminationGracePeriodSeconds defaults to 30"},
		{name: "bound pod: its own terminationGracePeriodSeconds", spec: `,"nodeName":"node-1","terminationGracePeriodSeconds":5`,
			deletes: []req{{}}, want: deleted{plus5, "5", "2", "Pending"}, stays: true, events: []string{"MODIFIED(grace 5)"}},
		{name: "bound pod: gracePeriodSeconds in the query", spec: `,"nodeName":"node-1"`, deletes: []req{{query: "?gracePeriodSeconds=10"}},
			want: deleted{p10, "10", "2", "Pending"}, stays: true, events: []string{"MODIFIED(grace 10)"}},
		{name: "bound pod: gracePeriodSeconds in the body", spec: `,"nodeName":"node-1"`,
			deletes: []req{{body: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":10}`}},
			want:    deleted{p10, "10", "2", "Pending"}, stays: true, events: []string{"MODIFIED(grace 10)"}},
		{name: "bound pod: negative grace counts as 1", spec: `,"nodeName":"node-1"`, deletes: []req{{query: "?gracePeriodSeconds=-5"}},
			want: deleted{plus1, "1", "2", "Pending"}, stays: true, events: []string{"MODIFIED(grace 1)"},
			citation: "BeforeDelete: negative values are treated as 1s"},
		{name: "bound pod: grace 0 removes it at once (kubectl delete --force --grace-period=0)", spec: `,"nodeName":"node-1"`,
			deletes: []req{{query: "?gracePeriodSeconds=0"}},
			want:    deleted{now, "0", "2", "Pending"}, events: []string{"MODIFIED(grace 0)", "DELETED(grace 0)"}},
		{name: "bound pod: the kubelet's grace-0 delete finishes a graceful delete", spec: `,"nodeName":"node-1"`,
			deletes:  []req{{}, {body: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`}},
			want:     deleted{now, "0", "2", "Pending"},
			events:   []string{"MODIFIED(grace 30)", "MODIFIED(grace 0)", "DELETED(grace 0)"},
			citation: "BeforeDelete shortens the grace (deletionTimestamp moves back 30s); grace 0 then deletes"},
		{name: "bound pod: a second delete without grace changes nothing", spec: `,"nodeName":"node-1"`,
			deletes: []req{{}, {}}, want: deleted{p30, "30", "2", "Pending"}, stays: true,
			events: []string{"MODIFIED(grace 30)"}, citation: "BeforeDelete: graceful deletion pending"},
		{name: "bound pod: a longer grace changes nothing", spec: `,"nodeName":"node-1"`,
			deletes: []req{{}, {query: "?gracePeriodSeconds=60"}}, want: deleted{p30, "30", "2", "Pending"}, stays: true,
			events: []string{"MODIFIED(grace 30)"}},
		{name: "bound pod: a shorter grace moves deletionTimestamp", spec: `,"nodeName":"node-1"`,
			deletes: []req{{}, {query: "?gracePeriodSeconds=10"}}, want: deleted{p10, "10", "2", "Pending"}, stays: true,
			events: []string{"MODIFIED(grace 30)", "MODIFIED(grace 10)"}},
		{name: "bound pod with a finalizer: grace 0 only marks it", spec: `,"nodeName":"node-1"`,
			extra: func(e *env) {
				r := e.do(http.MethodPatch, podsPath+"/p", `{"metadata":{"finalizers":["example.com/keep"]}}`, "Content-Type", "application/merge-patch+json")
				require.Equal(e.t, http.StatusOK, r.code, "%s", r.body)
			},
			deletes: []req{{query: "?gracePeriodSeconds=0"}}, want: deleted{now, "0", "2", "Pending"}, stays: true,
			events: []string{"MODIFIED", "MODIFIED(grace 0)"}, citation: "Store.Delete: pending finalizers, never deleted at once"},
		{name: "bound pod that Succeeded: grace 0", spec: `,"nodeName":"node-1"`,
			extra: func(e *env) {
				r := e.do(http.MethodPatch, podsPath+"/p/status", `{"status":{"phase":"Succeeded"}}`, "Content-Type", "application/merge-patch+json")
				require.Equal(e.t, http.StatusOK, r.code, "%s", r.body)
			},
			deletes: []req{{}}, want: deleted{now, "0", "2", "Succeeded"},
			events: []string{"MODIFIED", "MODIFIED(grace 0)", "DELETED(grace 0)"}, citation: "CheckGracefulDelete: terminated pods go at once"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			rv := e.postPod("p", c.spec)
			ws := e.watch(podsPath + "?watch=true&resourceVersion=" + rv)
			if c.extra != nil {
				c.extra(e)
			}
			var last response
			for _, d := range c.deletes {
				last = e.do(http.MethodDelete, podsPath+"/p"+d.query, d.body)
			}
			require.Equal(t, c.want, summarizeDeleted(t, last), c.citation)
			got := e.get(podsPath + "/p")
			if c.stays {
				require.Equal(t, http.StatusOK, got.code)
				require.Equal(t, c.want, summarizeDeleted(t, got), "the stored pod is the answered one")
			} else {
				require.Equal(t, http.StatusNotFound, got.code, "%s", got.body)
			}
			require.Equal(t, c.events, eventTypes(t, e, ws), c.citation)
		})
	}
}

// A dry-run delete answers the would-be state and writes nothing. The
// state is what the real server's dry-run path returns: the graceful
// update's result when the object would stay (a bound pod, an object with
// finalizers, a namespace turning Terminating in the namespace registry's
// Delete), and the object as stored when it would be removed at once (the
// dry-run storage Delete answers a Get).
func TestDelete_DryRunAnswersTheWouldBeState(t *testing.T) {
	const now, p30 = "2026-11-22T04:00:00Z", "2026-11-22T04:00:30Z"
	cases := []struct {
		name        string
		setup       func(e *env) string // returns the object's path
		query, body string
		want        deleted
	}{
		{name: "bound pod, ?dryRun=All", query: "?dryRun=All",
			setup: func(e *env) string { e.postPod("p", `,"nodeName":"node-1"`); return podsPath + "/p" },
			want:  deleted{p30, "30", "2", "Pending"}},
		{name: "bound pod, dryRun in the body",
			body:  `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`,
			setup: func(e *env) string { e.postPod("p", `,"nodeName":"node-1"`); return podsPath + "/p" },
			want:  deleted{p30, "30", "2", "Pending"}},
		{name: "unbound pod: answered as stored", query: "?dryRun=All",
			setup: func(e *env) string { e.postPod("p", ""); return podsPath + "/p" },
			want:  deleted{"", "", "1", "Pending"}},
		{name: "configmap with a finalizer: marked", query: "?dryRun=All",
			setup: func(e *env) string {
				_, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default", Finalizers: []string{"example.com/keep"}}})
				require.NoError(e.t, err)
				return "/api/v1/namespaces/default/configmaps/cm"
			},
			want: deleted{now, "0", "", ""}},
		{name: "configmap without finalizers: answered as stored", query: "?dryRun=All",
			setup: func(e *env) string {
				_, err := e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default"}})
				require.NoError(e.t, err)
				return "/api/v1/namespaces/default/configmaps/cm"
			},
			want: deleted{"", "", "", ""}},
		{name: "namespace: Terminating", query: "?dryRun=All",
			setup: func(e *env) string {
				_, err := e.srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
				require.NoError(e.t, err)
				return "/api/v1/namespaces/team"
			},
			want: deleted{now, "", "", "Terminating"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			path := c.setup(e)
			before := e.get(path)
			rv := e.srv.ResourceVersion()
			got := summarizeDeleted(t, e.do(http.MethodDelete, path+c.query, c.body))
			require.Equal(t, c.want, got)
			require.Equal(t, rv, e.srv.ResourceVersion(), "a dry run writes nothing")
			after := e.get(path)
			require.Equal(t, http.StatusOK, after.code)
			require.JSONEq(t, string(before.body), string(after.body), "the stored object is unchanged")
		})
	}
}

// The DELETE handler reads DeleteOptions from the body when there is one
// and then ignores the query; a body of only kind and apiVersion is a valid
// (empty) DeleteOptions, as kubectl and client-go send.
func TestDelete_BodyOptionsWinOverQuery(t *testing.T) {
	cases := []struct {
		name, spec, query, body string
		wantCode                int
		gone                    bool
	}{
		{name: "body present: ?dryRun=All is ignored, the pod goes", query: "?dryRun=All",
			body: `{"kind":"DeleteOptions","apiVersion":"v1"}`, wantCode: http.StatusOK, gone: true},
		{name: "body of only kind and apiVersion is accepted",
			body: `{"kind":"DeleteOptions","apiVersion":"v1"}`, wantCode: http.StatusOK, gone: true},
		{name: "empty JSON object body is accepted", body: `{}`, wantCode: http.StatusOK, gone: true},
		{name: "body present: the query's grace is ignored", spec: `,"nodeName":"node-1"`, query: "?gracePeriodSeconds=60",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`, wantCode: http.StatusOK, gone: true},
		{name: "body present: an invalid query dryRun is not read", query: "?dryRun=Bogus",
			body: `{"kind":"DeleteOptions","apiVersion":"v1"}`, wantCode: http.StatusOK, gone: true},
		{name: "no body: ?dryRun=All is honoured", query: "?dryRun=All", wantCode: http.StatusOK},
		// apimachinery's ValidateDeleteOptions: 422 Invalid on DeleteOptions.
		{name: "no body: an invalid query dryRun is refused", query: "?dryRun=Bogus", wantCode: http.StatusUnprocessableEntity},
		{name: "invalid body dryRun is refused", body: `{"dryRun":["Bogus"]}`, wantCode: http.StatusUnprocessableEntity},
		{name: "no body: an invalid propagationPolicy is refused", query: "?propagationPolicy=Sideways", wantCode: http.StatusUnprocessableEntity},
		{name: "invalid body propagationPolicy is refused", body: `{"propagationPolicy":"Sideways"}`, wantCode: http.StatusUnprocessableEntity},
		{name: "fieldValidation is not a delete option: ignored", query: "?fieldValidation=Bogus", wantCode: http.StatusOK, gone: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.postPod("p", c.spec)
			r := e.do(http.MethodDelete, podsPath+"/p"+c.query, c.body)
			require.Equal(t, c.wantCode, r.code, "%s", r.body)
			if c.wantCode == http.StatusOK {
				var m map[string]any
				require.NoError(t, json.Unmarshal(r.body, &m))
				require.Equal(t, "Pod", m["kind"])
			}
			code := http.StatusOK
			if c.gone {
				code = http.StatusNotFound
			}
			require.Equal(t, code, e.get(podsPath+"/p").code)
		})
	}
}

// An update of a pod in its grace period (the kubelet reporting status
// while the containers stop) does not remove it: the real Store.Update
// deletes during an update only when no finalizer is left and the
// deletion's grace period is 0 (shouldDeleteDuringUpdate).
func TestDelete_UpdateDuringGracePeriodKeepsThePod(t *testing.T) {
	cases := []struct {
		name  string
		grace string
		gone  bool
	}{
		{name: "grace 30 pending: the pod stays", grace: "", gone: false},
		{name: "finalizer removed after a grace-0 delete: the pod goes", grace: "?gracePeriodSeconds=0", gone: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.postPod("p", `,"nodeName":"node-1"`)
			r := e.do(http.MethodPatch, podsPath+"/p", `{"metadata":{"finalizers":["example.com/keep"]}}`, "Content-Type", "application/merge-patch+json")
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			r = e.do(http.MethodDelete, podsPath+"/p"+c.grace, "")
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			r = e.do(http.MethodPatch, podsPath+"/p", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			r = e.do(http.MethodPatch, podsPath+"/p/status", `{"status":{"phase":"Running"}}`, "Content-Type", "application/merge-patch+json")
			want := http.StatusOK
			if c.gone {
				want = http.StatusNotFound
			}
			require.Equal(t, want, r.code, "%s", r.body)
			require.Equal(t, want, e.get(podsPath+"/p").code)
		})
	}
}
