package fakeapiserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver/storage"
	"github.com/kinformer/kinformer/trace"
)

// Options configure a Server. The zero value is a server with the real
// server's defaults.
type Options struct {
	// History is how many events the server keeps for watches to resume
	// from and paged lists to read; a resourceVersion older than the kept
	// history answers 410 Expired. Default 1000.
	History int
	// HistoryBytes also bounds the history, by the encoded size of the
	// objects its events carry: the oldest events go once either bound is
	// passed (the newest one always stays). Default 64 MiB; negative: by
	// count only.
	HistoryBytes int64
	// SnapshotRecords and SnapshotBytes: on a durable server (Open with a
	// data directory), a snapshot is written
	// (and the log before it dropped) after this many log records or bytes.
	// Defaults 10000 and 64 MiB.
	SnapshotRecords int
	SnapshotBytes   int64
	// BookmarkInterval is how often a watch that asked for bookmarks gets
	// one (only when the server has moved past what the watch last saw).
	// Default one minute, as the real server; negative disables them.
	BookmarkInterval time.Duration
	// WatchBuffer is how many events may wait for a slow watcher before the
	// server closes its stream. Default 100.
	WatchBuffer int
	// MaxWatches is how many watches may be open at once; one more is
	// answered 429 TooManyRequests with Retry-After: 1, as a real server
	// sheds load. Default 1000; negative: no limit. See limits.go.
	MaxWatches int
	// TooLargeResourceVersionWait is how long a list or get at a
	// resourceVersion the server has not reached yet waits before answering
	// 504. Default 3 s, as the real server.
	TooLargeResourceVersionWait time.Duration
	// Token, if set, must come with every request as
	// "Authorization: Bearer <token>" (health checks and /version excepted).
	// It is compared in constant time.
	Token string
	// AllowAnyHost turns off the Host check a server without a Token makes:
	// by default such a server refuses (403) every request whose Host is not
	// loopback (127.0.0.0/8, ::1, localhost), as kubectl proxy does, so a web
	// page cannot reach it through DNS rebinding. See security.go.
	AllowAnyHost bool
	// Faults turns on the HTTP fault endpoints under /faults/ (behind the
	// Token, if one is set); off, they answer 404. See faulthttp.go.
	Faults bool
	// ReadHeaderTimeout, BodyTimeout and IdleTimeout bound how long a
	// connection may take to send its request headers, to send a request
	// body, and to sit idle between requests; a slow or stalled client is
	// disconnected then. Defaults 10 s, 30 s and 2 min. ReadHeaderTimeout and
	// IdleTimeout apply where Serve runs the server; BodyTimeout is applied
	// by the handler, so it holds under httptest too. A watch has no body:
	// none of them cuts a long watch. See timeouts.go.
	ReadHeaderTimeout time.Duration
	BodyTimeout       time.Duration
	IdleTimeout       time.Duration
	// Clock drives timestamps, watch timeouts, bookmarks and waits. Default
	// the real clock; tests pass a clock.FakeClock.
	Clock clock.Clock
	// Logger, if set, gets one line per request.
	Logger *slog.Logger
	// Tracer receives the server's trace events (stage "server"): commits
	// with their resourceVersion, watches opened and closed, frames sent,
	// compactions and injected faults. nil: off.
	Tracer *trace.Tracer
}

const maxBodyBytes = 3 << 20 // the real server's limit for a request body

// Server is an in-memory kube-apiserver. It is an http.Handler: serve it with
// httptest.NewServer in tests or http.ListenAndServe in a program. Its Go
// methods (Create, Update, Delete, ... and the fault injections) act on the
// same store as HTTP requests do.
type Server struct {
	opts   Options
	clock  clock.Clock
	store  *recordStore
	faults faults

	// rows are the resources the server serves: the built-ins, then a row
	// per custom resource (crd.go). They change only inside a storage
	// transaction (the commit hook, crd.go) and with rowsMu held, so a
	// transaction reads them exactly, and anyone else under rowsMu.
	rowsMu sync.RWMutex
	rows   []*resource
	tracer *trace.Tracer // stage "server"; nil: off

	closeOnce sync.Once
	closed    chan struct{}

	watchSlots atomic.Int64 // open watches, against Options.MaxWatches

	countMu  sync.Mutex
	requests map[string]int // "verb resource" -> count
}

