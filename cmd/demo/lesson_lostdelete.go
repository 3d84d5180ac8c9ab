package main

import (
	"strings"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// Lesson 1, lost-delete: the articles' tombstone. The server hides one
// pod's DELETED from the watches (POST /faults/drop), the pod is deleted;
// the watch cannot go on past the hole (410 Expired), the Reflector backs
// off and relists, and the pod, not in the list, reaches the handlers as
// a DeletedFinalStateUnknown: queued by the articles' DeltaFIFO's
// Replace, or made by today's informer when its ReplacedAll finds the pod
// gone from the cache. Experiment 3 of docs/experiments.md, stepped.
type lostDelete struct {
	baseScript
	name, key             string // the pod deleted
	modifiedRV, deletedRV string // its two commits
	gone, told            bool   // the cache dropped it; the controller's handler heard
}

func (l *lostDelete) begin(r *lessonRun) error {
	name, err := r.env.webPod()
	if err != nil {
		return err
	}
	l.name, l.key = name, "default/"+name
	if err := r.env.fault("/faults/drop?resource=pods&namespace=default&name=" + name + "&type=DELETED&count=1"); err != nil {
		return err
	}
	return r.env.deleteNow(name)
}

func (l *lostDelete) observe(_ *lessonRun, h lab.Hop) {
	if is(h, trace.StageServer, "commit") && h.Key == l.key {
		switch attr(h, trace.KeyType) {
		case "MODIFIED":
			l.modifiedRV = h.RV
		case "DELETED":
			l.deletedRV = h.RV
		}
	}
}

func (l *lostDelete) intro(r *lessonRun) bilingual {
	return say("Lesson: a lost delete. The lab is paused. The server was told to hide the next DELETED of pod %[1]s from the open watches (POST /faults/drop), then the pod was deleted with grace 0 (kubectl delete --grace-period=0): a MODIFIED (deletionTimestamp set, rv %[2]s) and the DELETED (rv %[3]s) are committed. The pods watch will miss the DELETED, so it cannot go on: the informer can learn of this delete only from a relist, as a tombstone, DeletedFinalStateUnknown. The informer's queue here is the %[4]s. Press Next.",
		"课程：丢失的删除。实验台已暂停。服务器被要求对打开的监听隐藏 pod %[1]s 的下一个 DELETED（POST /faults/drop），随后以宽限期 0 删除了这个 pod（kubectl delete --grace-period=0）：提交了一个 MODIFIED（设置了 deletionTimestamp，rv %[2]s）和那个 DELETED（rv %[3]s）。pods 的监听会错过这个 DELETED，因此不能再继续：通知器只能从一次全量同步（relist）中得知这次删除，形式是墓碑 DeletedFinalStateUnknown。这里通知器的队列是%[5]s。按“下一步”。",
		l.key, l.modifiedRV, l.deletedRV, queueNames(r.env.informer).En, queueNames(r.env.informer).Zh)
}

func (l *lostDelete) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	q := queueNames(r.env.informer)
	today := r.env.informer == todayInformer
	pods := r.res(h) == "pods"
	switch {
	case is(h, trace.StageServer, "frame sent") && h.Key == l.key && attr(h, trace.KeyType) == "MODIFIED" && r.once("frame"):
		return say("The server sends the pods watch the MODIFIED frame of %[1]s (rv %[2]s): the pod now has a deletionTimestamp. The DELETED at rv %[3]s never goes out: the drop fault hid it, the watch went deaf, and since the drop (one event) is over the server ends this watch with 410 Expired rather than send a stream with a hole in it.",
			"服务器向 pods 的监听发送 %[1]s 的 MODIFIED 帧（rv %[2]s）：这个 pod 已经有了 deletionTimestamp。rv %[3]s 的 DELETED 永远不会发出：丢弃故障把它藏了起来，这个监听就“聋”了；丢弃（只有一个事件）已经结束，于是服务器以 410 过期（Expired）结束这个监听，而不是发送一个有空洞的事件流。",
			l.key, h.RV, l.deletedRV), true
	case is(h, trace.StageReflector, "watch ended") && pods && r.once("ended"):
		return say("The Reflector's watch ends with an error (%[1]q): it missed the event at rv %[2]s and cannot go on past the hole. Its cache still holds %[3]s: the informer has not heard of the delete.",
			"反射器的监听以错误结束：它错过了 rv %[2]s 的事件，不能越过这个空洞继续。它的本地缓存里还有 %[3]s：通知器还不知道这次删除。",
			attr(h, trace.KeyReason), l.deletedRV, l.key), true
	case is(h, trace.StageDeltaFIFO, "delta queued") && pods && h.Key == l.key && r.once("modified"):
		return say("Meanwhile the MODIFIED goes on: the %[1]s queues %[2]s as %[3]s (rv %[4]s). The cache will hold the pod, marked for deletion, until the relist. %[5]s",
			"与此同时 MODIFIED 继续前进：%[6]s把 %[2]s 作为 %[3]s 入队（rv %[4]s）。在全量同步之前，本地缓存会一直保留这个被标记删除的 pod。%[7]s",
			q.En, l.key, attr(h, trace.KeyType), h.RV, quoteFIFOKey(r.view(h), "pods", l.key, q).En, q.Zh, quoteFIFOKey(r.view(h), "pods", l.key, q).Zh), true
	case is(h, trace.StageReflector, "phase") && pods && attr(h, trace.KeyPhase) == "backing off" && r.once("backoff"):
		v := quoteReflector(r.view(h), "pods")
		return say("The Reflector backs off %[1]s before it relists (%[2]s): a watch from its last resourceVersion would miss the DELETED again, so only a list can repair the cache. The backoff runs on the lab's clock: a Next that finds nothing else waiting moves the clock to its end. %[4]s",
			"反射器先退避 %[1]s 再全量同步（%[3]s）：从它最后的 resourceVersion 重新监听仍会错过那个 DELETED，只有列举才能修好本地缓存。退避用的是实验台的时钟：“下一步”找不到其他等待的一跳时，会把时钟拨到退避结束。%[5]s",
			after(h), reasonText(attr(h, trace.KeyReason)).En, reasonText(attr(h, trace.KeyReason)).Zh, v.En, v.Zh), true
	case is(h, trace.StageReflector, "phase") && pods && attr(h, trace.KeyPhase) == "listing" && r.said["backoff"] > 0 && r.once("relist"):
		return say("Backoff over (the lab's clock now reads %s): the Reflector relists.",
			"退避结束（实验台的时钟现在是 %s）：反射器开始全量同步。", labTime(h)), true
	case pods && (is(h, trace.StageReflector, "initial events end") || is(h, trace.StageReflector, "listed")) && r.said["relist"] > 0 && r.once("listed"):
		if today {
			return say("The streaming list has sent its %[1]s pods as ADDED events, then the initial-events-end bookmark at rv %[2]s. %[3]s is not among them: it is gone from the server.",
				"流式列举以 ADDED 事件发来了 %[1]s 个 pod，然后是 rv %[2]s 的初始事件结束书签。%[3]s 不在其中：服务器上已经没有它了。",
				attr(h, trace.KeyCount), h.RV, l.key), true
		}
		return say("The LIST answers %[1]s pods at rv %[2]s. %[3]s is not among them: it is gone from the server.",
			"LIST 返回了 rv %[2]s 的 %[1]s 个 pod。%[3]s 不在其中：服务器上已经没有它了。", attr(h, trace.KeyCount), h.RV, l.key), true
	case is(h, trace.StageDeltaFIFO, "replace") && pods && r.once("replace"):
		if today {
			return say("Replace on the RealFIFO: the whole list becomes one item, ReplacedAll. The RealFIFO keeps no knownObjects: what vanished is found when the item is applied, against the cache. (The articles' DeltaFIFO would queue here a Replaced delta per pod and a tombstone for %s.)",
				"增量队列（RealFIFO）的 Replace：整个列举结果成为一个条目 ReplacedAll。RealFIFO 不保存 knownObjects：消失了什么，要等应用这个条目时对照本地缓存才知道。（文章里的增量队列（DeltaFIFO）此时会为每个 pod 入队一个 Replaced 增量，并为 %s 入队一个墓碑。）", l.key), true
		}
		return say("Replace on the DeltaFIFO: a Replaced delta for each listed pod; then every key of its knownObjects (the cache) that the list does not have gets a tombstone. (Today's RealFIFO queues one ReplacedAll instead, and finds %s gone when it applies it.)",
			"增量队列（DeltaFIFO）的 Replace：为每个列举到的 pod 入队一个 Replaced 增量；然后 knownObjects（本地缓存）里有、列举结果里没有的每个键，都得到一个墓碑。（今天的增量队列（RealFIFO）只入队一个 ReplacedAll，应用它时才发现 %s 不见了。）", l.key), true
	case is(h, trace.StageDeltaFIFO, "tombstone queued") && pods && h.Key == l.key && r.once("tombstone"):
		v := quoteFIFOKey(r.view(h), "pods", l.key, q)
		return say("%[1]s is in knownObjects but not in the list: the DeltaFIFO queues a Deleted delta whose object is a tombstone, DeletedFinalStateUnknown{Key: %[1]s, Obj: its last known state, rv %[2]s}. %[3]s",
			"%[1]s 在 knownObjects 里却不在列举结果里：增量队列（DeltaFIFO）入队一个 Deleted 增量，它的对象是墓碑 DeletedFinalStateUnknown{Key: %[1]s, Obj: 最后所知的状态，rv %[2]s}。%[4]s",
			l.key, h.RV, v.En, v.Zh), true
	case is(h, trace.StageDeltaFIFO, "delta queued") && pods && attr(h, trace.KeyType) == "ReplacedAll" && r.once("replacedAll"):
		v := quoteFIFO(r.view(h), "pods", q)
		return say("The RealFIFO now holds the whole relist as one item: ReplacedAll at rv %[1]s. %[2]s",
			"增量队列（RealFIFO）现在把整次全量同步作为一个条目：rv %[1]s 的 ReplacedAll。%[3]s", h.RV, v.En, v.Zh), true
	case is(h, trace.StageInformer, "cache replace") && pods && r.once("cacheReplace"):
		return say("Popped (the queue's lock released): the informer swaps the cache for the list in one write, before any handler hears of it. gone=%[1]s: %[2]s was in the cache and is not in the list.",
			"出队（释放了队列锁）：通知器一次写入就把本地缓存换成列举结果，然后才通知事件处理器。gone=%[1]s：%[2]s 在本地缓存里，却不在列举结果里。",
			attr(h, "gone"), l.key), true
	case is(h, trace.StageDeltaFIFO, "pop") && pods && h.Key == l.key && strings.Contains(attr(h, "deltas"), "Deleted") && r.once("popTomb"):
		return say("The DeltaFIFO pops %[1]s: its deltas are [%[2]s], the tombstone.", "增量队列（DeltaFIFO）弹出 %[1]s：它的增量是 [%[2]s]，也就是那个墓碑。",
			l.key, attr(h, "deltas")), true
	case strings.HasPrefix(h.What, "cache delete (tombstone") && h.Stage == trace.StageInformer && pods && h.Key == l.key && r.once("gone"):
		l.gone = true
		v := quoteCacheHas(r.view(h), "pods", l.key)
		if today {
			return say("%[1]s leaves the cache. The handlers will get it as a DeletedFinalStateUnknown tombstone made from the cache's last copy (rv %[2]s): the same tombstone the articles' DeltaFIFO queues. %[3]s",
				"%[1]s 离开了本地缓存。事件处理器会收到用本地缓存里最后一份副本（rv %[2]s）做成的 DeletedFinalStateUnknown 墓碑：和文章里的增量队列（DeltaFIFO）入队的墓碑一样。%[4]s",
				l.key, h.RV, v.En, v.Zh), true
		}
		return say("%[1]s leaves the cache, deleted by its key (the tombstone's object, rv %[2]s, may be stale). %[3]s",
			"%[1]s 按键从本地缓存中删除（墓碑里的对象 rv %[2]s 可能已经过时）。%[4]s", l.key, h.RV, v.En, v.Zh), true
	case h.What == "OnDelete (final state unknown)" && pods && h.Key == l.key && attr(h, trace.KeyHandler) == "replicaset-controller" && r.once("told"):
		l.told = true
		return say("The controller's handler gets OnDelete with the DeletedFinalStateUnknown: the delete it never saw as an event. It unwraps the tombstone, lowers the ReplicaSet's expectations and enqueues default/web, as for any delete (the replacement pod was created earlier, when the MODIFIED came).",
			"控制器的事件处理器收到带 DeletedFinalStateUnknown 的 OnDelete：这是它从未以事件形式看到的删除。它拆开墓碑，调低 ReplicaSet 的期望（expectations），并像处理任何删除一样把 default/web 放入工作队列（替代的 pod 早在 MODIFIED 到来时就创建了）。"), true
	}
	return bilingual{}, false
}

func (l *lostDelete) done(*lessonRun) bool { return l.gone && l.told }

func (l *lostDelete) outro(*lessonRun) bilingual {
	return say("That is the lesson: a watch can miss an event; the relist repairs the cache, and a delete learned that way reaches the handlers as a DeletedFinalStateUnknown tombstone. A DeleteFunc must accept one. Stop puts the demo back.",
		"这一课到此：监听可能错过事件；全量同步修好本地缓存，用这种方式得知的删除以 DeletedFinalStateUnknown 墓碑到达事件处理器。DeleteFunc 必须能处理墓碑。按“停止”让演示恢复。")
}
