package main

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/trace"
)

// tev builds one trace event as a stage would report it.
func tev(stage, what string, attrs ...slog.Attr) trace.Event {
	return trace.Event{Stage: stage, What: what, Attrs: attrs}
}

// fixedTrace is one short story, told by the articles' informer
// (--informer articles): a pod created and followed to the
// controller, a reconcile, a relist after 410, a retry and a drop, a
// learner's fault, a compaction, and a delete learned from a relist.
var fixedTrace = []trace.Event{
	tev(trace.StageServer, "commit", trace.Resource("pods"), trace.Key("default/web-abc"), trace.Type("ADDED"), trace.RV("7")),
	tev(trace.StageListWatch, "frame decoded", trace.Key("default/web-abc"), trace.Type("ADDED"), trace.RV("7")),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Key("default/web-abc"), trace.RV("7")),
	tev(trace.StageInformer, "cache add", trace.Key("default/web-abc"), trace.RV("7")),
	tev(trace.StageController, "enqueue", trace.Key("default/web"), slog.String("from", "default/web-abc")),
	tev(trace.StageController, "reconciled", trace.Key("default/web"), slog.String("found", "have 2 of 3"), slog.String("did", "created 1 of 1")),
	tev(trace.StageController, "reconciled", trace.Key("default/web"), slog.String("found", "have 3 of 3"), slog.String("did", "nothing")),
	tev(trace.StageReflector, "phase", trace.Resource("pods"), slog.String("from", "watching"), trace.Phase("listing"), trace.Reason("410 Expired")),
	tev(trace.StageReflector, "phase", trace.Resource("pods"), slog.String("from", "listing"), trace.Phase("watching"), trace.Reason("listed")),
	tev(trace.StageController, "retry", trace.Key("default/web"), trace.Count(2), trace.Delay(20*time.Millisecond)),
	tev(trace.StageController, "dropped", trace.Key("default/web"), trace.Reason("boom")),
	tev(trace.StageServer, faultRequested, slog.String("path", "/faults/close-watches"), slog.String("did", "closed every watch (2 open)"),
		slog.String("then", "each reflector watches again from its last resourceVersion, without a relist (after /faults/compact: 410 Expired and a relist)")),
	tev(trace.StageServer, "history compacted", trace.RV("12")),
	tev(trace.StageServer, "commit", trace.Resource("pods"), trace.Key("default/web-xyz"), trace.Type("DELETED"), trace.RV("20")),
	tev(trace.StageDeltaFIFO, "tombstone queued", trace.Key("default/web-xyz"), trace.RV("15")),
	tev(trace.StageInformer, "cache delete", trace.Key("default/web-xyz"), trace.RV("15")),
	tev(trace.StageController, "enqueue", trace.Key("default/web"), slog.String("from", "default/web-xyz")),
}

// elapsed is the time column narration lines start with.
var elapsed = regexp.MustCompile(`(?m)^ *\d+\.\d+s  `)

// The narration of the same trace, in English and in Chinese, in the
// glossary's words (docs/glossary.md).
func TestNarration_FixedTraceInBothLanguages(t *testing.T) {
	for _, tc := range []struct {
		name string
		lang language
		want []string
	}{
		{"en", english, []string{
			"pod default/web-abc created (rv 7) → ADDED frame → DeltaFIFO → cache → handler enqueues default/web",
			"worker: default/web: have 2 of 3 → created 1 of 1",
			"reflector(pods): watching → listing (410 Expired)",
			"reflector(pods): listing → watching (listed)",
			"worker: default/web failed; retry 2 after 20 ms",
			"worker: default/web dropped after too many retries: boom",
			"you: closed every watch (2 open) (POST /faults/close-watches; each reflector watches again from its last resourceVersion, without a relist (after /faults/compact: 410 Expired and a relist))",
			"server: history compacted at rv 12: a watch from an older rv now gets 410 Expired",
			"pod default/web-xyz deleted (rv 20) → relist → DeltaFIFO tombstone (the DELETED event was missed) → cache → handler enqueues default/web",
		}},
		{"zh", chinese, []string{
			"pod default/web-abc 已创建（rv 7） → ADDED 帧 → 增量队列 → 本地缓存 → 事件处理器把 default/web 放入工作队列",
			"worker：default/web：现有 2 个 pod，期望 3 个 → 创建了 1 个 pod（共要创建 1 个）",
			"反射器(pods)：监听（watch） → 列举（list）（410 过期（Expired））",
			"反射器(pods)：列举（list） → 监听（watch）（列举完成）",
			"worker：default/web 调谐失败；20 ms 后第 2 次重试",
			"worker：default/web 重试次数过多，已丢弃：boom",
			"你：断开了所有监听（2 个）（POST /faults/close-watches；每个反射器从它最后的 resourceVersion 重新监听，不做全量同步（若先 /faults/compact：410 过期，然后全量同步））",
			"服务器：历史在 rv 12 处被压缩：从更早的 rv 开始的监听现在会得到 410 过期（Expired）",
			"pod default/web-xyz 已删除（rv 20） → 全量同步 → 增量队列里的墓碑（错过了 DELETED 事件） → 本地缓存 → 事件处理器把 default/web 放入工作队列",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			n := newNarrator(&out, true, false)
			n.t = textsFor(tc.lang)
			n.informer = articlesInformer // a DeltaFIFO's story
			for _, e := range fixedTrace {
				n.event(e)
			}
			t.Log("\n" + out.String()) // the narration, under -v
			got := strings.Split(strings.TrimSuffix(elapsed.ReplaceAllString(out.String(), ""), "\n"), "\n")
			require.Equal(t, tc.want, got)
		})
	}
}

