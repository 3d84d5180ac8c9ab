package main

import (
	"strings"
	"time"

	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// Lesson 4, resync: a resync replays the cache (article 003's resync, 000
// §2). The demo's informers have no resync period, so the lesson starts
// a pod informer of its own, "pods (resync)", of the demo's kind, whose
// handler asks for a resync every resyncEvery. Nothing happens in the
// world: each Next moves the lab's clock to its next timer, and the
// resync timer brings the story.
type resyncLesson struct {
	baseScript
	inf      *lessonInformer
	expected int // objects replayed
	told     int // OnUpdate (resync) calls
}

// resyncEvery is the lesson's resync period: short, so that the lab's
// clock reaches it in a few jumps (controllers use minutes or hours).
const resyncEvery = 10 * time.Second

const resyncInformer = "pods (resync)"

func (l *resyncLesson) prepare(r *lessonRun) error {
	p := informer.Today
	if r.env.informer == articlesInformer {
		p = informer.Articles
	}
	inf, err := r.env.startInformer(r.ctx, resyncInformer, p, resyncEvery)
	if err != nil {
		return err
	}
	l.inf = inf
	return r.ls.waitCalm(r.ctx)
}

func (l *resyncLesson) begin(*lessonRun) error { return nil }

func (l *resyncLesson) cleanup(*lessonRun) { l.inf.stop() }

func (l *resyncLesson) intro(r *lessonRun) bilingual {
	return say("Lesson: a resync. For this lesson a second pod informer runs, its boxes named %[1]q, with one handler, \"lesson\", whose resync period is %[2]s (the demo's informers have none; a controller's is minutes or hours). The lab is paused and nothing changes in the world: the next hops come from timers. Each Next that finds no hop waiting moves the lab's clock to its next timer (bookmarks, the work queue's metrics tick) until the resync timer fires. The informer's queue here is the %[3]s. Press Next.",
		"课程：重新同步（resync）。这一课另外运行一个 pod 通知器，它的各个方框名为 %[1]q，只有一个事件处理器 \"lesson\"，重新同步周期是 %[2]s（演示自己的通知器没有重新同步；控制器的通常是几分钟或几小时）。实验台已暂停，世界里什么也没变：接下来的每一跳都来自定时器。“下一步”找不到等待的一跳时，就把实验台的时钟拨到下一个定时器（书签、工作队列的指标计时），直到重新同步的定时器触发。这里通知器的队列是%[4]s。按“下一步”。",
		resyncInformer, humanDuration(resyncEvery.String()), queueNames(r.env.informer).En, queueNames(r.env.informer).Zh)
}

func (l *resyncLesson) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if r.res(h) != resyncInformer {
		return bilingual{}, false
	}
	q := queueNames(r.env.informer)
	today := r.env.informer == todayInformer
	switch {
	case is(h, trace.StageReflector, "resync") && r.once("resync"):
		return say("The lab's clock reached the resync timer (it reads %s): the Reflector's resync loop asks ShouldResync (yes: the handler is due) and calls Resync on its queue. The server is asked nothing: a resync replays the informer's own cache, it is not a relist.",
			"实验台的时钟走到了重新同步的定时器（现在是 %s）：反射器的重新同步循环问 ShouldResync（是：这个事件处理器到期了），然后对队列调用 Resync。不向服务器要任何东西：重新同步重放的是通知器自己的本地缓存，不是全量同步。", labTime(h)), true
	case is(h, trace.StageDeltaFIFO, "resync") && r.once("queue"):
		if today {
			return say("Resync on the RealFIFO: one item, SyncAll; the informer will replay its cache when it pops it. (The articles' DeltaFIFO queues a Sync delta per cached key instead.)",
				"增量队列（RealFIFO）的 Resync：一个条目 SyncAll；通知器弹出它时会重放本地缓存。（文章里的增量队列（DeltaFIFO）则为缓存里的每个键入队一个 Sync 增量。）"), true
		}
		l.expected = atoi(attr(h, trace.KeyCount))
		return say("Resync on the DeltaFIFO: a Sync delta for each of the %s keys of its knownObjects, the cache (a key that already has deltas queued is skipped: they are newer). (Today's RealFIFO queues one SyncAll instead.)",
			"增量队列（DeltaFIFO）的 Resync：为 knownObjects（本地缓存）中的 %s 个键各入队一个 Sync 增量（已有增量在排队的键跳过：那些更新）。（今天的增量队列（RealFIFO）只入队一个 SyncAll。）", attr(h, trace.KeyCount)), true
	case is(h, trace.StageDeltaFIFO, "delta queued") && strings.HasPrefix(attr(h, trace.KeyType), "Sync") && r.once("queued"):
		v := quoteFIFO(r.view(h), resyncInformer, q)
		if today {
			return say("Queued: one SyncAll item, with no key. %[1]s", "已入队：一个 SyncAll 条目，没有键。%[2]s", v.En, v.Zh), true
		}
		return say("Queued: the first Sync delta, %[1]s at rv %[2]s; one follows for each cached key. %[3]s",
			"已入队：第一个 Sync 增量，rv %[2]s 的 %[1]s；缓存里的每个键都有一个。%[4]s", h.Key, h.RV, v.En, v.Zh), true
	case is(h, trace.StageInformer, "cache resync") && r.once("replay"):
		l.expected = atoi(attr(h, trace.KeyCount))
		return say("Popped: SyncAll. The informer replays every cached object (%s) to the handlers due for a resync; the cache itself does not change.",
			"出队：SyncAll。通知器把本地缓存中的每个对象（%s 个）重放给到期的事件处理器；本地缓存本身不变。", attr(h, trace.KeyCount)), true
	case is(h, trace.StageInformer, "cache update") && attr(h, "delta") == "Sync" && r.once("replay"):
		return say("Popped: the Sync delta of %s. The cache is written with the object it already had; the handlers due for a resync are told.",
			"出队：%s 的 Sync 增量。本地缓存写入的是它已有的同一个对象；到期的事件处理器得到通知。", h.Key), true
	case is(h, trace.StageInformer, "notify") && attr(h, trace.KeyType) == "resync" && r.once("notify"):
		v := quotePending(r.view(h), resyncInformer+"/lesson", "lesson")
		return say("The handler's listener gets a resync notification for %[1]s (pending %[2]s). %[3]s",
			"事件处理器的监听器收到 %[1]s 的重新同步通知（待处理 %[2]s 个）。%[4]s", h.Key, attr(h, "pending"), v.En, v.Zh), true
	case h.What == "OnUpdate (resync)":
		l.told++
		return say("OnUpdate (resync) for %[1]s: old and new are the same object, rv %[2]s. A resync is a reminder to look again, not a change (%[3]d of %[4]d).",
			"%[1]s 的 OnUpdate（重新同步）：新旧是同一个对象，rv %[2]s。重新同步是提醒再看一遍，而不是变化（第 %[3]d 个，共 %[4]d 个）。", h.Key, h.RV, l.told, l.expected), true
	}
	return bilingual{}, false
}

func (l *resyncLesson) done(*lessonRun) bool { return l.expected > 0 && l.told >= l.expected }

func (l *resyncLesson) outro(*lessonRun) bilingual {
	return say("That is the lesson: a resync comes from a timer, replays the cache through the queue to the handlers that asked for one, and asks the server nothing; a handler must expect an update whose old and new objects are the same. Stop ends the lesson's informer.",
		"这一课到此：重新同步来自定时器，经由队列把本地缓存重放给要求重新同步的事件处理器，不向服务器要任何东西；事件处理器必须预料到新旧对象相同的更新。按“停止”结束这一课的通知器。")
}
