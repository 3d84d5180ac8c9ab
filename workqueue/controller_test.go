package workqueue

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// podController is the controller of article 004 ("Kubernetes Controller
// 实现机制深度解析" by 赵化冰, the client-go workqueue example), with its
// informer replaced by direct Adds and its syncToStdout by a function the
// test controls. processNextItem and handleErr follow the article line by
// line.
type podController struct {
	queue RateLimitingInterface[string]
	sync  func(key string) error

	mu       sync.Mutex
	attempts map[string]int
	dropped  []string
	logf     func(format string, args ...any) // the test's log
}

func newPodController(queue RateLimitingInterface[string], sync func(string) error) *podController {
	return &podController{queue: queue, sync: sync, attempts: make(map[string]int), logf: func(string, ...any) {}}
}

func (c *podController) processNextItem() bool {
	key, quit := c.queue.Get() // wait until there is a new item in the queue
	if quit {
		return false
	}
	defer c.queue.Done(key) // unblocks the key for other workers

	c.mu.Lock()
	c.attempts[key]++
	attempt := c.attempts[key]
	c.mu.Unlock()
	err := c.sync(key)
	c.logf("worker: reconcile key=%s attempt=%d err=%v", key, attempt, err)
	c.handleErr(err, key)
	return true
}

func (c *podController) handleErr(err error, key string) {
	if err == nil {
		c.queue.Forget(key) // forget the AddRateLimited history on success
		return
	}
	if c.queue.NumRequeues(key) < 5 { // retry 5 times ...
		c.queue.AddRateLimited(key)
		return
	}
	c.queue.Forget(key) // ... then stop trying
	c.logf("worker: giving up on key=%s after %d retries", key, 5)
	c.mu.Lock()
	c.dropped = append(c.dropped, key)
	c.mu.Unlock()
}

func (c *podController) runWorker() {
	for c.processNextItem() {
	}
}

func (c *podController) attemptsOf(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempts[key]
}

func (c *podController) droppedKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.dropped...)
}

// startPodController runs one worker in the bubble; the returned func shuts
// the queue down and waits for the worker to exit.
func startPodController(t *testing.T, clk clock.Clock, sync func(string) error) (*podController, func()) {
	t.Helper()
	return startPodControllerTraced(t, clk, nil, sync)
}

// startPodControllerTraced is startPodController with the queue's Tracer.
func startPodControllerTraced(t *testing.T, clk clock.Clock, tr *trace.Tracer, sync func(string) error) (*podController, func()) {
	t.Helper()
	queue := NewTypedRateLimitingQueueWithConfig(DefaultControllerRateLimiter[string](),
		traceConfig(t, QueueConfig{Name: "pods", Clock: clk, Tracer: tr}))
	c := newPodController(queue, sync)
	c.logf = t.Logf
	exited := make(chan struct{})
	go func() {
		c.runWorker()
		close(exited)
	}()
	return c, func() {
		queue.ShutDown()
		<-exited
	}
}

// Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), the workqueue
// controller example, handleErr: on error the key is re-added rate limited
// while NumRequeues < 5, then forgotten and dropped. So the key is processed
// 6 times (the first try and 5 retries), the retries come after 5, 10, 20,
// 40 and 80 ms of the default controller limiter, and then nothing is left
// queued or scheduled.
func TestController_RetriesFiveTimesThenDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		rec := trace.NewRecorder()
		c, stop := startPodControllerTraced(t, clk, trace.Tee(trace.ForTest(t), rec.Tracer()),
			func(string) error { return errors.New("apiserver unavailable") })
		defer stop()
		const key = "default/web-0"
		t.Logf("informer (played by the test): enqueue %s; every reconcile of it fails", key)

		c.queue.Add(key)
		for i, delay := range []time.Duration{5, 10, 20, 40, 80} {
			delay *= time.Millisecond
			synctest.Wait() // the worker failed, re-added the key rate limited, and waits in Get
			require.Equal(t, i+1, c.attemptsOf(key))
			require.Equal(t, i+1, c.queue.NumRequeues(key))

			stepClock(t, clk, delay-time.Nanosecond)
			synctest.Wait()
			require.Equal(t, i+1, c.attemptsOf(key), "retry %d ran before its %v backoff", i+1, delay)
			stepClock(t, clk, time.Nanosecond)
		}
		synctest.Wait()
		require.Equal(t, 6, c.attemptsOf(key), "one try and five retries")
		require.Equal(t, []string{key}, c.droppedKeys())
		require.Equal(t, 0, c.queue.NumRequeues(key), "a dropped key is forgotten")
		require.Equal(t, 0, c.queue.Len())
		require.Equal(t, 0, clk.Waiters(), "nothing is scheduled after the drop")
		var delays []string
		for _, e := range rec.Events() {
			if e.What == "retry" {
				delays = append(delays, e.Get(trace.KeyDelay))
			}
		}
		require.Equal(t, []string{"5ms", "10ms", "20ms", "40ms", "80ms"}, delays, "the trace shows each retry's backoff")
	})
}

// Article: "Kubernetes Controller 实现机制深度解析" (赵化冰), handleErr: a
// success calls Forget, so a key that failed twice and then succeeded starts
// its next failure at the shortest delay again.
func TestController_ForgetOnSuccessResetsBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		var failures sync.Map
		c, stop := startPodController(t, clk, func(key string) error {
			left, _ := failures.LoadOrStore(key, 2)
			if n := left.(int); n > 0 {
				failures.Store(key, n-1)
				return errors.New("conflict")
			}
			return nil
		})
		defer stop()
		const key = "default/web-1"
		t.Logf("informer (played by the test): enqueue %s; it fails twice, then succeeds", key)

		c.queue.Add(key)
		synctest.Wait()
		stepClock(t, clk, 5*time.Millisecond)
		synctest.Wait()
		stepClock(t, clk, 10*time.Millisecond)
		synctest.Wait()
		require.Equal(t, 3, c.attemptsOf(key), "two failures and a success")
		require.Equal(t, 0, c.queue.NumRequeues(key), "success must Forget")
		require.Empty(t, c.droppedKeys())

		failures.Store(key, 1) // it fails again later: backoff starts at 5 ms
		t.Logf("informer (played by the test): enqueue %s again; it fails once more", key)
		c.queue.Add(key)
		synctest.Wait()
		require.Equal(t, 4, c.attemptsOf(key))
		stepClock(t, clk, 5*time.Millisecond)
		synctest.Wait()
		require.Equal(t, 5, c.attemptsOf(key))
	})
}

// Article: Kubernetes-Informer (smartkeyerror) §2: event handlers only
// enqueue keys, so a burst of events for one object, arriving while the
// worker is busy with it, costs one more reconcile, not one per event.
func TestController_EventsCollapseIntoOneReconcile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		release := make(chan struct{})
		c, stop := startPodController(t, clk, func(key string) error {
			<-release // a slow reconcile
			return nil
		})
		defer stop()
		const key = "default/web-2"

		c.queue.Add(key)
		synctest.Wait() // the worker is inside sync
		t.Logf("informer (played by the test): ten update events for %s while the worker reconciles it", key)
		for range 10 {
			c.queue.Add(key) // ten update events from the informer
		}
		release <- struct{}{}
		release <- struct{}{}
		synctest.Wait()
		require.Equal(t, 2, c.attemptsOf(key), "ten events during one reconcile make one more reconcile")
	})
}
