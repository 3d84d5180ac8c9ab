package listwatch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// Config says how to reach an API server (client-go's rest.Config, the
// parts a list/watch client needs). Three shapes cover the usual cases:
//
//	Config{Server: "http://127.0.0.1:8001"}                      // kubectl proxy, or the fake server
//	Config{Server: "https://10.0.0.1:6443", BearerToken: tok, CAFile: "ca.crt"}
//	InClusterConfig()                                             // a pod's service account
//	LoadKubeconfig(KubeconfigOptions{})                           // what kubectl uses
//
// A command gets a Config from BindFlags and completes it with OrInCluster
// (or Resolve, which also returns the kubeconfig's namespace).
type Config struct {
	// Server is the API server's URL: scheme, host, port and an optional
	// path prefix ("https://rancher.example/k8s/clusters/c-1"). Without a
	// scheme it is https if any TLS setting is given, else http.
	Server string
	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// BearerTokenFile, if set, is read before every request and wins over
	// BearerToken: service-account tokens are rotated on disk.
	BearerTokenFile string
	// CAFile and CAData (PEM) are the certificate authorities that sign the
	// server's certificate; both may be given. Without either, the system's
	// roots are used.
	CAFile string
	CAData []byte
	// InsecureSkipTLSVerify accepts any server certificate. For experiments
	// only; it may not be combined with a CA.
	InsecureSkipTLSVerify bool
	// TLSServerName, if set, is the name the server's certificate is
	// checked against instead of Server's host (kubeconfig's
	// tls-server-name).
	TLSServerName string
	// CertFile and KeyFile, or CertData and KeyData (PEM), are a client
	// certificate and its private key, presented to a server that asks for
	// one (kind's and minikube's admin users). A certificate needs its key;
	// give a file or data, not both. They are read once, by NewClient.
	CertFile string
	KeyFile  string
	CertData []byte
	KeyData  []byte
	// ProxyURL, if set, is the http, https or socks5 proxy every request
	// goes through (kubeconfig's proxy-url); otherwise the environment's
	// HTTPS_PROXY, HTTP_PROXY and NO_PROXY apply.
	ProxyURL string
	// Timeout bounds each request that is not a watch, and the time a
	// watch waits for the server's response headers. A watch's stream
	// itself is unbounded (the server ends it after timeoutSeconds). 0 means
	// no limit.
	Timeout time.Duration
	// UserAgent is sent with every request; default "kinformer/v0 (os/arch)".
	UserAgent string
	// MaxWatchFrameSize bounds one watch frame (one event's JSON line), and
	// so the memory a watch holds for a frame; default 16 MiB. A longer
	// frame ends the watch with ErrFrameTooLarge.
	MaxWatchFrameSize int
	// Decoder chooses how lists, watches and answers are decoded
	// (decode.go): DecodeFast, the default (listwatch/internal/fastdecode:
	// one pass, several goroutines, compacted objects), or DecodePlain
	// (encoding/json on the reading goroutine, nothing else). Both give
	// the same objects, events and errors.
	Decoder Decoder
	// DecodeWorkers is how many goroutines DecodeFast may use to decode
	// one watch's frames, or one list's items, at the same time. Events
	// and items keep their order whatever it is (docs/listwatch.md,
	// "Decoding on both cores"). 0 means the default, min(GOMAXPROCS, 4);
	// 1 decodes on the reading goroutine only. Negative is refused.
	DecodeWorkers int
	// Tracer receives the client's trace events (stage "listwatch"): each
	// list with the version asked for and got, each watch opened, each
	// frame decoded, each watch's end and why. nil: off.
	Tracer *trace.Tracer
	// Dial, if set, opens the connections to the server instead of the
	// network (client-go's rest.Config.Dial). Tests use it to reach an
	// in-memory server, e.g. over net.Pipe inside a testing/synctest
	// bubble, where every step of the pipeline runs on fake time.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)

	// Kubeconfig and Context are --kubeconfig and --context: where OrInCluster
	// and Resolve find the server and credentials (see Resolve). NewClient
	// ignores them.
	Kubeconfig string
	Context    string
}

