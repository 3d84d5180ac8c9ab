package main

import (
	"fmt"
	"strings"
)

// The tour is what to try, with the server's real address, the
// resourceVersion of a real list of pods and two real pods of web filled
// in. It is data (a tourPlan per language): the terminal prints it at the
// start and, in short, at the end; the page's "Try this" panel draws the
// same plan from GET /api/tour.

// tourLine is one command to try, and what it shows.
type tourLine struct {
	Cmd  string `json:"cmd"`
	Note string `json:"note,omitempty"`
}

// tourStep is one numbered step of the tour.
type tourStep struct {
	Title string     `json:"title"`
	Lines []tourLine `json:"lines"`
}

// tourPlan is the tour in one language.
type tourPlan struct {
	Heading  string     `json:"heading"`  // "Try, in another terminal"
	ChaosOff string     `json:"chaosOff"` // how to follow it with the chaos loop off
	Steps    []tourStep `json:"steps"`
}

// tour is what to try, in English, for the informer that runs.
func tour(url, listRV string, inf informerKind, pods ...string) string {
	return englishTexts.tour(url, listRV, inf, pods...)
}

// tour is the tour in t's language, for the informer that runs: what the
// demo is, which informer runs, and the plan. pods are up to two pods of
// web for the tour to name (the chaos loop spares them); a placeholder
// stands for any missing.
func (t *texts) tour(url, listRV string, inf informerKind, pods ...string) string {
	var out strings.Builder
	intro, pipeline := tourIntro, tourPipeline[inf]
	if t.lang == chinese {
		intro, pipeline = tourIntroZH, tourPipelineZH[inf]
	}
	p := t.tourPlan(url, listRV, pods...)
	fmt.Fprintf(&out, intro, url)
	fmt.Fprintf(&out, "%s\n\n%s\n%s\n", p.ChaosOff, pipeline, p.Heading)
	for i, s := range p.Steps {
		fmt.Fprintf(&out, "  %d. %s\n", i+1, s.Title)
		for _, l := range s.Lines {
			out.WriteString("       " + l.Cmd)
			if l.Note != "" {
				out.WriteString("    " + l.Note)
			}
			out.WriteString("\n")
		}
	}
	out.WriteString("\n")
	return out.String()
}

// tourShort is the tour's commands alone, for the end of a run.
func (t *texts) tourShort(url, listRV string, pods ...string) string {
	p := t.tourPlan(url, listRV, pods...)
	var out strings.Builder
	out.WriteString(t.tourAgain)
	for _, s := range p.Steps {
		for _, l := range s.Lines {
			out.WriteString("  " + l.Cmd + "\n")
		}
	}
	return out.String()
}

// tourPlan is the tour's steps in t's language.
func (t *texts) tourPlan(url, listRV string, pods ...string) tourPlan {
	named := [2]string{t.anyPod, t.anyPod}
	for i, p := range pods {
		if i < len(named) && p != "" {
			named[i] = p
		}
	}
	k := "kubectl --server " + url
	watchOld := fmt.Sprintf(`curl "%s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%s"`, url, listRV)
	tx := t.tourWords
	return tourPlan{Heading: tx.heading, ChaosOff: tx.chaosOff, Steps: []tourStep{
		{fmt.Sprintf(tx.list, listRV), []tourLine{{Cmd: "curl " + url + "/api/v1/namespaces/default/pods"}}},
		{tx.watch, []tourLine{{Cmd: watchOld}}},
		{tx.kubectl, []tourLine{
			{Cmd: k + " get pods -w"},
			{Cmd: k + " delete pod " + named[0], Note: tx.deleteNote},
			{Cmd: k + " get rs web"},
			{Cmd: k + ` patch rs web -p '{"spec":{"replicas":5}}'`, Note: tx.scaleNote},
		}},
		{fmt.Sprintf(tx.breakIt, url), []tourLine{
			{Cmd: "curl -X POST " + url + "/faults/close-watches", Note: tx.closeNote},
			{Cmd: k + " annotate configmap settings try=$(date +%s) --overwrite && curl -X POST " + url + "/faults/compact && curl -X POST " +
				url + "/faults/close-watches", Note: tx.compactNote},
			{Cmd: `curl -X POST "` + url + `/faults/fail?code=429&count=3&retryAfter=2&verb=list"`, Note: tx.failNote},
		}},
		{tx.lostDelete, []tourLine{
			{Cmd: `curl -X POST "` + url + `/faults/drop?resource=pods&type=DELETED"`},
			{Cmd: k + " delete pod " + named[1] + " --wait=false", Note: tx.dropNote},
		}},
		{tx.outage, []tourLine{{Cmd: `curl -X POST "` + url + `/faults/outage?d=3s"`}}},
		{tx.see410, []tourLine{{Cmd: watchOld}}},
	}}
}

