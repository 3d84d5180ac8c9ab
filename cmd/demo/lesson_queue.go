package main

import (
	"time"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// The work queue's lessons (article 004's workqueue, 000 §2).

const webKey = "default/web"

// Lesson 6, queue-dedup: the ReplicaSet changes while a worker reconciles
// it. The lesson keeps that reconcile busy (reconcileHold, as a slow API
// call would) and changes the ReplicaSet twice more: the first Add finds
// the key processing (dirty, not queued), the second finds it dirty
// (deduplicated); Done queues it once more, and one reconcile covers both.
type queueDedup struct {
	baseScript
	rvs  []string // the changes' resourceVersions
	over bool
}

func (q *queueDedup) change(r *lessonRun) (string, error) {
	rv, err := r.env.annotate("replicasets", "default", "web", "change "+itoa(len(q.rvs)+1))
	if err == nil {
		q.rvs = append(q.rvs, rv)
	}
	return rv, err
}

func (q *queueDedup) begin(r *lessonRun) error {
	r.ls.hold.arm()
	_, err := q.change(r)
	return err
}

func (q *queueDedup) cleanup(r *lessonRun) { r.ls.hold.release() }

func (q *queueDedup) intro(*lessonRun) bilingual {
	return say("Lesson: the work queue's dedup. The ReplicaSet web has changed (change 1: an annotation, rv %s). Follow its key, default/web, into the work queue: its queue, its dirty set (keys waiting to be processed) and its processing set (keys a worker has). The lesson will keep the first reconcile busy, as a slow API call would, and change the ReplicaSet again meanwhile. Press Next.",
		"课程：工作队列去重。ReplicaSet web 变化了（第 1 次变化：一个注解，rv %s）。跟着它的键 default/web 进入工作队列：队列本身、dirty 集合（等待处理的键）和 processing 集合（worker 手上的键）。这一课会让第一次调谐一直忙着（就像一次慢的 API 调用），并在此期间再次修改 ReplicaSet。按“下一步”。", q.rvs[0])
}

func (q *queueDedup) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if h.Key != webKey {
		return bilingual{}, false
	}
	v := quoteWorkQueue(r.view(h), "replicaset")
	switch {
	case is(h, trace.StageController, "enqueue") && r.once("enqueue"):
		return say("Change 1 reached the controller's ReplicaSet handler, which does no work: it enqueues the key, default/web.",
			"第 1 次变化到达控制器的 ReplicaSet 事件处理器，它不做任何工作：只把键 default/web 放入工作队列。"), true
	case is(h, trace.StageWorkQueue, "add") && r.once("add"):
		return say("Add: default/web goes into the queue and into the dirty set. %[1]s", "Add：default/web 进入队列，也进入 dirty 集合。%[2]s", v.En, v.Zh), true
	case is(h, trace.StageWorkQueue, "get") && r.said["add"] > 0 && r.once("get1"):
		return say("A worker Gets it: the key leaves the queue and the dirty set and enters processing. %[1]s", "一个 worker 用 Get 取走它：这个键离开队列和 dirty 集合，进入 processing。%[2]s", v.En, v.Zh), true
	case is(h, trace.StageController, "reconcile") && r.said["get1"] > 0 && r.once("reconcile1"):
		rv, err := q.change(r)
		if err != nil {
			return say("The worker reconciles default/web; changing the ReplicaSet again failed: %v", "worker 调谐 default/web；再次修改 ReplicaSet 失败：%v", err), true
		}
		return say("The worker reconciles default/web. The lesson keeps this reconcile busy, as a slow API call would, and changes the ReplicaSet again: change 2, rv %s.",
			"worker 调谐 default/web。这一课让这次调谐一直忙着（就像一次慢的 API 调用），并再次修改 ReplicaSet：第 2 次变化，rv %s。", rv), true
	case is(h, trace.StageWorkQueue, "add (while processing)") && r.once("while"):
		rv, _ := q.change(r)
		return say("Change 2 enqueues default/web while a worker has it: Add marks it dirty and does not queue it, so no second worker can take it: a key is never reconciled twice at once. %[1]s Now change 3 (rv %[2]s).",
			"第 2 次变化在 worker 手上还有 default/web 时把它放入工作队列：Add 只把它标记为 dirty，不放进队列，所以第二个 worker 拿不到它：同一个键绝不会同时被调谐两次。%[3]s 现在是第 3 次变化（rv %[2]s）。", v.En, rv, v.Zh), true
	case is(h, trace.StageWorkQueue, "add (deduplicated)") && r.once("dedup"):
		r.ls.hold.release()
		return say("Change 3: default/web is already dirty, so nothing is added: three changes, and the key waits once. This is the dedup. The lesson now lets the busy reconcile finish. %[1]s", "第 3 次变化：default/web 已经是 dirty 了，所以什么也不加：三次变化，这个键只等一次。这就是去重。这一课现在让那次忙着的调谐结束。%[2]s", v.En, v.Zh), true
	case is(h, trace.StageController, "reconciled") && r.said["dedup"] > 0 && r.once("reconciled1"):
		return say("The first reconcile ends (found: %[1]s; did: %[2]s).", "第一次调谐结束（发现：%[3]s；做了：%[4]s）。",
			attr(h, "found"), attr(h, "did"), chineseTexts.found(attr(h, "found")), chineseTexts.did(attr(h, "did"))), true
	case is(h, trace.StageWorkQueue, "done (queued again)") && r.once("again"):
		return say("Done: the key is still dirty, so it goes back into the queue: once, for changes 2 and 3. %[1]s", "Done：这个键仍是 dirty，所以回到队列里：只有一次，代表第 2、3 次变化。%[2]s", v.En, v.Zh), true
	case is(h, trace.StageWorkQueue, "get") && r.said["again"] > 0 && r.once("get2"):
		return say("A worker Gets default/web again. %[1]s", "一个 worker 再次取走 default/web。%[2]s", v.En, v.Zh), true
	case is(h, trace.StageController, "reconciled") && r.said["get2"] > 0 && r.once("reconciled2"):
		q.over = true
		return say("The second reconcile ends (found: %[1]s; did: %[2]s). It covered changes 2 and 3 at once: the controller is level-triggered, it reads the ReplicaSet from the cache, which has both.",
			"第二次调谐结束（发现：%[3]s；做了：%[4]s）。它一次覆盖了第 2、3 次变化：控制器是水平触发的，它从本地缓存读取 ReplicaSet，而缓存里两次变化都有。",
			attr(h, "found"), attr(h, "did"), chineseTexts.found(attr(h, "found")), chineseTexts.did(attr(h, "did"))), true
	}
	return bilingual{}, false
}

