package main

import (
	"strings"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// Lesson 2, expired-relist: compact, then close every watch. The
// Reflector resumes from its last resourceVersion, the server no longer
// has what follows it: 410 Expired, a backoff, a relist (experiment 3's
// first half; article 001's ListAndWatch starting over).
type expiredRelist struct {
	baseScript
	compactedAt string
	rewatchRV   string
	listed      int // objects in the relist
	applied     int // of them written to the cache (the articles' one by one)
	watching    bool
	cacheOK     bool
}

func (e *expiredRelist) begin(r *lessonRun) error {
	if err := r.env.fault("/faults/compact"); err != nil {
		return err
	}
	e.compactedAt = r.env.srv.ResourceVersion()
	return r.env.fault("/faults/close-watches")
}

func (e *expiredRelist) intro(r *lessonRun) bilingual {
	return say("Lesson: 410 Expired, then a relist. The lab is paused. The server has compacted its history at rv %[1]s (POST /faults/compact: every event up to there is forgotten, as etcd compaction does) and closed every watch (POST /faults/close-watches). Follow the pods informer (the replicasets one does the same). The informer's queue here is the %[2]s. Press Next.",
		"课程：410 过期，然后全量同步。实验台已暂停。服务器在 rv %[1]s 压缩了历史（POST /faults/compact：之前的事件全部忘掉，和 etcd 压缩一样），并关闭了所有监听（POST /faults/close-watches）。跟着 pods 的通知器走（replicasets 的通知器也一样）。这里通知器的队列是%[3]s。按“下一步”。",
		e.compactedAt, queueNames(r.env.informer).En, queueNames(r.env.informer).Zh)
}

func (e *expiredRelist) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if r.res(h) != "pods" {
		return bilingual{}, false
	}
	q := queueNames(r.env.informer)
	today := r.env.informer == todayInformer
	switch {
	case is(h, trace.StageReflector, "watch ended") && r.said["rewatch"] == 0 && r.once("closed"):
		return say("The server closes the pods watch (POST /faults/close-watches), as an API server restart or a load balancer does: the watch ends cleanly, after %s events.",
			"服务器关闭了 pods 的监听（POST /faults/close-watches），就像 API 服务器重启或负载均衡器那样：监听正常结束，之前收到 %s 个事件。", attr(h, trace.KeyCount)), true
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "watching" && attr(h, trace.KeyReason) == "ended cleanly" && r.once("again"):
		return say("A watch that ended cleanly is resumed, not relisted: the Reflector will watch again from its last synced resourceVersion.",
			"正常结束的监听会被续上，而不是全量同步：反射器会从它最后同步的 resourceVersion 重新监听。"), true
	case is(h, trace.StageReflector, "watch") && r.said["again"] > 0 && r.once("rewatch"):
		e.rewatchRV = h.RV
		return say("WATCH from rv %[1]s: the Reflector asks the server to replay every event after it. But the history now starts after rv %[2]s.",
			"从 rv %[1]s 开始 WATCH：反射器请服务器补发它之后的每个事件。但历史现在从 rv %[2]s 之后才开始。", h.RV, e.compactedAt), true
	case is(h, trace.StageReflector, "watch ended") && r.said["rewatch"] > 0 && r.once("expired"):
		return say("The server answers with an ERROR frame, 410 Expired (%[1]s): it no longer has the events after rv %[2]s, so it cannot replay them.",
			"服务器回了一个 ERROR 帧，410 过期（Expired）（“%[1]s”）：它已经没有 rv %[2]s 之后的事件，无法补发。", attr(h, trace.KeyReason), e.rewatchRV), true
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "backing off" && r.once("backoff"):
		v := quoteReflector(r.view(h), "pods")
		return say("The Reflector backs off %[1]s, then relists (%[2]s): after a 410 only a list can bring the cache back in line. The backoff runs on the lab's clock: a Next that finds nothing else waiting moves the clock to its end. %[4]s",
			"反射器退避 %[1]s，然后全量同步（%[3]s）：410 之后，只有列举才能让本地缓存重新与服务器一致。退避用的是实验台的时钟：“下一步”找不到其他等待的一跳时，会把时钟拨到退避结束。%[5]s",
			after(h), reasonText(attr(h, trace.KeyReason)).En, reasonText(attr(h, trace.KeyReason)).Zh, v.En, v.Zh), true
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "listing" && r.said["backoff"] > 0 && r.once("relist"):
		return say("Backoff over (the lab's clock now reads %s): the relist.", "退避结束（实验台的时钟现在是 %s）：开始全量同步。", labTime(h)), true
	case (is(h, trace.StageReflector, "streaming list") || is(h, trace.StageReflector, "list")) && r.said["relist"] > 0 && r.once("list"):
		if today {
			return say("A streaming list: one watch with sendInitialEvents=true; the server sends every pod as an ADDED event, then a bookmark that ends the initial events. Today's informer lists this way; the articles' sends a LIST.",
				"流式列举：一个带 sendInitialEvents=true 的监听；服务器把每个 pod 作为 ADDED 事件发来，再发一个结束初始事件的书签。今天的通知器这样列举；文章里的通知器发的是 LIST。"), true
		}
		return say("A LIST (a paged one), then a watch from the list's resourceVersion: the articles' ListAndWatch. Today's informer streams the list instead, over one watch.",
			"一次 LIST（分页的），然后从列举的 resourceVersion 开始监听：文章里的 ListAndWatch。今天的通知器则在一个监听上流式列举。"), true
	case (is(h, trace.StageReflector, "initial events end") || is(h, trace.StageReflector, "listed")) && r.said["list"] > 0 && r.once("listed"):
		return say("The list: %[1]s pods at rv %[2]s.", "列举结果：rv %[2]s 的 %[1]s 个 pod。", attr(h, trace.KeyCount), h.RV), true
	case is(h, trace.StageDeltaFIFO, "replace") && r.said["list"] > 0 && r.once("replace"):
		e.listed = atoi(attr(h, trace.KeyCount))
		if today {
			return say("Replace on the RealFIFO: the %s pods become one item, ReplacedAll.", "增量队列（RealFIFO）的 Replace：%s 个 pod 成为一个条目 ReplacedAll。", attr(h, trace.KeyCount)), true
		}
		return say("Replace on the DeltaFIFO: a Replaced delta for each of the %s pods; every key of knownObjects is in the list, so no tombstone.",
			"增量队列（DeltaFIFO）的 Replace：为 %s 个 pod 各入队一个 Replaced 增量；knownObjects 里的每个键都在列举结果里，所以没有墓碑。", attr(h, trace.KeyCount)), true
	case is(h, trace.StageDeltaFIFO, "delta queued") && r.said["replace"] > 0 && (attr(h, trace.KeyType) == "ReplacedAll" || attr(h, trace.KeyType) == "Replaced") && r.once("queued"):
		v := quoteFIFO(r.view(h), "pods", q)
		if today {
			return say("The RealFIFO now holds the relist as one item: ReplacedAll at rv %[1]s. %[2]s", "增量队列（RealFIFO）现在把这次全量同步作为一个条目：rv %[1]s 的 ReplacedAll。%[3]s", h.RV, v.En, v.Zh), true
		}
		return say("The first Replaced delta is queued: %[1]s at rv %[2]s; one follows for each listed pod. %[3]s", "第一个 Replaced 增量入队：rv %[2]s 的 %[1]s；每个列举到的 pod 都有一个。%[4]s", h.Key, h.RV, v.En, v.Zh), true
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "watching" && attr(h, trace.KeyReason) == "listed" && r.said["relist"] > 0 && r.once("watching"):
		e.watching = true
		return say("The Reflector is watching again, from the list's resourceVersion.", "反射器又在监听了，从列举的 resourceVersion 开始。"), true
	case is(h, trace.StageInformer, "cache replace") && r.said["replace"] > 0 && r.once("applied"):
		e.cacheOK = true
		return say("Popped and applied: the cache is replaced by the list in one write (%[1]s gone). It matches the server again.",
			"出队并应用：本地缓存一次写入就换成了列举结果（%[1]s 个已不存在）。它又与服务器一致了。", attr(h, "gone")), true
	case strings.HasPrefix(h.What, "cache ") && h.Stage == trace.StageInformer && attr(h, "delta") == "Replaced" && r.said["replace"] > 0:
		e.applied++
		if e.applied < e.listed {
			return bilingual{}, false
		}
		e.cacheOK = true
		return say("The last of the %s Replaced deltas is popped and applied: the cache matches the list, and the server, again.",
			"%s 个 Replaced 增量中的最后一个出队并应用：本地缓存又与列举结果、与服务器一致了。", itoa(e.listed)), true
	}
	return bilingual{}, false
}

