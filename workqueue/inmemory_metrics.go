package workqueue

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// InMemoryMetrics is a MetricsProvider that keeps every queue's metrics in
// memory, so a demo can print them (String) or a test can read them
// (Snapshot). Queues with the same name share one set of metrics.
type InMemoryMetrics struct {
	mu     sync.Mutex
	queues map[string]*inMemoryQueue
}

var _ MetricsProvider = (*InMemoryMetrics)(nil)

// NewInMemoryMetrics returns an empty in-memory provider.
func NewInMemoryMetrics() *InMemoryMetrics {
	return &InMemoryMetrics{queues: make(map[string]*inMemoryQueue)}
}

// inMemoryQueue holds one queue's values; the metric adapters below write
// to it under its own lock.
type inMemoryQueue struct {
	mu                        sync.Mutex
	depth, adds, retries      int64
	latencyCount, workCount   int64
	latencySum, workSum       float64 // seconds
	unfinished, longestRunner float64 // seconds
}

func (m *InMemoryMetrics) queue(name string) *inMemoryQueue {
	m.mu.Lock()
	defer m.mu.Unlock()
	q, ok := m.queues[name]
	if !ok {
		q = &inMemoryQueue{}
		m.queues[name] = q
	}
	return q
}

func (m *InMemoryMetrics) NewDepthMetric(name string) GaugeMetric {
	q := m.queue(name)
	return memGauge{&q.mu, &q.depth}
}

func (m *InMemoryMetrics) NewAddsMetric(name string) CounterMetric {
	q := m.queue(name)
	return memGauge{&q.mu, &q.adds}
}

func (m *InMemoryMetrics) NewRetriesMetric(name string) CounterMetric {
	q := m.queue(name)
	return memGauge{&q.mu, &q.retries}
}

func (m *InMemoryMetrics) NewLatencyMetric(name string) HistogramMetric {
	q := m.queue(name)
	return memSummary{&q.mu, &q.latencyCount, &q.latencySum}
}

func (m *InMemoryMetrics) NewWorkDurationMetric(name string) HistogramMetric {
	q := m.queue(name)
	return memSummary{&q.mu, &q.workCount, &q.workSum}
}

func (m *InMemoryMetrics) NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric {
	q := m.queue(name)
	return memSettable{&q.mu, &q.unfinished}
}

func (m *InMemoryMetrics) NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric {
	q := m.queue(name)
	return memSettable{&q.mu, &q.longestRunner}
}

// MetricsSnapshot is one queue's metrics at one moment.
type MetricsSnapshot struct {
	Name    string
	Depth   int64 // items waiting in the queue
	Adds    int64 // Adds that were not deduplicated
	Retries int64 // AddAfter / AddRateLimited calls
	// QueueLatency is the time items waited between Add and Get.
	QueueLatency Summary
	// WorkDuration is the time between Get and Done.
	WorkDuration Summary
	// UnfinishedWork and LongestRunningProcessor are the in-flight gauges
	// as last refreshed (every 500 ms of the queue's clock).
	UnfinishedWork          time.Duration
	LongestRunningProcessor time.Duration
}

// Summary is a count of observations and their sum.
type Summary struct {
	Count int64
	Sum   time.Duration
}

// Average is Sum/Count, or 0 with no observations.
func (s Summary) Average() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / time.Duration(s.Count)
}

// Snapshot returns the metrics of the queue called name; a name no queue
// uses gives a zero snapshot.
func (m *InMemoryMetrics) Snapshot(name string) MetricsSnapshot {
	m.mu.Lock()
	q, ok := m.queues[name]
	m.mu.Unlock()
	if !ok {
		return MetricsSnapshot{Name: name}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return MetricsSnapshot{
		Name:                    name,
		Depth:                   q.depth,
		Adds:                    q.adds,
		Retries:                 q.retries,
		QueueLatency:            Summary{Count: q.latencyCount, Sum: seconds(q.latencySum)},
		WorkDuration:            Summary{Count: q.workCount, Sum: seconds(q.workSum)},
		UnfinishedWork:          seconds(q.unfinished),
		LongestRunningProcessor: seconds(q.longestRunner),
	}
}

// String prints every queue's snapshot, one line per queue, sorted by name.
func (m *InMemoryMetrics) String() string {
	m.mu.Lock()
	names := make([]string, 0, len(m.queues))
	for name := range m.queues {
		names = append(names, name)
	}
	m.mu.Unlock()
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(m.Snapshot(name).String())
		b.WriteByte('\n')
	}
	return b.String()
}

// String prints the snapshot on one line.
func (s MetricsSnapshot) String() string {
	return fmt.Sprintf("%s: depth=%d adds=%d retries=%d latency(avg)=%v work(avg)=%v unfinished=%v longest=%v",
		s.Name, s.Depth, s.Adds, s.Retries, s.QueueLatency.Average(), s.WorkDuration.Average(),
		s.UnfinishedWork, s.LongestRunningProcessor)
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// memGauge is a GaugeMetric and a CounterMetric.
type memGauge struct {
	mu *sync.Mutex
	v  *int64
}

func (g memGauge) Inc() { g.mu.Lock(); *g.v++; g.mu.Unlock() }
func (g memGauge) Dec() { g.mu.Lock(); *g.v--; g.mu.Unlock() }

type memSettable struct {
	mu *sync.Mutex
	v  *float64
}

func (g memSettable) Set(v float64) { g.mu.Lock(); *g.v = v; g.mu.Unlock() }

type memSummary struct {
	mu    *sync.Mutex
	count *int64
	sum   *float64
}

func (s memSummary) Observe(v float64) { s.mu.Lock(); *s.count++; *s.sum += v; s.mu.Unlock() }
