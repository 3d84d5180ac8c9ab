package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kinformer/kinformer/trace"
	"github.com/kinformer/kinformer/workqueue"
)

// The live view's server side: an aggregator that folds the trace into the
// numbers the page draws, and a hub that wakes the page's Server-Sent
// Events streams to send them. The page computes nothing about the
// mechanism: every number in a snapshot comes from a trace event (or from
// the work queue's metrics hooks, workqueue.InMemoryMetrics), counted here.

// Sizes of what the aggregator keeps.
const (
	logSize        = 5000 // trace events kept for the log and the key filter
	maxEventsPerTx = 300  // events sent in one snapshot at most
	rateWindow     = 2 * time.Second
	maxDelays      = 20 // rate-limiter delays shown
)

// reflectorView is one informer's Reflector box.
type reflectorView struct {
	Resource string `json:"resource"`
	Phase    string `json:"phase"`  // listing, watching, backing off, stopped
	Reason   string `json:"reason"` // why it moved there
	// Why is the phase's hover text: the reason, and a backoff's rule;
	// WhyZH the same in Chinese (lang.go's words).
	Why           string `json:"why"`
	WhyZH         string `json:"whyZH"`
	Backoff       string `json:"backoff,omitempty"`
	LastRV        string `json:"lastRV"`
	Lists         int    `json:"lists"`
	Relists       int    `json:"relists"` // lists after the first
	Watches       int    `json:"watches"`
	WatchRestarts int    `json:"watchRestarts"` // watches after the first
	Events        int    `json:"events"`        // watch events handled
}

// fifoView is one informer's DeltaFIFO (or RealFIFO) box. Queued and
// Popped count items: a delta (a key's Deltas, for the DeltaFIFO's pops),
// and for today's RealFIFO one ReplacedAll per relist, however many
// objects it carries; a batch counts its deltas. Tombstones are the
// deletes learned from a relist: the DeltaFIFO's queued tombstones, or the
// keys today's ReplacedAll found gone (the summary's tombstones).
type fifoView struct {
	Resource    string `json:"resource"`
	Depth       int    `json:"depth"` // keys (DeltaFIFO) or deltas (RealFIFO) waiting to be popped
	Queued      int    `json:"queued"`
	Popped      int    `json:"popped"`
	Tombstones  int    `json:"tombstones"`
	Replaces    int    `json:"replaces"`
	ReplacedAll int    `json:"replacedAll"` // relists queued as one item (today's informer)
	Batches     int    `json:"batches"`     // batches popped (today's informer)
}

// cacheView is one informer's Indexer.
type cacheView struct {
	Resource string `json:"resource"`
	Size     int    `json:"size"`
	Writes   int    `json:"writes"` // store writes: a ReplacedAll or a batch is one
	SyncRV   string `json:"syncRV"` // the store's last synced version (today's informer: relist, bookmark)
}

// handlerView is one registered handler's listener.
type handlerView struct {
	Resource  string `json:"resource"`
	Handler   string `json:"handler"`
	Pending   int64  `json:"pending"` // notifications waiting for the handler
	Delivered int    `json:"delivered"`
}

// keyDelay is a key waiting out its rate-limiter delay.
type keyDelay struct {
	Key   string `json:"key"`
	Delay string `json:"delay"`
	Retry string `json:"retry"`
}

// queueView is the controller's work queue.
type queueView struct {
	Depth      int        `json:"depth"`
	InFlight   int        `json:"inFlight"`
	Adds       int        `json:"adds"`
	Deduped    int        `json:"deduped"`
	Retries    int        `json:"retries"`
	Delays     []keyDelay `json:"delays"`
	Metrics    string     `json:"metrics"` // workqueue.InMemoryMetrics, as it prints itself
	LatencyAvg string     `json:"latencyAvg"`
	WorkAvg    string     `json:"workAvg"`
}

// controllerView is the controller's workers and the ReplicaSet they keep.
type controllerView struct {
	Reconciles int    `json:"reconciles"`
	Failures   int    `json:"failures"`
	Dropped    int    `json:"dropped"`
	PodsMade   int    `json:"podsCreated"`
	PodsGone   int    `json:"podsDeleted"`
	LastFound  string `json:"lastFound"`
	LastDid    string `json:"lastDid"`
	// The same two in Chinese: the controller's trace says them in English.
	LastFoundZH string `json:"lastFoundZH"`
	LastDidZH   string `json:"lastDidZH"`
	Desired     int    `json:"desired"`
	Current     int    `json:"current"`
	Ready       int    `json:"ready"`
}

