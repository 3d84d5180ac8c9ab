package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The demo speaks English, or Chinese with --lang zh (and by default when
// LC_ALL, or else LANG, starts with "zh"). The Chinese words are the ones
// docs/glossary.md lists: 反射器 for the Reflector, 增量队列 for the
// DeltaFIFO, 本地缓存 for the cache, 事件处理器 for a handler, 全量同步 for
// a relist, and so on. Every line the demo prints to the user goes through
// a texts value: the narration (narrate.go), the kubelet and the chaos loop
// (world.go, chaos.go), the tour (tour.go) and the summary (summary.go).
// Trace events themselves (--trace) stay as the stages wrote them, in
// English, because they are what the tests and docs/trace.md quote.

// language is the language of the demo's narration.
type language int

const (
	english language = iota
	chinese
)

// parseLanguage reads --lang: "en", "zh" (or a locale such as zh_CN.UTF-8),
// or "" to pick from the environment, as getenv reads it.
func parseLanguage(flagValue string, getenv func(string) string) (language, error) {
	v := flagValue
	if v == "" {
		// LC_ALL overrides LANG, as in every POSIX program.
		if v = getenv("LC_ALL"); v == "" {
			v = getenv("LANG")
		}
		if strings.HasPrefix(strings.ToLower(v), "zh") {
			return chinese, nil
		}
		return english, nil
	}
	switch lower := strings.ToLower(v); {
	case lower == "en" || strings.HasPrefix(lower, "en_") || strings.HasPrefix(lower, "en-"):
		return english, nil
	case strings.HasPrefix(lower, "zh"):
		return chinese, nil
	}
	return english, fmt.Errorf("--lang %q: want en or zh", flagValue)
}

// texts is everything the demo says, in one language. The format strings
// take their arguments in the same order in both languages (Chinese ones
// use explicit indexes like %[2]s where the word order differs).
type texts struct {
	lang language

	// narrate.go: one change's chain of hops.
	commit       string // singular, key, past tense, rv
	frame        string // the event type
	deltaFIFO    string
	realFIFO     string
	unlocked     string // a pop handled with the queue's lock released
	tombstone    string
	cache        string
	cacheInBatch string // the cache hop of a delta applied in a batch's transaction
	// the cache hop of an object a list (one ReplacedAll) brought
	cacheInReplace string
	replacedGone   string // the hop of a key today's relist found gone
	enqueues       string // key
	chainSep       string
	reconciled     string // key, found, did
	retry          string // key, count, delay
	dropped        string // key, reason
	reflector      string // resource, phase, reason
	reflectorTo    string // resource, from, to, reason
	reflectorAgn   string // resource, phase, reason
	you            string // did, path, then
	compacted      string // rv

	// narrate.go: today's informer's hops, one line each.
	replacedAll   string // resource, n, rv, gone
	batch         string // resource, n, first..last key
	batchUnlocked string // appended to batch when the lock was released
	bookmark      string // resource, rv
	streamingList string // resource, n, rv

	// pipeline.go: the informer that runs.
	informerToday    string
	informerArticles string

	// main.go, world.go, chaos.go: the demo's own lines.
	starting    string // informer, url
	liveView    string // address
	stopping    string
	deletingPod string // who, name
	dropWatches string // who
	compacting  string // who, rv
	podRunning  string // namespace, name, node
	podStopped  string // namespace, name

	// narrate.go: a backoff, with how long it lasts (lang_backoff.go).
	backoff     string // resource, from, reason, wait, next, rule
	backoffRule string // cap, initial, reset after
	cacheWait   string // key, count, delay: a retry because the cache is behind the controller's own write
	nextList    string
	nextWatch   string

	// tour.go: the tour's words, a pod it could not name, and the heading
	// of the tour in short at the end.
	tourWords tourTexts
	anyPod    string
	tourAgain string

	// chaos_gate.go: why the chaos loop holds off (lang_backoff.go).
	heldForYou        string // chaos, since, ticks
	heldNoReflector   string // chaos
	heldReflectorBusy string // chaos, resource, phase
	heldWatchYoung    string // chaos, resource, for
	heldShort         string // chaos, ready, want
	heldTerminating   string // chaos
}

var englishTexts = &texts{
	lang:         english,
	commit:       "%s %s %s (rv %s)",
	frame:        "%s frame",
	deltaFIFO:    "DeltaFIFO",
	realFIFO:     "RealFIFO",
	unlocked:     "popped, lock released",
	tombstone:    "relist → DeltaFIFO tombstone (the DELETED event was missed)",
	cache:        "cache",
	cacheInBatch: "cache (one transaction for the batch)",

	cacheInReplace: "ReplacedAll → cache",
	replacedGone:   "relist → ReplacedAll: not in the list (the DELETED event was missed)",
	enqueues:       "handler enqueues %s",
	chainSep:       " → ",
	reconciled:     "worker: %s: %s → %s",
	retry:          "worker: %s failed; retry %s after %s",
	dropped:        "worker: %s dropped after too many retries: %s",
	reflector:      "reflector(%s): %s (%s)",
	reflectorTo:    "reflector(%s): %s → %s (%s)",
	reflectorAgn:   "reflector(%s): %s again (%s)",
	you:            "you: %s (POST %s; %s)",
	compacted:      "server: history compacted at rv %s: a watch from an older rv now gets 410 Expired",

	replacedAll:   "informer(%s): ReplacedAll: %s objects, cache replaced in one step at rv %s (%s gone), then the handlers",
	batch:         "informer(%s): batch of %s deltas (%s), one store transaction",
	batchUnlocked: ", queue unlocked while the handlers are told",
	bookmark:      "informer(%s): bookmark delta: store at rv %s",
	streamingList: "reflector(%s): streaming list: %s initial events, then the initial-events-end bookmark at rv %s",

	informerToday:    "today's informer, client-go 1.36's: streaming list, RealFIFO with atomic relists, batches and bookmarks, unlocked while handlers run",
	informerArticles: "the articles' informer: list then watch, DeltaFIFO with KnownObjects, one delta at a time under its lock",

	starting:    "starting two informers (%s) and the controller against %s",
	liveView:    "\nlive view: http://%s/  (the pipeline in a browser, with buttons that break it)\n",
	stopping:    "stopping: waiting for the world to settle before the final check",
	deletingPod: "%s: deleting pod default/%s",
	dropWatches: "%s: dropping every watch (each reflector resumes from its last resourceVersion, no relist)",
	compacting:  "%s: writing configmap settings (no informer watches it: the server's rv moves past every reflector's), then compacting history at rv %s and dropping watches (each reflector's next watch is from an older rv: 410 Expired → relist)",
	podRunning:  "kubelet: pod %s/%s is Running and Ready on %s",
	podStopped:  "kubelet: pod %s/%s stopped; deleting it with grace 0",

	backoff:     "reflector(%s): %s → backing off (%s): %s before the next %s; %s",
	backoffRule: "the wait doubles with each failure up to %s (plus jitter) and starts over at %s after %s without one",
	cacheWait:   "worker: %s: the cache has not caught up with the controller's own write yet; retry %s after %s",
	nextList:    "list",
	nextWatch:   "watch",

	tourWords: englishTour,
	anyPod:    "<a web pod>",
	tourAgain: "\nthe tour, in short (the live view's \"Try this\" panel has it too; make demo ARGS=\"--chaos-every 0\" to follow it undisturbed):\n",

	heldForYou:        "%s: holding off: you asked for a fault %s ago (the chaos loop skips %d ticks after yours)",
	heldNoReflector:   "%s: holding off: no reflector has started yet",
	heldReflectorBusy: "%s: holding off: reflector(%s) is %s",
	heldWatchYoung:    "%s: holding off: reflector(%s) has been watching for only %s (dropped within a second with no event in it, a watch is a very short watch: a backoff and a relist)",
	heldShort:         "%s: holding off: web has %d of %d pods ready (the controller is still repairing)",
	heldTerminating:   "%s: holding off: a pod of web is still terminating",
}

var chineseTexts = &texts{
	lang:         chinese,
	commit:       "%[1]s %[2]s %[3]s（rv %[4]s）",
	frame:        "%s 帧",
	deltaFIFO:    "增量队列",
	realFIFO:     "增量队列（RealFIFO）",
	unlocked:     "出队，释放队列锁",
	tombstone:    "全量同步 → 增量队列里的墓碑（错过了 DELETED 事件）",
	cache:        "本地缓存",
	cacheInBatch: "本地缓存（整批一次事务）",

	cacheInReplace: "ReplacedAll → 本地缓存",
	replacedGone:   "全量同步 → ReplacedAll：列表里没有它（错过了 DELETED 事件）",
	enqueues:       "事件处理器把 %s 放入工作队列",
	chainSep:       " → ",
	reconciled:     "worker：%s：%s → %s",
	retry:          "worker：%[1]s 调谐失败；%[3]s 后第 %[2]s 次重试",
	dropped:        "worker：%s 重试次数过多，已丢弃：%s",
	reflector:      "反射器(%s)：%s（%s）",
	reflectorTo:    "反射器(%s)：%s → %s（%s）",
	reflectorAgn:   "反射器(%s)：再次%s（%s）",
	you:            "你：%s（POST %s；%s）",
	compacted:      "服务器：历史在 rv %s 处被压缩：从更早的 rv 开始的监听现在会得到 410 过期（Expired）",

	replacedAll:   "通知器(%s)：ReplacedAll：%s 个对象，本地缓存在 rv %s 处一步替换（%s 个已不存在），然后才通知事件处理器",
	batch:         "通知器(%s)：一批 %s 个增量（%s），一次存储事务",
	batchUnlocked: "，通知事件处理器时队列锁已释放",
	bookmark:      "通知器(%s)：书签增量：存储到达 rv %s",
	streamingList: "反射器(%s)：流式列举：%s 个初始事件，然后是 rv %s 处的初始事件结束书签（initial-events-end bookmark）",

	informerToday:    "今天的通知器，即 client-go 1.36 的：流式列举，增量队列（RealFIFO）一步全量替换、批量出队、书签增量，事件处理器运行时不持有队列锁",
	informerArticles: "文章里的通知器：先列举再监听，带 KnownObjects 的增量队列（DeltaFIFO），持锁逐个处理增量",

	starting:    "启动两个通知器（%s）和控制器，连接 %s",
	liveView:    "\n实时视图：http://%s/ （浏览器里的整条流水线，带有故意破坏它的按钮）\n",
	stopping:    "停止中：等一切稳定下来，再做最终检查",
	deletingPod: "%s：删除 pod default/%s",
	dropWatches: "%s：断开所有监听（每个反射器从它最后的 resourceVersion 接着监听，不做全量同步）",
	compacting:  "%s：先写 configmap settings（没有通知器监听它：服务器的 rv 越过每个反射器的 rv），再在 rv %s 处压缩历史并断开监听（每个反射器下一次从更早的 rv 开始监听：410 过期 → 全量同步）",
	podRunning:  "kubelet：pod %s/%s 已在 %s 上运行（Running）并就绪（Ready）",
	podStopped:  "kubelet：pod %s/%s 的容器已停止；以宽限期 0 删除它",

	backoff:     "反射器(%[1]s)：%[2]s → 退避（%[3]s）：%[4]s 后开始下一次%[5]s；%[6]s",
	backoffRule: "每失败一次等待翻倍，最多 %[1]s（另加随机抖动），%[3]s 内没有失败就从 %[2]s 重新开始",
	cacheWait:   "worker：%[1]s：本地缓存还没跟上控制器自己的写入；%[3]s 后第 %[2]s 次重试",
	nextList:    "列举（list）",
	nextWatch:   "监听（watch）",

	tourWords: chineseTour,
	anyPod:    "<某个 web pod>",
	tourAgain: "\n导览摘要（实时视图的“试试这些”面板里也有；用 make demo ARGS=\"--chaos-every 0\" 可以不受干扰地照着做）：\n",

	heldForYou:        "%s：暂停：你在 %s 前请求了一个故障（混沌循环在你的故障之后跳过 %d 次）",
	heldNoReflector:   "%s：暂停：还没有反射器启动",
	heldReflectorBusy: "%s：暂停：反射器(%s)正在%s",
	heldWatchYoung:    "%s：暂停：反射器(%s)才监听了 %s（不到一秒、没有任何事件就被断开的监听是“过短的监听”：退避并全量同步）",
	heldShort:         "%s：暂停：web 只有 %d 个 pod 就绪，期望 %d 个（控制器还在修复）",
	heldTerminating:   "%s：暂停：web 还有 pod 正在终止（Terminating）",
}

// queue is the queue hop's name for the informer that runs.
func (t *texts) queue(k informerKind) string {
	if k == articlesInformer {
		return t.deltaFIFO
	}
	return t.realFIFO
}

// informerName says which informer runs.
func (t *texts) informerName(k informerKind) string {
	if k == articlesInformer {
		return t.informerArticles
	}
	return t.informerToday
}

func textsFor(l language) *texts {
	if l == chinese {
		return chineseTexts
	}
	return englishTexts
}

// The words below come from other packages' trace events (a reflector's
// phase and reason, a reconcile's found and did, a fault endpoint's did and
// then). In Chinese they are translated when the demo knows them, and
// printed as they are otherwise.

// who is the doer of a fault: "chaos" or "you (page)".
func (t *texts) who(who string) string {
	if t.lang != chinese {
		return who
	}
	switch who {
	case "chaos":
		return "混沌"
	case "you (page)":
		return "你（页面）"
	}
	return who
}

func (t *texts) pastTense(eventType string) string {
	if t.lang != chinese {
		return pastTense(eventType)
	}
	switch eventType {
	case "ADDED":
		return "已创建"
	case "MODIFIED":
		return "已更新"
	case "DELETED":
		return "已删除"
	}
	return strings.ToLower(eventType)
}

// phase is a reflector's phase (reflector/phases.go, phase.String).
func (t *texts) phase(p string) string {
	if t.lang != chinese {
		return p
	}
	switch p {
	case "listing":
		return "列举（list）"
	case "watching":
		return "监听（watch）"
	case "backing off":
		return "退避"
	case "stopped":
		return "已停止"
	}
	return p
}

// reason is why a reflector changed phase (reflector/phases.go, next and cause).
func (t *texts) reason(r string) string {
	if t.lang != chinese {
		return r
	}
	if rest, ok := strings.CutPrefix(r, "streaming list: "); ok {
		return "流式列举：" + t.reason(rest)
	}
	switch r {
	case "start":
		return "启动"
	case "listed":
		return "列举完成"
	case "backoff over":
		return "退避结束"
	case "context ended":
		return "上下文结束"
	case "stopped":
		return "已停止"
	case "very short watch":
		return "监听过短"
	case "dropped connection":
		return "连接断开"
	case "dropped connection before the initial-events-end bookmark":
		return "在初始事件结束书签（initial-events-end bookmark）之前连接断开"
	case "ended before the initial-events-end bookmark":
		return "在初始事件结束书签（initial-events-end bookmark）之前结束"
	case "ended cleanly":
		return "监听正常结束"
	case "connection refused":
		return "连接被拒绝"
	case "410 Expired":
		return "410 过期（Expired）"
	case "504 too large resource version":
		return "504 资源版本过大"
	case "429 TooManyRequests":
		return "429 请求过多（TooManyRequests）"
	case "500 InternalError":
		return "500 内部错误（InternalError）"
	case "503 ServiceUnavailable":
		return "503 服务不可用（ServiceUnavailable）"
	}
	return r
}

// A reconcile's found and did (controller/replicaset/reconcile.go).
var (
	haveRe     = regexp.MustCompile(`^have (\d+) of (\d+)$`)
	createdRe  = regexp.MustCompile(`^created (\d+) of (\d+)$`)
	deletedRe  = regexp.MustCompile(`^deleted (\d+) of (\d+)$`)
	waitingRe  = regexp.MustCompile(`^nothing: waiting to observe (\d+) adds, (\d+) deletes$`)
	compactRe  = regexp.MustCompile(`^history compacted at resourceVersion (\d+)$`)
	closedRe   = regexp.MustCompile(`^closed every watch \((\d+) open\)$`)
	nextFailRe = regexp.MustCompile(`^the next (\d+) (.+) request\(s\) fail with (\d+)(.*)$`)
	dropNextRe = regexp.MustCompile(`^the next (\d+) (.+) will not reach the open watches$`)
	outageRe   = regexp.MustCompile(`^an outage of (.+?) began: the (\d+) open watch\(es\) hear nothing more; then the history is compacted and every watch ends$`)
	garbageRe  = regexp.MustCompile(`^wrote a corrupt frame \((\d+) bytes\) into every watch \((\d+) open\)$`)
	delayedRe  = regexp.MustCompile(`^every watch frame is now delayed by (.+)$`)
	restartRe  = regexp.MustCompile(`^restarted the store from its data directory at resourceVersion (\d+)$`)
)

func (t *texts) found(s string) string {
	if t.lang != chinese {
		return s
	}
	if m := haveRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("现有 %s 个 pod，期望 %s 个", m[1], m[2])
	}
	if s == "ReplicaSet gone" {
		return "ReplicaSet 已不存在"
	}
	return s
}