// New returns a server holding the namespaces default, kube-system and
// kube-public, as a new cluster does.
//
// It keeps everything in memory and cannot fail; Open makes a durable
// server, one that keeps its objects in a data directory, and returns the
// error opening it can meet. Each is the one way to its kind of server.
func New(opts Options) *Server {
	s := newServer(opts, "")
	for _, ns := range protectedNamespaces {
		if _, err := s.Create(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil {
			panic(fmt.Sprintf("fakeapiserver: creating namespace %s: %v", ns, err))
		}
	}
	s.store.ForgetHistory()
	return s
}

// newServer applies the defaults and makes the server and its storage
// (durable in dir, if set; then its Open is still to be called).
func newServer(opts Options, dir string) *Server {
	if opts.History <= 0 {
		opts.History = 1000
	}
	if opts.BookmarkInterval == 0 {
		opts.BookmarkInterval = time.Minute
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = 100
	}
	if opts.TooLargeResourceVersionWait <= 0 {
		opts.TooLargeResourceVersionWait = 3 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.HistoryBytes == 0 {
		opts.HistoryBytes = 64 << 20
	}
	opts.setTimeoutDefaults()
	s := &Server{
		tracer:   opts.Tracer.Stage(trace.StageServer),
		opts:     opts,
		clock:    opts.Clock,
		closed:   make(chan struct{}),
		requests: map[string]int{},
		rows:     slices.Clone(builtinResources),
	}
	s.store = storage.New(storage.Options[*record]{
		History:         opts.History,
		HistoryBytes:    max(opts.HistoryBytes, 0),
		Versioner:       (*record).withRV,
		OnCommit:        s.onCommit,
		Describe:        s.describeKey,
		Tracer:          s.tracer,
		WatchesState:    s.watchesState,
		Logger:          opts.Logger,
		Dir:             dir,
		SnapshotRecords: opts.SnapshotRecords,
		SnapshotBytes:   opts.SnapshotBytes,
		Decode:          s.decodeRecovered,
	})
	return s
}

// Close ends every open watch and makes the server answer 503 from then on.
// On a durable server it then flushes and closes the log, marking a clean shutdown.
// It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.CloseWatches()
		s.closeDataDir()
	})
}

func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// ResourceVersion is the server's current resourceVersion: that of the
// latest write.
func (s *Server) ResourceVersion() string {
	return fmt.Sprint(s.store.Rev())
}

// RequestCount reports how many requests with this verb ("list", "watch",
// "get", "create", "update", "patch", "delete", "deletecollection") reached
// the resource ("pods"), counting injected failures.
func (s *Server) RequestCount(verb, resource string) int {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	return s.requests[verb+" "+resource]
}

func (s *Server) countRequest(verb, resource string) {
	s.countMu.Lock()
	s.requests[verb+" "+resource]++
	s.countMu.Unlock()
}

// OpenWatches reports how many watches of the resource are open now.
func (s *Server) OpenWatches(resource string) int {
	open, _ := s.watchCounts(resource)
	return open
}

// DeafWatches is how many open watches of resource are deaf: they missed an
// event a drop fault hid, send nothing more, and end with 410 Expired when
// the drop ends (faults.go, "Dropping events").
func (s *Server) DeafWatches(resource string) int {
	_, deaf := s.watchCounts(resource)
	return deaf
}

// WatchBacklog is the most events an open watch of resource has waiting
// to be written to its client (a watch is cut off when it has
// Options.WatchBuffer): Load's callers wait for it to fall before loading
// more, so that a fast writer does not cut a slow reader off.
func (s *Server) WatchBacklog(resource string) int {
	r, err := s.resourceNamed(resource)
	if err != nil {
		return 0
	}
	return s.store.Backlog(r.keyPrefix())
}

func (s *Server) watchCounts(resource string) (open, deaf int) {
	for _, r := range s.servedResources() {
		if r.Name == resource {
			return s.store.Watchers(r.keyPrefix())
		}
	}
	return 0, 0
}

func (s *Server) now() string {
	return s.clock.Now().UTC().Format(time.RFC3339)
}

// newUID returns a random RFC 4122 version 4 UUID, as the real server uses.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// generateNameSuffix is what the real server appends to generateName: five
// characters from an alphabet without vowels (so no words) or look-alikes.
func generateNameSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// Serve answers HTTP on ln until ctx ends, then shuts down cleanly: it ends
// every watch first (an http.Server's Shutdown waits for open requests, and
// a watch never finishes on its own) and gives other requests five seconds,
// then closes what is left.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	httpSrv := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutdownCtx); errors.Is(err, context.DeadlineExceeded) {
		// Requests still running, or a connection a client opened but never
		// used (net/http waits up to 5 s for those): cut them.
		_ = httpSrv.Close()
	} else if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
