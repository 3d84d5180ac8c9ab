package listwatch

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/trace"
)

// The kubeconfigs kind, minikube, kubectl and the cloud CLIs write, as
// they write them (testdata/kubeconfig).
func TestLoadKubeconfig_Fixtures(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "kubeconfig"))
	require.NoError(t, err)
	tests := []struct {
		file, context string
		want          Config
		wantNS        string
		wantErr       string
	}{
		{file: "kind.yaml", want: Config{Server: "https://127.0.0.1:40123", CAData: []byte("kind CA"),
			CertData: []byte("kind client cert"), KeyData: []byte("kind client key")}},
		{file: "minikube.yaml", wantNS: "default", want: Config{Server: "https://192.168.49.2:8443", CAFile: "/home/learner/.minikube/ca.crt",
			CertFile: "/home/learner/.minikube/profiles/minikube/client.crt", KeyFile: "/home/learner/.minikube/profiles/minikube/client.key"}},
		{file: "kubectl-view.yaml", wantErr: "line 4: cluster \"kind-kind\": certificate-authority-data is DATA+OMITTED: this is the output of `kubectl config view`; use `kubectl config view --raw`"},
		{file: "kubectl-view.yaml", context: "proxy", wantNS: "team-a", want: Config{Server: "http://127.0.0.1:8001"}},
		{file: "kubectl-view-raw.json", wantNS: "team-a", want: Config{Server: "https://dev.example.com:6443", CAData: []byte("dev CA"),
			TLSServerName: "kubernetes.default", BearerToken: "dev-token"}},
		{file: "kubectl-view-raw.json", context: "lab", want: Config{Server: "https://10.0.0.1:6443", InsecureSkipTLSVerify: true,
			ProxyURL: "socks5://127.0.0.1:1080", BearerToken: "dev-token"}},
		{file: "handwritten.yaml", wantNS: "apps", want: Config{Server: "https://staging.example.com:6443",
			CAFile: filepath.Join(dir, "certs", "ca.crt"), BearerTokenFile: filepath.Join(dir, "secrets", "token")}},
		{file: "handwritten.yaml", context: "prod", want: Config{Server: "https://prod.example.com", CAData: []byte("prod CA"),
			CertFile: filepath.Join(dir, "certs", "admin.crt"), KeyFile: filepath.Join(dir, "certs", "admin.key")}},
		{file: "handwritten.yaml", context: "prod-anonymous", want: Config{Server: "https://prod.example.com", CAData: []byte("prod CA")}},
		{file: "handwritten.yaml", context: "nope", wantErr: `no context "nope" (contexts: "prod", "prod-anonymous", "staging")`},
		{file: "eks-exec.yaml", wantErr: `line 19: user "arn:aws:eks:eu-west-1:123456789012:cluster/demo" needs the exec credential plugin "aws": kinformer runs no credential plugins: run ` + "`kubectl proxy`"},
		{file: "gke-auth-provider.yaml", wantErr: `line 19: user "gke_demo-project_europe-west1-b_demo" needs the auth-provider "gcp": kinformer runs no credential plugins: run ` + "`kubectl proxy`"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.context, func(t *testing.T) {
			cfg, ns, err := LoadKubeconfig(KubeconfigOptions{Path: filepath.Join("testdata", "kubeconfig", tt.file), Context: tt.context})
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
			assert.Equal(t, tt.wantNS, ns)
		})
	}
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// $KUBECONFIG lists files that are merged as kubectl merges them: the first
// to name an entry wins it, current-context comes from the first file that
// sets one, files that do not exist are skipped, and relative paths are
// relative to the file that holds them.
func TestLoadKubeconfig_MergesKUBECONFIG(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a/config", `
clusters:
- name: shared
  cluster: {server: "https://from-a", certificate-authority: ca.crt}
users:
- name: me
  user: {token: from-a}
`)
	b := writeFile(t, dir, "b/config", `
current-context: one
clusters:
- name: shared
  cluster: {server: "https://from-b"}
- name: only-b
  cluster: {server: "https://only-b", certificate-authority: ca.crt}
users:
- name: me
  user: {token: from-b}
- name: files
  user: {client-certificate: tls/me.crt, client-key: tls/me.key}
contexts:
- name: one
  context: {cluster: shared, user: me, namespace: ns-one}
- name: two
  context: {cluster: only-b, user: files}
`)
	c := writeFile(t, dir, "c/config", "current-context: two\n")
	t.Setenv("KUBECONFIG", strings.Join([]string{a, filepath.Join(dir, "missing"), "", b, c}, string(os.PathListSeparator)))

	cfg, ns, err := LoadKubeconfig(KubeconfigOptions{})
	require.NoError(t, err)
	assert.Equal(t, Config{Server: "https://from-a", CAFile: filepath.Join(dir, "a", "ca.crt"), BearerToken: "from-a"}, cfg,
		"context one (b's current-context: a sets none) with a's cluster and user")
	assert.Equal(t, "ns-one", ns)

	cfg, ns, err = LoadKubeconfig(KubeconfigOptions{Context: "two"})
	require.NoError(t, err)
	assert.Equal(t, Config{Server: "https://only-b", CAFile: filepath.Join(dir, "b", "ca.crt"),
		CertFile: filepath.Join(dir, "b", "tls", "me.crt"), KeyFile: filepath.Join(dir, "b", "tls", "me.key")}, cfg)
	assert.Empty(t, ns)

	cfg, _, err = LoadKubeconfig(KubeconfigOptions{Path: b})
	require.NoError(t, err)
	assert.Equal(t, "https://from-b", cfg.Server, "an explicit path ignores $KUBECONFIG")

	t.Setenv("KUBECONFIG", filepath.Join(dir, "missing"))
	_, _, err = LoadKubeconfig(KubeconfigOptions{})
	assert.ErrorContains(t, err, "names no file that exists")
}

// Broken kubeconfigs are refused with the file, the line and the entry.
func TestLoadKubeconfig_Errors(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	tests := []struct {
		name, content, context, want string
	}{
		{"no current context", "contexts:\n- name: a\n  context: {cluster: c}\n", "", `no current-context: give --context (contexts: "a")`},
		{"no such cluster", "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\n", "", `line 4: context "a": no cluster "c" (clusters: none)`},
		{"no such user", "current-context: a\nclusters:\n- name: c\n  cluster: {server: x}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n", "", `context "a": no user "u"`},
		{"no server", "current-context: a\nclusters:\n- name: c\n  cluster: {}\ncontexts:\n- name: a\n  context: {cluster: c}\n", "", `cluster "c" has no server`},
		{"bad base64", "current-context: a\nclusters:\n- name: c\n  cluster:\n    server: x\n    certificate-authority-data: '%%%'\ncontexts:\n- name: a\n  context: {cluster: c}\n", "", `line 6: cluster "c": certificate-authority-data is not base64`},
		{"bad bool", "current-context: a\nclusters:\n- name: c\n  cluster:\n    server: x\n    insecure-skip-tls-verify: maybe\ncontexts:\n- name: a\n  context: {cluster: c}\n", "", `line 6: cluster "c": insecure-skip-tls-verify is "maybe", not true or false`},
		{"not a kubeconfig", "kind: Pod\n", "", `kind is "Pod", not Config`},
		{"not a mapping", "- a\n", "", "the document is a sequence, not a mapping"},
		{"unnamed entry", "clusters:\n- cluster: {server: x}\n", "", "line 2: an item of clusters has no name"},
		{"basic auth", "current-context: a\nclusters:\n- name: c\n  cluster: {server: x}\nusers:\n- name: u\n  user: {username: me, password: pw}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n", "", `user "u": basic authentication`},
		{"impersonation", "current-context: a\nclusters:\n- name: c\n  cluster: {server: x}\nusers:\n- name: u\n  user: {token: t, as: admin}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n", "", `user "u": impersonation (as) is not supported`},
		{"certificate twice", "current-context: a\nclusters:\n- name: c\n  cluster: {server: x}\nusers:\n- name: u\n  user: {client-certificate: c.crt, client-certificate-data: eA==}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n", "", `user "u" has both client-certificate and client-certificate-data`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "config", tt.content)
			_, _, err := LoadKubeconfig(KubeconfigOptions{Path: p, Context: tt.context})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "kubeconfig "+p)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, _, err := LoadKubeconfig(KubeconfigOptions{Path: filepath.Join(t.TempDir(), "missing")})
	assert.ErrorContains(t, err, "reading the kubeconfig")
}

// testPKI is a cluster's certificates, made for a test: a CA, the server's
// certificate for 127.0.0.1 and a client certificate, all signed by the CA.
type testPKI struct {
	caPEM             []byte
	server            tls.Certificate
	clientCert        []byte // PEM
	clientKey         []byte // PEM
	otherKey          []byte // PEM: a key that is not the client certificate's
	clientCertOtherCA []byte // PEM: a client certificate another CA signed
	otherCAKey        []byte // its key
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	keyPEM := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	}
	serial := int64(0)
	sign := func(tmpl *x509.Certificate, key *ecdsa.PrivateKey, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, []byte) {
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		require.NoError(t, err)
		cert, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	newCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		k := newKey()
		c, p := sign(&x509.Certificate{Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, k, nil, nil)
		return c, k, p
	}
	ca, caKey, caPEM := newCA("kinformer-test-ca")
	serverKey := newKey()
	_, serverPEM := sign(&x509.Certificate{Subject: pkix.Name{CommonName: "kube-apiserver"}, DNSNames: []string{"localhost", "kubernetes.default"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}, serverKey, ca, caKey)
	server, err := tls.X509KeyPair(serverPEM, keyPEM(serverKey))
	require.NoError(t, err)
	client := &x509.Certificate{Subject: pkix.Name{CommonName: "learner", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	clientKey := newKey()
	_, clientPEM := sign(client, clientKey, ca, caKey)
	otherCA, otherCAKey, _ := newCA("someone-else")
	strangerKey := newKey()
	_, strangerPEM := sign(&x509.Certificate{Subject: pkix.Name{CommonName: "stranger"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, strangerKey, otherCA, otherCAKey)
	return &testPKI{caPEM: caPEM, server: server, clientCert: clientPEM, clientKey: keyPEM(clientKey), otherKey: keyPEM(newKey()),
		clientCertOtherCA: strangerPEM, otherCAKey: keyPEM(strangerKey)}
}

// mtlsServer is the fake API server over HTTPS that requires a client
// certificate the test CA signed, as kind's and minikube's API servers
// authenticate their admin user.
func mtlsServer(t *testing.T, pki *testPKI) string {
	t.Helper()
	srv := fakeapiserver.New(fakeapiserver.Options{Tracer: trace.ForTest(t)})
	hs := httptest.NewUnstartedServer(srv)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pki.caPEM))
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{pki.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	hs.Config.ErrorLog = log.New(testWriter(t, "server's http log (expected when a client has no good certificate)"), "", 0)
	hs.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL
}

// A kubeconfig as kind writes it (certificates as data) or as minikube
// writes it (certificates as files, here relative to the kubeconfig)
// reaches a server that requires a client certificate; without the
// certificate, or with one another CA signed, the server refuses the
// connection.
func TestKubeconfig_ClientCertificateReachesTheServer(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	pki := newTestPKI(t)
	url := mtlsServer(t, pki)
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	dir := t.TempDir()
	writeFile(t, dir, "pki/ca.crt", string(pki.caPEM))
	writeFile(t, dir, "pki/client.crt", string(pki.clientCert))
	writeFile(t, dir, "pki/client.key", string(pki.clientKey))
	kubeconfig := writeFile(t, dir, "config", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: kind-kind
- cluster:
    certificate-authority: pki/ca.crt
    server: %s
  name: minikube
contexts:
- context: {cluster: kind-kind, user: kind-kind}
  name: kind-kind
- context: {cluster: minikube, user: minikube, namespace: default}
  name: minikube
- context: {cluster: minikube, user: nobody}
  name: anonymous
- context: {cluster: minikube, user: stranger}
  name: stranger
current-context: kind-kind
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: %s
    client-key-data: %s
- name: minikube
  user:
    client-certificate: pki/client.crt
    client-key: pki/client.key
- name: nobody
  user: {}
- name: stranger
  user:
    client-certificate-data: %s
    client-key-data: %s
`, b64(pki.caPEM), url, url, b64(pki.clientCert), b64(pki.clientKey), b64(pki.clientCertOtherCA), b64(pki.otherCAKey)))

	tests := []struct {
		context string
		ok      bool
	}{{"", true}, {"minikube", true}, {"anonymous", false}, {"stranger", false}}
	for _, tt := range tests {
		t.Run("context="+tt.context, func(t *testing.T) {
			// As cmd/watch does: BindFlags, parse, OrInCluster.
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			flags := BindFlags(fs)
			args := []string{"--kubeconfig", kubeconfig}
			if tt.context != "" {
				args = append(args, "--context", tt.context)
			}
			require.NoError(t, fs.Parse(args))
			flags.Tracer = trace.ForTest(t)
			cfg, err := flags.OrInCluster("http://127.0.0.1:1")
			require.NoError(t, err)
			assert.Equal(t, url, cfg.Server)
			c, err := NewClient(cfg)
			require.NoError(t, err)
			err = listPods(c)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err, "the server requires a certificate its CA signed")
			assert.Contains(t, err.Error(), "certificate")
		})
	}
}