// DefaultMaxWatchFrameSize is the default Config.MaxWatchFrameSize: well
// above the 1.5 MiB etcd allows for one object, well below what would hurt.
const DefaultMaxWatchFrameSize = 16 << 20

// The files a pod's service account is mounted as.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// ErrNotInCluster is returned by InClusterConfig outside a pod.
var ErrNotInCluster = errors.New("listwatch: not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set")

// OrInCluster completes the Config a command built from its flags, as
// Resolve does, and drops the namespace.
func (c Config) OrInCluster(fallback string) (Config, error) {
	cfg, _, err := c.Resolve(fallback)
	return cfg, err
}

// Resolve completes the Config a command built from its flags (BindFlags)
// and returns the namespace it names, "" if none (the command then uses
// its own default, usually "default"). In this order:
//
//  1. --server without --kubeconfig or --context: c as it is.
//  2. --kubeconfig or --context given, or $KUBECONFIG set: the kubeconfig's
//     current context (or --context) and its namespace (LoadKubeconfig).
//     --context alone reads ~/.kube/config.
//  3. Inside a pod: the in-cluster Config and the pod's namespace.
//  4. Otherwise: fallback as the Server (the fake server, or `kubectl
//     proxy` on 127.0.0.1:8001).
//
// ~/.kube/config is not read unless asked for (--kubeconfig ~/.kube/config
// or --context): a learner's program keeps talking to the local fake
// server even when kubectl is set up for a real cluster.
//
// In 2 and 3, the settings c has win over the kubeconfig's or the pod's:
// --server, --token or --token-file, --ca-file, --client-certificate,
// --client-key, --insecure-skip-tls-verify (which drops the kubeconfig's
// CA), and Timeout, UserAgent, MaxWatchFrameSize, Decoder, DecodeWorkers,
// Tracer and Dial.
func (c Config) Resolve(fallback string) (Config, string, error) {
	if c.Server != "" && c.Kubeconfig == "" && c.Context == "" {
		return c, "", nil
	}
	if c.Kubeconfig != "" || c.Context != "" || os.Getenv("KUBECONFIG") != "" {
		kc, ns, err := LoadKubeconfig(KubeconfigOptions{Path: c.Kubeconfig, Context: c.Context})
		if err != nil {
			return Config{}, "", err
		}
		return c.over(kc), ns, nil
	}
	if c.Server != "" {
		return c, "", nil
	}
	in, err := InClusterConfig()
	switch {
	case errors.Is(err, ErrNotInCluster):
		c.Server = fallback
		return c, "", nil
	case err != nil:
		return Config{}, "", err
	}
	return c.over(in), inClusterNamespace(serviceAccountDir), nil
}

// over returns base (from a kubeconfig or the pod) with the settings c has
// laid over it.
func (c Config) over(base Config) Config {
	out := base
	if c.Server != "" {
		out.Server = c.Server
	}
	if c.BearerToken != "" || c.BearerTokenFile != "" {
		out.BearerToken, out.BearerTokenFile = c.BearerToken, c.BearerTokenFile
	}
	if c.CAFile != "" || len(c.CAData) > 0 {
		out.CAFile, out.CAData, out.InsecureSkipTLSVerify = c.CAFile, c.CAData, false
	}
	if c.InsecureSkipTLSVerify {
		out.InsecureSkipTLSVerify = true
		if c.CAFile == "" && len(c.CAData) == 0 {
			out.CAFile, out.CAData = "", nil
		}
	}
	if c.CertFile != "" || len(c.CertData) > 0 {
		out.CertFile, out.CertData = c.CertFile, c.CertData
	}
	if c.KeyFile != "" || len(c.KeyData) > 0 {
		out.KeyFile, out.KeyData = c.KeyFile, c.KeyData
	}
	if c.TLSServerName != "" {
		out.TLSServerName = c.TLSServerName
	}
	if c.ProxyURL != "" {
		out.ProxyURL = c.ProxyURL
	}
	out.Timeout, out.UserAgent, out.MaxWatchFrameSize, out.Tracer, out.Dial = c.Timeout, c.UserAgent, c.MaxWatchFrameSize, c.Tracer, c.Dial
	out.Decoder, out.DecodeWorkers = c.Decoder, c.DecodeWorkers
	out.Kubeconfig, out.Context = c.Kubeconfig, c.Context
	return out
}