// podView is a pod in the pod informer's cache.
type podView struct {
	Key string `json:"key"`
	RV  string `json:"rv"`
}

// eventView is one trace event, for the log.
type eventView struct {
	Seq   uint64   `json:"seq"`
	T     float64  `json:"t"` // seconds since the demo started
	Stage string   `json:"stage"`
	What  string   `json:"what"`
	Text  string   `json:"text"`
	Keys  []string `json:"keys,omitempty"` // key, and from= / owner= when present
	Warn  bool     `json:"warn,omitempty"`
}

// controls is the state of the page's own switches (not the mechanism's).
type controls struct {
	SlowHandler   bool `json:"slowHandler"`
	FailReconcile int  `json:"failReconcile"` // reconciles still to fail
}

// snapshot is what one SSE message carries.
type snapshot struct {
	Informer   string             `json:"informer"`  // --informer: today or articles
	QueueName  string             `json:"queueName"` // DeltaFIFO or RealFIFO
	T          float64            `json:"t"`
	Seq        uint64             `json:"seq"` // the last trace event counted
	Reflectors []reflectorView    `json:"reflectors"`
	FIFOs      []fifoView         `json:"fifos"`
	Caches     []cacheView        `json:"caches"`
	Handlers   []handlerView      `json:"handlers"`
	Queue      queueView          `json:"queue"`
	Controller controllerView     `json:"controller"`
	Rates      map[string]float64 `json:"rates"`  // watch events per second, by type
	Totals     map[string]int     `json:"totals"` // watch events, by type
	Faults     int                `json:"faults"` // fault: requested, from the server's trace
	Pods       []podView          `json:"pods"`
	Controls   controls           `json:"controls"`
	Events     []eventView        `json:"events"`  // new since the subscriber's last snapshot
	Skipped    int                `json:"skipped"` // new events left out (too many at once)
}

// aggregator folds trace events into the page's numbers. event is a
// trace.Func callback: it runs on the traced stage's goroutine, so it only
// counts.
type aggregator struct {
	mu          sync.Mutex
	start       time.Time
	reflectors  map[string]*reflectorView
	fifos       map[string]*fifoView
	fifoKeys    map[string]map[string]bool // keys queued, per resource
	caches      map[string]*cacheView
	cacheKeys   map[string]map[string]string // key -> rv, per resource
	handlers    map[string]*handlerView      // by resource + handler
	queue       queueView
	delays      map[string]keyDelay
	ctrl        controllerView
	totals      map[string]int
	frameTimes  []frameTime
	faults      int
	log         []eventView // a ring of logSize
	next        int         // where the ring writes next
	seq         uint64
	metrics     *workqueue.InMemoryMetrics
	controlsNow func() controls
	informer    informerKind // set before the first event
	chaosFaults func() int64 // the faults the chaos loop injected through the Go API (no trace event of its own)
}

// setChaosFaults tells the page how to count the chaos loop's faults, so its
// "faults" is the summary's "faults injected": the loop's plus the
// /faults/ requests the trace reports.
func (a *aggregator) setChaosFaults(count func() int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.chaosFaults = count
}

type frameTime struct {
	t   time.Time
	typ string
}

func newAggregator(start time.Time, metrics *workqueue.InMemoryMetrics) *aggregator {
	return &aggregator{start: start, metrics: metrics,
		reflectors: map[string]*reflectorView{}, fifos: map[string]*fifoView{},
		fifoKeys: map[string]map[string]bool{}, caches: map[string]*cacheView{},
		cacheKeys: map[string]map[string]string{}, handlers: map[string]*handlerView{},
		delays: map[string]keyDelay{}, totals: map[string]int{}}
}

func (a *aggregator) reflector(res string) *reflectorView {
	r, ok := a.reflectors[res]
	if !ok {
		r = &reflectorView{Resource: res}
		a.reflectors[res] = r
	}
	return r
}

func (a *aggregator) fifo(res string) *fifoView {
	f, ok := a.fifos[res]
	if !ok {
		f = &fifoView{Resource: res}
		a.fifos[res] = f
		a.fifoKeys[res] = map[string]bool{}
	}
	return f
}

