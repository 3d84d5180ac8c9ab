package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kinformer/kinformer/fakeapiserver"
)

// The server's process: a fake API server seeded through Load, which then
// does what the informer's process asks on its stdin. It is its own
// process so that its memory is measured apart from the informer's.
//
// What it says on stdout, one line each:
//
//	ready URL SEED-NANOSECONDS HEAP-BYTES-PER-POD
//	updated N NANOSECONDS
//
// What it hears on stdin: "update N" (the next N updates, going round the
// pods), "quit". It also ends when its stdin closes (the informer's process
// is gone).

// serverEnv, when set in the environment, makes the program the server
// process (run by the informer's process: startServer).
const serverEnv = "BENCHSCALE_SERVER"

// serverConfig is what the informer's process tells the server's.
type serverConfig struct {
	pods       int
	batch      int    // objects per Load call
	cpuProfile string // a CPU profile of the whole process, if set
}

func (c serverConfig) args() []string {
	return []string{"-pods", strconv.Itoa(c.pods), "-batch", strconv.Itoa(c.batch), "-cpuprofile", c.cpuProfile}
}

func parseServerConfig(args []string) (serverConfig, error) {
	fs := flag.NewFlagSet("benchscale server", flag.ContinueOnError)
	var c serverConfig
	fs.IntVar(&c.pods, "pods", 0, "pods to seed")
	fs.IntVar(&c.batch, "batch", 0, "objects per Load")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile here")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.pods < 1 || c.batch < 1 {
		return c, fmt.Errorf("the server needs -pods and -batch above 0, got %d and %d", c.pods, c.batch)
	}
	return c, nil
}

// serveMain is the server process's whole life.
func serveMain(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	cfg, err := parseServerConfig(args)
	if err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(cfg.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	srv := fakeapiserver.New(fakeapiserver.Options{
		// Room for four batches of updates: the writer waits while two
		// are queued (applyUpdates), so it never cuts the watch off.
		WatchBuffer: 4 * cfg.batch,
		// The history must outlast a watch's reopening: a watch that ends
		// (its timeoutSeconds) resumes from the last version it saw. The
		// writer stops while no watch is open, so a few batches suffice.
		History: 8 * cfg.batch,
	})
	defer srv.Close()
	tmpl := newPodTemplate()

	base := liveHeap()
	start := time.Now()
	if err := seed(ctx, srv, tmpl, cfg); err != nil {
		return err
	}
	seeded := time.Since(start)
	perPod := (liveHeap() - base) / int64(cfg.pods)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	hs := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	defer func() {
		srv.Close() // ends the watches, which Shutdown would wait for
		_ = hs.Shutdown(context.Background())
		<-served
	}()
	fmt.Fprintf(stdout, "ready http://%s %d %d\n", ln.Addr(), seeded.Nanoseconds(), perPod)

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	next := 0 // the updates done so far
	for {
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case line, ok = <-lines:
		}
		if !ok || line == "quit" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimPrefix(line, "update "))
		if !strings.HasPrefix(line, "update ") || err != nil || n < 0 {
			return fmt.Errorf("the server does not understand %q", line)
		}
		start := time.Now()
		if err := applyUpdates(ctx, srv, tmpl, cfg, next, n); err != nil {
			return err
		}
		next += n
		fmt.Fprintf(stdout, "updated %d %d\n", n, time.Since(start).Nanoseconds())
	}
}

// liveHeap is the heap still in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// seed loads the pods, a batch at a time (Load keeps none of the bytes it
// is given, so one buffer serves every batch).
func seed(ctx context.Context, srv *fakeapiserver.Server, tmpl podTemplate, cfg serverConfig) error {
	var buf []byte
	objs := make([][]byte, 0, cfg.batch)
	for first := 0; first < cfg.pods; first += cfg.batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf, objs = buf[:0], objs[:0]
		for i := first; i < min(first+cfg.batch, cfg.pods); i++ {
			start := len(buf)
			buf = tmpl.appendPod(buf, i, 0)
			objs = append(objs, buf[start:len(buf):len(buf)])
		}
		if _, err := srv.Load("pods", objs); err != nil {
			return fmt.Errorf("seeding pods %d to %d: %w", first, first+len(objs)-1, err)
		}
	}
	return nil
}

// applyUpdates makes updates from..from+n-1: update k is pod k%pods with
// one more restart than the last. It loads a batch whenever the watches
// have room for it: at most two batches queued for the slowest, and a
// watch open (one being reopened would find its resourceVersion compacted
// if the writer ran ahead).
func applyUpdates(ctx context.Context, srv *fakeapiserver.Server, tmpl podTemplate, cfg serverConfig, from, n int) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var buf []byte
	objs := make([][]byte, 0, cfg.batch)
	for k := from; k < from+n; {
		for srv.OpenWatches("pods") == 0 || srv.WatchBacklog("pods") > 2*cfg.batch {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
		buf, objs = buf[:0], objs[:0]
		for ; k < from+n && len(objs) < cfg.batch; k++ {
			start := len(buf)
			buf = tmpl.appendPod(buf, k%cfg.pods, k/cfg.pods+1)
			objs = append(objs, buf[start:len(buf):len(buf)])
		}
		if _, err := srv.Load("pods", objs); err != nil {
			return fmt.Errorf("updating: %w", err)
		}
	}
	return nil
}
