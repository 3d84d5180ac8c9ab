package replicaset

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// steppedLab is the demo's lab in miniature: a trace.Inspect consumer that
// holds every event inside the trace call (so the stage that reports it
// waits, often under its own lock) until its stepper lets it go, one at a
// time, and keeps the last state each box reported.
type steppedLab struct {
	arrive chan stepped
	stop   chan struct{}
	done   chan struct{}

	mu     sync.Mutex
	last   map[string]any // box/name → the last state seen
	states int
}

type stepped struct {
	e    trace.Event
	next chan struct{}
}

func newSteppedLab() *steppedLab {
	l := &steppedLab{arrive: make(chan stepped), stop: make(chan struct{}), done: make(chan struct{}), last: map[string]any{}}
	go l.step()
	return l
}

// report is the consumer: it waits for the stepper (or the end).
func (l *steppedLab) report(e trace.Event) {
	s := stepped{e: e, next: make(chan struct{})}
	select {
	case l.arrive <- s:
		<-s.next
	case <-l.stop:
	}
}

// step lets the events go one at a time, in the order they arrive.
func (l *steppedLab) step() {
	defer close(l.done)
	for {
		select {
		case s := <-l.arrive:
			if st := s.e.State; st != nil {
				l.mu.Lock()
				l.last[st.Box+"/"+st.Name] = st.Value
				l.states++
				l.mu.Unlock()
			}
			close(s.next)
		case <-l.stop:
			return
		}
	}
}

// close stops the stepper: later events pass at once.
func (l *steppedLab) close() {
	close(l.stop)
	<-l.done
}

func (l *steppedLab) boxes() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]any, len(l.last))
	for k, v := range l.last {
		out[k] = v
	}
	return out
}

// The lab pauses the pipeline and steps it one hop (one event) at a time:
// every stage waits inside its trace call, most under their own lock,
// until the lab lets the event go. With every stage traced to such a lab,
// in today's informer and in the articles', a ReplicaSet still converges,
// nothing deadlocks, and every box has reported what it holds.
func TestLab_EveryBoxReportsItsContentsWhileSteppedOneHopAtATime(t *testing.T) {
	for _, pipeline := range []informer.Pipeline{informer.Today, informer.Articles} {
		t.Run(pipeline.String(), func(t *testing.T) {
			lab := newSteppedLab()
			tr := trace.New(trace.Inspect(lab.report))
			srv := fakeapiserver.New(fakeapiserver.Options{Tracer: tr})
			hs := httptest.NewServer(srv)
			client, err := listwatch.NewClient(listwatch.Config{Server: hs.URL, Tracer: tr})
			require.NoError(t, err)
			factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{Pipeline: pipeline, Tracer: tr, Logger: quiet})
			ctrl, err := NewReplicaSetController(Options{Client: client, Factory: factory, Logger: quiet, Tracer: tr})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			factory.Start(ctx)
			done := make(chan error, 1)
			go func() { done <- ctrl.Run(ctx) }()
			defer func() {
				cancel()
				require.NoError(t, <-done)
				factory.Shutdown()
				srv.Close()
				hs.Close()
				lab.close()
			}()

			_, err = srv.Create(newReplicaSet("web", 2))
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				pods, _, err := srv.List("pods", "default")
				return err == nil && len(pods) == 2
			}, deadline, 10*time.Millisecond, "web gets its 2 pods, one hop at a time")
			require.Eventually(t, func() bool {
				boxes := lab.boxes()
				for _, box := range []string{"server/watches", "reflector/", "fifo/", "indexer/", "listener/", "workqueue/replicaset", "controller/replicaset"} {
					if boxes[box] == nil {
						return false
					}
				}
				return true
			}, deadline, 10*time.Millisecond, "every box reports: %v", lab.boxes())
			lab.mu.Lock()
			t.Logf("lab: %d states, %d boxes", lab.states, len(lab.last))
			lab.mu.Unlock()
		})
	}
}
