package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// request is an API request once its URL is understood: the verb (as the
// real server names verbs in RBAC and audit logs), the resource, and which
// object.
type request struct {
	verb string // get list watch create update patch delete deletecollection
	res  *resource
	ns   string
	name string
	sub  string // "", "status" or "finalize"
}

// ServeHTTP answers one HTTP request the way kube-apiserver would.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	s.limitBodyTime(w, req)
	lw := &loggingWriter{ResponseWriter: w, code: http.StatusOK}
	start := time.Now()
	s.serve(lw, req)
	if s.opts.Logger != nil {
		s.opts.Logger.Info("request", "method", req.Method, "url", req.URL.RequestURI(),
			"code", lw.code, "took", time.Since(start).Round(time.Microsecond), "agent", req.UserAgent())
	}
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	if st := s.checkHost(req); st != nil {
		s.writeStatus(w, req, st)
		return
	}
	switch req.URL.Path {
	case "/healthz", "/livez", "/readyz":
		s.serveHealth(w, req)
		return
	case "/version":
		s.serveVersion(w, req)
		return
	}
	if s.opts.Token != "" && !tokenMatches(req.Header.Get("Authorization"), s.opts.Token) {
		s.writeStatus(w, req, errUnauthorized())
		return
	}
	if s.isClosed() {
		s.writeStatus(w, req, errServiceUnavailable("the server is shutting down"))
		return
	}
	if s.serveFaults(w, req) {
		return
	}
	if s.serveDiscovery(w, req) {
		return
	}
	rq, st := s.parseRequest(req)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	s.countRequest(rq.verb, rq.res.Name)
	if st := s.faults.take(rq); st != nil {
		if s.tracer.On() {
			s.tracer.Warn("request failed (fault)", slog.String("verb", rq.verb), trace.Resource(rq.res.Name), slog.Int("code", int(st.Code)), trace.Reason(string(st.Reason)))
		}
		s.writeStatus(w, req, st)
		return
	}
	switch rq.verb {
	case "get":
		s.serveGet(w, req, rq)
	case "list":
		s.serveList(w, req, rq)
	case "watch":
		s.serveWatch(w, req, rq)
	case "create", "update":
		s.serveCreateOrUpdate(w, req, rq)
	case "patch":
		s.servePatch(w, req, rq)
	case "delete":
		s.serveDelete(w, req, rq)
	case "deletecollection":
		s.serveDeleteCollection(w, req, rq)
	}
}

// parseRequest maps a URL and method to a request:
//
//	/api/v1/namespaces/{ns}/{resource}[/{name}[/status]]   namespaced
//	/api/v1/{resource}[/{name}[/status|/finalize]]         cluster-scoped, or all namespaces
//	/apis/{group}/{version}/...                            the same for a named group
//	/api/v1/watch/...                                      the old spelling of ?watch=true
func (s *Server) parseRequest(req *http.Request) (*request, *api.Status) {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if slices.Contains(segs, "") { // "/api/v1/namespaces//pods" names no namespace
		return nil, errUnknownResource()
	}
	var group, version string
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		version, rest = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, version, rest = segs[1], segs[2], segs[3:]
	default:
		return nil, errUnknownResource()
	}
	watchPath := rest[0] == "watch"
	if watchPath {
		rest = rest[1:]
	}
	rq := &request{}
	nsForm := len(rest) >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize"
	var resName string
	switch {
	case nsForm && len(rest) <= 5:
		rq.ns, resName = rest[1], rest[2]
		rest = rest[3:]
	case !nsForm && len(rest) >= 1 && len(rest) <= 3:
		resName = rest[0]
		rest = rest[1:]
	default:
		return nil, errUnknownResource()
	}
	if len(rest) > 0 {
		rq.name = rest[0]
	}
	if len(rest) > 1 {
		rq.sub = rest[1]
	}
	rq.res = s.lookupResource(group, version, resName)
	switch {
	case rq.res == nil,
		rq.res.Namespaced && !nsForm && rq.name != "", // /api/v1/pods/foo
		!rq.res.Namespaced && nsForm,
		rq.sub != "" && !rq.res.hasSubresource(rq.sub):
		return nil, errUnknownResource()
	}
	if rq.name != "" && strings.ContainsAny(rq.name, "%") {
		return nil, errBadRequest("invalid object name %q", rq.name)
	}

	watch := watchPath || boolParam(req.URL.Query(), "watch")
	switch req.Method {
	case http.MethodGet:
		switch {
		case rq.sub != "" && watch:
			return nil, errUnknownResource()
		case watch:
			rq.verb = "watch"
		case rq.name == "":
			rq.verb = "list"
		default:
			rq.verb = "get"
		}
	case http.MethodPost:
		rq.verb = "create"
	case http.MethodPut:
		rq.verb = "update"
	case http.MethodPatch:
		rq.verb = "patch"
	case http.MethodDelete:
		rq.verb = "delete"
		if rq.name == "" {
			rq.verb = "deletecollection"
		}
	default:
		return nil, errMethodNotAllowed(req.Method)
	}
	collection := rq.name == ""
	crossNamespace := rq.res.Namespaced && !nsForm
	switch {
	case rq.verb == "create" && (!collection || crossNamespace),
		(rq.verb == "update" || rq.verb == "patch" || rq.verb == "delete") && collection,
		rq.verb == "deletecollection" && crossNamespace,
		rq.sub != "" && rq.verb != "get" && rq.verb != "update" && rq.verb != "patch",
		rq.sub == "finalize" && rq.verb != "update",
		rq.sub == "" && !slices.Contains(rq.res.verbs(), rq.verb):
		return nil, errMethodNotAllowed(req.Method)
	}
	return rq, nil
}

