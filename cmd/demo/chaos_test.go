package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/internal/syncbuf"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/reflector"
	"github.com/kinformer/kinformer/trace"
)

// phaseEvent is a reflector's "phase" trace event, for the gate.
func phaseEvent(res, phase string) trace.Event {
	return tev(trace.StageReflector, "phase", trace.Resource(res), trace.Phase(phase))
}

// The gate lets the chaos loop strike only when the informers are calm,
// and compacts only once every reflector's backoff has had time to start
// over.
func TestChaosGate_HoldsOffUntilTheInformersAreCalm(t *testing.T) {
	clk := clock.NewFakeClock(t0)
	g := newChaosGate(clk)
	const every = 10 * time.Second
	calm := worldState{want: 3, ready: 3}
	decide := func(w worldState, roll int) (faultKind, hold) { return g.decide(clk.Now(), every, w, roll) }
	held := func(w worldState) holdKind { _, h := decide(w, 0); return h.kind }

	require.Equal(t, heldNoReflector, held(calm), "no reflector has reported yet")
	g.event(phaseEvent("pods", "listing"))
	g.event(phaseEvent("replicasets.apps", "watching"))
	require.Equal(t, hold{kind: heldReflectorBusy, resource: "pods", phase: "listing"}, func() hold { _, h := decide(calm, 0); return h }())
	g.event(phaseEvent("pods", "watching"))
	clk.Step(time.Second)
	require.Equal(t, heldWatchYoung, held(calm), "a watch dropped within a second of its start would be a very short watch")
	clk.Step(chaosWatchSettle)
	require.Equal(t, heldShort, held(worldState{want: 3, ready: 2}))
	require.Equal(t, heldTerminating, held(worldState{want: 3, ready: 3, terminating: 1}))

	for roll, want := range []faultKind{deletePodFault, deletePodFault, dropWatchesFault} {
		k, h := decide(calm, roll)
		require.Equal(t, notHeld, h.kind)
		require.Equal(t, want, k, "roll %d", roll)
	}
	k, _ := decide(calm, 3)
	require.Equal(t, compactFault, k, "no reflector has backed off yet")
	k, _ = decide(calm, 3)
	require.Equal(t, dropWatchesFault, k, "a second compaction so soon would double the backoff")

	// A backoff (yours, or the compaction's): hold off while it lasts; no
	// compaction until the reflector's backoff has started over.
	g.event(phaseEvent("pods", "backing off"))
	require.Equal(t, heldReflectorBusy, held(calm))
	clk.Step(time.Second)
	g.event(phaseEvent("pods", "listing"))
	g.event(phaseEvent("pods", "watching"))
	clk.Step(chaosWatchSettle)
	k, _ = decide(calm, 3)
	require.Equal(t, dropWatchesFault, k)
	clk.Step(reflector.DefaultBackoff.ResetAfter)
	k, _ = decide(calm, 3)
	require.Equal(t, dropWatchesFault, k, "ResetAfter is not enough: the margin, for the backoff to have started over")
	clk.Step(compactSpacing - reflector.DefaultBackoff.ResetAfter)
	k, _ = decide(calm, 3)
	require.Equal(t, compactFault, k)

	// A fault you asked for: the chaos loop skips three ticks.
	g.event(tev(trace.StageServer, faultRequested, slog.String("path", "/faults/compact")))
	for range chaosQuietTicks {
		require.Equal(t, heldForYou, held(calm))
		clk.Step(every)
	}
	require.Equal(t, notHeld, held(calm))
	g.yoursNow() // a page button the server does not see
	require.Equal(t, heldForYou, held(calm))
}

