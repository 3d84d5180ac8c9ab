package soak

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// Config says how long and how hard to soak.
type Config struct {
	Duration   time.Duration // of writes and faults, before the settling
	Seed       uint64        // the writers' and the faults' choices
	Writers    int           // default 4
	WriteEvery time.Duration // each writer's pace; default 4ms (about 1,000 writes/s from 4 writers)
	FaultEvery time.Duration // mean time between faults; default 1s
	Settle     time.Duration // how long the world may take to agree at the end; default 2 minutes
	History    int           // the server's history; default 500
	Logf       func(format string, args ...any)
}

func (c *Config) defaults() {
	if c.Writers <= 0 {
		c.Writers = 4
	}
	if c.WriteEvery <= 0 {
		c.WriteEvery = 4 * time.Millisecond
	}
	if c.FaultEvery <= 0 {
		c.FaultEvery = time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 2 * time.Minute
	}
	if c.History <= 0 {
		c.History = 500
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
}

// Report is what a run did and found.
type Report struct {
	Seed          uint64
	Writes        int64          // acknowledged
	WriteErrors   int64          // refused: injected failures, conflicts
	Events        int            // watch events the informers' client decoded
	Notifications int            // handler calls, every informer
	Relists       int            // lists after each informer's first
	Tombstones    int            // deletes learned from a relist
	Faults        map[string]int // by kind
	Controller    replicaset.Stats
	SettledIn     time.Duration
	Problems      []string // empty when everything checked out
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d writes acknowledged (%d refused), %d watch events, %d notifications, %d relists, %d tombstones\n",
		r.Seed, r.Writes, r.WriteErrors, r.Events, r.Notifications, r.Relists, r.Tombstones)
	kinds := slices.Sorted(maps.Keys(r.Faults))
	var fs []string
	for _, k := range kinds {
		fs = append(fs, fmt.Sprintf("%s %d", k, r.Faults[k]))
	}
	fmt.Fprintf(&b, "faults: %s\ncontroller: %s\nsettled in %s", strings.Join(fs, ", "), r.Controller, r.SettledIn.Round(time.Millisecond))
	if len(r.Problems) > 0 {
		fmt.Fprintf(&b, "\nPROBLEMS (seed %d):\n  %s", r.Seed, strings.Join(r.Problems, "\n  "))
	}
	return b.String()
}

// watched is one informer of the run and its checking handler.
type watched struct {
	name     string
	resource listwatch.Resource
	ns, sel  string
	inf      informer.SharedIndexInformer
	check    *checker
}

// specs are the run's informers: resources, namespaces, selectors,
// pipelines and queues chosen so that every writer's write is seen by
// some, missed by others, and moved in and out of view by relabelling.
// The first four are the articles' informer (informer.Articles) with the
// DeltaFIFO or client-go 1.33's RealFIFO; the fifth is today's
// (informer.Today: a streaming list, the RealFIFO with its 1.36 modes).
var specs = []struct {
	name     string
	res      listwatch.Resource
	ns, sel  string
	pipeline informer.Pipeline
	queue    informer.QueueKind // under Articles
}{
	{"pods, every namespace, DeltaFIFO", listwatch.Pods, "", "", informer.Articles, informer.DeltaFIFOQueue},
	{"pods in soak-a with app=red, RealFIFO", listwatch.Pods, "soak-a", "app=red", informer.Articles, informer.RealFIFOQueue},
	{"configmaps without app=blue, RealFIFO", listwatch.ConfigMaps, "", "app!=blue", informer.Articles, informer.RealFIFOQueue},
	{"configmaps in soak-b, DeltaFIFO", listwatch.ConfigMaps, "soak-b", "", informer.Articles, informer.DeltaFIFOQueue},
	{"pods, every namespace, today's informer", listwatch.Pods, "", "", informer.Today, 0},
}

// runner is one run's state.
type runner struct {
	cfg    Config
	proc   *Process
	client *listwatch.Client
	faults map[string]int
}

