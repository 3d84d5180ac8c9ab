package fakeapiserver

import (
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/yamljson"
)

// YAML request bodies (15-differential: create-invalid/content-type-yaml).
// The real server accepts a create or update body sent with Content-Type
// application/yaml (parameters ignored; text/yaml and application/x-yaml
// are 415): its YAML serializer converts the body to JSON, then decodes it
// as a JSON body, and the answer stays JSON. So does the fake: the body is
// converted by yamljson and then read exactly as a JSON body is.

const yamlMediaType = "application/yaml"

// isYAMLBody: the request's Content-Type is application/yaml.
func isYAMLBody(req *http.Request) bool {
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return err == nil && mt == yamlMediaType
}

// yamlBodyToJSON converts a create or update body sent as YAML. Malformed
// YAML is a 400 worded as the real server's (transformDecodeError around
// sigs.k8s.io/yaml's error, the body summarised as it summarises one):
//
//	the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context (6170695665727369 ...)
//
// With fieldValidation=Strict a key given twice is a 400 too, worded as the
// real server's strict YAML decoding reports it (without Strict the last
// value wins, as there).
func yamlBodyToJSON(req *http.Request, r *resource, body []byte) ([]byte, *api.Status) {
	res, err := yamljson.Convert(body)
	if err != nil {
		return nil, errBadRequest("the object provided is unrecognized (must be of type %s): error converting YAML to JSON: %v (%s)",
			r.Kind, err, summarizeYAMLBody(body))
	}
	if serr := res.StrictError(); serr != nil && req.URL.Query().Get("fieldValidation") == "Strict" {
		kind, version := yamlBodyKind(res.JSON, r)
		return nil, errBadRequest("%s in version %q cannot be handled as a %s: strict decoding error: error converting YAML to JSON: %v",
			kind, version, r.Kind, serr)
	}
	return res.JSON, nil
}

// deleteOptionsJSON is a DELETE's DeleteOptions body as JSON: converted
// if it was sent as YAML, as the real server's delete handler decodes it
// with the serializer its Content-Type names.
func deleteOptionsJSON(req *http.Request, body []byte) ([]byte, *api.Status) {
	if !isYAMLBody(req) {
		return body, nil
	}
	res, err := yamljson.Convert(body)
	if err != nil {
		return nil, errBadRequest("the body of the request is not valid DeleteOptions: error converting YAML to JSON: %v", err)
	}
	return res.JSON, nil
}

// summarizeYAMLBody is the real server's summary of a body it could not
// decode: its first 30 bytes, as text if it starts with "{", else in hex.
func summarizeYAMLBody(body []byte) string {
	const n = 30
	switch {
	case len(body) == 0:
		return "<empty>"
	case body[0] == '{' && len(body) > n:
		return string(body[:n]) + " ..."
	case body[0] == '{':
		return string(body)
	case len(body) > n:
		return hex.EncodeToString(body[:n]) + " ..."
	}
	return hex.EncodeToString(body)
}

// yamlBodyKind is the kind and version a decoded body names, defaulted
// from the endpoint's as the real server defaults them.
func yamlBodyKind(doc []byte, r *resource) (kind, version string) {
	var tm struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	_ = json.Unmarshal(doc, &tm) // a body that is not an object names neither
	kind, version = tm.Kind, tm.APIVersion
	if i := strings.LastIndexByte(version, '/'); i >= 0 {
		version = version[i+1:]
	}
	if kind == "" {
		kind = r.Kind
	}
	if version == "" {
		version = r.Version
	}
	return kind, version
}
