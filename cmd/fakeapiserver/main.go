// Command fakeapiserver runs kinformer's in-memory Kubernetes API server, so
// curl, kubectl and the demo controller have something real to talk to.
//
//	go run ./cmd/fakeapiserver --addr 127.0.0.1:8080 --seed 3
//	curl http://127.0.0.1:8080/api/v1/namespaces/default/pods
//	kubectl --server http://127.0.0.1:8080 get pods -A
//
// It logs one line per request and stops cleanly on SIGINT or SIGTERM. See
// docs/fakeapiserver.md for what it models and what it leaves out.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kinformer/kinformer/fakeapiserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakeapiserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. It logs to stderr, starting with a line
// carrying the URL it listens on.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeapiserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback unless you say otherwise; port 0 picks a free one)")
	token := fs.String("token", "", "if set, every request must carry 'Authorization: Bearer <token>' (else 401); visible in the process list: prefer --token-file or $"+tokenEnv)
	tokenFile := fs.String("token-file", "", "read the token from this file (surrounding whitespace ignored)")
	allowAnyHost := fs.Bool("allow-any-host", false, "without a token, also answer requests whose Host is not loopback (by default they get 403, as from kubectl proxy)")
	faults := fs.Bool("faults", false, "serve the fault endpoints under /faults/ (GET /faults lists them; behind the token if one is set)")
	history := fs.Int("history", 1000, "events kept; a watch or exact list at an older resourceVersion answers 410 Expired")
	seed := fs.Int("seed", 3, "pods to create in namespace default at start")
	bookmarks := fs.Duration("bookmark-interval", time.Minute, "how often watches that allow bookmarks get one (0 = never)")
	quiet := fs.Bool("quiet", false, "do not log requests")
	dataDir := fs.String("data-dir", "", "keep the objects in this directory (a write-ahead log fsync'd before each write is answered, plus snapshots) so they survive a restart or kill -9; --seed then only seeds a new, empty directory")
	tlsDir := fs.String("tls-dir", "", "serve HTTPS with a certificate for 127.0.0.1/localhost kept in this directory (created with its CA, ca.crt, on first use)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bookmarks == 0 {
		*bookmarks = -1 // Options: negative disables
	}
	tok, err := resolveToken(*token, *tokenFile, os.Getenv(tokenEnv))
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := fakeapiserver.Options{History: *history, Token: tok.value, BookmarkInterval: *bookmarks,
		AllowAnyHost: *allowAnyHost, Faults: *faults}
	if !*quiet {
		opts.Logger = logger
	}
	srv, err := fakeapiserver.Open(*dataDir, opts)
	if err != nil {
		return err
	}
	// Serve closes it too; this covers the early returns.
	defer srv.Close()
	if *dataDir != "" && *quiet { // otherwise Open has logged it
		logger.Info("data dir opened", "dir", *dataDir, "recovery", srv.Recovery().String())
	}
	if *dataDir == "" || srv.Recovery().Fresh {
		if err := srv.SeedPods("default", *seed); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	kubectl, curl := "kubectl --server "+url, "curl"
	if *tlsDir != "" {
		cert, err := loadOrCreateCerts(*tlsDir)
		if err != nil {
			ln.Close()
			return fmt.Errorf("tls: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		url = "https://" + ln.Addr().String()
		kubectl = fmt.Sprintf("kubectl --server %s --certificate-authority %s", url, filepath.Join(*tlsDir, "ca.crt"))
		curl = "curl --cacert " + filepath.Join(*tlsDir, "ca.crt")
	}
	if tok.value != "" {
		kubectl += ` --token "` + tok.shell + `"`
		curl += ` -H "Authorization: Bearer ` + tok.shell + `"`
	}
	fmt.Fprintf(stderr, "\nTry:\n  %[1]s %[2]s/api/v1/namespaces/default/pods\n  %[1]s '%[2]s/api/v1/namespaces/default/pods?watch=true'\n  %[3]s get pods -A\n", curl, url, kubectl)
	if *faults {
		fmt.Fprintf(stderr, "  %[1]s %[2]s/faults                       (the fault endpoints)\n  %[1]s -X POST %[2]s/faults/close-watches\n", curl, url)
	}
	if tok.source == "--token" {
		fmt.Fprintln(stderr, "  (with TOKEN set to the token you gave; --token shows in the process list: --token-file or $"+tokenEnv+" do not)")
	}
	fmt.Fprintln(stderr)
	// The "listening" line comes last: whoever waits for it (a script, a
	// test) then has every line above too.
	if tok.value == "" && !fakeapiserver.IsLoopbackHost(ln.Addr().String()) {
		logger.Warn("listening on a non-loopback address without a token: anyone who can reach it can read and write it; give a token (--token-file or $"+tokenEnv+")",
			"addr", ln.Addr().String(), "foreignHosts", hostPolicy(*allowAnyHost))
	}
	logger.Info("fakeapiserver listening", "url", url, "seeded", *seed, "history", *history, "token", tok.describe(), "faults", *faults)

	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