func (a *aggregator) cache(res string) *cacheView {
	c, ok := a.caches[res]
	if !ok {
		c = &cacheView{Resource: res}
		a.caches[res] = c
		a.cacheKeys[res] = map[string]string{}
	}
	return c
}

func (a *aggregator) handler(res, name string) *handlerView {
	h, ok := a.handlers[res+"\x00"+name]
	if !ok {
		h = &handlerView{Resource: res, Handler: name}
		a.handlers[res+"\x00"+name] = h
	}
	return h
}

// event counts one trace event.
func (a *aggregator) event(e trace.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++ // our own order of arrival: the ring stays sorted by it
	res := e.Get(trace.KeyResource)
	key := e.Key()
	switch e.Stage {
	case trace.StageServer:
		if e.What == faultRequested {
			a.faults++
		}
	case trace.StageListWatch:
		if e.What == "frame decoded" {
			typ := e.Get(trace.KeyType)
			a.totals[typ]++
			a.frameTimes = append(a.frameTimes, frameTime{e.Time, typ})
		}
	case trace.StageReflector:
		r := a.reflector(res)
		switch e.What {
		case "phase":
			r.Phase, r.Reason, r.Backoff = e.Get(trace.KeyPhase), e.Get(trace.KeyReason), humanDuration(e.Get(trace.KeyDelay))
			r.Why, r.WhyZH = englishTexts.why(r.Phase, r.Reason), chineseTexts.why(r.Phase, r.Reason)
			if r.Phase == "listing" {
				r.Lists++
				r.Relists = max(0, r.Lists-1)
			}
		case "watch", "streaming list": // a streaming list is a watch too, which goes on after the list
			r.Watches++
			r.WatchRestarts = max(0, r.Watches-1)
			r.LastRV = orElse(e.RV(), r.LastRV)
		case "watch event":
			r.Events++
			r.LastRV = orElse(e.RV(), r.LastRV)
		case "listed", "bookmark", "initial events end":
			r.LastRV = orElse(e.RV(), r.LastRV)
		}
	case trace.StageDeltaFIFO:
		a.fifoEvent(e, res, key)
	case trace.StageInformer:
		switch {
		case strings.HasPrefix(e.What, "cache "), e.What == "store bookmark":
			a.cacheEvent(e, res, key)
		case e.What == "notify":
			h := a.handler(res, e.Get(trace.KeyHandler))
			h.Pending = attrInt(e, "pending")
		case strings.HasPrefix(e.What, "On"):
			h := a.handler(res, e.Get(trace.KeyHandler))
			h.Pending = attrInt(e, "pending")
			h.Delivered++
		}
	case trace.StageWorkQueue:
		a.queue.Depth = int(attrInt(e, "depth"))
		a.queue.InFlight = int(attrInt(e, "processing"))
		switch e.What {
		case "add":
			a.queue.Adds++
		case "add (deduplicated)", "add (while processing)":
			a.queue.Deduped++
		case "retry":
			a.queue.Retries++
			a.delays[key] = keyDelay{Key: key, Delay: humanDuration(e.Get(trace.KeyDelay)), Retry: e.Get(trace.KeyCount)}
		case "forget":
			delete(a.delays, key)
		}
	case trace.StageController:
		switch e.What {
		case "reconcile":
			a.ctrl.Reconciles++
		case "reconciled":
			a.ctrl.LastFound, a.ctrl.LastDid = e.Get("found"), e.Get("did")
			a.ctrl.LastFoundZH, a.ctrl.LastDidZH = chineseTexts.found(a.ctrl.LastFound), chineseTexts.did(a.ctrl.LastDid)
			var have, want int
			if _, err := fmt.Sscanf(a.ctrl.LastFound, "have %d of %d", &have, &want); err == nil {
				a.ctrl.Desired = want
			}
		case "status written":
			a.ctrl.Current, a.ctrl.Ready = int(attrInt(e, "replicas")), int(attrInt(e, "ready"))
		case "retry":
			a.ctrl.Failures++
		case "dropped":
			a.ctrl.Dropped++
		case "pod created":
			a.ctrl.PodsMade++
		case "pod deleted":
			a.ctrl.PodsGone++
		}
	}
	a.record(e)
}