// Client certificates work without a kubeconfig too: --client-certificate
// and --client-key, as kubectl names them.
func TestClientCertificateFlags(t *testing.T) {
	pki := newTestPKI(t)
	url := mtlsServer(t, pki)
	dir := t.TempDir()
	ca := writeFile(t, dir, "ca.crt", string(pki.caPEM))
	crt := writeFile(t, dir, "client.crt", string(pki.clientCert))
	key := writeFile(t, dir, "client.key", string(pki.clientKey))

	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	flags := BindFlags(fs)
	require.NoError(t, fs.Parse([]string{"--server", url, "--ca-file", ca, "--client-certificate", crt, "--client-key", key}))
	cfg, err := flags.OrInCluster("http://127.0.0.1:1")
	require.NoError(t, err)
	c, err := NewClient(cfg)
	require.NoError(t, err)
	require.NoError(t, listPods(c))

	c, err = NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAData: pki.caPEM, CertData: pki.clientCert, KeyData: pki.clientKey})
	require.NoError(t, err)
	require.NoError(t, listPods(c), "the same as PEM data")
}

// A certificate without its key, a key that is not the certificate's, and
// files that cannot be read are refused by NewClient.
func TestClientCertificateErrors(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	crt := writeFile(t, dir, "client.crt", string(pki.clientCert))
	key := writeFile(t, dir, "client.key", string(pki.clientKey))
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"certificate without key", Config{CertFile: crt}, "a client certificate (--client-certificate) needs its private key (--client-key)"},
		{"key without certificate", Config{KeyData: pki.clientKey}, "a client key (--client-key) needs its certificate (--client-certificate)"},
		{"key of another certificate", Config{CertData: pki.clientCert, KeyData: pki.otherKey}, "loading the client certificate and key: tls: private key does not match public key"},
		{"not PEM", Config{CertData: []byte("nope"), KeyData: pki.clientKey}, "loading the client certificate and key"},
		{"unreadable certificate", Config{CertFile: missing, KeyFile: key}, "reading the client certificate: open " + missing},
		{"unreadable key", Config{CertFile: crt, KeyFile: missing}, "reading the client key: open " + missing},
		{"file and data", Config{CertFile: crt, CertData: pki.clientCert, KeyFile: key}, "CertFile or CertData, not both"},
		{"bad proxy", Config{ProxyURL: "ftp://proxy"}, "want http://, https:// or socks5://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Server = "https://127.0.0.1:6443"
			_, err := NewClient(tt.cfg)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	// A client certificate alone makes a server without scheme https.
	c, err := NewClient(Config{Server: "127.0.0.1:6443", CertFile: crt, KeyFile: key})
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:6443", c.Server())
}