// The narration says why the chaos loop holds off, in both languages.
func TestChaosGate_HoldsAreNarratedInBothLanguages(t *testing.T) {
	for _, h := range []hold{{kind: heldForYou, d: 4200 * time.Millisecond}, {kind: heldNoReflector},
		{kind: heldReflectorBusy, resource: "pods", phase: "backing off"}, {kind: heldWatchYoung, resource: "pods", d: 300 * time.Millisecond},
		{kind: heldShort, have: 2, want: 3}, {kind: heldTerminating}} {
		en, zh := englishTexts.holdLine(h), chineseTexts.holdLine(h)
		t.Logf("%s\n%s", en, zh)
		require.True(t, strings.HasPrefix(en, "chaos: holding off: "), en)
		require.True(t, strings.HasPrefix(zh, "混沌：暂停："), zh)
	}
	require.Contains(t, englishTexts.holdLine(hold{kind: heldForYou, d: 4200 * time.Millisecond}), "4.2 s ago")
	require.Contains(t, chineseTexts.holdLine(hold{kind: heldReflectorBusy, resource: "pods", phase: "backing off"}), "正在退避")
}

// chaosEnv is the demo's world on a fake clock: the fake server (faults
// on), both informers of a factory, and the chaos loop's faults and gate,
// all reading one trace. No controller and no kubelet: the pods of web are
// made by hand, unbound (a delete removes them at once), and the
// ReplicaSet's status says they are ready.
type chaosEnv struct {
	t      *testing.T
	clk    *clock.FakeClock
	srv    *fakeapiserver.Server
	url    string
	f      *faults
	story  *syncbuf.Buffer // the narration, logged under -v
	pokes  int
	mu     sync.Mutex
	events []trace.Event
}

func newChaosEnv(t *testing.T, inf informerKind) *chaosEnv {
	t.Helper()
	e := &chaosEnv{t: t, clk: clock.NewFakeClock(t0), story: &syncbuf.Buffer{}}
	n := newNarrator(e.story, true, false)
	n.informer = inf
	gate := newChaosGate(e.clk)
	tr := trace.New(trace.Func(func(ev trace.Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
		n.event(ev)
		gate.event(ev)
	}))
	e.srv = fakeapiserver.New(fakeapiserver.Options{Faults: true, Tracer: tr})
	require.NoError(t, seed(e.srv, 3))
	for _, name := range []string{"web-a", "web-b", "web-c"} {
		_, err := e.srv.Create(&api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27"}}}})
		require.NoError(t, err)
	}
	obj, err := e.srv.Get("replicasets", "default", "web")
	require.NoError(t, err)
	rs := obj.(*api.ReplicaSet)
	rs.Status = api.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3}
	_, err = e.srv.UpdateStatus(rs)
	require.NoError(t, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e.url = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.srv.Serve(ctx, ln) }()
	client, err := listwatch.NewClient(listwatch.Config{Server: e.url, Tracer: tr})
	require.NoError(t, err)
	factory := informer.NewSharedInformerFactory(client, withInformer(inf,
		informer.FactoryOptions{Tracer: tr, Clock: e.clk, Logger: slog.New(slog.DiscardHandler)}))
	e.f = &faults{srv: e.srv, n: n, gate: gate, client: listwatch.For[*api.Pod](client, listwatch.Pods),
		pods:  informer.NewLister[*api.Pod](factory.InformerFor(listwatch.Pods).GetIndexer()),
		rsets: informer.NewLister[*api.ReplicaSet](factory.InformerFor(listwatch.ReplicaSets).GetIndexer())}
	factory.Start(ctx)
	for res, ok := range factory.WaitForCacheSync(ctx) {
		require.True(t, ok, res)
	}
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		require.NoError(t, <-served)
		t.Log("\n" + e.story.String()) // the narration, under -v
	})
	// Synced is not yet watching: the reflector enters that phase after
	// the store has the list.
	e.waitPhases(0, "watching", "listing", 0)
	e.poke()
	return e
}

