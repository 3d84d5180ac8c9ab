package informer

import (
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// One option picks the informer (pipeline.go). The zero value is Today,
// what client-go 1.36 runs; Articles is the articles' one, to which the
// finer knobs each add a piece client-go added since.
func TestPipeline_TodayIsTheDefault(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts SharedIndexInformerOptions
		want pipelineChoice
	}{
		{"zero options: today's", SharedIndexInformerOptions{},
			pipelineChoice{queue: RealFIFOQueue, realFIFO: ClientGo136(), useWatchList: true}},
		{"today with knobs: all on already", SharedIndexInformerOptions{Queue: DeltaFIFOQueue, RealFIFO: RealFIFOFeatures{AtomicFIFO: true}},
			pipelineChoice{queue: RealFIFOQueue, realFIFO: ClientGo136(), useWatchList: true}},
		{"articles", SharedIndexInformerOptions{Pipeline: Articles},
			pipelineChoice{queue: DeltaFIFOQueue}},
		{"articles + RealFIFOQueue: the 1.33 informer", SharedIndexInformerOptions{Pipeline: Articles, Queue: RealFIFOQueue},
			pipelineChoice{queue: RealFIFOQueue}},
		{"articles + UseWatchList: the 1.35 streaming list", SharedIndexInformerOptions{Pipeline: Articles, UseWatchList: true},
			pipelineChoice{queue: DeltaFIFOQueue, useWatchList: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.opts.choose())
		})
	}

	today := NewSharedIndexInformerWithOptions(newFakeLW(), &api.Pod{}, testOptions(t, SharedIndexInformerOptions{})).(*sharedIndexInformer)
	_, isReal := today.newQueue().(*deltafifo.RealFIFO)
	require.True(t, isReal, "today's queue is the RealFIFO")
	require.NotNil(t, today.processBatch(), "popping batches")
	// The articles' informer: a DeltaFIFO whose KnownObjects is the cache.
	articles := NewSharedIndexInformerWithOptions(newFakeLW(), &api.Pod{}, testOptions(t, SharedIndexInformerOptions{Pipeline: Articles})).(*sharedIndexInformer)
	_, isDelta := articles.newQueue().(*deltafifo.DeltaFIFO)
	require.True(t, isDelta, "the articles' queue is the DeltaFIFO")
	require.Nil(t, articles.processBatch())
	require.Equal(t, "today", Today.String())
	require.Equal(t, "articles", Articles.String())
}

// The articles' informer and today's run side by side against one fake
// API server through the same chaos: writes and deletes, watches cut
// (resumed from their last version), compactions that force a relist, and
// outages (fakeapiserver Server.Outage: every event dropped for a while,
// then the history compacted and every watch closed). They get there by
// different roads (a paged list and per-object Replaced deltas and
// tombstones; a streaming list and one ReplacedAll applied in one write)
// but end with the same cache: the server's objects, key for key and
// resourceVersion for resourceVersion.
func TestInformer_ArticlesAndTodayEndWithTheSameCache(t *testing.T) {
	clk := clock.NewFakeClock(time.Unix(0, 0))
	e := newServerEnv(t, fakeapiserver.Options{History: 40, Clock: clk, Tracer: faultStory(t)})
	e.clock = clk // the server's outages and the informers' backoffs on one fake clock

	type run struct {
		pipeline Pipeline
		lw       *listCounter
		inf      SharedIndexInformer
		rec      *trace.Recorder
	}
	var runs []*run
	for _, p := range []Pipeline{Articles, Today} {
		lw := e.listWatch(listwatch.ConfigMaps, nil).(*listCounter)
		rec := trace.NewRecorder()
		inf := NewSharedIndexInformerWithOptions(lw, &api.ConfigMap{}, testOptions(t, SharedIndexInformerOptions{
			Pipeline: p, // the articles' informer, then today's
			Clock:    e.clock, Logger: testLogger(t, fmt.Sprintf("(%s informer, expected in this test)", p)),
			Tracer: trace.Tee(e.tracer.With(slog.String("pipeline", p.String())), rec.Tracer()),
		}))
		runInformer(t, inf)
		runs = append(runs, &run{pipeline: p, lw: lw, inf: inf, rec: rec})
	}
	e.eventually(func() bool {
		return runs[0].inf.HasSynced() && runs[1].inf.HasSynced() && e.srv.OpenWatches("configmaps") == 2
	}, "both synced and watching")

	caughtUp := func() bool {
		for _, r := range runs {
			if r.inf.LastSyncResourceVersion() != e.srv.ResourceVersion() {
				return false
			}
		}
		return true
	}
	rnd := rand.New(rand.NewPCG(24, 24))
	live := map[string]bool{}
	const ops = 300
	for op := range ops {
		e.randomWrite(rnd, live, 20, op)
		switch op % 60 {
		case 5, 30:
			// Let both catch up, so that the writes until the next fault
			// reach them as watch events, not only through relists.
			e.eventually(caughtUp, "both informers caught up at op %d", op)
		case 10:
			t.Logf("test: op %d: every watch cut; each resumes from its last version", op)
			e.srv.CloseWatches()
		case 25:
			t.Logf("test: op %d: the history compacted and every watch cut: both relist", op)
			e.srv.CompactHistory()
			e.srv.CloseWatches()
		case 35:
			t.Logf("test: op %d: an outage of 3s begins: every event dropped", op)
			e.srv.Outage(3 * time.Second)
		case 50:
			t.Logf("test: op %d: the outage ends: history compacted, every watch closed (the deaf ones with 410)", op)
			e.clock.Step(3 * time.Second)
		case 55:
			e.clock.Step(2 * time.Second) // a Reflector waiting out a backoff goes on
		}
	}

	want := cacheVersions(e.serverKeys("configmaps", "default"))
	e.eventually(func() bool {
		for _, r := range runs {
			if !maps.Equal(want, cacheVersions(cachedKeys(r.inf.GetStore()))) {
				return false
			}
		}
		return true
	}, "both caches end equal to the server's objects")
	for _, r := range runs {
		got := cacheVersions(cachedKeys(r.inf.GetStore()))
		require.Equal(t, want, got, "%s: key -> resourceVersion", r.pipeline)
		t.Logf("test: %s informer: %d objects, as the server; %d lists (%s), %d plain watches",
			r.pipeline, len(got), r.lw.lists.Load(), map[Pipeline]string{Articles: "paged", Today: "streaming"}[r.pipeline], r.lw.watches.Load())
	}
	require.Greater(t, runs[0].lw.lists.Load(), int32(1), "the articles' informer relisted")
	require.Greater(t, runs[1].lw.lists.Load(), int32(1), "today's informer relisted")
	// The two roads: deletes missed in an outage came back to the articles'
	// informer as tombstones its DeltaFIFO queued; today's queue made none,
	// its relists were ReplacedAll items applied in one cache write each.
	require.NotEmpty(t, eventsOf(runs[0].rec, trace.StageDeltaFIFO, "tombstone queued"), "articles: tombstones")
	require.Empty(t, eventsOf(runs[0].rec, trace.StageInformer, "cache replace"), "articles: no ReplacedAll")
	require.Empty(t, eventsOf(runs[1].rec, trace.StageDeltaFIFO, "tombstone queued"), "today: no tombstones")
	require.Greater(t, len(eventsOf(runs[1].rec, trace.StageInformer, "cache replace")), 1, "today: the first list and the relists, each one ReplacedAll")
}

// cacheVersions turns cachedKeys' "ns/name@rv" into key -> resourceVersion.
func cacheVersions(keys []string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		at := len(k) - 1
		for at >= 0 && k[at] != '@' {
			at--
		}
		out[k[:at]] = k[at+1:]
	}
	return out
}