func (e *expiredRelist) done(*lessonRun) bool { return e.watching && e.cacheOK }

func (e *expiredRelist) outro(*lessonRun) bilingual {
	return say("That is the lesson: a watch resumes from a resourceVersion only while the server still has the history after it; once compacted, 410 Expired, and the Reflector relists. Stop puts the demo back.",
		"这一课到此：只有服务器还保留着某个 resourceVersion 之后的历史，监听才能从那里续上；历史被压缩后就是 410 过期，反射器只能全量同步。按“停止”让演示恢复。")
}

// Lesson 3, watch-resume: close every watch, change a pod meanwhile. The
// Reflector watches again from its last resourceVersion and the server
// replays the change: no list (experiment 2, stepped).
type watchResume struct {
	baseScript
	changedRV string
	relisted  bool
	cached    bool
}

const corednsKey = "kube-system/coredns"

func (w *watchResume) begin(r *lessonRun) error {
	if err := r.env.fault("/faults/close-watches"); err != nil {
		return err
	}
	rv, err := r.env.annotate("pods", "kube-system", "coredns", "changed while the watch was down")
	w.changedRV = rv
	return err
}

func (w *watchResume) observe(r *lessonRun, h lab.Hop) {
	if r.res(h) == "pods" && h.Stage == trace.StageReflector &&
		(h.What == "list" || h.What == "streaming list" || (h.What == "phase" && attr(h, trace.KeyPhase) == "listing")) {
		w.relisted = true
	}
}