// poke writes the ReplicaSet, then the coredns pod (an annotation each),
// and waits until each reflector's watch has carried the event. A watch
// that has carried an event is never a very short watch, however little
// fake time it has lasted; and one that has not, if its start on the fake
// clock came after the test's last step, would be one. After it the pods
// reflector is at the server's latest version, the replicasets one just
// behind.
func (e *chaosEnv) poke() {
	e.t.Helper()
	e.pokes++
	mark := e.mark()
	patch := []byte(`{"metadata":{"annotations":{"poked":"` + strconv.Itoa(e.pokes) + `"}}}`)
	for _, o := range [][3]string{{"replicasets", "default", "web"}, {"pods", "kube-system", "coredns"}} {
		_, err := e.srv.Patch(o[0], o[1], o[2], fakeapiserver.MergePatchType, patch)
		require.NoError(e.t, err)
	}
	e.waitEvents(mark, "watch event")
}

// rewatched waits until, after mark, both reflectors have opened a new
// watch: started on the fake clock (the reflector's "watch" event comes
// after) and open at the server, where the next fault finds it.
func (e *chaosEnv) rewatched(mark int) {
	e.t.Helper()
	e.waitEvents(mark, "watch")
	require.Eventually(e.t, func() bool { return e.srv.OpenWatches("pods") == 1 && e.srv.OpenWatches("replicasets") == 1 },
		10*time.Second, time.Millisecond, "the new watches open")
}

// waitEvents waits until both reflectors have reported what since mark.
func (e *chaosEnv) waitEvents(mark int, what string) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		seen := map[string]bool{}
		for _, ev := range e.events[mark:] {
			if ev.Stage == trace.StageReflector && ev.What == what {
				seen[ev.Get(trace.KeyResource)] = true
			}
		}
		return len(seen) == 2
	}, 10*time.Second, time.Millisecond, "both reflectors: %s", what)
}

// phases returns the reflectors' "phase" events so far, from index from.
func (e *chaosEnv) phases(from int) []trace.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []trace.Event
	for _, ev := range e.events[from:] {
		if ev.Stage == trace.StageReflector && ev.What == "phase" {
			out = append(out, ev)
		}
	}
	return out
}

// backingOff says whether a reflector's last phase is backing off.
func (e *chaosEnv) backingOff() bool {
	last := map[string]string{}
	for _, ev := range e.phases(0) {
		last[ev.Get(trace.KeyResource)] = ev.Get(trace.KeyPhase)
	}
	for _, p := range last {
		if p == "backing off" {
			return true
		}
	}
	return false
}

func (e *chaosEnv) mark() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.events)
}

// waitPhases waits until, after mark, every reflector has reported a
// phase change to phase (from the phase from, if not ""); while waiting it
// moves the fake clock by step, which ends backoffs. It returns those
// events, by resource.
func (e *chaosEnv) waitPhases(mark int, phase, from string, step time.Duration) map[string]trace.Event {
	e.t.Helper()
	return e.waitPhasesOf(mark, phase, from, step, "pods", "replicasets.apps")
}

// waitPhasesOf is waitPhases for the reflectors of the resources named.
func (e *chaosEnv) waitPhasesOf(mark int, phase, from string, step time.Duration, resources ...string) map[string]trace.Event {
	e.t.Helper()
	got := map[string]trace.Event{}
	require.Eventually(e.t, func() bool {
		for _, ev := range e.phases(mark) {
			if ev.Get(trace.KeyPhase) == phase && (from == "" || ev.Get("from") == from) && slices.Contains(resources, ev.Get(trace.KeyResource)) {
				got[ev.Get(trace.KeyResource)] = ev
			}
		}
		// Watching: and the new watches open at the server, so that the
		// next fault finds them.
		if len(got) == len(resources) && (phase != "watching" || e.srv.OpenWatches("pods") == 1 && e.srv.OpenWatches("replicasets") == 1) {
			return true
		}
		if e.backingOff() {
			e.clk.Step(step) // only then: a relist takes no fake time
		}
		return false
	}, 10*time.Second, time.Millisecond, "%v %s", resources, phase)
	return got
}