func (q *queueDedup) done(*lessonRun) bool { return q.over }

func (q *queueDedup) outro(*lessonRun) bilingual {
	return say("That is the lesson: three changes, two reconciles. The dirty set deduplicates a key that waits, and a key added while processing waits for Done: never two workers on one key. Stop puts the demo back.",
		"这一课到此：三次变化，两次调谐。dirty 集合为等待中的键去重，处理中又被加入的键要等到 Done：同一个键绝不会有两个 worker。按“停止”让演示恢复。")
}

// Lesson 7, retries: every reconcile of default/web fails (the page's
// "make reconcile fail", MaxRetries+1 times). The controller retries it
// rate-limited (5 ms doubling per failure, on the lab's clock: each Next
// moves the clock to the next retry), then forgets and drops it.
type retriesLesson struct {
	baseScript
	rv        string
	retries   int
	lastRetry time.Time
	dropped   bool
}

func (l *retriesLesson) begin(r *lessonRun) error {
	r.env.page.failNext.Store(int64(r.env.maxRetries + 1))
	rv, err := r.env.annotate("replicasets", "default", "web", "every reconcile fails")
	l.rv = rv
	return err
}

func (l *retriesLesson) cleanup(r *lessonRun) { r.env.page.failNext.Store(0) }

func (l *retriesLesson) intro(r *lessonRun) bilingual {
	return say("Lesson: rate-limited retries. The next %[1]d reconciles fail on purpose (the page's \"make reconcile fail\"), and the ReplicaSet web has changed (rv %[2]s), so the controller will reconcile it. The controller retries a failing key at most %[3]d times, each after the rate limiter's delay: 5 ms, doubling per failure. The delays run on the lab's clock: each Next that finds nothing waiting moves the clock to the next retry. Press Next.",
		"课程：限速重试。接下来的 %[1]d 次调谐会故意失败（页面上的“让调谐失败”），而 ReplicaSet web 刚刚变化（rv %[2]s），所以控制器会调谐它。控制器对失败的键最多重试 %[3]d 次，每次等待限速器给出的延迟：5 毫秒，每失败一次翻倍。延迟用的是实验台的时钟：“下一步”找不到等待的一跳时，会把时钟拨到下一次重试。按“下一步”。",
		r.env.maxRetries+1, l.rv, r.env.maxRetries)
}

