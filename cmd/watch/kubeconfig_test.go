package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCA signs the server's and the client's certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate and key (PEM) for a server or a client.
func (ca *testCA) issue(t *testing.T, name string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// `watch --kubeconfig` against a server that requires a client
// certificate, as kind and minikube clusters do: the kubeconfig gives the
// server, its CA, the client's certificate and key, and the context's
// namespace, which the command watches when --namespace is not given.
func TestRunWithKubeconfigAndClientCertificate(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	defer srv.Close()
	_, err := srv.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	_, err = srv.Create(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "team", Name: "api-0"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)

	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, "apiserver", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey := ca.issue(t, "learner", x509.ExtKeyUsageClientAuth)
	pair, err := tls.X509KeyPair(serverCert, serverKey)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	hs := httptest.NewUnstartedServer(srv)
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	hs.StartTLS()
	defer hs.Close()

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "client.key"), clientKey, 0o600))
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	kubeconfig := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: `+b64(ca.pem)+`
    server: `+hs.URL+`
  name: kind-demo
contexts:
- context:
    cluster: kind-demo
    namespace: team
    user: kind-demo
  name: kind-demo
current-context: kind-demo
users:
- name: kind-demo
  user:
    client-certificate-data: `+b64(clientCert)+`
    client-key: client.key
`), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--kubeconfig", kubeconfig}, stdout, stderr) }()
	waitFor(t, stderr, "watching from there")
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, "LIST Pod team/api-0 5\n", stdout.String(), "the context's namespace, through the client certificate")

	// Without the client certificate the TLS handshake is refused.
	noCert := filepath.Join(dir, "no-cert")
	require.NoError(t, os.WriteFile(noCert, []byte(`{"apiVersion":"v1","kind":"Config","current-context":"c",
"clusters":[{"name":"c","cluster":{"server":"`+hs.URL+`","certificate-authority-data":"`+b64(ca.pem)+`"}}],
"contexts":[{"name":"c","context":{"cluster":"c","user":"u"}}],"users":[{"name":"u","user":{}}]}`), 0o600))
	err = run(context.Background(), []string{"--kubeconfig", noCert, "--max-failures", "1"}, &syncbuf.Buffer{}, &syncbuf.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")
}
