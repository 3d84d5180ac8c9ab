package fakeapiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
)

// The fault injections of faults.go over HTTP, so that a learner with curl
// (or a browser page) can break the server on purpose and watch a client
// recover. They are off unless Options.Faults is set (cmd/fakeapiserver
// --faults), sit behind the token like every API request, and live under
// /faults/, a prefix the API (/api, /apis, /version, /healthz, ...) never
// uses:
//
//	GET  /faults                     the endpoints, as JSON
//	POST /faults/compact             CompactHistory
//	POST /faults/close-watches       CloseWatches
//	POST /faults/drop?resource=pods&namespace=default&name=web-1&type=DELETED&count=1
//	POST /faults/outage?d=1s         Outage
//	POST /faults/fail?code=429&count=5&retryAfter=2&verb=watch&resource=pods
//	POST /faults/garbage[?frame=...] WriteGarbage
//	POST /faults/delay?d=2s          SetWatchDelay (0 turns it off)
//	POST /faults/restart             RestartStore (a durable server: Open with a dir)
//	POST /faults/reset               forget every pending fault
//
// Each answers 200 with a FaultResult saying what was done and what a
// client will do next, and reports it to the tracer as "fault: requested"
// (path=, did=), which is how the demo narrates it.

// FaultResult is the answer of a fault endpoint.
type FaultResult struct {
	Kind string `json:"kind"` // "FaultResult"
	// Fault is the endpoint's name ("compact").
	Fault string `json:"fault"`
	// Did says what the server did.
	Did string `json:"did"`
	// Then says what a client such as a Reflector will do about it.
	Then string `json:"then,omitempty"`
	// ResourceVersion is the server's resourceVersion when it was done.
	ResourceVersion string `json:"resourceVersion"`
}

// faultEndpoint is one entry of GET /faults.
type faultEndpoint struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Params string `json:"params,omitempty"`
	Does   string `json:"does"`
	Then   string `json:"then"`
	run    func(s *Server, q url.Values) (did string, st *api.Status)
}

var faultEndpoints = []faultEndpoint{
	{Method: "POST", Path: "/faults/compact",
		Does: "forgets the event history, as etcd compaction does",
		Then: "open watches go on; a watch, exact list or continue token from an older resourceVersion gets 410 Expired, so a reflector whose watch ends relists",
		run: func(s *Server, _ url.Values) (string, *api.Status) {
			s.CompactHistory()
			return "history compacted at resourceVersion " + s.ResourceVersion(), nil
		}},
	{Method: "POST", Path: "/faults/close-watches",
		Does: "ends every open watch cleanly, as a load balancer or an API server restart does",
		Then: "each reflector watches again from its last resourceVersion, without a relist (after /faults/compact: 410 Expired and a relist)",
		run: func(s *Server, _ url.Values) (string, *api.Status) {
			n := s.openWatchCount()
			s.CloseWatches()
			return fmt.Sprintf("closed every watch (%d open)", n), nil
		}},
	{Method: "POST", Path: "/faults/drop", Params: "resource, namespace, name, type (ADDED, MODIFIED, DELETED): which events (empty: any); count (default 1)",
		Does: "hides the next count matching events from the watches open when they happen (they are still stored, listed and kept in history); a watch that misses one goes deaf (sends nothing more, so never a stream with a hole), and when the drop ends (its count reached, /faults/reset, or a new drop) every deaf watch ends with 410 Expired",
		Then: "the client's cache is stale while its watch is deaf, then it relists; a missed delete comes back from that relist as a DeletedFinalStateUnknown tombstone",
		run:  (*Server).faultDrop},
	{Method: "POST", Path: "/faults/outage", Params: "d: how long it lasts, a duration (default 1s)",
		Does: "a network outage as one fault: for d every event is hidden from the open watches (each goes deaf at the first it misses), then the history is compacted and every watch ends, the deaf ones with 410 Expired",
		Then: "every reflector relists (410 Expired) and its Replace repairs what it missed: a missed delete comes back as a DeletedFinalStateUnknown tombstone",
		run: func(s *Server, q url.Values) (string, *api.Status) {
			d := time.Second
			if v := q.Get("d"); v != "" {
				var err error
				if d, err = time.ParseDuration(v); err != nil || d < 0 {
					return "", errBadRequest("d must be a duration such as 500ms or 2s (got %q)", v)
				}
			}
			n := s.openWatchCount()
			s.Outage(d)
			return fmt.Sprintf("an outage of %s began: the %d open watch(es) hear nothing more; then the history is compacted and every watch ends", d, n), nil
		}},
	{Method: "POST", Path: "/faults/fail", Params: "code (500, 429, 503, 504 or 410; default 500), count (default 1), retryAfter (seconds or a duration), verb (list, watch, get, create, ...), resource (pods, ...)",
		Does: "makes the next count matching requests fail with code (429 with Retry-After); faults queue up",
		Then: "a reflector backs off and retries (waiting Retry-After on a 429); a failed watch is retried from the same resourceVersion, a 410 relists",
		run:  (*Server).faultFail},
	{Method: "POST", Path: "/faults/garbage", Params: "frame (default: a line that is not JSON)",
		Does: "writes a corrupt frame into every open watch",
		Then: "the client's decoder fails, the watch ends with an error, and the reflector watches again from its last resourceVersion",
		run: func(s *Server, q url.Values) (string, *api.Status) {
			frame := q.Get("frame")
			if frame == "" {
				frame = "this is not a JSON watch event\n"
			}
			n := s.openWatchCount()
			s.WriteGarbage([]byte(frame))
			return fmt.Sprintf("wrote a corrupt frame (%d bytes) into every watch (%d open)", len(frame), n), nil
		}},
	{Method: "POST", Path: "/faults/delay", Params: "d: a duration (2s, 500ms; 0 turns it off)",
		Does: "delays every watch frame by d, on the server's clock",
		Then: "events reach clients late, in order; nothing is lost",
		run: func(s *Server, q url.Values) (string, *api.Status) {
			d, err := time.ParseDuration(q.Get("d"))
			if err != nil || d < 0 {
				return "", errBadRequest("d must be a duration such as 2s or 0 (got %q)", q.Get("d"))
			}
			s.SetWatchDelay(d)
			if d == 0 {
				return "watch frames are no longer delayed", nil
			}
			return "every watch frame is now delayed by " + d.String(), nil
		}},
	{Method: "POST", Path: "/faults/restart",
		Does: "crashes and restarts the store in process (needs a durable server: --data-dir, fakeapiserver.Open): what is not yet durable is dropped, every watch is closed, the state is read back from the data directory",
		Then: "every acknowledged object is still there; reflectors watch again, get 410 Expired (the history is gone) and relist",
		run: func(s *Server, _ url.Values) (string, *api.Status) {
			if err := s.RestartStore(); errors.Is(err, ErrNoDataDir) {
				return "", errBadRequest("this server keeps nothing to restart from: start it with --data-dir (fakeapiserver.Open)")
			} else if err != nil {
				return "", errInternal("restarting the store: " + err.Error())
			}
			return "restarted the store from its data directory at resourceVersion " + s.ResourceVersion(), nil
		}},
	{Method: "POST", Path: "/faults/reset",
		Does: "forgets every pending fault: queued failures, the watch delay and the event drop",
		Then: "requests and watches behave normally again",
		run: func(s *Server, _ url.Values) (string, *api.Status) {
			s.ResetFaults()
			return "every pending fault forgotten", nil
		}},
}

// ResetFaults forgets every pending fault: the queued FailRequests, the
// watch delay and the DropEvents filter.
func (s *Server) ResetFaults() {
	s.faults.mu.Lock()
	s.faults.queue, s.faults.delay = nil, 0
	s.faults.mu.Unlock()
	s.store.Hide(nil, 0) // every deaf watch ends now, with 410 Expired
}

// serveFaults answers the paths under /faults; it returns false for any
// other path.
func (s *Server) serveFaults(w http.ResponseWriter, req *http.Request) bool {
	path := req.URL.Path
	if path != "/faults" && path != "/faults/" && !strings.HasPrefix(path, "/faults/") {
		return false
	}
	if !s.opts.Faults {
		s.writeStatus(w, req, newStatus(http.StatusNotFound, api.StatusReasonNotFound,
			"the fault endpoints are off: start the server with --faults (Options.Faults)", &api.StatusDetails{}))
		return true
	}
	if path == "/faults" || path == "/faults/" {
		if req.Method != http.MethodGet {
			s.writeStatus(w, req, errMethodNotAllowed(req.Method))
			return true
		}
		body, _ := json.Marshal(map[string]any{"kind": "FaultEndpointList", "items": faultEndpoints})
		s.writeJSON(w, req, http.StatusOK, body)
		return true
	}
	i := slices.IndexFunc(faultEndpoints, func(e faultEndpoint) bool { return e.Path == path })
	if i < 0 {
		s.writeStatus(w, req, newStatus(http.StatusNotFound, api.StatusReasonNotFound,
			fmt.Sprintf("no fault endpoint %s: GET /faults lists them", path), &api.StatusDetails{}))
		return true
	}
	ep := faultEndpoints[i]
	if req.Method != http.MethodPost {
		s.writeStatus(w, req, errMethodNotAllowed(req.Method))
		return true
	}
	did, st := ep.run(s, req.URL.Query())
	if st != nil {
		s.writeStatus(w, req, st)
		return true
	}
	if s.tracer.On() {
		s.tracer.Event("fault: requested", slog.String("path", path), slog.String("did", did), slog.String("then", ep.Then))
	}
	body, _ := json.Marshal(FaultResult{Kind: "FaultResult", Fault: strings.TrimPrefix(path, "/faults/"),
		Did: did, Then: ep.Then, ResourceVersion: s.ResourceVersion()})
	s.writeJSON(w, req, http.StatusOK, body)
	return true
}

// openWatchCount is how many watches are open, of every resource.
func (s *Server) openWatchCount() int {
	open, _ := s.store.Watchers("/")
	return open
}

var faultVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// resourceByName checks a resource name ("pods") given to a fault.
func (s *Server) resourceByName(name string) *api.Status {
	if name == "" || slices.ContainsFunc(s.servedResources(), func(r *resource) bool { return r.Name == name }) {
		return nil
	}
	return errBadRequest("unknown resource %q", name)
}

func countParam(q url.Values) (int, *api.Status) {
	v := q.Get("count")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errBadRequest("count must be a positive number (got %q)", v)
	}
	return n, nil
}

func (s *Server) faultFail(q url.Values) (string, *api.Status) {
	ft := Fault{Verb: q.Get("verb"), Resource: q.Get("resource"), Code: http.StatusInternalServerError}
	if v := q.Get("code"); v != "" {
		code, err := strconv.Atoi(v)
		if err != nil || !slices.Contains([]int{500, 429, 503, 504, 410}, code) {
			return "", errBadRequest("code must be 500, 429, 503, 504 or 410 (got %q)", v)
		}
		ft.Code = code
	}
	if ft.Verb != "" && !slices.Contains(faultVerbs, ft.Verb) {
		return "", errBadRequest("verb must be one of %s (got %q)", strings.Join(faultVerbs, ", "), ft.Verb)
	}
	if st := s.resourceByName(ft.Resource); st != nil {
		return "", st
	}
	var st *api.Status
	if ft.Count, st = countParam(q); st != nil {
		return "", st
	}
	if v := q.Get("retryAfter"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			ft.RetryAfter = time.Duration(n) * time.Second
		} else if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			ft.RetryAfter = d
		} else {
			return "", errBadRequest("retryAfter must be seconds or a duration (got %q)", v)
		}
	}
	s.FailRequests(ft)
	which := strings.TrimSpace(ft.Verb + " " + ft.Resource)
	if which == "" {
		which = "any"
	}
	did := fmt.Sprintf("the next %d %s request(s) fail with %d", ft.Count, which, ft.Code)
	if ft.RetryAfter > 0 {
		did += fmt.Sprintf(" (Retry-After: %ds)", int((ft.RetryAfter+time.Second-1)/time.Second))
	}
	return did, nil
}

func (s *Server) faultDrop(q url.Values) (string, *api.Status) {
	res, ns, name, typ := q.Get("resource"), q.Get("namespace"), q.Get("name"), api.EventType(q.Get("type"))
	if st := s.resourceByName(res); st != nil {
		return "", st
	}
	if typ != "" && typ != api.Added && typ != api.Modified && typ != api.Deleted {
		return "", errBadRequest("type must be ADDED, MODIFIED or DELETED (got %q)", typ)
	}
	count, st := countParam(q)
	if st != nil {
		return "", st
	}
	s.dropEvents(func(ev Event) bool {
		return (res == "" || ev.Resource == res) && (ns == "" || ev.Namespace == ns) &&
			(name == "" || ev.Name == name) && (typ == "" || ev.Type == typ)
	}, count)
	which := "event(s)"
	if typ != "" {
		which = string(typ) + " " + which
	}
	if res != "" {
		which += " of " + res
	}
	switch {
	case ns != "" && name != "":
		which += " " + ns + "/" + name
	case name != "":
		which += " named " + name
	case ns != "":
		which += " in namespace " + ns
	}
	return fmt.Sprintf("the next %d %s will not reach the open watches", count, which), nil
}
