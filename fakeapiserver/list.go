package fakeapiserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// List, paging and get.
//
// Which state a list reads (the real server's rules, see the "Resource
// versions" section of the Kubernetes API concepts page):
//
//	resourceVersion   limit unset                  limit=n
//	unset             most recent                  most recent, pageable
//	"0"               any (here: most recent)      any (here: most recent), limit ignored
//	"N"               not older than N             exactly N (410 if compacted)
//	"N" + Exact       exactly N                    exactly N
//
// A version the server has not reached yet waits, then answers 504. Every
// page of a paged list reads the same snapshot: the continue token carries
// the list's resourceVersion and the last key served, and the next page is
// cut from the state at that version (410 Expired, with a fresh token to
// carry on inconsistently, once history no longer reaches back that far).
//
// A list at "0" (without resourceVersionMatch, or with NotOlderThan) is
// served by the real server from its watch cache, which does not page: it
// ignores limit and answers everything, without a continue token (apiserver's
// cacher: shouldDelegateList sends a limit to etcd only when resourceVersion
// is not "0"; GetList then sets no continue).
//
// A paged list reads from etcd, which hands out a continue token whenever
// keys remain after the page's last item, matching the selectors or not: a
// page can end with only non-matching keys left, and the next page is then
// empty.

// continueToken is the real server's token: base64url of
// {"v":"meta.k8s.io/v1","rv":46223,"start":"/demo-b\u0000"}, where start is
// the first key of the next page (the last key served plus a NUL byte).
// The fresh token of a 410 has rv -1 ("read the current state") and, as
// the real server writes it, no leading slash: "start":"demo-b\u0000".
type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
}

func encodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", RV: rv, Start: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue checks a token as the real server does (apiserver's
// storage.DecodeContinue) and returns it with Start in its slashed form.
func decodeContinue(s string) (continueToken, *api.Status) {
	const invalid = "invalid continue token: continue key is not valid: "
	var t continueToken
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err == nil {
		err = json.Unmarshal(raw, &t)
	}
	switch {
	case err != nil:
		return t, errBadRequest(invalid+"%v", err)
	case t.APIVersion != "meta.k8s.io/v1":
		// The version unquoted (15-differential: list-invalid/continue-bad-version).
		return t, errBadRequest(invalid+"server does not recognize this encoded version %s", t.APIVersion)
	case t.RV == 0 || t.RV < -1:
		return t, errBadRequest(invalid + "incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	case t.Start == "":
		return t, errBadRequest(invalid + "encoded start key empty (version meta.k8s.io/v1)")
	}
	if !strings.HasPrefix(t.Start, "/") {
		t.Start = "/" + t.Start
	}
	if path.Clean(t.Start) != t.Start { // no way out of the listed range ("/../x")
		return t, errBadRequest(invalid+"%s", strings.TrimPrefix(t.Start, "/"))
	}
	return t, nil
}

// relativeKey is a record's key within the listed range: the name inside a
// namespace, "namespace/name" across namespaces.
func relativeKey(rec *record, ns string) string {
	if ns == "" {
		return rec.key
	}
	return rec.name
}

func (s *Server) serveList(w http.ResponseWriter, req *http.Request, rq *request) {
	out, st := negotiate(req)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	if st := checkPartial(out, true, rq.res); st != nil {
		s.writeStatus(w, req, st)
		return
	}
	opts, st := parseListOptions(req.URL.Query(), rq.res, false)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	items, meta, st := s.list(req, rq, opts)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	if s.tracer.On() {
		s.tracer.Event("list served", trace.Resource(rq.res.Name), trace.RV(meta.ResourceVersion), trace.Count(len(items)), slog.Bool("more", meta.Continue != ""))
	}
	s.writeJSON(w, req, http.StatusOK, s.renderList(rq.res, out, meta, items))
}

// list picks the snapshot the options ask for and cuts one page of it.
func (s *Server) list(req *http.Request, rq *request, opts listOptions) ([]*record, api.ListMeta, *api.Status) {
	var meta api.ListMeta
	start := ""
	exactRV := uint64(0) // 0: read the current state
	if opts.continueToken != "" {
		tok, st := decodeContinue(opts.continueToken)
		if st != nil {
			return nil, meta, st
		}
		start = strings.TrimPrefix(tok.Start, "/")
		if tok.RV > 0 {
			exactRV = uint64(tok.RV)
			// A token from the future (forged, or from another server)
			// is an exact read the server cannot serve yet: like the real
			// watch cache it waits, then answers 504 ResourceVersionTooLarge.
			if st := s.waitForResourceVersion(req.Context(), exactRV); st != nil {
				return nil, meta, st
			}
		}
	} else if opts.resourceVersion != "" && opts.resourceVersion != "0" {
		rv, _ := strconv.ParseUint(opts.resourceVersion, 10, 64)
		if st := s.waitForResourceVersion(req.Context(), rv); st != nil {
			return nil, meta, st
		}
		if opts.rvMatch == "Exact" || (opts.limit > 0 && opts.rvMatch == "") {
			exactRV = rv
		}
	}

	limit := opts.limit
	if opts.continueToken == "" && opts.resourceVersion == "0" && opts.rvMatch != "Exact" {
		limit = 0 // the watch cache does not page
	}
	prefix := rq.res.nsPrefix(rq.ns)
	from := ""
	if start != "" {
		from = prefix + start
	}
	res, err := s.listRecords(rq.res, rq.ns, storage.ListOptions[*record]{Rev: exactRV, From: from, Limit: int(limit), Predicate: opts.matches})
	if errors.Is(err, storage.ErrCompacted) {
		if opts.continueToken != "" {
			meta.Continue = encodeContinue(-1, start)
			gone := errExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
			gone.ListMeta = meta
			return nil, api.ListMeta{}, gone
		}
		return nil, meta, errExpired("The resourceVersion for the provided list is too old.")
	}
	page := res.Items
	meta.ResourceVersion = strconv.FormatUint(res.Rev, 10)
	if res.More {
		meta.Continue = encodeContinue(int64(res.Rev), "/"+relativeKey(page[len(page)-1], rq.ns)+"\x00")
		if !opts.labelsSet {
			// Without selectors every later candidate is in a later page.
			remaining := int64(res.Remaining)
			meta.RemainingItemCount = &remaining
		}
	}
	return page, meta, nil
}

// renderList writes a list in the negotiated form.
func (s *Server) renderList(r *resource, out output, meta api.ListMeta, items []*record) []byte {
	metaJSON, _ := json.Marshal(meta)
	var buf bytes.Buffer
	switch out {
	case outputTable:
		return s.renderTable(r, meta, items)
	case outputPartialList:
		buf.WriteString(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":`)
		buf.Write(metaJSON)
		buf.WriteString(`,"items":[`)
		for i, rec := range items {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(partialObject(rec))
		}
	default:
		buf.WriteString(`{"kind":"` + r.ListKind() + `","apiVersion":"` + r.GroupVersion() + `","metadata":`)
		buf.Write(metaJSON)
		buf.WriteString(`,"items":[`)
		// Items go without kind and apiVersion, as the real server writes
		// them (the list's kind says what they are). Every stored object's
		// JSON starts with these two, in this order (see keyOrder).
		typeMeta := []byte(`{"kind":"` + r.Kind + `","apiVersion":"` + r.GroupVersion() + `",`)
		for i, rec := range items {
			if i > 0 {
				buf.WriteByte(',')
			}
			if rest, ok := bytes.CutPrefix(rec.raw, typeMeta); ok {
				buf.WriteByte('{')
				buf.Write(rest)
			} else {
				buf.Write(rec.raw)
			}
		}
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// partialObject is the metadata-only form of an object.
func partialObject(rec *record) []byte { return partialObjectOf(rec.object()) }

// partialObjectOf is the metadata-only form of an object already decoded.
func partialObjectOf(obj map[string]any) []byte {
	return encodeObject(map[string]any{
		"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
		"metadata": obj["metadata"],
	})
}

func (s *Server) serveGet(w http.ResponseWriter, req *http.Request, rq *request) {
	out, st := negotiate(req)
	if st == nil {
		st = checkPartial(out, false, rq.res)
	}
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	if v := req.URL.Query().Get("resourceVersion"); v != "" && v != "0" {
		// 500 before the object is looked up, as for a missing one
		// (15-differential: get/existing-rv-invalid, get/missing-rv-invalid).
		if st := checkResourceVersion(v, true); st != nil {
			s.writeStatus(w, req, st)
			return
		}
		rv, _ := strconv.ParseUint(v, 10, 64)
		if st := s.waitForResourceVersion(req.Context(), rv); st != nil {
			s.writeStatus(w, req, st)
			return
		}
	}
	rec, st := s.get(rq.res, rq.ns, rq.name)
	if st != nil {
		s.writeStatus(w, req, st)
		return
	}
	s.writeJSON(w, req, http.StatusOK, s.renderObject(rq.res, out, rec))
}

// renderObject writes one object in the negotiated form.
func (s *Server) renderObject(r *resource, out output, rec *record) []byte {
	switch out {
	case outputTable:
		return s.renderTable(r, api.ListMeta{ResourceVersion: strconv.FormatUint(rec.rv, 10)}, []*record{rec})
	case outputPartial:
		return partialObject(rec)
	}
	return rec.raw
}