// post sends a request to the fake server, as curl or kubectl would.
func (e *chaosEnv) post(method, path, contentType, body string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	require.NoError(e.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	resp.Body.Close()
	require.Equal(e.t, http.StatusOK, resp.StatusCode, path)
}

// With the default chaos, every backoff it causes is a first wait: no
// fault comes while a reflector backs off, and a compaction (a 410 and a
// backoff for every reflector) comes only after ResetAfter without a
// backoff, when reflector/backoff.go starts the wait over from Initial.
// Fifteen minutes of 10 s ticks, on a fake clock.
func TestChaos_EveryBackoffItCausesIsAFirstWait(t *testing.T) {
	e := newChaosEnv(t, todayInformer)
	rolls := []int{3, 2, 0, 3, 1, 3, 3, 2} // compaction tried often
	i := 0
	e.f.roll = func() int { i++; return rolls[i%len(rolls)] }
	const every = 10 * time.Second // the default --chaos-every
	var compactions []time.Time
	webPods := func() int { pods, _ := e.f.pods.ByNamespace("default").List(webSelector()); return len(pods) }
	for range 90 {
		e.clk.Step(every)
		mark, before := e.mark(), webPods()
		switch e.f.tick(context.Background(), e.clk.Now(), every) {
		case deletePodFault: // the pod informer sees it go: the next tick finds none terminating
			require.Eventually(t, func() bool { return webPods() < before && e.f.world().terminating == 0 }, 10*time.Second, time.Millisecond)
		case compactFault:
			compactions = append(compactions, e.clk.Now())
			e.waitPhases(mark, "backing off", "", 0)
			e.waitPhases(mark, "watching", "listing", 100*time.Millisecond) // the backoffs end, the relists are done
			e.poke()
		case dropWatchesFault:
			e.rewatched(mark) // its start on the clock before the next step
		}
	}
	b := reflector.DefaultBackoff
	longest := time.Duration(float64(b.Initial) * (1 + b.Jitter))
	backoffs := 0
	for _, ev := range e.phases(0) {
		if ev.Get(trace.KeyPhase) != "backing off" {
			continue
		}
		backoffs++
		d, err := time.ParseDuration(ev.Get(trace.KeyDelay))
		require.NoError(t, err)
		require.LessOrEqual(t, d, longest, "a backoff that doubled: %s", ev)
	}
	t.Logf("%d compactions at %v, %d backoffs, none longer than %v", len(compactions), compactions, backoffs, longest)
	require.GreaterOrEqual(t, len(compactions), 4)
	require.Equal(t, 2*len(compactions), backoffs, "each compaction: one 410 per reflector, nothing else")
	for j := 1; j < len(compactions); j++ {
		require.Greater(t, compactions[j].Sub(compactions[j-1]), b.ResetAfter)
	}
}

// The chaos loop leaves the pods the tour names to you.
func TestChaos_SparesThePodsTheTourNames(t *testing.T) {
	e := newChaosEnv(t, todayInformer)
	e.f.spare("web-a", "web-c")
	name, err := e.f.deletePod(context.Background(), "chaos", "")
	require.NoError(t, err)
	require.Equal(t, "web-b", name)
	require.Eventually(t, func() bool { _, err := e.f.pods.ByNamespace("default").Get("web-b"); return err != nil },
		10*time.Second, time.Millisecond, "the pod informer sees web-b go")
	_, err = e.f.deletePod(context.Background(), "chaos", "")
	require.ErrorIs(t, err, errNoPodToDelete, "only the tour's pods are left")
	name, err = e.f.deletePod(context.Background(), "you (page)", "")
	require.NoError(t, err, "you may delete them")
	require.Contains(t, []string{"web-a", "web-c"}, name)
}

// The tour's compact lines give the 410 they promise. A compaction alone
// does not: a reflector that has seen the server's last change (or a
// bookmark) watches again from exactly the compacted version, which the
// server still serves. And a watch closed within a second of its start,
// with no event in it, is a very short watch: a backoff and a relist
// without any 410 (why the chaos loop waits for the watches to settle and
// keeps out of your experiments). With either informer.
func TestTour_CompactLinesGiveThe410TheyPromise(t *testing.T) {
	for _, inf := range []informerKind{todayInformer, articlesInformer} {
		t.Run(inf.String(), func(t *testing.T) {
			e := newChaosEnv(t, inf)

			// A compaction alone: the pods reflector, which saw the last
			// change (the poke's pod), watches again from the compacted
			// version, which the server still serves; only the replicasets
			// reflector, a version behind, gets its 410.
			mark := e.mark()
			e.post(http.MethodPost, "/faults/compact", "", "")
			e.post(http.MethodPost, "/faults/close-watches", "", "")
			ev := e.waitPhasesOf(mark, "backing off", "", 0, "replicasets.apps")["replicasets.apps"]
			require.Equal(t, "410 Expired", ev.Get(trace.KeyReason))
			e.waitPhasesOf(mark, "watching", "listing", 100*time.Millisecond, "replicasets.apps")
			for _, ev := range e.phases(mark) {
				if ev.Get(trace.KeyResource) == "pods" {
					require.Equal(t, "ended cleanly", ev.Get(trace.KeyReason), "%s", ev)
				}
			}
			e.poke()

			// The tour's lines, in order: the write no informer watches,
			// the compaction, the watches closed.
			plan := englishTexts.tourPlan(e.url, "1")
			var lines []string
			for _, s := range plan.Steps {
				for _, l := range s.Lines {
					lines = append(lines, l.Cmd)
				}
			}
			at := slices.IndexFunc(lines, func(c string) bool { return strings.Contains(c, "annotate configmap settings") })
			require.GreaterOrEqual(t, at, 0)
			require.Equal(t, []string{"kubectl --server " + e.url + " annotate configmap settings try=$(date +%s) --overwrite",
				"curl -X POST " + e.url + "/faults/compact", "curl -X POST " + e.url + "/faults/close-watches"},
				strings.Split(lines[at], " && "), "one line: nothing comes between the compaction and the drop")
			mark = e.mark()
			e.post(http.MethodPatch, "/api/v1/namespaces/default/configmaps/settings", "application/merge-patch+json",
				`{"metadata":{"annotations":{"try":"1"}}}`) // kubectl annotate
			e.post(http.MethodPost, "/faults/compact", "", "")
			e.post(http.MethodPost, "/faults/close-watches", "", "")
			for res, ev := range e.waitPhases(mark, "backing off", "", 0) {
				require.Equal(t, "410 Expired", ev.Get(trace.KeyReason), res)
			}
			e.waitPhases(mark, "watching", "listing", 100*time.Millisecond)

			// The same lines right after the watches were opened again,
			// on a clock that has not moved since, and without an event:
			// a very short watch, no 410.
			e.poke()
			mark = e.mark()
			e.post(http.MethodPost, "/faults/close-watches", "", "")
			e.rewatched(mark)
			mark = e.mark()
			e.post(http.MethodPatch, "/api/v1/namespaces/default/configmaps/settings", "application/merge-patch+json",
				`{"metadata":{"annotations":{"try":"2"}}}`)
			e.post(http.MethodPost, "/faults/compact", "", "")
			e.post(http.MethodPost, "/faults/close-watches", "", "")
			for res, ev := range e.waitPhases(mark, "backing off", "", 0) {
				require.Equal(t, "very short watch", ev.Get(trace.KeyReason), res)
			}
			e.waitPhases(mark, "watching", "listing", 100*time.Millisecond)
			e.poke()

			// The chaos loop's compaction and the page's button write the
			// configmap first too.
			mark = e.mark()
			require.NoError(t, e.f.compact("chaos"))
			for res, ev := range e.waitPhases(mark, "backing off", "", 0) {
				require.Equal(t, "410 Expired", ev.Get(trace.KeyReason), res)
			}
		})
	}
}
