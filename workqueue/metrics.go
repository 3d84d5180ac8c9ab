package workqueue

import (
	"time"

	"github.com/kinformer/kinformer/clock"
)

// GaugeMetric is a value that goes up and down (the queue depth).
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a value that is set (the in-flight gauges).
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a value that only goes up (adds, retries).
type CounterMetric interface {
	Inc()
}

// HistogramMetric records observations, in seconds (latency, work
// duration).
type HistogramMetric interface {
	Observe(float64)
}

// MetricsProvider makes the metrics of a queue, given the queue's name
// (QueueConfig.Name). Each method is called once per queue. The metrics it
// returns must be safe for concurrent use: most are updated under the
// queue's lock, but retries is incremented by AddAfter without it.
//
// The metrics, as client-go defines them:
//   - depth: items waiting in the queue (dirty items, including those
//     re-added while processing);
//   - adds: Adds that were not deduplicated;
//   - latency: seconds an item waited between Add and Get;
//   - work duration: seconds between Get and Done;
//   - unfinished work seconds: sum of the time every item in processing has
//     been processing so far; it grows when a worker is stuck;
//   - longest running processor seconds: the longest of those times;
//   - retries: AddAfter calls, which includes every AddRateLimited.
type MetricsProvider interface {
	NewDepthMetric(name string) GaugeMetric
	NewAddsMetric(name string) CounterMetric
	NewLatencyMetric(name string) HistogramMetric
	NewWorkDurationMetric(name string) HistogramMetric
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	NewRetriesMetric(name string) CounterMetric
}

// NoopMetricsProvider records nothing. It is the default: a queue given it,
// or no provider at all, keeps no metric bookkeeping and starts no metrics
// goroutine, so metrics cost nothing unless asked for.
type NoopMetricsProvider struct{}

func (NoopMetricsProvider) NewDepthMetric(string) GaugeMetric       { return noopMetric{} }
func (NoopMetricsProvider) NewAddsMetric(string) CounterMetric      { return noopMetric{} }
func (NoopMetricsProvider) NewLatencyMetric(string) HistogramMetric { return noopMetric{} }
func (NoopMetricsProvider) NewRetriesMetric(string) CounterMetric   { return noopMetric{} }
func (NoopMetricsProvider) NewWorkDurationMetric(string) HistogramMetric {
	return noopMetric{}
}
func (NoopMetricsProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return noopMetric{}
}
func (NoopMetricsProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return noopMetric{}
}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

// queueMetrics is a queue's bookkeeping for its metrics. Its methods are
// nil-safe (a nil *queueMetrics records nothing) and, except retry, are
// called under the queue's lock.
type queueMetrics[T comparable] struct {
	clock clock.Clock

	depth                   GaugeMetric
	adds                    CounterMetric
	latency                 HistogramMetric
	workDuration            HistogramMetric
	unfinishedWorkSeconds   SettableGaugeMetric
	longestRunningProcessor SettableGaugeMetric
	retries                 CounterMetric

	addTimes             map[T]time.Time // when each dirty item was added
	processingStartTimes map[T]time.Time // when each processing item was got
}

// newQueueMetrics returns nil when there is nothing to record.
func newQueueMetrics[T comparable](mp MetricsProvider, name string, clk clock.Clock) *queueMetrics[T] {
	if mp == nil {
		return nil
	}
	if _, ok := mp.(NoopMetricsProvider); ok {
		return nil
	}
	return &queueMetrics[T]{
		clock:                   clk,
		depth:                   orNoop[GaugeMetric](mp.NewDepthMetric(name)),
		adds:                    orNoop[CounterMetric](mp.NewAddsMetric(name)),
		latency:                 orNoop[HistogramMetric](mp.NewLatencyMetric(name)),
		workDuration:            orNoop[HistogramMetric](mp.NewWorkDurationMetric(name)),
		unfinishedWorkSeconds:   orNoop[SettableGaugeMetric](mp.NewUnfinishedWorkSecondsMetric(name)),
		longestRunningProcessor: orNoop[SettableGaugeMetric](mp.NewLongestRunningProcessorSecondsMetric(name)),
		retries:                 orNoop[CounterMetric](mp.NewRetriesMetric(name)),
		addTimes:                make(map[T]time.Time),
		processingStartTimes:    make(map[T]time.Time),
	}
}

// orNoop guards against a provider that returns a nil metric.
func orNoop[M any](m M) M {
	if any(m) == nil {
		return any(noopMetric{}).(M)
	}
	return m
}

func (m *queueMetrics[T]) add(item T) {
	if m == nil {
		return
	}
	m.adds.Inc()
	if _, ok := m.addTimes[item]; !ok {
		m.depth.Inc()
		m.addTimes[item] = m.clock.Now()
	}
}

func (m *queueMetrics[T]) get(item T) {
	if m == nil {
		return
	}
	now := m.clock.Now()
	m.depth.Dec()
	m.processingStartTimes[item] = now
	if start, ok := m.addTimes[item]; ok {
		m.latency.Observe(now.Sub(start).Seconds())
		delete(m.addTimes, item)
	}
}

func (m *queueMetrics[T]) done(item T) {
	if m == nil {
		return
	}
	if start, ok := m.processingStartTimes[item]; ok {
		m.workDuration.Observe(m.clock.Since(start).Seconds())
		delete(m.processingStartTimes, item)
	}
}

// updateUnfinishedWork sets the two in-flight gauges from the start times of
// the items in processing.
func (m *queueMetrics[T]) updateUnfinishedWork() {
	if m == nil {
		return
	}
	now := m.clock.Now()
	var total, longest float64
	for _, start := range m.processingStartTimes {
		age := now.Sub(start).Seconds()
		total += age
		longest = max(longest, age)
	}
	m.unfinishedWorkSeconds.Set(total)
	m.longestRunningProcessor.Set(longest)
}

func (m *queueMetrics[T]) retry() {
	if m == nil {
		return
	}
	m.retries.Inc()
}