// todayTrace is the same kind of story told by today's informer
// (--informer today): a streaming list, the initial list as one
// ReplacedAll, a pod created and popped with the queue's lock released, a
// batch of two in one store transaction, a bookmark recorded in the store,
// and a relist (one ReplacedAll again) that finds a pod gone.
var todayTrace = []trace.Event{
	tev(trace.StageReflector, "streaming list", trace.Resource("pods"), trace.RV("")),
	tev(trace.StageReflector, "initial events end", trace.Resource("pods"), trace.RV("6"), trace.Count(2)),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Resource("pods"), trace.Type("ReplacedAll"), trace.Key(""), trace.RV("6"), trace.Count(1)),
	tev(trace.StageInformer, "cache replace", trace.Resource("pods"), trace.Count(2), trace.RV("6"), slog.Int("gone", 0)),
	tev(trace.StageServer, "commit", trace.Resource("pods"), trace.Key("default/web-abc"), trace.Type("ADDED"), trace.RV("7")),
	tev(trace.StageListWatch, "frame decoded", trace.Key("default/web-abc"), trace.Type("ADDED"), trace.RV("7")),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Resource("pods"), trace.Type("Added"), trace.Key("default/web-abc"), trace.RV("7"), trace.Count(1)),
	tev(trace.StageDeltaFIFO, "pop", trace.Resource("pods"), trace.Key("default/web-abc"), trace.RV("7"), trace.Count(0), slog.Bool("unlocked", true)),
	tev(trace.StageInformer, "cache add", trace.Resource("pods"), trace.Key("default/web-abc"), trace.RV("7")),
	tev(trace.StageController, "enqueue", trace.Key("default/web"), slog.String("from", "default/web-abc")),
	tev(trace.StageServer, "commit", trace.Resource("pods"), trace.Key("default/web-def"), trace.Type("ADDED"), trace.RV("8")),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Resource("pods"), trace.Type("Added"), trace.Key("default/web-def"), trace.RV("8"), trace.Count(1)),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Resource("pods"), trace.Type("Added"), trace.Key("default/web-ghi"), trace.RV("9"), trace.Count(2)),
	tev(trace.StageDeltaFIFO, "pop batch", trace.Resource("pods"), trace.Count(2), slog.String("keys", "default/web-def..default/web-ghi"), slog.Int("left", 0), slog.Bool("unlocked", true)),
	tev(trace.StageInformer, "cache transaction", trace.Resource("pods"), trace.Count(2), trace.Key("default/web-def..default/web-ghi")),
	tev(trace.StageInformer, "cache add", trace.Resource("pods"), trace.Key("default/web-def"), trace.RV("8"), slog.String("in", "transaction")),
	tev(trace.StageInformer, "cache add", trace.Resource("pods"), trace.Key("default/web-ghi"), trace.RV("9"), slog.String("in", "transaction")),
	tev(trace.StageController, "enqueue", trace.Key("default/web"), slog.String("from", "default/web-def")),
	tev(trace.StageInformer, "store bookmark", trace.Resource("pods"), trace.RV("12")),
	tev(trace.StageServer, "commit", trace.Resource("pods"), trace.Key("default/web-abc"), trace.Type("DELETED"), trace.RV("20")),
	tev(trace.StageDeltaFIFO, "delta queued", trace.Resource("pods"), trace.Type("ReplacedAll"), trace.Key(""), trace.RV("21"), trace.Count(1)),
	tev(trace.StageInformer, "cache replace", trace.Resource("pods"), trace.Count(2), trace.RV("21"), slog.Int("gone", 1)),
	tev(trace.StageInformer, "cache delete (tombstone: final state unknown)", trace.Resource("pods"), trace.Key("default/web-abc"), trace.RV("7"), slog.String("in", "replace")),
	tev(trace.StageController, "enqueue", trace.Key("default/web"), slog.String("from", "default/web-abc")),
}

