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
	token := fs.String("token", "", "if set, every request must carry 'Authorization: Bearer <token>' (else 401)")
	history := fs.Int("history", 1000, "events kept; a watch or exact list at an older resourceVersion answers 410 Expired")
	seed := fs.Int("seed", 3, "pods to create in namespace default at start")
	bookmarks := fs.Duration("bookmark-interval", time.Minute, "how often watches that allow bookmarks get one (0 = never)")
	quiet := fs.Bool("quiet", false, "do not log requests")
	tlsDir := fs.String("tls-dir", "", "serve HTTPS with a certificate for 127.0.0.1/localhost kept in this directory (created with its CA, ca.crt, on first use)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bookmarks == 0 {
		*bookmarks = -1 // Options: negative disables
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := fakeapiserver.Options{History: *history, Token: *token, BookmarkInterval: *bookmarks}
	if !*quiet {
		opts.Logger = logger
	}
	srv := fakeapiserver.New(opts)
	if err := srv.SeedPods("default", *seed); err != nil {
		return err
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
	if *token != "" {
		kubectl += " --token " + *token
		curl += " -H 'Authorization: Bearer " + *token + "'"
	}
	logger.Info("fakeapiserver listening", "url", url, "seeded", *seed, "history", *history, "token", *token != "")
	fmt.Fprintf(stderr, "\nTry:\n  %[1]s %[2]s/api/v1/namespaces/default/pods\n  %[1]s '%[2]s/api/v1/namespaces/default/pods?watch=true'\n  %[3]s get pods -A\n\n", curl, url, kubectl)

	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
