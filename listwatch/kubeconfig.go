package listwatch

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/internal/kubeyaml"
)

// KubeconfigOptions says which kubeconfig LoadKubeconfig reads, as
// kubectl's --kubeconfig and --context do.
type KubeconfigOptions struct {
	// Path is the kubeconfig file (--kubeconfig); it must exist. A leading
	// "~/" is the home directory. Empty: the files $KUBECONFIG lists
	// (separated by os.PathListSeparator, ":" on Unix; the ones that do not
	// exist are skipped), else ~/.kube/config.
	Path string
	// Context is the context to use (--context); empty: the kubeconfig's
	// current-context.
	Context string
}

// LoadKubeconfig reads a kubeconfig the way kubectl does and returns the
// Config of its current context (or opts.Context) and that context's
// namespace ("" if it names none).
//
// Several files ($KUBECONFIG) are merged as kubectl merges them: the first
// file to name a cluster, user or context wins it, and current-context
// comes from the first file that sets one. Relative file paths in a
// cluster or user are relative to the directory of the file that defines
// it.
//
// From the context's cluster it takes server, certificate-authority,
// certificate-authority-data, insecure-skip-tls-verify, tls-server-name and
// proxy-url; from its user token, tokenFile, client-certificate,
// client-key, client-certificate-data and client-key-data. A user that
// needs a credential plugin (exec, auth-provider), a username and password,
// or impersonation is refused with an error naming it: `kubectl proxy`
// runs the plugin and serves the API on http://127.0.0.1:8001 without
// credentials, which kinformer can use (--server http://127.0.0.1:8001).
//
// The files are JSON or the subset of YAML that kubectl, kind, minikube
// and the cloud CLIs write (see docs/real-cluster.md); anything else is an
// error naming the file and line.
func LoadKubeconfig(opts KubeconfigOptions) (cfg Config, namespace string, err error) {
	kc, err := readKubeconfigs(opts.Path)
	if err != nil {
		return Config{}, "", err
	}
	name := opts.Context
	if name == "" {
		name = kc.currentContext
		if name == "" {
			return Config{}, "", fmt.Errorf("listwatch: kubeconfig %s: no current-context: give --context (contexts: %s)", kc.where(), kcNames(kc.contexts))
		}
	}
	ctx, ok := kc.contexts[name]
	if !ok {
		return Config{}, "", fmt.Errorf("listwatch: kubeconfig %s: no context %q (contexts: %s)", kc.where(), name, kcNames(kc.contexts))
	}
	d := ctx.kcDecoder
	clusterName, err := d.str(ctx.node, "cluster", "context "+strconv.Quote(name))
	if err != nil {
		return Config{}, "", err
	}
	userName, err := d.str(ctx.node, "user", "context "+strconv.Quote(name))
	if err != nil {
		return Config{}, "", err
	}
	if namespace, err = d.str(ctx.node, "namespace", "context "+strconv.Quote(name)); err != nil {
		return Config{}, "", err
	}
	if clusterName == "" {
		return Config{}, "", d.errorf(ctx.node, "context %q names no cluster", name)
	}
	cluster, ok := kc.clusters[clusterName]
	if !ok {
		return Config{}, "", d.errorf(ctx.node, "context %q: no cluster %q (clusters: %s)", name, clusterName, kcNames(kc.clusters))
	}
	if err := cluster.decodeCluster(clusterName, &cfg); err != nil {
		return Config{}, "", err
	}
	if userName != "" {
		user, ok := kc.users[userName]
		if !ok {
			return Config{}, "", d.errorf(ctx.node, "context %q: no user %q (users: %s)", name, userName, kcNames(kc.users))
		}
		if err := user.decodeUser(userName, &cfg); err != nil {
			return Config{}, "", err
		}
	}
	return cfg, namespace, nil
}

// kubeconfig is the merge of one or more kubeconfig files.
type kubeconfig struct {
	files          []string
	currentContext string
	clusters       map[string]kcEntry
	users          map[string]kcEntry
	contexts       map[string]kcEntry
}

// kcEntry is one named cluster, user or context, still undecoded: only the
// ones the chosen context uses are decoded.
type kcEntry struct {
	kcDecoder
	node *kubeyaml.Node // the cluster, user or context mapping (may be nil)
}

func (kc *kubeconfig) where() string {
	if len(kc.files) == 1 {
		return kc.files[0]
	}
	return "[" + strings.Join(kc.files, ", ") + "]"
}

func kcNames(m map[string]kcEntry) string {
	if len(m) == 0 {
		return "none"
	}
	var ns []string
	for n := range m {
		ns = append(ns, strconv.Quote(n))
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

// readKubeconfigs reads path, or the files $KUBECONFIG lists, or
// ~/.kube/config, and merges them.
func readKubeconfigs(path string) (*kubeconfig, error) {
	kc := &kubeconfig{clusters: map[string]kcEntry{}, users: map[string]kcEntry{}, contexts: map[string]kcEntry{}}
	if path != "" {
		p, err := expandHome(path)
		if err != nil {
			return nil, err
		}
		return kc, kc.read(p)
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		seen := map[string]bool{}
		for _, p := range filepath.SplitList(env) {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			if err := kc.read(p); errors.Is(err, fs.ErrNotExist) {
				continue // as kubectl: a listed file that does not exist is skipped
			} else if err != nil {
				return nil, err
			}
		}
		if len(kc.files) == 0 {
			return nil, fmt.Errorf("listwatch: $KUBECONFIG (%s) names no file that exists", env)
		}
		return kc, nil
	}
	p, err := expandHome("~/.kube/config")
	if err != nil {
		return nil, err
	}
	return kc, kc.read(p)
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("listwatch: kubeconfig %s: %w", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}

// read reads one file and merges it into kc: what kc has already wins.
func (kc *kubeconfig) read(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("listwatch: reading the kubeconfig: %w", err)
	}
	kc.files = append(kc.files, path)
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("listwatch: kubeconfig %s: %w", path, err)
	}
	d := kcDecoder{file: path, dir: filepath.Dir(abs)}
	root, err := kubeyaml.Parse(data)
	if err != nil {
		return fmt.Errorf("listwatch: kubeconfig %s: %w", path, err)
	}
	switch root.Kind {
	case kubeyaml.Null:
		return nil // an empty file is an empty kubeconfig
	case kubeyaml.Mapping:
	default:
		return d.errorf(root, "the document is %s, not a mapping", root.Kind)
	}
	kind, err := d.str(root, "kind", "the document")
	if err != nil {
		return err
	}
	if kind != "" && kind != "Config" {
		return d.errorf(root.Get("kind"), "kind is %q, not Config: not a kubeconfig", kind)
	}
	current, err := d.str(root, "current-context", "the document")
	if err != nil {
		return err
	}
	if kc.currentContext == "" {
		kc.currentContext = current
	}
	for _, list := range []struct {
		key, field string
		into       map[string]kcEntry
	}{{"clusters", "cluster", kc.clusters}, {"users", "user", kc.users}, {"contexts", "context", kc.contexts}} {
		seq := root.Get(list.key)
		if seq == nil || seq.Kind == kubeyaml.Null {
			continue
		}
		if seq.Kind != kubeyaml.Sequence {
			return d.errorf(seq, "%s is %s, not a sequence", list.key, seq.Kind)
		}
		for _, item := range seq.Items {
			if item.Kind != kubeyaml.Mapping {
				return d.errorf(item, "an item of %s is %s, not a mapping", list.key, item.Kind)
			}
			name, err := d.str(item, "name", "an item of "+list.key)
			if err != nil {
				return err
			}
			if name == "" {
				return d.errorf(item, "an item of %s has no name", list.key)
			}
			body := item.Get(list.field)
			if body != nil && body.Kind != kubeyaml.Mapping && body.Kind != kubeyaml.Null {
				return d.errorf(body, "%s %q: %s is %s, not a mapping", list.field, name, list.field, body.Kind)
			}
			if _, ok := list.into[name]; !ok {
				list.into[name] = kcEntry{kcDecoder: d, node: body}
			}
		}
	}
	return nil
}

// kcDecoder reads the fields of one file's mappings, with the file, line and
// the kcEntry in its errors.
type kcDecoder struct {
	file string
	dir  string // the file's directory, absolute: relative paths are relative to it
}

func (d kcDecoder) errorf(n *kubeyaml.Node, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if n != nil && n.Line > 0 {
		return fmt.Errorf("listwatch: kubeconfig %s: line %d: %s", d.file, n.Line, msg)
	}
	return fmt.Errorf("listwatch: kubeconfig %s: %s", d.file, msg)
}

// str is the string at key in m ("" if absent or null).
func (d kcDecoder) str(m *kubeyaml.Node, key, what string) (string, error) {
	v := m.Get(key)
	if v == nil || v.Kind == kubeyaml.Null {
		return "", nil
	}
	if v.Kind != kubeyaml.Scalar {
		return "", d.errorf(v, "%s: %s is %s, not a string", what, key, v.Kind)
	}
	return v.Value, nil
}

func (d kcDecoder) boolean(m *kubeyaml.Node, key, what string) (bool, error) {
	s, err := d.str(m, key, what)
	switch strings.ToLower(s) {
	case "", "false":
		return false, err
	case "true":
		return true, err
	}
	return false, d.errorf(m.Get(key), "%s: %s is %q, not true or false", what, key, s)
}

// path is the file path at key, made absolute against the file's directory.
func (d kcDecoder) path(m *kubeyaml.Node, key, what string) (string, error) {
	p, err := d.str(m, key, what)
	if err != nil || p == "" || filepath.IsAbs(p) {
		return p, err
	}
	return filepath.Join(d.dir, p), nil
}

// data is the base64 data at key.
func (d kcDecoder) data(m *kubeyaml.Node, key, what string) ([]byte, error) {
	s, err := d.str(m, key, what)
	if err != nil || s == "" {
		return nil, err
	}
	if s == "DATA+OMITTED" || s == "REDACTED" {
		return nil, d.errorf(m.Get(key), "%s: %s is %s: this is the output of `kubectl config view`; use `kubectl config view --raw`", what, key, s)
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return nil, d.errorf(m.Get(key), "%s: %s is not base64: %v", what, key, err)
	}
	return b, nil
}

// fields reads the fields of one mapping and keeps the first error.
type fields struct {
	d    kcDecoder
	n    *kubeyaml.Node
	what string // for errors: `cluster "kind-kind"`
	err  error
}

func (r *fields) str(key string) (s string) {
	if r.err == nil {
		s, r.err = r.d.str(r.n, key, r.what)
	}
	return s
}

func (r *fields) path(key string) (s string) {
	if r.err == nil {
		s, r.err = r.d.path(r.n, key, r.what)
	}
	return s
}

func (r *fields) data(key string) (b []byte) {
	if r.err == nil {
		b, r.err = r.d.data(r.n, key, r.what)
	}
	return b
}

func (r *fields) boolean(key string) (v bool) {
	if r.err == nil {
		v, r.err = r.d.boolean(r.n, key, r.what)
	}
	return v
}

// decodeCluster fills in cfg's server and TLS settings from cluster name.
func (e kcEntry) decodeCluster(name string, cfg *Config) error {
	what, n, d := "cluster "+strconv.Quote(name), e.node, e.kcDecoder
	r := fields{d: d, n: n, what: what}
	cfg.Server = r.str("server")
	cfg.CAFile = r.path("certificate-authority")
	cfg.CAData = r.data("certificate-authority-data")
	cfg.InsecureSkipTLSVerify = r.boolean("insecure-skip-tls-verify")
	cfg.TLSServerName = r.str("tls-server-name")
	cfg.ProxyURL = r.str("proxy-url")
	if r.err != nil {
		return r.err
	}
	if cfg.Server == "" {
		return d.errorf(n, "%s has no server", what)
	}
	if cfg.InsecureSkipTLSVerify && (cfg.CAFile != "" || len(cfg.CAData) > 0) {
		// kubectl refuses this too.
		return d.errorf(n, "%s: insecure-skip-tls-verify may not be combined with a certificate authority", what)
	}
	return nil
}

// decodeUser fills in cfg's credentials from user name.
func (e kcEntry) decodeUser(name string, cfg *Config) error {
	what, n, d := "user "+strconv.Quote(name), e.node, e.kcDecoder
	if n == nil {
		return nil
	}
	proxy := "kinformer runs no credential plugins: run `kubectl proxy` (it authenticates as this user) and use --server http://127.0.0.1:8001"
	if ex := n.Get("exec"); ex != nil && ex.Kind != kubeyaml.Null {
		cmd, _ := d.str(ex, "command", what)
		return d.errorf(ex, "%s needs the exec credential plugin %q: %s", what, cmd, proxy)
	}
	if ap := n.Get("auth-provider"); ap != nil && ap.Kind != kubeyaml.Null {
		pn, _ := d.str(ap, "name", what)
		return d.errorf(ap, "%s needs the auth-provider %q: %s", what, pn, proxy)
	}
	for _, k := range []string{"username", "password"} {
		if v := n.Get(k); v != nil && v.Kind != kubeyaml.Null {
			return d.errorf(v, "%s: basic authentication (username and password) is not supported: use a token or a client certificate, or `kubectl proxy`", what)
		}
	}
	for _, k := range []string{"as", "as-uid", "as-groups", "as-user-extra"} {
		if v := n.Get(k); v != nil && v.Kind != kubeyaml.Null {
			return d.errorf(v, "%s: impersonation (%s) is not supported: use `kubectl proxy --as ...`", what, k)
		}
	}
	r := fields{d: d, n: n, what: what}
	token, tokenFile := r.str("token"), r.path("tokenFile")
	cfg.CertFile, cfg.KeyFile = r.path("client-certificate"), r.path("client-key")
	cfg.CertData, cfg.KeyData = r.data("client-certificate-data"), r.data("client-key-data")
	if r.err != nil {
		return r.err
	}
	switch {
	case token == "REDACTED":
		return d.errorf(n.Get("token"), "%s: token is REDACTED: this is the output of `kubectl config view`; use `kubectl config view --raw`", what)
	case token != "": // as client-go: a token wins over a token file
		cfg.BearerToken = token
	default:
		cfg.BearerTokenFile = tokenFile
	}
	if cfg.CertFile != "" && len(cfg.CertData) > 0 {
		return d.errorf(n, "%s has both client-certificate and client-certificate-data", what)
	}
	if cfg.KeyFile != "" && len(cfg.KeyData) > 0 {
		return d.errorf(n, "%s has both client-key and client-key-data", what)
	}
	return nil
}
