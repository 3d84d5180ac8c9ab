package workqueue

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kinformer/kinformer/clock"
	"github.com/stretchr/testify/require"
)

// Depth, adds, queue latency and work duration follow Add, Get and Done.
func TestMetrics_DepthAddsLatencyWorkDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		m := NewInMemoryMetrics()
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: m}))
		defer q.ShutDown()

		q.Add("a")
		q.Add("b")
		q.Add("a") // deduplicated: not an add
		s := m.Snapshot("pods")
		require.Equal(t, int64(2), s.Depth)
		require.Equal(t, int64(2), s.Adds)

		clk.Step(2 * time.Second)
		a := getQueued(t, q)
		clk.Step(3 * time.Second)
		q.Done(a)
		b := getQueued(t, q) // waited 5 s
		q.Done(b)            // in 0 s

		s = m.Snapshot("pods")
		require.Equal(t, int64(0), s.Depth)
		require.Equal(t, Summary{Count: 2, Sum: 7 * time.Second}, s.QueueLatency)
		require.Equal(t, 3500*time.Millisecond, s.QueueLatency.Average())
		require.Equal(t, Summary{Count: 2, Sum: 3 * time.Second}, s.WorkDuration)
	})
}

// The in-flight gauges are refreshed every 500 ms of the queue's clock by
// the metrics goroutine, which stops on ShutDown.
func TestMetrics_UnfinishedWorkUpdatedEvery500ms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		m := NewInMemoryMetrics()
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: m}))
		q.Add("a")
		q.Add("b")
		getQueued(t, q) // a starts at 0 s
		clk.Step(400 * time.Millisecond)
		getQueued(t, q) // b starts at 0.4 s
		synctest.Wait()
		require.Equal(t, time.Duration(0), m.Snapshot("pods").UnfinishedWork, "not refreshed before the first tick")

		for _, tt := range []struct {
			step               time.Duration
			done               string
			unfinished, oldest time.Duration
		}{
			{100 * ms, "", 600 * ms, 500 * ms},     // tick at 0.5 s: a 0.5 s + b 0.1 s
			{500 * ms, "", 1600 * ms, time.Second}, // tick at 1 s: a 1 s + b 0.6 s
			{500 * ms, "a", 1100 * ms, 1100 * ms},  // a is Done; tick at 1.5 s: b 1.1 s
		} {
			if tt.done != "" {
				q.Done(tt.done)
			}
			clk.Step(tt.step)
			synctest.Wait()
			s := m.Snapshot("pods")
			require.Equal(t, tt.unfinished, s.UnfinishedWork, "at %v", clk.Since(epoch))
			require.Equal(t, tt.oldest, s.LongestRunningProcessor, "at %v", clk.Since(epoch))
		}

		q.ShutDown()
		synctest.Wait()
		require.Equal(t, 0, clk.Waiters(), "the metrics ticker stops on ShutDown")
	})
}

// Every AddAfter, and so every AddRateLimited, counts as a retry.
func TestMetrics_RetriesCountAddRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		m := NewInMemoryMetrics()
		q := NewTypedRateLimitingQueueWithConfig(DefaultControllerRateLimiter[string](),
			traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: m}))
		defer q.ShutDown()
		q.AddRateLimited("a")
		q.AddRateLimited("a")
		q.AddAfter("b", 0)
		require.Equal(t, int64(3), m.Snapshot("pods").Retries)
	})
}

// Without a provider the queue keeps no bookkeeping and starts no metrics
// goroutine (no ticker on the clock); with one it starts exactly one.
func TestMetrics_NoProviderNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		for _, mp := range []MetricsProvider{nil, NoopMetricsProvider{}} {
			q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: mp}))
			require.Nil(t, q.metrics)
			synctest.Wait()
			t.Logf("workqueue: provider %T: no metrics, %d timers on the clock", mp, clk.Waiters())
			require.Equal(t, 0, clk.Waiters())
			q.ShutDown()
		}
		q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: NewInMemoryMetrics()}))
		synctest.Wait()
		t.Logf("workqueue: provider InMemoryMetrics: %d timer on the clock (the metrics loop)", clk.Waiters())
		require.Equal(t, 1, clk.Waiters())
		q.ShutDown()
	})
}

// A provider that returns nil metrics is tolerated.
func TestMetrics_NilMetricFromProviderIsIgnored(t *testing.T) {
	q := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "x", MetricsProvider: nilProvider{}}))
	defer q.ShutDown()
	q.Add("a")
	q.Done(getQueued(t, q))
}

type nilProvider struct{}

func (nilProvider) NewDepthMetric(string) GaugeMetric            { return nil }
func (nilProvider) NewAddsMetric(string) CounterMetric           { return nil }
func (nilProvider) NewLatencyMetric(string) HistogramMetric      { return nil }
func (nilProvider) NewWorkDurationMetric(string) HistogramMetric { return nil }
func (nilProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return nil
}
func (nilProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return nil
}
func (nilProvider) NewRetriesMetric(string) CounterMetric { return nil }

// String prints one line per queue, sorted by name.
func TestMetrics_InMemoryString(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFakeClock(epoch)
		m := NewInMemoryMetrics()
		pods := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "pods", Clock: clk, MetricsProvider: m}))
		defer pods.ShutDown()
		rs := NewTypedWithConfig[string](traceConfig(t, QueueConfig{Name: "replicasets", Clock: clk, MetricsProvider: m}))
		defer rs.ShutDown()
		rs.Add("default/web")
		pods.Add("default/web-0")
		clk.Step(time.Second)
		pods.Done(getQueued(t, pods))

		require.Equal(t,
			"pods: depth=0 adds=1 retries=0 latency(avg)=1s work(avg)=0s unfinished=0s longest=0s\n"+
				"replicasets: depth=1 adds=1 retries=0 latency(avg)=0s work(avg)=0s unfinished=0s longest=0s\n",
			m.String())
		require.Equal(t, MetricsSnapshot{Name: "unknown"}, m.Snapshot("unknown"))
	})
}