// Resolve's order: --server; a kubeconfig if --kubeconfig, --context or
// $KUBECONFIG say so (never ~/.kube/config by itself); in-cluster; the
// fallback. Flags win over the kubeconfig.
func TestResolve_Order(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	t.Setenv("KUBECONFIG", "")
	const kc = `current-context: home
clusters:
- name: c
  cluster: {server: "https://home:6443", certificate-authority-data: eA==}
- name: other
  cluster: {server: "https://other:6443"}
users:
- name: u
  user: {token: kube-token, client-certificate: u.crt, client-key: u.key}
contexts:
- name: home
  context: {cluster: c, user: u, namespace: home-ns}
- name: other
  context: {cluster: other}
`
	homeConfig := writeFile(t, home, ".kube/config", kc)
	envConfig := writeFile(t, t.TempDir(), "env-config", strings.Replace(kc, "current-context: home", "current-context: other", 1))
	const fallback = "http://127.0.0.1:8080"

	tests := []struct {
		name     string
		args     []string
		env      string
		want     string // the server
		wantNS   string
		check    func(t *testing.T, cfg Config)
		wantFile string
	}{
		{name: "nothing: the fallback, even with ~/.kube/config", want: fallback},
		{name: "--server", args: []string{"--server", "http://127.0.0.1:9999"}, want: "http://127.0.0.1:9999"},
		{name: "--server wins over $KUBECONFIG", args: []string{"--server", "http://127.0.0.1:9999"}, env: envConfig, want: "http://127.0.0.1:9999"},
		{name: "$KUBECONFIG", env: envConfig, want: "https://other:6443"},
		{name: "--kubeconfig ~/.kube/config", args: []string{"--kubeconfig", "~/.kube/config"}, want: "https://home:6443", wantNS: "home-ns",
			check: func(t *testing.T, cfg Config) {
				assert.Equal(t, "kube-token", cfg.BearerToken)
				assert.Equal(t, filepath.Join(home, ".kube", "u.crt"), cfg.CertFile)
				assert.Equal(t, []byte("x"), cfg.CAData)
			}},
		{name: "--kubeconfig wins over $KUBECONFIG", args: []string{"--kubeconfig", homeConfig}, env: envConfig, want: "https://home:6443", wantNS: "home-ns"},
		{name: "--context alone reads ~/.kube/config", args: []string{"--context", "other"}, want: "https://other:6443"},
		{name: "--context picks from $KUBECONFIG", args: []string{"--context", "home"}, env: envConfig, want: "https://home:6443", wantNS: "home-ns"},
		{name: "flags win over the kubeconfig", args: []string{"--kubeconfig", homeConfig, "--server", "https://elsewhere", "--token-file", "/tok",
			"--client-certificate", "/me.crt", "--client-key", "/me.key", "--insecure-skip-tls-verify", "--request-timeout", "7s"},
			want: "https://elsewhere", wantNS: "home-ns",
			check: func(t *testing.T, cfg Config) {
				assert.Equal(t, Config{Server: "https://elsewhere", BearerTokenFile: "/tok", CertFile: "/me.crt", KeyFile: "/me.key",
					InsecureSkipTLSVerify: true, Timeout: 7 * time.Second, Kubeconfig: homeConfig}, cfg, "the CA is dropped for --insecure-skip-tls-verify")
			}},
		{name: "--ca-file replaces the kubeconfig's CA", args: []string{"--kubeconfig", homeConfig, "--ca-file", "/ca.crt"}, want: "https://home:6443", wantNS: "home-ns",
			check: func(t *testing.T, cfg Config) {
				assert.Equal(t, "/ca.crt", cfg.CAFile)
				assert.Nil(t, cfg.CAData)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.env)
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			flags := BindFlags(fs)
			require.NoError(t, fs.Parse(tt.args))
			cfg, ns, err := flags.Resolve(fallback)
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Server)
			assert.Equal(t, tt.wantNS, ns)
			if tt.check != nil {
				tt.check(t, cfg)
			}
			orCfg, err := flags.OrInCluster(fallback)
			require.NoError(t, err)
			assert.Equal(t, cfg, orCfg, "OrInCluster is Resolve without the namespace")
		})
	}

	t.Setenv("KUBECONFIG", "")
	_, _, err := Config{Kubeconfig: filepath.Join(home, "missing")}.Resolve(fallback)
	assert.ErrorContains(t, err, "reading the kubeconfig", "an explicit --kubeconfig must exist")
	require.NoError(t, os.Remove(homeConfig))
	_, _, err = Config{Context: "home"}.Resolve(fallback)
	assert.ErrorContains(t, err, "reading the kubeconfig", "--context without a kubeconfig")
}