// Run soaks the server p for cfg.Duration, then checks. It returns an
// error only if the run could not be set up; what the checks found is in
// Report.Problems.
func Run(ctx context.Context, cfg Config, p *Process) (Report, error) {
	cfg.defaults()
	rep := Report{Seed: cfg.Seed, Faults: map[string]int{}}
	counts := newCounter()
	client, err := listwatch.NewClient(listwatch.Config{Server: p.URL(), Tracer: counts.tracer(), Timeout: 10 * time.Second})
	if err != nil {
		return rep, err
	}
	r := &runner{cfg: cfg, proc: p, client: client, faults: rep.Faults}
	if err := createNamespaces(ctx, client); err != nil {
		return rep, err
	}
	quiet := slog.New(slog.DiscardHandler)

	work, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	var running sync.WaitGroup
	informers := startInformers(work, &running, client, counts.tracer(), quiet)
	ctrl, rsFactory, err := startController(work, &running, client, quiet)
	if err != nil {
		return rep, err
	}
	defer rsFactory.Shutdown()
	for _, w := range informers {
		if !informer.WaitForCacheSync(ctx, w.inf.HasSynced) {
			return rep, errors.New("an informer did not sync")
		}
	}

	// The storm: writers and faults until Duration has passed.
	storm, endStorm := context.WithTimeout(ctx, cfg.Duration)
	defer endStorm()
	var writes, writeErrs atomic.Int64
	var stormWG sync.WaitGroup
	for i := range cfg.Writers {
		w := &writer{rnd: rand.New(rand.NewPCG(cfg.Seed, uint64(i+1))),
			pods: listwatch.For[*api.Pod](client, listwatch.Pods), cms: listwatch.For[*api.ConfigMap](client, listwatch.ConfigMaps),
			writes: &writes, errors: &writeErrs}
		stormWG.Go(func() { w.run(storm, cfg.WriteEvery) })
	}
	stormWG.Go(func() { r.injectFaults(storm) })
	stormWG.Wait()
	rep.Writes, rep.WriteErrors = writes.Load(), writeErrs.Load()

	cfg.Logf("storm over after %s; settling", cfg.Duration)
	start := time.Now()
	rep.Problems = settle(ctx, cfg.Settle, client, informers)
	rep.SettledIn = time.Since(start)

	stop()
	running.Wait()
	for _, w := range informers {
		violations, events, tombstones := w.check.report()
		rep.Notifications += events
		rep.Tombstones += tombstones
		for _, v := range violations {
			rep.Problems = append(rep.Problems, w.name+": "+v)
		}
	}
	rep.Events = counts.get("listwatch: frame decoded")
	rep.Relists = max(0, counts.get("reflector: phase listing")-len(informers))
	rep.Controller = ctrl.Stats()
	return rep, nil
}

func createNamespaces(ctx context.Context, client *listwatch.Client) error {
	nsc := listwatch.For[*api.Namespace](client, listwatch.Namespaces)
	for _, ns := range append(slices.Clone(namespaces), rsNamespace) {
		if _, err := nsc.Create(ctx, "", &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil && !listwatch.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	return nil
}

func startInformers(ctx context.Context, wg *sync.WaitGroup, client *listwatch.Client, tr *trace.Tracer, logger *slog.Logger) []*watched {
	var out []*watched
	for _, s := range specs {
		sel := s.sel
		lw := listwatch.NewFilteredListWatchFromClient(client, s.res, s.ns, func(o *listwatch.ListOptions) { o.LabelSelector = sel })
		inf := informer.NewSharedIndexInformerWithOptions(lw, s.res.New(), informer.SharedIndexInformerOptions{Pipeline: s.pipeline, Queue: s.queue, Logger: logger,
			Tracer: tr.With(slog.String("informer", s.name))})
		w := &watched{name: s.name, resource: s.res, ns: s.ns, sel: s.sel, inf: inf, check: newChecker()}
		if _, err := inf.AddEventHandlerWithOptions(w.check, informer.HandlerOptions{Name: "checker"}); err != nil {
			panic(err) // cannot fail: the informer has not started
		}
		wg.Go(func() { inf.Run(ctx) })
		out = append(out, w)
	}
	return out
}

// startController runs the ReplicaSet controller on web (3 replicas) in
// rsNamespace, with informers of its own.
func startController(ctx context.Context, wg *sync.WaitGroup, client *listwatch.Client, logger *slog.Logger) (*replicaset.ReplicaSetController, informer.SharedInformerFactory, error) {
	three := int32(3)
	rsc := listwatch.For[*api.ReplicaSet](client, listwatch.ReplicaSets)
	_, err := rsc.Create(ctx, rsNamespace, &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: rsNamespace},
		Spec: api.ReplicaSetSpec{Replicas: &three, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}}}},
	})
	if err != nil && !listwatch.IsAlreadyExists(err) {
		return nil, nil, fmt.Errorf("creating the ReplicaSet: %w", err)
	}
	// A resync period, as every controller manager sets one: a key the
	// workers gave up on (five failed reconciles while the server was down)
	// is queued again at the next resync, even if no event comes.
	factory := informer.NewSharedInformerFactory(client, informer.FactoryOptions{
		DefaultResync: 5 * time.Second, Namespace: rsNamespace, Logger: logger,
	})
	ctrl, err := replicaset.NewReplicaSetController(replicaset.Options{Client: client, Factory: factory, Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	factory.Start(ctx)
	wg.Go(func() { _ = ctrl.Run(ctx) })
	return ctrl, factory, nil
}

// settle waits until every check passes, or the time is up, and returns
// what still fails then.
func settle(ctx context.Context, within time.Duration, client *listwatch.Client, informers []*watched) []string {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		problems := checkAll(ctx, client, informers)
		if len(problems) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return problems
		}
		<-tick.C
	}
}