func (l *retriesLesson) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if h.Key != webKey {
		return bilingual{}, false
	}
	switch {
	case is(h, trace.StageController, "enqueue") && r.once("enqueue"):
		return say("The change reached the handler: it enqueues default/web.", "变化到达事件处理器：它把 default/web 放入工作队列。"), true
	case is(h, trace.StageController, "reconcile") && r.once("reconcile"):
		return say("A worker reconciles default/web, and the reconcile fails.", "一个 worker 调谐 default/web，调谐失败了。"), true
	case is(h, trace.StageController, "retry"):
		l.retries++
		l.lastRetry = h.Time
		v := quoteWorkQueue(r.view(h), "replicaset")
		return say("Failure %[1]d (%[2]s). The controller calls AddRateLimited: retry %[3]s after %[4]s (the rate limiter's per-key delay: 5 ms × 2^%[5]d). Until then default/web waits in the delaying queue: it is not queued, no worker can take it. %[6]s",
			"第 %[1]d 次失败（故意的）。控制器调用 AddRateLimited：%[4]s 后第 %[3]s 次重试（限速器按键计算的延迟：5 毫秒 × 2^%[5]d）。在此之前 default/web 在延迟队列里等待：不在队列中，没有 worker 能取到它。%[7]s",
			l.retries, attr(h, trace.KeyReason), attr(h, trace.KeyCount), after(h), l.retries-1, v.En, v.Zh), true
	case is(h, trace.StageWorkQueue, "add") && l.retries > 0 && !l.lastRetry.IsZero():
		waited := h.Time.Sub(l.lastRetry)
		l.lastRetry = time.Time{}
		return say("The lab's clock moved %[1]s, to the retry (it reads %[2]s): the delaying queue adds default/web back to the queue, and a worker will reconcile it again.",
			"实验台的时钟走了 %[1]s，到了重试的时间（现在是 %[2]s）：延迟队列把 default/web 加回队列，一个 worker 会再次调谐它。",
			humanDuration(waited.String()), labTime(h)), true
	case is(h, trace.StageController, "dropped") && r.once("dropped"):
		l.dropped = true
		return say("Failure %[1]d: NumRequeues has reached MaxRetries (%[2]d). The controller calls Forget (the key's failures are reset) and drops it: default/web is not retried any more. Its next change, or a resync, will enqueue it again.",
			"第 %[1]d 次失败：NumRequeues 达到了 MaxRetries（%[2]d）。控制器调用 Forget（这个键的失败次数清零）并丢弃它：default/web 不再重试。它下一次变化，或一次重新同步，会再把它放入工作队列。",
			l.retries+1, r.env.maxRetries), true
	}
	return bilingual{}, false
}

func (l *retriesLesson) done(*lessonRun) bool { return l.dropped }

func (l *retriesLesson) outro(*lessonRun) bilingual {
	return say("That is the lesson: a failing key is retried with growing delays, so a broken dependency is not hammered, and dropped after MaxRetries, so one bad key cannot keep a worker busy for ever (article 004's handleErr). Stop puts the demo back.",
		"这一课到此：失败的键按递增的延迟重试，不会狂打出了问题的依赖；重试 MaxRetries 次后被丢弃，一个坏键不会永远占着 worker（文章 004 的 handleErr）。按“停止”让演示恢复。")
}
