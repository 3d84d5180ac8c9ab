package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kinformer/kinformer/internal/leakcheck"
)

// The server's side: the soak re-runs this test binary as the fake API
// server's process (so it can kill it with SIGKILL); the environment says
// where to listen and which data directory to use.
const (
	childAddrEnv = "KINFORMER_SOAK_SERVER_ADDR"
	childDataEnv = "KINFORMER_SOAK_SERVER_DATA"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(childAddrEnv); addr != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := Serve(ctx, addr, os.Getenv(childDataEnv), 500); err != nil {
			fmt.Fprintln(os.Stderr, "soak server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	leakcheck.Main(m, "kinformer/")
}

// startServer starts the fake API server process on a fresh data dir.
func startServer(t *testing.T) *Process {
	dataDir := t.TempDir()
	p, err := StartProcess(func(addr string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childAddrEnv+"="+addr, childDataEnv+"="+dataDir)
		return cmd
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// soakConfig is the short soak of `go test` (a fixed seed, a few seconds),
// or what SOAK_DURATION and SOAK_SEED say (`make soak`).
func soakConfig(t *testing.T) Config {
	cfg := Config{Duration: 15 * time.Second, Seed: 1, Logf: t.Logf}
	if v := os.Getenv("SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SOAK_DURATION: %v", err)
		}
		cfg.Duration = d
		cfg.Writers = 8                  // a long soak writes harder: about 2,000 writes/s asked for
		cfg.FaultEvery = 4 * time.Second // and lets the reflectors' backoff reset now and then
	}
	if v := os.Getenv("SOAK_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED: %v", err)
		}
		cfg.Seed = s
	}
	return cfg
}

// Article: "informer" notes, §3 (the closing question): events can be
// missed, state cannot. Writers, informers and a controller under every
// fault at once; at the end every cache equals the server and every
// handler's last word equals its cache.
func TestSoak_NothingIsLost(t *testing.T) {
	cfg := soakConfig(t)
	rep, err := Run(context.Background(), cfg, startServer(t))
	if err != nil {
		t.Fatalf("seed %d: %v", cfg.Seed, err)
	}
	t.Log(rep)
	if len(rep.Problems) > 0 {
		t.Fatalf("soak failed; rerun with SOAK_SEED=%d\n%s", cfg.Seed, rep)
	}
	if rep.Writes == 0 || rep.Events == 0 || len(rep.Faults) == 0 || rep.Faults[faultRestart] == 0 {
		t.Fatalf("the soak did nothing: %s", rep)
	}
}