// tourTexts are the tour's words in one language.
type tourTexts struct {
	heading, chaosOff                                         string
	list, watch, kubectl, breakIt, lostDelete, outage, see410 string
	deleteNote, scaleNote, closeNote, compactNote, failNote   string
	dropNote                                                  string
}

var englishTour = tourTexts{
	heading: "Try, in another terminal:",
	chaosOff: `The chaos loop breaks something now and then (never while you experiment or the
informers recover); to follow the steps below undisturbed, start it with
--chaos-every 0 (make demo ARGS="--chaos-every 0").`,
	list:        "List, as article 004 does with curl (this list was at resourceVersion %s):",
	watch:       "Watch from that version (each line is one chunk of the stream):",
	kubectl:     "Watch with kubectl, delete a pod, and see the controller answer here:",
	breakIt:     "Break it and watch the informers recover, with the server's fault endpoints (curl %s/faults lists them all):",
	lostDelete:  "A lost delete, and the tombstone that repairs it:",
	outage:      "A whole outage as one fault (events lost for 3 s, then compaction, then every watch ends):",
	see410:      "See 410 yourself: after the compact, a watch from the old version answers 410 Expired:",
	deleteNote:  "(one of web's pods: the chaos loop leaves it to you)",
	scaleNote:   "(scale up; then 2 to scale down)",
	closeNote:   "(watches resume from their last rv: no relist)",
	compactNote: "(a write no informer watches, so the server's rv passes every reflector's; the history compacted there; the watches closed at once, before an event or a bookmark brings a reflector up to the compacted rv: each watches again from an older rv, 410 Expired → relist)",
	failNote:    "(backoff, Retry-After)",
	dropNote:    "(another: the pods watch misses the DELETED; it cannot go on past the hole, so the server ends it: 410 Expired → relist → the pod comes back as a tombstone)",
}

var chineseTour = tourTexts{
	heading: "在另一个终端里试试：",
	chaosOff: `混沌循环时不时破坏一点东西（你做实验时、通知器恢复时都不会）；想不受干扰地
照着下面的步骤做，就用 --chaos-every 0 启动（make demo ARGS="--chaos-every 0"）。`,
	list:        "像文章 004 用 curl 那样列举（这次列举的资源版本 resourceVersion 是 %s）：",
	watch:       "从这个版本开始监听（每一行是流里的一个分块）：",
	kubectl:     "用 kubectl 监听，删掉一个 pod，看控制器在这里作出反应：",
	breakIt:     "用服务器的故障端点把它弄坏，看通知器如何恢复（curl %s/faults 列出全部端点）：",
	lostDelete:  "丢掉一次删除，再看墓碑如何补上它：",
	outage:      "把一整次中断当作一个故障（3 秒内事件丢失，然后压缩历史，再结束每个监听）：",
	see410:      "亲眼看看 410：压缩之后，从旧版本开始的监听会得到 410 过期：",
	deleteNote:  "（web 的一个 pod：混沌循环把它留给你）",
	scaleNote:   "（扩容；再改成 2 就是缩容）",
	closeNote:   "（监听从最后的 rv 接着来：不做全量同步）",
	compactNote: "（一次没有通知器监听的写入，让服务器的 rv 越过每个反射器的 rv；历史在那里压缩；马上断开监听，赶在事件或书签把反射器带到压缩点之前：每个反射器从更早的 rv 重新监听，410 过期 → 全量同步）",
	failNote:    "（退避，Retry-After）",
	dropNote:    "（另一个：pods 的监听错过了 DELETED；它不能越过这个空洞继续，所以服务器结束它：410 过期 → 全量同步 → 这个 pod 以墓碑的形式回来）",
}

