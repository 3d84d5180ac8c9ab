package listwatch

// Decoding the kubeconfig's entries: the structs encoding/json fills, and
// the checks that turn a bad value into an error naming the file, the line
// (from yamljson's Result.Lines, by JSON Pointer) and the entry.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// kcContext, kcCluster and kcUser are the fields kinformer reads of a
// context, a cluster and a user. Data is read as text (not []byte) so that
// kubectl config view's DATA+OMITTED gets its own error, and the boolean as
// any value so that "true" in quotes is still true (as before the reader
// went through JSON) and anything else gets the value in its error.
type kcContext struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace"`
}

type kcCluster struct {
	Server                   string `json:"server"`
	CertificateAuthority     string `json:"certificate-authority"`
	CertificateAuthorityData string `json:"certificate-authority-data"`
	InsecureSkipTLSVerify    any    `json:"insecure-skip-tls-verify"`
	TLSServerName            string `json:"tls-server-name"`
	ProxyURL                 string `json:"proxy-url"`
}

type kcUser struct {
	Token                 string `json:"token"`
	TokenFile             string `json:"tokenFile"`
	ClientCertificate     string `json:"client-certificate"`
	ClientKey             string `json:"client-key"`
	ClientCertificateData string `json:"client-certificate-data"`
	ClientKeyData         string `json:"client-key-data"`
	// What kinformer refuses, kept raw: any value but null is refused.
	Exec         json.RawMessage `json:"exec"`
	AuthProvider json.RawMessage `json:"auth-provider"`
	Username     json.RawMessage `json:"username"`
	Password     json.RawMessage `json:"password"`
	As           json.RawMessage `json:"as"`
	AsUID        json.RawMessage `json:"as-uid"`
	AsGroups     json.RawMessage `json:"as-groups"`
	AsUserExtra  json.RawMessage `json:"as-user-extra"`
}

// jsonKind names the kind of a JSON value, as YAML calls it; nil (a
// member that is absent) is null.
func jsonKind(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	switch v[0] {
	case '{':
		return "a mapping"
	case '[':
		return "a sequence"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// kcDecoder decodes the mappings of one file, with the file and the line
// in its errors.
type kcDecoder struct {
	file  string
	dir   string         // the file's directory, absolute: relative paths are relative to it
	lines map[string]int // the line of each JSON value, by JSON Pointer
}

// errorf is an error about the value at the JSON Pointer ptr, naming its
// line (none if the value is absent).
func (d kcDecoder) errorf(ptr string, format string, args ...any) error {
	return d.errorAt(d.lines[ptr], format, args...)
}

func (d kcDecoder) errorAt(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		return fmt.Errorf("listwatch: kubeconfig %s: line %d: %s", d.file, line, msg)
	}
	return fmt.Errorf("listwatch: kubeconfig %s: %s", d.file, msg)
}

// decode decodes the JSON mapping at ptr into v, a struct. A member of the
// wrong type (a number where a string belongs) is an error naming what
// (`cluster "kind-kind"`), the member and its line.
func (d kcDecoder) decode(raw json.RawMessage, ptr, what string, v any) error {
	err := json.Unmarshal(caseSensitive(raw, v), v)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		if err != nil {
			return fmt.Errorf("listwatch: kubeconfig %s: %s: %w", d.file, what, err)
		}
		return nil
	}
	// The members kinformer reads hold no mappings of their own, so Field
	// is one member name (encoding/json names no sequence index).
	got, want := "a "+te.Value, "a string"
	switch {
	case te.Value == "object":
		got = "a mapping"
	case te.Value == "array":
		got = "a sequence"
	case te.Value == "bool":
		got = "a boolean"
	case strings.HasPrefix(te.Value, "number"):
		got = "a number"
	}
	switch te.Type.Kind() {
	case reflect.Slice:
		want = "a sequence"
	case reflect.Struct:
		want = "a mapping"
	}
	hint := ""
	if want == "a string" && (got == "a number" || got == "a boolean") {
		hint = ` (quote it: YAML reads 123, true or yes unquoted as a number or a boolean)`
	}
	return d.errorf(ptr+"/"+te.Field, "%s: %s is %s, not %s%s", what, te.Field, got, want, hint)
}

// caseSensitive drops the members of the mapping raw whose names match a
// field of *v only when case is ignored, as encoding/json matches them:
// kubectl (sigs.k8s.io/json) reads "Server:" as no server, and so does this
// reader.
func caseSensitive(raw json.RawMessage, v any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw // not a mapping: Unmarshal will say so
	}
	t, dropped := reflect.TypeOf(v).Elem(), false
	for k := range m {
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != k && strings.EqualFold(name, k) {
				delete(m, k)
				dropped = true
			}
		}
	}
	if !dropped {
		return raw
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

// path is p, a file path, made absolute against the file's directory.
func (d kcDecoder) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, p)
}

// data is the base64 data s of the member key at ptr.
func (d kcDecoder) data(s, ptr, key, what string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	if s == "DATA+OMITTED" || s == "REDACTED" {
		return nil, d.errorf(ptr+"/"+key, "%s: %s is %s: this is the output of `kubectl config view`; use `kubectl config view --raw`", what, key, s)
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return nil, d.errorf(ptr+"/"+key, "%s: %s is not base64: %v", what, key, err)
	}
	return b, nil
}