// Today's informer's hops, each in one line, in English and in Chinese: a
// relist is one item and one cache write, a batch one store transaction, a
// bookmark moves the store's version, a streaming list ends with its
// bookmark, and a pop releases the queue's lock while the handlers run.
func TestNarration_TodaysHopsInBothLanguages(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lang    language
		want    []string
		summary []string
	}{
		{"en", english, []string{
			"reflector(pods): streaming list: 2 initial events, then the initial-events-end bookmark at rv 6",
			"informer(pods): ReplacedAll: 2 objects, cache replaced in one step at rv 6 (0 gone), then the handlers",
			"pod default/web-abc created (rv 7) → ADDED frame → RealFIFO → popped, lock released → cache → handler enqueues default/web",
			"informer(pods): batch of 2 deltas (default/web-def..default/web-ghi), one store transaction, queue unlocked while the handlers are told",
			"pod default/web-def created (rv 8) → RealFIFO → cache (one transaction for the batch) → handler enqueues default/web",
			"informer(pods): bookmark delta: store at rv 12",
			"informer(pods): ReplacedAll: 2 objects, cache replaced in one step at rv 21 (1 gone), then the handlers",
			"pod default/web-abc deleted (rv 20) → relist → ReplacedAll: not in the list (the DELETED event was missed) → cache → handler enqueues default/web",
		}, []string{"today's hops:          2 ReplacedAll (a list or relist, one item each), 1 batches (2 deltas), 1 bookmark deltas",
			"tombstones:            1 "}},
		{"zh", chinese, []string{
			"反射器(pods)：流式列举：2 个初始事件，然后是 rv 6 处的初始事件结束书签（initial-events-end bookmark）",
			"通知器(pods)：ReplacedAll：2 个对象，本地缓存在 rv 6 处一步替换（0 个已不存在），然后才通知事件处理器",
			"pod default/web-abc 已创建（rv 7） → ADDED 帧 → 增量队列（RealFIFO） → 出队，释放队列锁 → 本地缓存 → 事件处理器把 default/web 放入工作队列",
			"通知器(pods)：一批 2 个增量（default/web-def..default/web-ghi），一次存储事务，通知事件处理器时队列锁已释放",
			"pod default/web-def 已创建（rv 8） → 增量队列（RealFIFO） → 本地缓存（整批一次事务） → 事件处理器把 default/web 放入工作队列",
			"通知器(pods)：书签增量：存储到达 rv 12",
			"通知器(pods)：ReplacedAll：2 个对象，本地缓存在 rv 21 处一步替换（1 个已不存在），然后才通知事件处理器",
			"pod default/web-abc 已删除（rv 20） → 全量同步 → ReplacedAll：列表里没有它（错过了 DELETED 事件） → 本地缓存 → 事件处理器把 default/web 放入工作队列",
		}, []string{"今天的各跳：      ReplacedAll 2 个（每次列举或全量同步一个条目），批次 1 个（共 2 个增量），书签增量 1 个",
			"墓碑：            1 个"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			n := newNarrator(&out, true, false)
			n.t = textsFor(tc.lang)
			n.informer = todayInformer
			for _, e := range todayTrace {
				n.event(e)
			}
			t.Log("\n" + out.String()) // the narration, under -v
			got := strings.Split(strings.TrimSuffix(elapsed.ReplaceAllString(out.String(), ""), "\n"), "\n")
			require.Equal(t, tc.want, got)

			// The summary counts the same hops: two ReplacedAlls, one
			// batch of two, one bookmark, and the key the relist found gone.
			sum := summary(n, replicaset.Stats{}, 0, check{ok: true})
			t.Log(sum)
			for _, want := range tc.summary {
				require.Contains(t, sum, want)
			}
		})
	}
}

// The tour and the summary say which informer runs, in both languages;
// every line today's informer adds has its Chinese.
func TestNarration_TourAndSummaryNameTheInformer(t *testing.T) {
	for _, inf := range []informerKind{todayInformer, articlesInformer} {
		for _, tx := range []*texts{englishTexts, chineseTexts} {
			var out strings.Builder
			n := newNarrator(&out, true, false)
			n.t, n.informer = tx, inf
			tour := tx.tour("http://127.0.0.1:9999", "42", inf)
			s := summary(n, replicaset.Stats{}, 0, check{ok: true})
			require.Contains(t, tour, "--informer "+inf.String())
			require.Contains(t, tour, "→ "+tx.queue(inf), "the tour's pipeline names the queue")
			require.Contains(t, s, tx.informerName(inf))
			if inf == todayInformer {
				require.Contains(t, tour, "ReplacedAll")
				require.Contains(t, s, "ReplacedAll")
			} else {
				require.NotContains(t, s, "ReplacedAll")
			}
		}
	}
	en, zh := *englishTexts, *chineseTexts
	for _, pair := range [][2]string{
		{en.realFIFO, zh.realFIFO}, {en.unlocked, zh.unlocked}, {en.cacheInBatch, zh.cacheInBatch},
		{en.cacheInReplace, zh.cacheInReplace}, {en.replacedGone, zh.replacedGone}, {en.replacedAll, zh.replacedAll},
		{en.batch, zh.batch}, {en.batchUnlocked, zh.batchUnlocked}, {en.bookmark, zh.bookmark},
		{en.streamingList, zh.streamingList}, {en.informerToday, zh.informerToday}, {en.informerArticles, zh.informerArticles},
	} {
		require.NotEmpty(t, pair[0])
		require.NotEqual(t, pair[0], pair[1], "%q has no Chinese", pair[0])
	}
}

// The demo's own lines, the tour and the summary speak the chosen
// language too.
func TestNarration_TourAndSummaryInChinese(t *testing.T) {
	var out strings.Builder
	n := newNarrator(&out, true, false)
	n.t = chineseTexts
	f := &faults{n: n}
	f.n.say(n.t.deletingPod, n.t.who("chaos"), "web-abc")
	n.say("%s", n.t.stopping)
	require.Contains(t, out.String(), "混沌：删除 pod default/web-abc")
	require.Contains(t, out.String(), "停止中")

	tour := chineseTexts.tour("http://127.0.0.1:9999", "42", articlesInformer)
	require.Contains(t, tour, `curl "http://127.0.0.1:9999/api/v1/namespaces/default/pods?watch=true&resourceVersion=42"`)
	require.Contains(t, tour, "增量队列（DeltaFIFO）")
	require.NotContains(t, tour, "Try, in another terminal")

	c := check{caches: map[string]string{"pods": "ok"}, ok: true, counted: true, active: 3, statusReplicas: 3, ready: 3, wantRep: 3}
	s := summary(n, replicaset.Stats{Reconciles: 4}, 1, c)
	require.Contains(t, s, "调谐 4 次")
	require.Contains(t, s, "pods 的本地缓存与服务器：一致")
	require.Contains(t, s, "最终检查通过（PASSED）")
	require.NotContains(t, s, "summary")
}

// --lang wins; without it LC_ALL, then LANG, picks Chinese when it starts
// with zh; anything else is English.
func TestParseLanguage(t *testing.T) {
	for _, tc := range []struct {
		flag, lcAll, lang string
		want              language
		wantErr           bool
	}{
		{lang: "", want: english},
		{lang: "en_US.UTF-8", want: english},
		{lang: "zh_CN.UTF-8", want: chinese},
		{lang: "zh_TW", want: chinese},
		{lcAll: "zh_CN.UTF-8", lang: "en_US.UTF-8", want: chinese},
		{lcAll: "C", lang: "zh_CN.UTF-8", want: english},
		{flag: "en", lang: "zh_CN.UTF-8", want: english},
		{flag: "zh", lang: "en_US.UTF-8", want: chinese},
		{flag: "zh_CN", want: chinese},
		{flag: "fr", wantErr: true},
	} {
		env := map[string]string{"LC_ALL": tc.lcAll, "LANG": tc.lang}
		got, err := parseLanguage(tc.flag, func(k string) string { return env[k] })
		if tc.wantErr {
			require.Error(t, err, "%+v", tc)
			continue
		}
		require.NoError(t, err, "%+v", tc)
		require.Equal(t, tc.want, got, "%+v", tc)
	}
}

// LANG=zh_CN.UTF-8, as a Chinese desktop sets it, makes the demo speak
// Chinese without --lang.
func TestDemo_LangZhCNPicksChinese(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LANG", "zh_CN.UTF-8")
	o, err := parseFlags(nil)
	require.NoError(t, err)
	require.Equal(t, chinese, o.lang)
	require.Same(t, chineseTexts, textsFor(o.lang))

	t.Setenv("LANG", "en_US.UTF-8")
	o, err = parseFlags(nil)
	require.NoError(t, err)
	require.Equal(t, english, o.lang)
}