func (t *texts) did(s string) string {
	if t.lang != chinese {
		return s
	}
	if m := createdRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("创建了 %s 个 pod（共要创建 %s 个）", m[1], m[2])
	}
	if m := deletedRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("删除了 %s 个 pod（共要删除 %s 个）", m[1], m[2])
	}
	if m := waitingRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("不动作：等待期望（expectations）观察到 %s 次创建、%s 次删除", m[1], m[2])
	}
	switch s {
	case "nothing":
		return "不动作"
	case "nothing: the ReplicaSet is being deleted":
		return "不动作：ReplicaSet 正在被删除"
	case "forgot its expectations":
		return "忘掉它的期望（expectations）"
	}
	return s
}

// faultDid is what the server says a fault endpoint did (fakeapiserver/faulthttp.go).
func (t *texts) faultDid(s string) string {
	s = humanDurationsIn(s) // "delayed by 2s" → "delayed by 2 s"
	if t.lang != chinese {
		return s
	}
	if m := compactRe.FindStringSubmatch(s); m != nil {
		return "历史已在 resourceVersion " + m[1] + " 处压缩"
	}
	if m := closedRe.FindStringSubmatch(s); m != nil {
		return "断开了所有监听（" + m[1] + " 个）"
	}
	if m := nextFailRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("接下来 %s 个 %s 请求以 %s 失败%s", m[1], m[2], m[3], m[4])
	}
	if m := dropNextRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("接下来 %s 个 %s 不会送到已打开的监听", m[1], m[2])
	}
	if m := outageRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("一次 %s 的中断开始了：%s 个已打开的监听再也收不到事件；之后压缩历史，结束每个监听", m[1], m[2])
	}
	if m := garbageRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("向每个监听（%s 个）写入了一个损坏的帧（%s 字节）", m[2], m[1])
	}
	if m := delayedRe.FindStringSubmatch(s); m != nil {
		return "现在每个监听帧都延迟 " + m[1]
	}
	if m := restartRe.FindStringSubmatch(s); m != nil {
		return "从数据目录重启了存储，resourceVersion 为 " + m[1]
	}
	switch s {
	case "watch frames are no longer delayed":
		return "监听帧不再延迟"
	case "every pending fault forgotten":
		return "忘掉了所有待发生的故障"
	}
	return s
}

