package main

import (
	"strings"

	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// Lesson 8, both-informers: the same relist under the articles' informer
// and today's. The lesson starts a second pod informer of the kind the
// demo does not run ("pods (articles)" or "pods (today)") on the same
// server, clock and lab tracer; one pod's DELETED is hidden from every
// pods watch and the pod deleted, so both relist at once. The DeltaFIFO
// queues a Replaced delta per pod and a tombstone; the RealFIFO one
// ReplacedAll, which finds the pod gone when it is applied.
type bothInformers struct {
	baseScript
	inf        *lessonInformer
	other      string // the lesson informer's resource name
	name, key  string
	replaced   int
	tombstoned bool // the DeltaFIFO's informer dropped the pod from its cache
	replacedOK bool // the RealFIFO's did
}

// kindOf is which informer a resource's events come from.
func (b *bothInformers) kindOf(r *lessonRun, res string) (informerKind, bool) {
	switch res {
	case "pods":
		return r.env.informer, true
	case b.other:
		if r.env.informer == todayInformer {
			return articlesInformer, true
		}
		return todayInformer, true
	}
	return 0, false
}

func (b *bothInformers) prepare(r *lessonRun) error {
	p, name := informer.Articles, "pods (articles)"
	if r.env.informer == articlesInformer {
		p, name = informer.Today, "pods (today)"
	}
	b.other = name
	inf, err := r.env.startInformer(r.ctx, name, p, 0)
	if err != nil {
		return err
	}
	b.inf = inf
	return r.ls.waitCalm(r.ctx)
}

func (b *bothInformers) begin(r *lessonRun) error {
	name, err := r.env.webPod()
	if err != nil {
		return err
	}
	b.name, b.key = name, "default/"+name
	if err := r.env.fault("/faults/drop?resource=pods&namespace=default&name=" + name + "&type=DELETED&count=1"); err != nil {
		return err
	}
	return r.env.deleteNow(name)
}

func (b *bothInformers) cleanup(*lessonRun) { b.inf.stop() }

func (b *bothInformers) intro(r *lessonRun) bilingual {
	return say("Lesson: one relist, two queues. Beside the demo's pods informer (%[1]s) a second one runs for this lesson, %[2]q, of the other kind, on the same server. The server hid the next DELETED of %[3]s from every pods watch (POST /faults/drop) and the pod was deleted: both watches miss it, both end with 410 Expired, and both informers relist. Each step says which informer it is: the articles' (DeltaFIFO: Replace, a delta per key, tombstones) or today's (RealFIFO: one ReplacedAll). Press Next.",
		"课程：一次全量同步，两种队列。除了演示自己的 pods 通知器（%[4]s），这一课还在同一台服务器上运行另一种的第二个通知器 %[2]q。服务器对所有 pods 监听隐藏了 %[3]s 的下一个 DELETED（POST /faults/drop），然后删除了这个 pod：两个监听都错过了它，都以 410 过期结束，两个通知器都全量同步。每一步都会说明是哪个通知器：文章里的（增量队列 DeltaFIFO：Replace，每个键一个增量，墓碑）还是今天的（增量队列 RealFIFO：一个 ReplacedAll）。按“下一步”。",
		map[informerKind]string{todayInformer: "today's", articlesInformer: "the articles'"}[r.env.informer], b.other, b.key,
		map[informerKind]string{todayInformer: "今天的", articlesInformer: "文章里的"}[r.env.informer])
}

// who names an informer kind at the start of a step.
func who(k informerKind) bilingual {
	if k == articlesInformer {
		return bilingual{"The articles' informer (DeltaFIFO):", "文章里的通知器（增量队列 DeltaFIFO）："}
	}
	return bilingual{"Today's informer (RealFIFO):", "今天的通知器（增量队列 RealFIFO）："}
}

// bothQueues quotes the two queues side by side.
func (b *bothInformers) bothQueues(r *lessonRun, h lab.Hop) bilingual {
	v := r.view(h)
	mine, _ := b.kindOf(r, "pods")
	theirs, _ := b.kindOf(r, b.other)
	return quoteFIFO(v, "pods", queueNames(mine)).plus(quoteFIFO(v, b.other, queueNames(theirs)))
}

func (b *bothInformers) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	res := r.res(h)
	k, ok := b.kindOf(r, res)
	if !ok {
		return bilingual{}, false
	}
	w := who(k)
	line := func(t bilingual) (bilingual, bool) { return bilingual{w.En + " " + t.En, w.Zh + t.Zh}, true }
	switch {
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "backing off" && r.once("backoff "+res):
		v := quoteReflector(r.view(h), res)
		return line(say("its watch missed the DELETED and ended with 410 Expired; it backs off %[1]s, then relists. %[2]s",
			"它的监听错过了那个 DELETED，以 410 过期结束；它退避 %[1]s，然后全量同步。%[3]s", after(h), v.En, v.Zh))
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "listing" && r.said["backoff "+res] > 0 && r.once("relist "+res):
		if k == articlesInformer {
			return line(say("backoff over: it relists with a LIST.", "退避结束：它用一次 LIST 全量同步。"))
		}
		return line(say("backoff over: it relists with a streaming list (one watch, the pods as ADDED events, then a bookmark).",
			"退避结束：它用流式列举全量同步（一个监听，pod 作为 ADDED 事件发来，然后是一个书签）。"))
	case is(h, trace.StageDeltaFIFO, "replace") && r.once("replace "+res):
		if k == articlesInformer {
			return line(say("Replace(%s pods): a Replaced delta per listed pod, then a tombstone for each key of knownObjects the list does not have.",
				"Replace（%s 个 pod）：每个列举到的 pod 一个 Replaced 增量，然后为 knownObjects 里有、列举结果里没有的每个键入队一个墓碑。", attr(h, trace.KeyCount)))
		}
		return line(say("Replace(%s pods): one item, ReplacedAll, whatever the number of pods; no knownObjects, no tombstone yet.",
			"Replace（%s 个 pod）：不管有多少 pod，都只有一个条目 ReplacedAll；没有 knownObjects，暂时也没有墓碑。", attr(h, trace.KeyCount)))
	case is(h, trace.StageDeltaFIFO, "delta queued") && attr(h, trace.KeyType) == "Replaced":
		b.replaced++
		if b.replaced > 1 {
			return bilingual{}, false
		}
		return line(say("a Replaced delta for %[1]s (rv %[2]s), the first of one per pod. %[3]s", "%[1]s 的 Replaced 增量（rv %[2]s），每个 pod 一个，这是第一个。%[4]s",
			h.Key, h.RV, b.bothQueues(r, h).En, b.bothQueues(r, h).Zh))
	case is(h, trace.StageDeltaFIFO, "tombstone queued") && h.Key == b.key:
		return line(say("%[1]s is in knownObjects and not in the list: a tombstone, DeletedFinalStateUnknown, queued as its Deleted delta. %[2]s",
			"%[1]s 在 knownObjects 里却不在列举结果里：一个墓碑 DeletedFinalStateUnknown，作为它的 Deleted 增量入队。%[3]s", b.key, b.bothQueues(r, h).En, b.bothQueues(r, h).Zh))
	case is(h, trace.StageDeltaFIFO, "delta queued") && attr(h, trace.KeyType) == "ReplacedAll":
		return line(say("one ReplacedAll item at rv %[1]s carries the whole list. %[2]s", "rv %[1]s 的一个 ReplacedAll 条目承载整个列举结果。%[3]s",
			h.RV, b.bothQueues(r, h).En, b.bothQueues(r, h).Zh))
	case is(h, trace.StageInformer, "cache replace"):
		return line(say("ReplacedAll popped: the cache is swapped for the list in one write; gone=%s, found against the cache.",
			"ReplacedAll 出队：本地缓存一次写入换成列举结果；gone=%s，是对照本地缓存发现的。", attr(h, "gone")))
	case strings.HasPrefix(h.What, "cache delete (tombstone") && h.Stage == trace.StageInformer && h.Key == b.key:
		if k == articlesInformer {
			b.tombstoned = true
			return line(say("the tombstone of %s is popped, after the Replaced deltas, and the pod leaves the cache.",
				"%s 的墓碑在那些 Replaced 增量之后出队，这个 pod 离开本地缓存。", b.key))
		}
		b.replacedOK = true
		return line(say("%s leaves the cache inside that one write; the handlers get the same DeletedFinalStateUnknown tombstone the DeltaFIFO queues.",
			"%s 在那一次写入中离开本地缓存；事件处理器收到的是和增量队列（DeltaFIFO）入队的一样的 DeletedFinalStateUnknown 墓碑。", b.key))
	case h.What == "OnDelete (final state unknown)" && h.Key == b.key && r.once("told "+res):
		return line(say("handler %s gets OnDelete(DeletedFinalStateUnknown{%s}).", "事件处理器 %s 收到 OnDelete(DeletedFinalStateUnknown{%s})。",
			attr(h, trace.KeyHandler), b.key))
	}
	return bilingual{}, false
}

func (b *bothInformers) done(*lessonRun) bool { return b.tombstoned && b.replacedOK }

func (b *bothInformers) outro(*lessonRun) bilingual {
	return say("That is the lesson: the same relist, the same cache at the end, the same tombstone for the handlers; the articles' DeltaFIFO gets there one delta at a time, today's RealFIFO in one item and one write. Stop ends the lesson's informer.",
		"这一课到此：同一次全量同步，最后是同样的本地缓存，事件处理器收到同样的墓碑；文章里的增量队列（DeltaFIFO）一个增量一个增量地到达，今天的增量队列（RealFIFO）用一个条目、一次写入。按“停止”结束这一课的通知器。")
}