// boolean is the boolean v of the member key at ptr: true or false, also
// quoted and in any case ("True"), as the reader has always taken them.
func (d kcDecoder) boolean(v any, ptr, key, what string) (bool, error) {
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(v) {
		case "", "false":
			return false, nil
		case "true":
			return true, nil
		}
		return false, d.errorf(ptr+"/"+key, "%s: %s is %q, not true or false", what, key, v)
	}
	kind := "a number"
	switch v.(type) {
	case map[string]any:
		kind = "a mapping"
	case []any:
		kind = "a sequence"
	}
	return false, d.errorf(ptr+"/"+key, "%s: %s is %s, not true or false", what, key, kind)
}

// decodeContext reads the cluster, user and namespace of context name.
func (e kcEntry) decodeContext(name string) (kcContext, error) {
	var c kcContext
	if e.raw == nil {
		return c, nil
	}
	return c, e.decode(e.raw, e.ptr, "context "+strconv.Quote(name), &c)
}

// decodeCluster fills in cfg's server and TLS settings from cluster name.
func (e kcEntry) decodeCluster(name string, cfg *Config) error {
	what, d := "cluster "+strconv.Quote(name), e.kcDecoder
	var c kcCluster
	if e.raw != nil {
		if err := d.decode(e.raw, e.ptr, what, &c); err != nil {
			return err
		}
	}
	var err error
	cfg.Server = c.Server
	cfg.CAFile = d.path(c.CertificateAuthority)
	if cfg.CAData, err = d.data(c.CertificateAuthorityData, e.ptr, "certificate-authority-data", what); err != nil {
		return err
	}
	if cfg.InsecureSkipTLSVerify, err = d.boolean(c.InsecureSkipTLSVerify, e.ptr, "insecure-skip-tls-verify", what); err != nil {
		return err
	}
	cfg.TLSServerName = c.TLSServerName
	cfg.ProxyURL = c.ProxyURL
	if cfg.Server == "" {
		return d.errorf(e.ptr, "%s has no server", what)
	}
	if cfg.InsecureSkipTLSVerify && (cfg.CAFile != "" || len(cfg.CAData) > 0) {
		// kubectl refuses this too.
		return d.errorf(e.ptr, "%s: insecure-skip-tls-verify may not be combined with a certificate authority", what)
	}
	return nil
}

// decodeUser fills in cfg's credentials from user name.
func (e kcEntry) decodeUser(name string, cfg *Config) error {
	what, d := "user "+strconv.Quote(name), e.kcDecoder
	if e.raw == nil {
		return nil
	}
	var u kcUser
	// A member of the wrong type is reported after the refusals below:
	// encoding/json decodes the rest of the mapping before it returns it.
	typeErr := d.decode(e.raw, e.ptr, what, &u)
	proxy := "kinformer runs no credential plugins: run `kubectl proxy` (it authenticates as this user) and use --server http://127.0.0.1:8001"
	if present(u.Exec) {
		var ex struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(u.Exec, &ex) // the command only names the plugin in the error
		return d.errorf(e.ptr+"/exec", "%s needs the exec credential plugin %q: %s", what, ex.Command, proxy)
	}
	if present(u.AuthProvider) {
		var ap struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(u.AuthProvider, &ap)
		return d.errorf(e.ptr+"/auth-provider", "%s needs the auth-provider %q: %s", what, ap.Name, proxy)
	}
	for _, k := range []struct {
		key string
		v   json.RawMessage
	}{{"username", u.Username}, {"password", u.Password}} {
		if present(k.v) {
			return d.errorf(e.ptr+"/"+k.key, "%s: basic authentication (username and password) is not supported: use a token or a client certificate, or `kubectl proxy`", what)
		}
	}
	for _, k := range []struct {
		key string
		v   json.RawMessage
	}{{"as", u.As}, {"as-uid", u.AsUID}, {"as-groups", u.AsGroups}, {"as-user-extra", u.AsUserExtra}} {
		if present(k.v) {
			return d.errorf(e.ptr+"/"+k.key, "%s: impersonation (%s) is not supported: use `kubectl proxy --as ...`", what, k.key)
		}
	}
	if typeErr != nil {
		return typeErr
	}
	var err error
	cfg.CertFile, cfg.KeyFile = d.path(u.ClientCertificate), d.path(u.ClientKey)
	if cfg.CertData, err = d.data(u.ClientCertificateData, e.ptr, "client-certificate-data", what); err != nil {
		return err
	}
	if cfg.KeyData, err = d.data(u.ClientKeyData, e.ptr, "client-key-data", what); err != nil {
		return err
	}
	switch {
	case u.Token == "REDACTED":
		return d.errorf(e.ptr+"/token", "%s: token is REDACTED: this is the output of `kubectl config view`; use `kubectl config view --raw`", what)
	case u.Token != "": // as client-go: a token wins over a token file
		cfg.BearerToken = u.Token
	default:
		cfg.BearerTokenFile = d.path(u.TokenFile)
	}
	if cfg.CertFile != "" && len(cfg.CertData) > 0 {
		return d.errorf(e.ptr, "%s has both client-certificate and client-certificate-data", what)
	}
	if cfg.KeyFile != "" && len(cfg.KeyData) > 0 {
		return d.errorf(e.ptr, "%s has both client-key and client-key-data", what)
	}
	return nil
}

// present says whether a member the reader refuses is set: absent and
// null are not.
func present(v json.RawMessage) bool { return jsonKind(v) != "null" }