// checkAll compares every cache with the server's filtered list and every
// handler's view with its cache, and checks the ReplicaSet.
func checkAll(ctx context.Context, client *listwatch.Client, informers []*watched) []string {
	var problems []string
	for _, w := range informers {
		server, err := serverView(ctx, client, w)
		if err != nil {
			problems = append(problems, w.name+": listing: "+err.Error())
			continue
		}
		cache := storeView(w.inf)
		if d := diff(server, cache); d != "" {
			problems = append(problems, fmt.Sprintf("%s (synced to rv %s): cache differs from the server: %s", w.name, w.inf.LastSyncResourceVersion(), d))
		}
		if d := diff(cache, w.check.view()); d != "" {
			problems = append(problems, w.name+": the handler's last word differs from the cache: "+d)
		}
	}
	if p := checkReplicaSet(ctx, client); p != "" {
		problems = append(problems, p)
	}
	return problems
}

func serverView(ctx context.Context, client *listwatch.Client, w *watched) (map[string]string, error) {
	lw := listwatch.NewFilteredListWatchFromClient(client, w.resource, w.ns, func(o *listwatch.ListOptions) { o.LabelSelector = w.sel })
	l, err := lw.List(ctx, listwatch.ListOptions{})
	if err != nil {
		return nil, err
	}
	v := map[string]string{}
	for _, o := range l.Items {
		v[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return v, nil
}

func storeView(inf informer.SharedIndexInformer) map[string]string {
	v := map[string]string{}
	for _, o := range inf.GetStore().List() {
		v[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return v
}

// diff describes how b differs from a (at most three keys), or "".
func diff(a, b map[string]string) string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if b[k] != a[k] {
			d = append(d, fmt.Sprintf("%s rv %s vs %q", k, a[k], b[k]))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k+" only in the second")
		}
	}
	sort.Strings(d)
	if len(d) > 3 {
		d = append(d[:3], fmt.Sprintf("and %d more", len(d)-3))
	}
	return strings.Join(d, "; ")
}

func checkReplicaSet(ctx context.Context, client *listwatch.Client) string {
	rs, err := listwatch.For[*api.ReplicaSet](client, listwatch.ReplicaSets).Get(ctx, rsNamespace, "web")
	if err != nil {
		return "ReplicaSet: " + err.Error()
	}
	pods, err := listwatch.For[*api.Pod](client, listwatch.Pods).List(ctx, rsNamespace, listwatch.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return "ReplicaSet pods: " + err.Error()
	}
	want := int(*rs.Spec.Replicas)
	if len(pods.Items) != want || int(rs.Status.Replicas) != want {
		return fmt.Sprintf("ReplicaSet web: %d pods, status.replicas %d, want %d", len(pods.Items), rs.Status.Replicas, want)
	}
	return ""
}

// counter counts trace events by "stage: what" (and, for the reflector's
// phases, "reflector: phase <phase>").
type counter struct {
	mu sync.Mutex
	n  map[string]int
	tr *trace.Tracer
}

func newCounter() *counter {
	c := &counter{n: map[string]int{}}
	c.tr = trace.New(trace.Func(func(e trace.Event) {
		key := e.Stage + ": " + e.What
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.What == "phase" {
			key += " " + e.Get(trace.KeyPhase)
			c.n[key+" "+e.Get("informer")]++ // one informer's count
		}
		c.n[key]++
	}))
	return c
}

func (c *counter) tracer() *trace.Tracer { return c.tr }

func (c *counter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}
