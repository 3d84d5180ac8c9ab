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
//
// There is no kubeconfig parsing (that needs YAML and client certificates);
// `kubectl proxy` turns any kubeconfig into the first shape.
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
	// Tracer receives the client's trace events (stage "listwatch"): each
	// list with the version asked for and got, each watch opened, each
	// frame decoded, each watch's end and why. nil: off.
	Tracer *trace.Tracer
	// Dial, if set, opens the connections to the server instead of the
	// network (client-go's rest.Config.Dial). Tests use it to reach an
	// in-memory server, e.g. over net.Pipe inside a testing/synctest
	// bubble, where every step of the pipeline runs on fake time.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// DefaultMaxWatchFrameSize is the default Config.MaxWatchFrameSize: well
// above the 1.5 MiB etcd allows for one object, well below what would hurt.
const DefaultMaxWatchFrameSize = 16 << 20

// The files a pod's service account is mounted as.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// ErrNotInCluster is returned by InClusterConfig outside a pod.
var ErrNotInCluster = errors.New("listwatch: not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set")

// OrInCluster completes the Config a command built from its flags: with a
// Server it is returned as it is; without one, inside a pod, it is the
// in-cluster Config (keeping the flags' Timeout and Tracer); outside a pod,
// it gets fallback as its Server (say the fake server, or `kubectl proxy`
// on 127.0.0.1:8080).
func (c Config) OrInCluster(fallback string) (Config, error) {
	if c.Server != "" {
		return c, nil
	}
	in, err := InClusterConfig()
	switch {
	case errors.Is(err, ErrNotInCluster):
		c.Server = fallback
		return c, nil
	case err != nil:
		return Config{}, err
	}
	in.Timeout, in.Tracer = c.Timeout, c.Tracer
	return in, nil
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
//	--request-timeout           Config.Timeout
func BindFlags(fs *flag.FlagSet) *Config {
	cfg := &Config{}
	fs.StringVar(&cfg.Server, "server", "", "API server URL (e.g. http://127.0.0.1:8001 for kubectl proxy, https://host:6443)")
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
		if c.CAFile != "" || len(c.CAData) > 0 || c.InsecureSkipTLSVerify {
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

// transport builds the HTTP transport: the default one (proxy from the
// environment, HTTP/2 over TLS, keep-alives) with the TLS settings.
func (c Config) transport() (*http.Transport, error) {
	hasCA := c.CAFile != "" || len(c.CAData) > 0
	if hasCA && c.InsecureSkipTLSVerify {
		return nil, errors.New("listwatch: a CA (--ca-file) may not be combined with --insecure-skip-tls-verify")
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipTLSVerify}
	if hasCA {
		pool, err := loadCAs(c.CAFile, c.CAData)
		if err != nil {
			return nil, err
		}
		tlsConfig.RootCAs = pool
	}
	t.TLSClientConfig = tlsConfig
	if c.Dial != nil {
		t.DialContext = c.Dial
		t.Proxy = nil // an in-memory server is never behind a proxy
	}
	return t, nil
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