// faultThen is what the informers will do about a fault, by the endpoint's path.
func (t *texts) faultThen(path, then string) string {
	if t.lang != chinese {
		return then
	}
	switch path {
	case "/faults/compact":
		return "已打开的监听继续；从更早的 resourceVersion 开始的监听、精确列举或 continue 令牌会得到 410 过期，所以监听结束的反射器会全量同步"
	case "/faults/close-watches":
		return "每个反射器从它最后的 resourceVersion 重新监听，不做全量同步（若先 /faults/compact：410 过期，然后全量同步）"
	case "/faults/drop":
		return "监听“失聪”期间客户端的缓存是旧的，然后它全量同步；错过的删除会在那次全量同步里以 DeletedFinalStateUnknown 墓碑的形式回来"
	case "/faults/outage":
		return "每个反射器全量同步（410 过期），它的 Replace 补上错过的一切：错过的删除以 DeletedFinalStateUnknown 墓碑的形式回来"
	case "/faults/fail":
		return "反射器退避后重试（429 时等待 Retry-After）；失败的监听从同一个 resourceVersion 重试，410 则全量同步"
	case "/faults/garbage":
		return "客户端的解码器失败，监听出错结束，反射器从它最后的 resourceVersion 重新监听"
	case "/faults/delay":
		return "事件晚一些、按顺序到达客户端；不会丢失"
	case "/faults/restart":
		return "每个已确认的对象都还在；反射器重新监听，得到 410 过期（历史没了）并全量同步"
	case "/faults/reset":
		return "请求和监听恢复正常"
	}
	return then
}
