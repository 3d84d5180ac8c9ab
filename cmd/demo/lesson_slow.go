package main

import (
	"fmt"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// Lesson 5, slow-handler: each handler has its own listener (article 002
// §2.7's unbounded buffer per handler). The page's "slow a handler"
// switch makes the pod informer's audit handler take 300 ms of the lab's
// clock per notification; a pod then changes five times. audit's pending
// notifications pile up while replicaset-controller's listener, beside
// it, hands each one over at once.
type slowHandler struct {
	baseScript
	wasSlow   bool
	rvs       []string // the changes, in order
	peak      int      // audit's largest backlog
	auditDone bool     // audit handled the last change
	ctrlDone  bool     // the controller's handler did
}

const slowChanges = 5

func (s *slowHandler) begin(r *lessonRun) error {
	s.wasSlow = r.env.page.slow.Swap(true)
	for i := range slowChanges {
		rv, err := r.env.annotate("pods", "kube-system", "coredns", fmt.Sprintf("change %d of %d", i+1, slowChanges))
		if err != nil {
			return err
		}
		s.rvs = append(s.rvs, rv)
	}
	return nil
}

func (s *slowHandler) cleanup(r *lessonRun) { r.env.page.slow.Store(s.wasSlow) }

func (s *slowHandler) intro(r *lessonRun) bilingual {
	return say("Lesson: a slow handler. The pod informer has two handlers: replicaset-controller (the controller's) and audit. audit now takes %[1]s per notification, on the lab's clock (the page's \"slow a handler\" switch), and %[2]s has changed %[3]d times (rv %[4]s to %[5]s). Each handler has its own listener, with its own buffer and goroutines: watch audit's pending grow while the controller's stays at zero. Press Next.",
		"课程：慢的事件处理器。pod 通知器有两个事件处理器：replicaset-controller（控制器的）和 audit。现在 audit 每个通知要花 %[1]s（实验台的时钟；页面上的“让一个处理器变慢”开关），而 %[2]s 已经变化了 %[3]d 次（rv %[4]s 到 %[5]s）。每个事件处理器都有自己的监听器（processorListener），有自己的缓冲区和 goroutine：看 audit 的待处理数增长，而控制器的保持为零。按“下一步”。",
		humanDuration(r.env.page.handlerWait.String()), corednsKey, slowChanges, s.rvs[0], s.rvs[len(s.rvs)-1])
}

func (s *slowHandler) narrate(r *lessonRun, h lab.Hop) (bilingual, bool) {
	if r.res(h) != "pods" || h.Key != corednsKey || h.Stage != trace.StageInformer {
		return bilingual{}, false
	}
	last := h.RV == s.rvs[len(s.rvs)-1]
	pending := attr(h, "pending")
	switch handler := attr(h, trace.KeyHandler); {
	case h.What == "notify" && handler == auditHandlerName:
		s.peak = max(s.peak, atoi(pending))
		v := quotePending(r.view(h), "pods/"+auditHandlerName, auditHandlerName)
		return say("The informer hands audit's listener the update of rv %[1]s and goes on at once: audit now has %[2]s not yet handled (one in its hands, the rest in its buffer). The informer never waits for a handler. %[3]s",
			"通知器把 rv %[1]s 的更新交给 audit 的监听器，立刻继续：audit 现在有 %[2]s 个通知尚未处理完（一个在手上，其余在缓冲区里）。通知器从不等事件处理器。%[4]s", h.RV, pending, v.En, v.Zh), true
	case h.What == "OnUpdate" && handler == auditHandlerName:
		s.auditDone = s.auditDone || last
		return say("audit takes the update of rv %[1]s (%[2]s more waiting) and works on it for %[3]s of the lab's clock: a Next that finds nothing else waiting moves the clock on.",
			"audit 取出 rv %[1]s 的更新（还有 %[2]s 个在等），在实验台的时钟上处理 %[3]s：“下一步”找不到其他等待的一跳时会拨动时钟。",
			h.RV, pending, humanDuration(r.env.page.handlerWait.String())), true
	case h.What == "OnUpdate" && handler == "replicaset-controller":
		s.ctrlDone = s.ctrlDone || last
		return say("replicaset-controller's listener hands the update of rv %[1]s to its handler at once (%[2]s waiting): the slow audit, on another listener, does not hold it up.",
			"replicaset-controller 的监听器立刻把 rv %[1]s 的更新交给它的事件处理器（%[2]s 个在等）：慢的 audit 在另一个监听器上，拖不住它。", h.RV, pending), true
	}
	return bilingual{}, false
}

func (s *slowHandler) done(*lessonRun) bool { return s.auditDone && s.ctrlDone }

func (s *slowHandler) outro(*lessonRun) bilingual {
	return say("That is the lesson: audit's backlog reached %[1]d while the controller's never grew: each handler's listener has an unbounded buffer of its own, so a slow handler delays only itself (and its memory grows). Stop turns audit fast again.",
		"这一课到此：audit 的积压最多达到 %[1]d，而控制器的从未增长：每个事件处理器的监听器都有自己的无界缓冲区，慢的事件处理器只拖慢自己（它的内存会增长）。按“停止”让 audit 恢复正常速度。", s.peak)
}