// Inside a pod, the namespace is the pod's.
func TestInClusterNamespace(t *testing.T) {
	dir := t.TempDir()
	assert.Empty(t, inClusterNamespace(dir))
	writeFile(t, dir, "namespace", "team-a\n")
	assert.Equal(t, "team-a", inClusterNamespace(dir))
}

// tls-server-name checks the server's certificate against another name
// than the URL's host (a cluster reached through a tunnel); proxy-url
// sends every request through a proxy.
func TestTLSServerNameAndProxyURL(t *testing.T) {
	pki := newTestPKI(t)
	url := mtlsServer(t, pki)
	tests := []struct {
		serverName string
		ok         bool
	}{{"", true}, {"kubernetes.default", true}, {"elsewhere.example", false}}
	for _, tt := range tests {
		t.Run("server name "+tt.serverName, func(t *testing.T) {
			c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: url, CAData: pki.caPEM, TLSServerName: tt.serverName,
				CertData: pki.clientCert, KeyData: pki.clientKey})
			require.NoError(t, err)
			err = listPods(c)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, "certificate is valid for")
			}
		})
	}

	var proxied atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Store(r.URL.String()) // a proxy gets the absolute URL
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`)
	}))
	defer proxy.Close()
	c, err := NewClient(Config{Tracer: trace.ForTest(t), Server: "http://cluster.invalid:6443", ProxyURL: proxy.URL})
	require.NoError(t, err)
	require.NoError(t, listPods(c))
	assert.Equal(t, "http://cluster.invalid:6443/api/v1/namespaces/default/pods", proxied.Load())
}