// tourIntro says what the demo is; %[1]s is the server's address.
const tourIntro = `
kinformer demo: a fake Kubernetes API server on %[1]s, two informers
(replicasets, pods) sharing one factory, a ReplicaSet controller with a
work queue, a kubelet that starts pods, and a chaos loop. Ctrl-C stops it.
`

// tourIntroZH is tourIntro in Chinese, in the words of docs/glossary.md.
const tourIntroZH = `
kinformer 演示：一个假的 Kubernetes API 服务器（在 %[1]s），两个通知器
（replicasets、pods）共用一个通知器工厂，一个带工作队列的 ReplicaSet 控制器，
一个启动 pod 的 kubelet，还有一个混沌循环。按 Ctrl-C 停止。
`

// tourPipeline says which informer runs and what its lines show.
var tourPipeline = map[informerKind]string{
	articlesInformer: `Informer: the articles' (--informer articles): list then watch, a DeltaFIFO that
finds deletions in the cache (KnownObjects), one delta at a time under its lock.
Each line below is one change travelling the pipeline the articles draw:
server commit → watch frame → DeltaFIFO → cache → handler → work queue → worker.
(--informer today runs client-go 1.36's informer instead.)
`,
	todayInformer: `Informer: today's, client-go 1.36's (--informer today, the default). The articles
draw list then watch and a DeltaFIFO; client-go 1.36 streams the list (one watch:
initial events, then a bookmark), queues into a RealFIFO whose relist is one
ReplacedAll item (the cache replaced in one step), pops watch events queued
together as one batch (one store transaction), records bookmarks in the store,
and releases the queue's lock while the handlers run. Each line below is one
change travelling that pipeline:
server commit → watch frame → RealFIFO → cache → handler → work queue → worker.
(--informer articles runs the articles' informer instead.)
`,
}

// tourPipelineZH is tourPipeline in Chinese.
var tourPipelineZH = map[informerKind]string{
	articlesInformer: `通知器：文章里的（--informer articles）：先列举再监听，增量队列（DeltaFIFO）
在本地缓存里找删除（KnownObjects），持锁逐个处理增量。
下面每一行是一次变更走完文章所画的整条流水线：
服务器提交 → 监听帧 → 增量队列（DeltaFIFO）→ 本地缓存 → 事件处理器 → 工作队列 → worker。
（--informer today 改为运行 client-go 1.36 的通知器。）
`,
	todayInformer: `通知器：今天的，即 client-go 1.36 的（--informer today，默认）。文章画的是先列举
再监听和增量队列（DeltaFIFO）；client-go 1.36 流式列举（一个监听：先是初始事件，
再是一个书签），放进增量队列（RealFIFO）：一次全量同步是一个 ReplacedAll 条目
（本地缓存一步替换），一起排队的监听事件整批出队（一次存储事务），书签记进存储，
事件处理器运行时释放队列锁。下面每一行是一次变更走完这条流水线：
服务器提交 → 监听帧 → 增量队列（RealFIFO）→ 本地缓存 → 事件处理器 → 工作队列 → worker。
（--informer articles 改为运行文章里的通知器。）
`,
}