// record keeps e in the log ring.
func (a *aggregator) record(e trace.Event) {
	v := eventView{Seq: a.seq, T: e.Time.Sub(a.start).Seconds(), Stage: e.Stage, What: e.What,
		Text: e.String(), Warn: e.Level > 0}
	for _, k := range []string{trace.KeyKey, "from", "owner"} {
		s := e.Get(k)
		if k != trace.KeyKey && !strings.Contains(s, "/") {
			continue // from=replicaset says which informer, not which object
		}
		if s != "" && !slices.Contains(v.Keys, s) {
			v.Keys = append(v.Keys, s)
		}
	}
	if len(a.log) < logSize {
		a.log = append(a.log, v)
		return
	}
	a.log[a.next] = v
	a.next = (a.next + 1) % logSize
}

// ordered returns the log ring oldest first. Called with a.mu held.
func (a *aggregator) ordered() []eventView {
	if len(a.log) < logSize {
		return a.log
	}
	return append(slices.Clone(a.log[a.next:]), a.log[:a.next]...)
}

// eventsSince returns the events after seq (at most limit, the newest), and
// how many newer ones were left out.
func (a *aggregator) eventsSince(seq uint64, limit int) ([]eventView, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	all := a.ordered()
	i, _ := slices.BinarySearchFunc(all, seq+1, func(e eventView, s uint64) int {
		switch {
		case e.Seq < s:
			return -1
		case e.Seq > s:
			return 1
		}
		return 0
	})
	out := all[i:]
	skipped := 0
	if len(out) > limit {
		skipped = len(out) - limit
		out = out[skipped:]
	}
	return slices.Clone(out), skipped
}

// forKey returns the kept events about key (as key, from= or owner=).
func (a *aggregator) forKey(key string) []eventView {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []eventView
	for _, e := range a.ordered() {
		if slices.Contains(e.Keys, key) {
			out = append(out, e)
		}
	}
	return out
}

// snapshot returns the numbers at now, without events.
func (a *aggregator) snapshot(now time.Time) snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := snapshot{Informer: a.informer.String(), QueueName: a.informer.queueName(), T: now.Sub(a.start).Seconds(), Seq: a.seq, Queue: a.queue, Controller: a.ctrl,
		Totals: maps.Clone(a.totals), Rates: map[string]float64{}, Faults: a.faults}
	if a.chaosFaults != nil {
		s.Faults += int(a.chaosFaults())
	}
	for _, k := range slices.Sorted(maps.Keys(a.reflectors)) {
		s.Reflectors = append(s.Reflectors, *a.reflectors[k])
	}
	for _, k := range slices.Sorted(maps.Keys(a.fifos)) {
		s.FIFOs = append(s.FIFOs, *a.fifos[k])
	}
	for _, k := range slices.Sorted(maps.Keys(a.caches)) {
		s.Caches = append(s.Caches, *a.caches[k])
	}
	for _, k := range slices.Sorted(maps.Keys(a.handlers)) {
		s.Handlers = append(s.Handlers, *a.handlers[k])
	}
	for _, k := range slices.Sorted(maps.Keys(a.delays)) {
		if len(s.Queue.Delays) < maxDelays {
			s.Queue.Delays = append(s.Queue.Delays, a.delays[k])
		}
	}
	// Events per second by type over the last rateWindow.
	cut := now.Add(-rateWindow)
	i := 0
	for i < len(a.frameTimes) && a.frameTimes[i].t.Before(cut) {
		i++
	}
	a.frameTimes = a.frameTimes[i:]
	for _, typ := range []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK"} {
		s.Rates[typ] = 0
		s.Totals[typ] += 0
	}
	for _, f := range a.frameTimes {
		if !f.t.After(now) {
			s.Rates[f.typ] += 1 / rateWindow.Seconds()
		}
	}
	if pods, ok := a.cacheKeys["pods"]; ok {
		for _, k := range slices.Sorted(maps.Keys(pods)) {
			s.Pods = append(s.Pods, podView{Key: k, RV: pods[k]})
		}
	}
	if a.metrics != nil {
		m := a.metrics.Snapshot("replicaset")
		s.Queue.Metrics = m.String()
		s.Queue.LatencyAvg = humanDuration(m.QueueLatency.Average().String())
		s.Queue.WorkAvg = humanDuration(m.WorkDuration.Average().String())
	}
	if a.controlsNow != nil {
		s.Controls = a.controlsNow()
	}
	return s
}

func attrInt(e trace.Event, key string) int64 {
	n, _ := strconv.ParseInt(e.Get(key), 10, 64)
	return n
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
