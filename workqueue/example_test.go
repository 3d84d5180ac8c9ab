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

// The basic queue: duplicates collapse while queued, items come out in
// order, and after ShutDown Get still hands out what is queued before it
// reports shutdown.
func Example() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	queue := workqueue.NewTypedWithConfig[string](workqueue.QueueConfig{Tracer: story})
	for _, key := range []string{"default/web-0", "default/web-1", "default/web-0"} {
		queue.Add(key) // what an informer's event handler does
	}
	fmt.Println("queued:", queue.Len())
	queue.ShutDown()
	for {
		key, shutdown := queue.Get()
		if shutdown {
			fmt.Println("shutdown")
			return
		}
		fmt.Println("processing", key)
		queue.Done(key)
	}
	// Output:
	// queued: 2
	// processing default/web-0
	// processing default/web-1
	// shutdown
}

// The retry loop of article 004's controller ("Kubernetes Controller
// 实现机制深度解析" by 赵化冰): a key whose sync keeps failing is re-added
// rate limited five times, then forgotten and dropped. A fake clock stands in
// for the wall clock so the backoff takes no time: the example waits until
// the queue's waiting loop has armed its timer, then moves the clock.
func ExampleNewTypedRateLimitingQueue() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultControllerRateLimiter[string](),
		workqueue.QueueConfig{Name: "pods", Clock: clk, Tracer: story})
	defer queue.ShutDown()
	syncPod := func(key string) error { return errors.New("apiserver unavailable") }

	queue.Add("default/web-0")
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		err := syncPod(key)
		if err == nil {
			queue.Forget(key)
		} else if queue.NumRequeues(key) < 5 {
			fmt.Printf("sync %s failed (%d requeues so far): retry\n", key, queue.NumRequeues(key))
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
			fmt.Printf("dropping %s out of the queue: %v\n", key, err)
			queue.Done(key)
			return
		}
		queue.Done(key)

		_ = clk.BlockUntilWaiters(context.Background(), 1) // the retry is scheduled
		clk.Step(time.Minute)                              // and now due
	}
	// Output:
	// sync default/web-0 failed (0 requeues so far): retry
	// sync default/web-0 failed (1 requeues so far): retry
	// sync default/web-0 failed (2 requeues so far): retry
	// sync default/web-0 failed (3 requeues so far): retry
	// sync default/web-0 failed (4 requeues so far): retry
	// dropping default/web-0 out of the queue: apiserver unavailable
}

// What When means for the per-item exponential limiter: base·2^failures,
// capped.
func ExampleNewItemExponentialFailureRateLimiter() {
	limiter := workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)
	var delays []time.Duration
	for range 10 {
		delays = append(delays, limiter.When("default/web-0"))
	}
	fmt.Println(delays)
	limiter.Forget("default/web-0")
	fmt.Println("after Forget:", limiter.When("default/web-0"))
	// Output:
	// [5ms 10ms 20ms 40ms 80ms 160ms 320ms 640ms 1s 1s]
	// after Forget: 5ms
}

// What When means for the token bucket: a reservation. Under overload the
// delays compound, whichever items the calls are for.
func ExampleNewBucketRateLimiterWithClock() {
	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	bucket, err := workqueue.NewBucketRateLimiterWithClock[string](10, 2, clk)
	if err != nil {
		fmt.Println(err)
		return
	}
	var delays []time.Duration
	for _, key := range []string{"a", "b", "c", "d", "e"} {
		delays = append(delays, bucket.When(key))
	}
	fmt.Println(delays)
	_, err = workqueue.NewBucketRateLimiter[string](0, 10)
	fmt.Println(err)
	// Output:
	// [0s 0s 100ms 200ms 300ms]
	// workqueue: bucket rate limiter: qps must be a positive finite number, got 0
}

// The in-memory metrics a demo controller can print.
func ExampleNewInMemoryMetrics() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	metrics := workqueue.NewInMemoryMetrics()
	queue := workqueue.NewTypedWithConfig[string](workqueue.QueueConfig{Name: "pods", Clock: clk, MetricsProvider: metrics, Tracer: story})
	defer queue.ShutDown()

	queue.Add("default/web-0")
	queue.Add("default/web-1")
	clk.Step(300 * time.Millisecond) // both wait 300 ms in the queue
	key, _ := queue.Get()
	clk.Step(100 * time.Millisecond) // and the first takes 100 ms to process
	queue.Done(key)
	// The in-flight gauges (unfinished, longest) are set by a loop every
	// 500 ms of the queue's clock, which has not ticked yet: 400 ms in
	// all, so what they show does not depend on when that goroutine runs.
	fmt.Print(metrics)
	// Output:
	// pods: depth=1 adds=2 retries=0 latency(avg)=300ms work(avg)=100ms unfinished=0s longest=0s
}

// A delaying queue holds an item back until its time. AddAfter with a
// duration <= 0 adds it at once; a later one waits on the queue's clock, a
// fake one in the second queue, so the example takes no time.
func ExampleNewTypedDelayingQueue() {
	story, end := trace.ForExample(testing.Verbose()) // under go test -v: what happened, hop by hop
	defer end()
	now := workqueue.NewTypedDelayingQueue[string]()
	now.AddAfter("default/web-0", 0)
	key, _ := now.Get()
	fmt.Println("at once:", key)
	now.Done(key)
	now.ShutDown()

	clk := clock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	queue := workqueue.NewTypedDelayingQueueWithConfig[string](workqueue.QueueConfig{Name: "pods", Clock: clk, Tracer: story})
	defer queue.ShutDown()
	queue.AddAfter("default/web-1", time.Minute)
	fmt.Println("queued before the minute:", queue.Len())
	_ = clk.BlockUntilWaiters(context.Background(), 1) // the waiting loop sleeps until the item is due
	clk.Step(time.Minute)
	key, _ = queue.Get()
	fmt.Println("after the minute:", key)
	queue.Done(key)
	// Output:
	// at once: default/web-0
	// queued before the minute: 0
	// after the minute: default/web-1
}
