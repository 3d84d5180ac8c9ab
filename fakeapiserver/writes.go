package fakeapiserver

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
)

// HTTP handlers of the write verbs. They parse and check the request, then
// call the operations in ops.go.

func (s *Server) serveCreateOrUpdate(w http.ResponseWriter, req *http.Request, rq *request) {
	out, st := negotiate(req)
	if st == nil {
		st = checkPartial(out, false, rq.res)
	}
	if st == nil {
		st = checkContentType(req)
	}
	optionsKind := "UpdateOptions"
	if rq.verb == "create" {
		optionsKind = "CreateOptions"
	}
	dryRun, pst := writeOptions(req, optionsKind)
	if st == nil {
		st = pst
	}
	var body []byte
	if st == nil {
		body, st = readBody(w, req)
	}
	if st == nil && isYAMLBody(req) {
		body, st = yamlBodyToJSON(req, rq.res, body)
	}
	var obj map[string]any
	if st == nil {
		var err error
		if obj, err = decodeObject(body); err != nil {
			st = errBadRequest("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: %v (%s)",
				rq.res.Kind, err, summarizeBody(body))
		}
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	var rec *record
	code := http.StatusOK
	strictBody := strictFieldBody(req, body)
	if rq.verb == "create" {
		rec, st = s.create(rq.res, rq.ns, obj, dryRun, strictBody)
		code = http.StatusCreated
	} else {
		rec, st = s.update(rq.res, rq.ns, rq.name, rq.sub, obj, dryRun, strictBody)
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	s.writeJSON(w, req, code, s.renderObject(rq.res, out, rec))
}

// summarizeBody is how the real server quotes a body it could not read
// (the handlers' summarizeData): "<empty>", the first 30 bytes of a body
// that starts with "{", any other body in hex, " ..." after a cut
// (15-differential: create-invalid/empty-body, create-invalid/json-array).
func summarizeBody(b []byte) string {
	const max = 30
	cut := ""
	if len(b) > max {
		b, cut = b[:max], " ..."
	}
	switch {
	case len(b) == 0:
		return "<empty>"
	case b[0] == '{':
		return string(b) + cut
	}
	return hex.EncodeToString(b) + cut
}

func (s *Server) servePatch(w http.ResponseWriter, req *http.Request, rq *request) {
	out, st := negotiate(req)
	if st == nil {
		st = checkPartial(out, false, rq.res)
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	ct := req.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	pt := PatchType(mt)
	switch {
	case pt == StrategicMergePatchType && rq.res.custom != nil:
		// A custom resource has no Go type to take the merge keys from:
		// the real server does not offer strategic merge patch for it.
		s.writeStatus(w, req, errUnsupportedMediaType(ct, customPatchTypes))
		return
	case pt == JSONPatchType, pt == MergePatchType, pt == StrategicMergePatchType:
	case pt == ApplyPatchType && req.URL.Query().Get("fieldManager") == "":
		// The PatchOptions are validated before anything looks at the
		// body (patch_answers.go).
		s.writeStatus(w, req, applyWithoutFieldManager(req))
		return
	case pt == ApplyPatchType: // server-side apply, with its fieldManager: the fake's own 415
		s.writeStatus(w, req, errUnsupportedMediaType(ct, patchTypes))
		return
	default: // no patch type at all: go-restful's 415
		s.writeStatus(w, req, errRouteUnsupportedMediaType())
		return
	}
	dryRun, st := writeOptions(req, "PatchOptions")
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	body, st := readBody(w, req)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	rec, st := s.patchObject(rq.res, rq.ns, rq.name, rq.sub, pt, body, dryRun, strictFieldBody(req, body) != nil)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	s.writeJSON(w, req, http.StatusOK, s.renderObject(rq.res, out, rec))
}

// deleteOptionsBody is the DeleteOptions a DELETE may carry as its body.
type deleteOptionsBody struct {
	Kind               string   `json:"kind"`
	APIVersion         string   `json:"apiVersion"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds"`
	PropagationPolicy  *string  `json:"propagationPolicy"`
	OrphanDependents   *bool    `json:"orphanDependents"`
	DryRun             []string `json:"dryRun"`
	Preconditions      *struct {
		UID             *string `json:"uid"`
		ResourceVersion *string `json:"resourceVersion"`
	} `json:"preconditions"`
}

// parseDeleteOptions reads the DeleteOptions of a DELETE. As on the real
// server (apiserver endpoints/handlers/delete.go), a request with a body
// takes its options from the body alone and ignores the query (so
// ?dryRun=All next to a body deletes for real); only a request without a
// body reads them from the query.
func parseDeleteOptions(w http.ResponseWriter, req *http.Request) (deleteOptions, *api.Status) {
	var opts deleteOptions
	body, st := readBody(w, req)
	if st != nil {
		return opts, st
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return parseDeleteQuery(req)
	}
	if body, st = deleteOptionsJSON(req, body); st != nil {
		return opts, st
	}
	// The real server decodes the body as it decodes any object: the
	// version and kind first, then the DeleteOptions fields
	// (15-differential: delete/body-malformed).
	if err := versionKindError(body); err != nil {
		return opts, errBadRequest("couldn't get version/kind; json parse error: %v", err)
	}
	var b deleteOptionsBody
	if err := json.Unmarshal(body, &b); err != nil {
		return opts, errBadRequest("%s", strings.ReplaceAll(decodeMessage(err), "deleteOptionsBody.", "DeleteOptions."))
	}
	if b.Preconditions != nil {
		if b.Preconditions.UID != nil {
			opts.preconditionUID = *b.Preconditions.UID
		}
		if b.Preconditions.ResourceVersion != nil {
			opts.preconditionRV = *b.Preconditions.ResourceVersion
		}
	}
	if st := validateDeleteOptions(b.DryRun, b.PropagationPolicy); st != nil {
		return opts, st
	}
	opts.dryRun = len(b.DryRun) > 0
	opts.gracePeriod = b.GracePeriodSeconds
	return opts, nil
}

// parseDeleteQuery reads DeleteOptions from the query of a DELETE
// without a body.
func parseDeleteQuery(req *http.Request) (deleteOptions, *api.Status) {
	var opts deleteOptions
	q := req.URL.Query()
	var policy *string
	if v := q["propagationPolicy"]; len(v) > 0 && v[0] != "" {
		policy = &v[0]
	}
	if st := validateDeleteOptions(q["dryRun"], policy); st != nil {
		return opts, st
	}
	opts.dryRun = len(q["dryRun"]) > 0
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			// The query decoder's bare strconv error (15-differential: delete/grace-invalid).
			return opts, errBadRequest("%v", err)
		}
		opts.gracePeriod = &n
	}
	return opts, nil
}

// validateDeleteOptions checks DeleteOptions as the real server does
// (apimachinery's ValidateDeleteOptions): every invalid value is a cause of
// one 422 on DeleteOptions, e.g.
//
//	DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"
//
// (fieldValidation is not a delete option: a DELETE ignores it.)
func validateDeleteOptions(dryRun []string, propagationPolicy *string) *api.Status {
	var causes []api.StatusCause
	for _, v := range dryRun {
		if v != "All" {
			causes = append(causes, dryRunNotSupported(dryRun))
			break
		}
	}
	if p := propagationPolicy; p != nil && *p != "Foreground" && *p != "Background" && *p != "Orphan" {
		causes = append(causes, notSupported("propagationPolicy", *p, "Foreground", "Background", "Orphan", "nil"))
	}
	if len(causes) > 0 {
		return errInvalid("DeleteOptions", "meta.k8s.io", "", causes)
	}
	return nil
}

func (s *Server) serveDelete(w http.ResponseWriter, req *http.Request, rq *request) {
	out, st := negotiate(req)
	if st == nil {
		st = checkPartial(out, false, rq.res)
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	opts, st := parseDeleteOptions(w, req)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	rec, gone, st := s.deleteObject(rq.res, rq.ns, rq.name, opts)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	if gone && !rq.res.ReturnDeletedObject {
		s.writeJSON(w, req, http.StatusOK, deletedStatus(rec)) // whatever Accept asked for
		return
	}
	s.writeJSON(w, req, http.StatusOK, s.renderObject(rq.res, out, rec))
}

// serveDeleteCollection deletes every object the selectors match and
// answers the list of what it deleted.
func (s *Server) serveDeleteCollection(w http.ResponseWriter, req *http.Request, rq *request) {
	opts, st := parseListOptions(req.URL.Query(), rq.res, false)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	delOpts, st := parseDeleteOptions(w, req)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	// The answer is the list as read before deleting (the registry's
	// DeleteCollection lists, deletes each item, and returns what it
	// listed): the items as they were, and the list's resourceVersion.
	l, _ := s.listRecords(rq.res, rq.ns, storage.ListOptions[*record]{Predicate: opts.matches})
	listed := l.Items
	meta := api.ListMeta{ResourceVersion: strconv.FormatUint(l.Rev, 10)}
	for _, rec := range listed {
		if _, _, st := s.deleteObject(rq.res, rq.ns, rec.name, delOpts); st != nil && st.Code != http.StatusNotFound {
			s.writeStatus(w, req, st)
			return
		}
	}
	s.writeJSON(w, req, http.StatusOK, s.renderList(rq.res, outputJSON, meta, listed))
}