// boolParam reads a boolean query parameter as the real server does: absent
// is false, "false" and "0" are false, anything else (even "") is true.
func boolParam(q map[string][]string, name string) bool {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return false
	}
	switch strings.ToLower(v[0]) {
	case "false", "0":
		return false
	}
	return true
}

// output is the form a response body takes, chosen from the Accept header.
type output int

const (
	outputJSON        output = iota // the object or list itself
	outputTable                     // meta.k8s.io/v1 Table, what kubectl get asks for
	outputPartial                   // PartialObjectMetadata: one object's metadata only
	outputPartialList               // PartialObjectMetadataList: a list of them
)

// negotiate picks the response form from Accept, in the client's order.
// Protobuf and YAML are not spoken; asking only for them is 406.
func negotiate(req *http.Request) (output, *api.Status) {
	accept := req.Header.Get("Accept")
	if accept == "" {
		return outputJSON, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt != "application/json" && mt != "*/*" && mt != "application/*" {
			continue
		}
		switch params["as"] {
		case "":
			return outputJSON, nil
		case "Table":
			if params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") {
				return outputTable, nil
			}
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			// client-go's metadata client: as=PartialObjectMetadataList for
			// a list, as=PartialObjectMetadata for a get or a watch. The
			// other one is accepted here and refused by checkPartial, as the
			// real server's transformObject does (406, even when a plain
			// application/json follows in Accept).
			if params["g"] == "meta.k8s.io" && params["v"] == "v1" {
				if params["as"] == "PartialObjectMetadataList" {
					return outputPartialList, nil
				}
				return outputPartial, nil
			}
		}
	}
	return 0, errNotAcceptable()
}

// checkPartial refuses a metadata-only form that does not fit the answer:
// PartialObjectMetadata for a list, PartialObjectMetadataList for one
// object (a get, a write, or a watch event), as the real server's
// transformObject does. list says whether the answer is a list.
func checkPartial(out output, list bool, r *resource) *api.Status {
	typ := "*unstructured.Unstructured" // a custom resource
	switch {
	case r.custom != nil:
	case r.Group == "":
		typ = "*core." + r.Kind // the internal type: *core.Pod
	default:
		typ = "*" + strings.Split(r.Group, ".")[0] + "." + r.Kind // *apps.ReplicaSet
	}
	switch {
	case out == outputPartial && list:
		return newStatus(http.StatusNotAcceptable, api.StatusReasonNotAcceptable,
			fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%sList)", typ), nil)
	case out == outputPartialList && !list:
		return newStatus(http.StatusNotAcceptable, api.StatusReasonNotAcceptable,
			fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", typ), nil)
	}
	return nil
}

// wantsPretty: the real server indents JSON for curl and wget (and for
// ?pretty=true), which is why article 004's curl output is readable.
func wantsPretty(req *http.Request) bool {
	if v := req.URL.Query().Get("pretty"); v != "" {
		return boolParam(req.URL.Query(), "pretty")
	}
	ua := req.UserAgent()
	return strings.HasPrefix(ua, "curl/") || strings.HasPrefix(ua, "Wget/")
}

func (s *Server) writeJSON(w http.ResponseWriter, req *http.Request, code int, body []byte) {
	if wantsPretty(req) {
		var buf bytes.Buffer
		if json.Indent(&buf, body, "", "  ") == nil {
			buf.WriteByte('\n')
			body = buf.Bytes()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func (s *Server) writeStatus(w http.ResponseWriter, req *http.Request, st *api.Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	body, err := json.Marshal(st)
	if err != nil {
		body = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"cannot encode status","code":500}`)
	}
	s.writeJSON(w, req, int(st.Code), body)
}

// readBody reads a request body of at most 3 MiB.
func readBody(w http.ResponseWriter, req *http.Request) ([]byte, *api.Status) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errTooLarge(maxBodyBytes)
		}
		return nil, errBadRequest("reading the request body: %v", err)
	}
	return body, nil
}

// checkContentType accepts JSON (or no Content-Type, which the real server
// reads as JSON) and YAML (yamlbody.go) for create and update.
func checkContentType(req *http.Request) *api.Status {
	ct := req.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || mt == yamlMediaType) {
		return nil
	}
	if err == nil && mt == "application/vnd.kubernetes.protobuf" {
		// The real server reads it; the fake does not, and says so.
		return errUnsupportedMediaType(ct, []string{"application/json", yamlMediaType})
	}
	// A type the real server does not read either: its own answer.
	return errUnknownBodyFormat(realBodyMediaTypes)
}

// realBodyMediaTypes are the body types kube-apiserver 1.36 reads, as its
// 415 lists them (15-differential: create-invalid/content-type-text).
var realBodyMediaTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}

// loggingWriter remembers the status code for the request log. Unwrap lets
// http.ResponseController reach the real writer to flush watch frames.
type loggingWriter struct {
	http.ResponseWriter
	code int
}

func (l *loggingWriter) WriteHeader(code int) {
	l.code = code
	l.ResponseWriter.WriteHeader(code)
}

func (l *loggingWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }
