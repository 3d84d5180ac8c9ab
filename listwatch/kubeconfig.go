package listwatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kinformer/kinformer/internal/yamljson"
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
// The files are read as kubectl reads them: YAML (JSON is YAML too) is
// converted to JSON (internal/yamljson; kubectl uses sigs.k8s.io/yaml),
// which encoding/json decodes into the kubeconfig's structs, so YAML 1.1's
// types apply ("token: 12345" is a number, refused for a string field:
// quote it), and anchors and aliases work. Unlike kubectl, a key given
// twice is refused.
// Every error names the file and, where it can, the line (see
// docs/real-cluster.md).
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
	c, err := ctx.decodeContext(name)
	if err != nil {
		return Config{}, "", err
	}
	clusterName, userName := c.Cluster, c.User
	if clusterName == "" {
		return Config{}, "", d.errorf(ctx.ptr, "context %q names no cluster", name)
	}
	cluster, ok := kc.clusters[clusterName]
	if !ok {
		return Config{}, "", d.errorf(ctx.ptr, "context %q: no cluster %q (clusters: %s)", name, clusterName, kcNames(kc.clusters))
	}
	if err := cluster.decodeCluster(clusterName, &cfg); err != nil {
		return Config{}, "", err
	}
	if userName != "" {
		user, ok := kc.users[userName]
		if !ok {
			return Config{}, "", d.errorf(ctx.ptr, "context %q: no user %q (users: %s)", name, userName, kcNames(kc.users))
		}
		if err := user.decodeUser(userName, &cfg); err != nil {
			return Config{}, "", err
		}
	}
	return cfg, c.Namespace, nil
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
// ones the chosen context uses are decoded, so that a broken entry it does
// not use is no error.
type kcEntry struct {
	kcDecoder
	ptr string          // the JSON Pointer of the cluster, user or context mapping
	raw json.RawMessage // that mapping's JSON; nil if it is absent or null
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

// kcFile is one kubeconfig file as encoding/json reads the JSON that
// yamljson makes of its YAML (kubectl reads it the same way: sigs.k8s.io/yaml
// turns the YAML into JSON, which is then decoded into clientcmd's
// structs). The items of the lists stay raw so that each is decoded knowing
// its index, which names its line.
type kcFile struct {
	Kind           string            `json:"kind"`
	CurrentContext string            `json:"current-context"`
	Clusters       []json.RawMessage `json:"clusters"`
	Users          []json.RawMessage `json:"users"`
	Contexts       []json.RawMessage `json:"contexts"`
}

// kcItem is one item of clusters, users or contexts: a name and the
// mapping of one of the three.
type kcItem struct {
	Name    string          `json:"name"`
	Cluster json.RawMessage `json:"cluster"`
	User    json.RawMessage `json:"user"`
	Context json.RawMessage `json:"context"`
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
	doc, err := yamljson.ConvertWithLines(data)
	if err != nil {
		return fmt.Errorf("listwatch: kubeconfig %s: %w", path, err)
	}
	d := kcDecoder{file: path, dir: filepath.Dir(abs), lines: doc.Lines}
	// kubectl keeps the last of a key given twice; this reader refuses it:
	// in a kubeconfig it is more likely a mistake than an intended override.
	if len(doc.Duplicates) > 0 {
		return fmt.Errorf("listwatch: kubeconfig %s: %s", path, doc.Duplicates[0])
	}
	switch k := jsonKind(doc.JSON); k {
	case "null":
		return nil // an empty file is an empty kubeconfig
	case "a mapping":
	default:
		return d.errorf("", "the document is %s, not a mapping", k)
	}
	var f kcFile
	if err := d.decode(doc.JSON, "", "the document", &f); err != nil {
		return err
	}
	if f.Kind != "" && f.Kind != "Config" {
		return d.errorf("/kind", "kind is %q, not Config: not a kubeconfig", f.Kind)
	}
	if kc.currentContext == "" {
		kc.currentContext = f.CurrentContext
	}
	for _, list := range []struct {
		key, field string
		items      []json.RawMessage
		into       map[string]kcEntry
	}{{"clusters", "cluster", f.Clusters, kc.clusters}, {"users", "user", f.Users, kc.users}, {"contexts", "context", f.Contexts, kc.contexts}} {
		for i, raw := range list.items {
			ptr := "/" + list.key + "/" + strconv.Itoa(i)
			if k := jsonKind(raw); k != "a mapping" {
				return d.errorf(ptr, "an item of %s is %s, not a mapping", list.key, k)
			}
			var item kcItem
			if err := d.decode(raw, ptr, "an item of "+list.key, &item); err != nil {
				return err
			}
			if item.Name == "" {
				return d.errorf(ptr, "an item of %s has no name", list.key)
			}
			body := map[string]json.RawMessage{"cluster": item.Cluster, "user": item.User, "context": item.Context}[list.field]
			ptr += "/" + list.field
			switch k := jsonKind(body); k {
			case "null":
				body = nil
			case "a mapping":
			default:
				return d.errorf(ptr, "%s %q: %s is %s, not a mapping", list.field, item.Name, list.field, k)
			}
			if _, ok := list.into[item.Name]; !ok {
				list.into[item.Name] = kcEntry{kcDecoder: d, ptr: ptr, raw: body}
			}
		}
	}
	return nil
}

// jsonKind names the kind of a JSON value, as YAML calls it; nil (a