// Every reason a reflector gives for a phase change (reflector/phases.go)
// reads in Chinese in Chinese mode, the streaming list's too.
func TestNarration_ReflectorReasonsInChinese(t *testing.T) {
	zh := textsFor(chinese)
	for _, r := range []string{
		"start", "listed", "backoff over", "context ended", "stopped", "very short watch",
		"dropped connection", "ended cleanly", "connection refused", "410 Expired", "504 too large resource version",
		"dropped connection before the initial-events-end bookmark", "ended before the initial-events-end bookmark",
		"streaming list: very short watch", "streaming list: ended before the initial-events-end bookmark",
		"429 TooManyRequests", "500 InternalError", "503 ServiceUnavailable", // the page's fail buttons
	} {
		got := zh.reason(r)
		t.Logf("%s → %s", r, got)
		require.NotEqual(t, r, got, "reason %q has no Chinese", r)
		require.NotContains(t, got, "streaming list", "reason %q keeps English words", r)
	}
}

// The tour says how to follow it without the chaos loop in the way, in
// both languages.
func TestTour_NamesHowToTurnChaosOff(t *testing.T) {
	for _, lang := range []language{english, chinese} {
		got := textsFor(lang).tour("http://127.0.0.1:8080", "7", todayInformer)
		t.Log(strings.SplitN(got, "\n\n", 2)[0]) // the tour's first paragraph, under -v
		require.Contains(t, got, `make demo ARGS="--chaos-every 0"`)
	}
}

// A backoff is narrated with its wait, what follows it and the rule the
// wait follows; a retry that only waited for the cache to catch up with
// the controller's own write says so. In both languages.
func TestNarration_BackoffSaysHowLongAndWhy(t *testing.T) {
	story := []trace.Event{
		tev(trace.StageReflector, "phase", trace.Resource("pods"), slog.String("from", "watching"), trace.Phase("backing off"),
			trace.Reason("410 Expired"), trace.Delay(2837*time.Millisecond), slog.String("next", "relist")),
		tev(trace.StageReflector, "phase", trace.Resource("pods"), slog.String("from", "watching"), trace.Phase("backing off"),
			trace.Reason("429 TooManyRequests"), trace.Delay(time.Second), slog.String("next", "rewatch")),
		tev(trace.StageController, "cache behind own write", trace.Key("default/web")),
		tev(trace.StageController, "retry", trace.Key("default/web"), trace.Count(1), trace.Delay(5*time.Millisecond)),
		tev(trace.StageController, "retry", trace.Key("default/web"), trace.Count(2), trace.Delay(10*time.Millisecond)),
	}
	for _, tc := range []struct {
		lang language
		want []string
	}{
		{english, []string{
			"reflector(pods): watching → backing off (410 Expired): 2.84 s before the next list; the wait doubles with each failure up to 30 s (plus jitter) and starts over at 800 ms after 2 min without one",
			"reflector(pods): watching → backing off (429 TooManyRequests): 1 s before the next watch; the wait doubles with each failure up to 30 s (plus jitter) and starts over at 800 ms after 2 min without one",
			"worker: default/web: the cache has not caught up with the controller's own write yet; retry 1 after 5 ms",
			"worker: default/web failed; retry 2 after 10 ms",
		}},
		{chinese, []string{
			"反射器(pods)：监听（watch） → 退避（410 过期（Expired））：2.84 s 后开始下一次列举（list）；每失败一次等待翻倍，最多 30 s（另加随机抖动），2 min 内没有失败就从 800 ms 重新开始",
			"反射器(pods)：监听（watch） → 退避（429 请求过多（TooManyRequests））：1 s 后开始下一次监听（watch）；每失败一次等待翻倍，最多 30 s（另加随机抖动），2 min 内没有失败就从 800 ms 重新开始",
			"worker：default/web：本地缓存还没跟上控制器自己的写入；5 ms 后第 1 次重试",
			"worker：default/web 调谐失败；10 ms 后第 2 次重试",
		}},
	} {
		var out strings.Builder
		n := newNarrator(&out, true, false)
		n.t = textsFor(tc.lang)
		for _, e := range story {
			n.event(e)
		}
		t.Log("\n" + out.String())
		require.Equal(t, tc.want, strings.Split(strings.TrimSuffix(elapsed.ReplaceAllString(out.String(), ""), "\n"), "\n"))
	}
}