func (w *watchResume) intro(*lessonRun) bilingual {
	return say("Lesson: a dropped watch resumes. The lab is paused. The server has closed every watch (POST /faults/close-watches), as a restart or a load balancer does, and while the pods watch is down kube-system/coredns changed (an annotation, rv %s). Nothing was compacted. Press Next.",
		"课程：断开的监听续上。实验台已暂停。服务器关闭了所有监听（POST /faults/close-watches），就像重启或负载均衡器那样；在 pods 的监听断开期间，kube-system/coredns 发生了变化（一个注解，rv %s）。历史没有被压缩。按“下一步”。", w.changedRV)
}

func (w *watchResume) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if r.res(h) != "pods" {
		return bilingual{}, false
	}
	switch {
	case is(h, trace.StageReflector, "watch ended") && r.once("closed"):
		return say("The pods watch ends (%[1]s) after %[2]s events in %[3]s: not a very short watch, so no relist.",
			"pods 的监听结束了（%[4]s），它持续了 %[3]s，收到 %[2]s 个事件：不是“很短的监听”，所以不会全量同步。",
			reasonText(attr(h, trace.KeyReason)).En, attr(h, trace.KeyCount), humanDuration(attr(h, "lasted")), reasonText(attr(h, trace.KeyReason)).Zh), true
	case is(h, trace.StageReflector, "phase") && attr(h, trace.KeyPhase) == "watching" && r.once("again"):
		return say("Ended cleanly: the Reflector watches again, at once, from its last synced resourceVersion.",
			"正常结束：反射器立刻从它最后同步的 resourceVersion 重新监听。"), true
	case is(h, trace.StageReflector, "watch") && r.said["again"] > 0 && r.once("rewatch"):
		v := quoteReflector(r.view(h), "pods")
		return say("WATCH from rv %[1]s. The server's history still holds every event after it. %[2]s", "从 rv %[1]s 开始 WATCH。服务器的历史里仍有它之后的每个事件。%[3]s", h.RV, v.En, v.Zh), true
	case is(h, trace.StageServer, "frame sent") && h.Key == corednsKey && r.once("replay"):
		return say("The server replays, from its history, what happened while the watch was down: the MODIFIED of %[1]s at rv %[2]s.",
			"服务器从历史中补发监听断开期间发生的事：%[1]s 在 rv %[2]s 的 MODIFIED。", corednsKey, h.RV), true
	case is(h, trace.StageReflector, "watch event") && h.Key == corednsKey && r.once("event"):
		return say("The Reflector handles it as any watch event: Update into the %[1]s; its last synced resourceVersion is now %[2]s.",
			"反射器像处理任何监听事件一样处理它：Update 进%[3]s；它最后同步的 resourceVersion 现在是 %[2]s。",
			queueNames(r.env.informer).En, h.RV, queueNames(r.env.informer).Zh), true
	case strings.HasPrefix(h.What, "cache ") && h.Stage == trace.StageInformer && h.Key == corednsKey && r.said["replay"] > 0 && r.once("cached"):
		w.cached = true
		if w.relisted {
			return say("The cache has %[1]s at rv %[2]s. (This time the Reflector relisted as well: its watch was cut too early to be resumed.)",
				"本地缓存里有了 rv %[2]s 的 %[1]s。（这一次反射器还是全量同步了：它的监听断得太早，无法续上。）", corednsKey, h.RV), true
		}
		return say("The cache has %[1]s at rv %[2]s. No list was made: the watch resumed where it stopped, and nothing was missed.",
			"本地缓存里有了 rv %[2]s 的 %[1]s。没有做任何列举：监听从断开处续上，什么也没错过。", corednsKey, h.RV), true
	}
	return bilingual{}, false
}

func (w *watchResume) done(*lessonRun) bool { return w.cached }

func (w *watchResume) outro(*lessonRun) bilingual {
	return say("That is the lesson: a watch that ends is resumed from the last resourceVersion, and the server replays its history from there: a relist is needed only when that history is gone (the 410 lesson). Stop puts the demo back.",
		"这一课到此：结束的监听会从最后的 resourceVersion 续上，服务器从那里补发历史；只有历史没了才需要全量同步（见 410 那一课）。按“停止”让演示恢复。")
}
