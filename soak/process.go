package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
)

// Process is a fake API server running in a child process on a data
// directory: the soak can kill it with SIGKILL, as a crash would, and
// start it again on the same address and data. Faults go through the
// server's HTTP fault endpoints (/faults/...).
type Process struct {
	command func(addr string) *exec.Cmd // starts a child that calls Serve
	addr    string                      // fixed after the first start
	url     string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartProcess starts the server. command must return a command whose
// process calls Serve with the address it is given and a data directory
// that stays the same across calls (a test re-runs its own binary: see
// soak_test.go).
func StartProcess(command func(addr string) *exec.Cmd) (*Process, error) {
	p := &Process{command: command, addr: "127.0.0.1:0"}
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

// URL is the server's address.
func (p *Process) URL() string { return p.url }

// start runs the child and waits for the line that says where it listens.
func (p *Process) start() error {
	cmd := p.command(p.addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server process: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "serving ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("the server process did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.url = strings.TrimSpace(strings.TrimPrefix(line, "serving "))
	u, err := url.Parse(p.url)
	if err != nil {
		return err
	}
	p.addr = u.Host
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
	return nil
}

// Kill9AndRestart kills the server with SIGKILL and starts it again on the
// same address and data directory.
func (p *Process) Kill9AndRestart() error {
	p.kill()
	return p.start()
}

func (p *Process) kill() {
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Kill() // SIGKILL: no chance to flush anything
		_ = cmd.Wait()
	}
}

// Close kills the server.
func (p *Process) Close() { p.kill() }

// Serve is the child's side: a fake API server on dataDir with its fault
// endpoints on, listening on addr; it prints "serving <url>" on stdout
// when it is ready and serves until it is killed or ctx ends.
func Serve(ctx context.Context, addr, dataDir string, history int) error {
	srv, err := fakeapiserver.Open(dataDir, fakeapiserver.Options{History: history, WatchBuffer: 1000, Faults: true})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		srv.Close()
		return err
	}
	fmt.Printf("serving http://%s\n", ln.Addr())
	return srv.Serve(ctx, ln)
}

// kinds are the faults a Process takes.
func (p *Process) kinds() []string {
	return []string{faultDropWatches, faultCompact, faultOutage, faultFail429, faultFail500, faultDeletePod, faultRestart}
}

// inject injects one fault.
func (p *Process) inject(kind string, rnd *rand.Rand, client *listwatch.Client) error {
	switch kind {
	case faultDropWatches:
		return p.post("/faults/close-watches")
	case faultCompact:
		if err := p.post("/faults/compact"); err != nil {
			return err
		}
		return p.post("/faults/close-watches")
	case faultOutage:
		return p.outage(time.Duration(100+rnd.IntN(400)) * time.Millisecond)
	case faultFail429:
		return p.post(fmt.Sprintf("/faults/fail?code=429&retryAfter=1&count=%d", 3+rnd.IntN(10)))
	case faultFail500:
		return p.post(fmt.Sprintf("/faults/fail?code=500&count=%d", 3+rnd.IntN(10)))
	case faultDeletePod:
		return deleteReplicaSetPod(rnd, client)
	case faultRestart:
		return p.Kill9AndRestart()
	}
	return fmt.Errorf("unknown fault %q", kind)
}

// outage is a network outage, injected as the server's one fault
// /faults/outage: for d the events stop reaching the watches (each goes
// deaf at the first event it misses, as a silently dead connection would),
// then, in one step on the server, the history is compacted and every
// watch ends, the deaf ones with 410 Expired. So the reflectors relist,
// and the relist's Replace makes tombstones of the deletes they missed.
// It used to be four requests (drop, reset, compact, close-watches); an
// event committed between two of them reached a still-open watch after the
// hole, and the informer resumed past it with a stale cache
// (TestFault_DroppedEventNeverLeavesAHole, docs/faq.md).
func (p *Process) outage(d time.Duration) error {
	return p.post("/faults/outage?d=" + d.String())
}

// post calls a fault endpoint.
func (p *Process) post(path string) error {
	resp, err := http.Post(p.url+path, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST %s: %s %s", path, resp.Status, b)
	}
	return nil
}

// deleteReplicaSetPod deletes a random pod of the ReplicaSet web: the
// controller must notice and replace it.
func deleteReplicaSetPod(rnd *rand.Rand, client *listwatch.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pods := listwatch.For[*api.Pod](client, listwatch.Pods)
	l, err := pods.List(ctx, rsNamespace, listwatch.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return err
	}
	if len(l.Items) == 0 {
		return errors.New("no pod of web to delete")
	}
	zero := int64(0)
	return pods.Delete(ctx, rsNamespace, l.Items[rnd.IntN(len(l.Items))].Name, listwatch.DeleteOptions{GracePeriodSeconds: &zero})
}