// inClusterNamespace is the pod's namespace, "" if it cannot be read.
func inClusterNamespace(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "namespace"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// InClusterConfig is the Config of a program running in a pod: the API
// server's Service address from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the pod's service-account token and the
// cluster's CA from /var/run/secrets/kubernetes.io/serviceaccount (as
// client-go's rest.InClusterConfig). Outside a pod it returns
// ErrNotInCluster.
func InClusterConfig() (Config, error) {
	return inClusterConfig(serviceAccountDir)
}

func inClusterConfig(dir string) (Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return Config{}, ErrNotInCluster
	}
	tokenFile := filepath.Join(dir, "token")
	if _, err := os.ReadFile(tokenFile); err != nil {
		return Config{}, fmt.Errorf("listwatch: in-cluster config: reading the service-account token: %w", err)
	}
	cfg := Config{
		Server:          "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: tokenFile,
	}
	// As client-go: a CA that does not load is left out (TLS will then say
	// why it cannot verify the server) rather than failing here.
	caFile := filepath.Join(dir, "ca.crt")
	if _, err := loadCAs(caFile, nil); err == nil {
		cfg.CAFile = caFile
	}
	return cfg, nil
}

// BindFlags registers the connection flags every kinformer program takes
// on fs and returns the Config they fill in once fs is parsed:
//
//	--server                    the API server URL
//	--token                     a bearer token
//	--token-file                a file holding the bearer token
//	--ca-file                   the CA bundle (PEM) of the server's certificate
//	--insecure-skip-tls-verify  accept any server certificate
//	--client-certificate        a client certificate (PEM) file
//	--client-key                its private key (PEM) file
//	--kubeconfig                a kubeconfig file (see Config.Resolve)
//	--context                   the kubeconfig context to use
//	--request-timeout           Config.Timeout
func BindFlags(fs *flag.FlagSet) *Config {
	cfg := &Config{}
	fs.StringVar(&cfg.Server, "server", "", "API server URL (e.g. http://127.0.0.1:8001 for kubectl proxy, https://host:6443)")
	fs.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig file to use; without it only $KUBECONFIG is read, never ~/.kube/config (give --kubeconfig ~/.kube/config to use it)")
	fs.StringVar(&cfg.Context, "context", "", "kubeconfig context to use instead of the current one (alone, it reads $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&cfg.CertFile, "client-certificate", "", "PEM file of a client certificate to present to the server")
	fs.StringVar(&cfg.KeyFile, "client-key", "", "PEM file of the client certificate's private key")
	fs.StringVar(&cfg.BearerToken, "token", "", "bearer token for the API server")
	fs.StringVar(&cfg.BearerTokenFile, "token-file", "", "file holding the bearer token (re-read on every request)")
	fs.StringVar(&cfg.CAFile, "ca-file", "", "PEM file of the certificate authority that signs the server's certificate")
	fs.BoolVar(&cfg.InsecureSkipTLSVerify, "insecure-skip-tls-verify", false, "do not verify the server's certificate (insecure)")
	fs.DurationVar(&cfg.Timeout, "request-timeout", 0, "limit for each request that is not a watch (0 = none)")
	return cfg
}

// serverURL parses Server, defaulting the scheme as documented on Config.
func (c Config) serverURL() (*url.URL, error) {
	s := strings.TrimSpace(c.Server)
	if s == "" {
		return nil, errors.New("listwatch: Config.Server is empty: give the API server's URL")
	}
	if !strings.Contains(s, "://") {
		scheme := "http://"
		if c.CAFile != "" || len(c.CAData) > 0 || c.InsecureSkipTLSVerify || c.TLSServerName != "" ||
			c.CertFile != "" || len(c.CertData) > 0 {
			scheme = "https://"
		}
		s = scheme + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("listwatch: Config.Server %q: %w", c.Server, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("listwatch: Config.Server %q: scheme must be http or https", c.Server)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("listwatch: Config.Server %q has no host", c.Server)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// readBufferSize is the transport's read buffer. net/http's default, 4 KiB,
// costs a read from the socket for every few KiB of a watch or a list: a
// system call each, for bodies of hundreds of MB during an initial list.
// 64 KiB reads a chunk header and the data after it in one call.
const readBufferSize = 64 << 10

// transport builds the HTTP transport: the default one (proxy from the
// environment, HTTP/2 over TLS, keep-alives) with the TLS settings.
func (c Config) transport() (*http.Transport, error) {
	hasCA := c.CAFile != "" || len(c.CAData) > 0
	if hasCA && c.InsecureSkipTLSVerify {
		return nil, errors.New("listwatch: a CA (--ca-file) may not be combined with --insecure-skip-tls-verify")
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ReadBufferSize = readBufferSize
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipTLSVerify, ServerName: c.TLSServerName}
	if hasCA {
		pool, err := loadCAs(c.CAFile, c.CAData)
		if err != nil {
			return nil, err
		}
		tlsConfig.RootCAs = pool
	}
	cert, err := c.clientCertificate()
	if err != nil {
		return nil, err
	}
	if cert != nil {
		tlsConfig.Certificates = []tls.Certificate{*cert}
	}
	t.TLSClientConfig = tlsConfig
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("listwatch: Config.ProxyURL %q: %w", c.ProxyURL, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5" || u.Host == "" {
			return nil, fmt.Errorf("listwatch: Config.ProxyURL %q: want http://, https:// or socks5:// and a host", c.ProxyURL)
		}
		t.Proxy = http.ProxyURL(u)
	}
	if c.Dial != nil {
		t.DialContext = c.Dial
		t.Proxy = nil // an in-memory server is never behind a proxy
	}
	return t, nil
}

// clientCertificate loads the client certificate and its key; nil if
// there is none.
func (c Config) clientCertificate() (*tls.Certificate, error) {
	hasCert, hasKey := c.CertFile != "" || len(c.CertData) > 0, c.KeyFile != "" || len(c.KeyData) > 0
	switch {
	case !hasCert && !hasKey:
		return nil, nil
	case c.CertFile != "" && len(c.CertData) > 0:
		return nil, errors.New("listwatch: give a client certificate as CertFile or CertData, not both")
	case c.KeyFile != "" && len(c.KeyData) > 0:
		return nil, errors.New("listwatch: give a client key as KeyFile or KeyData, not both")
	case !hasKey:
		return nil, errors.New("listwatch: a client certificate (--client-certificate) needs its private key (--client-key)")
	case !hasCert:
		return nil, errors.New("listwatch: a client key (--client-key) needs its certificate (--client-certificate)")
	}
	certPEM, keyPEM := c.CertData, c.KeyData
	if c.CertFile != "" {
		b, err := os.ReadFile(c.CertFile)
		if err != nil {
			return nil, fmt.Errorf("listwatch: reading the client certificate: %w", err)
		}
		certPEM = b
	}
	if c.KeyFile != "" {
		b, err := os.ReadFile(c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("listwatch: reading the client key: %w", err)
		}
		keyPEM = b
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("listwatch: loading the client certificate and key: %w", err)
	}
	return &cert, nil
}

// loadCAs builds a certificate pool from a PEM file and PEM data.
func loadCAs(file string, data []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("listwatch: reading the CA file: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("listwatch: the CA file %s holds no PEM certificate", file)
		}
	}
	if len(data) > 0 && !pool.AppendCertsFromPEM(data) {
		return nil, errors.New("listwatch: Config.CAData holds no PEM certificate")
	}
	return pool, nil
}
