package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// The controller loop of article 004 ("Kubernetes Controller 实现机制深度解析"
// by 赵化冰, the workqueue example; steps 6 and 7 of its seven), without an
// informer: event handlers only add keys, a worker takes a key, reads the
// object's current state from the cache, reconciles, and then either
// Forgets the key (success) or re-adds it rate limited (failure). Three
// events for one object are one key and one reconcile that sees the newest
// state; the failed reconcile comes back after the limiter's delay (5 ms,
// then 10 ms, ...) on a fake clock, so the example takes no time.
func Example_controllerLoop() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	start := clk.Now()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig[string](
		workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second),
		workqueue.QueueConfig{Name: "pods", Clock: clk, Tracer: story})
	defer queue.ShutDown()

	cache := map[string]int{} // what the informer's indexer would hold: key -> replicas wanted
	onEvent := func(key string, replicas int) {
		cache[key] = replicas // the informer updates its cache first,
		queue.Add(key)        // then the handler queues the key, never the object
	}
	onEvent("default/web", 1)
	onEvent("default/web", 2)
	onEvent("default/web", 3)
	onEvent("default/db", 1)
	fmt.Println("queued keys:", queue.Len())

	conflicts := 1 // the first write of default/db meets a 409
	reconcile := func(key string) error {
		fmt.Printf("%5v reconcile %s: wants %d\n", clk.Since(start), key, cache[key])
		if key == "default/db" && conflicts > 0 {
			conflicts--
			return errors.New("409 Conflict")
		}
		return nil
	}

	retries := 0 // rate-limited adds not yet due
	for queue.Len() > 0 || retries > 0 {
		if queue.Len() == 0 { // only a delayed retry is left: let its time come
			_ = clk.BlockUntilWaiters(context.Background(), 1) // its timer is armed
			clk.Step(5 * time.Millisecond)                     // and due; Get waits for it
			retries--
		}
		key, _ := queue.Get()
		if err := reconcile(key); err != nil {
			fmt.Printf("%5v %s failed (%v): retry %d, rate limited\n", clk.Since(start), key, err, queue.NumRequeues(key)+1)
			queue.AddRateLimited(key)
			retries++
		} else {
			queue.Forget(key) // success: the key's failure count starts over
		}
		queue.Done(key)
	}
	fmt.Println("requeues left for default/db:", queue.NumRequeues("default/db"))
	// Output:
	// queued keys: 2
	//    0s reconcile default/web: wants 3
	//    0s reconcile default/db: wants 1
	//    0s default/db failed (409 Conflict): retry 1, rate limited
	//   5ms reconcile default/db: wants 1
	// requeues left for default/db: 0
}
