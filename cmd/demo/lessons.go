package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// The lessons, in the order the page lists them. Each is a script in a
// file of its own (lesson_*.go); docs/demo.md "Lessons" names the test
// that runs each to its end.

// lessonMeta is a lesson's entry in the list.
type lessonMeta struct {
	id      string
	title   bilingual
	summary bilingual
	script  func(env *lessonEnv) lessonScript
}

var lessonCatalog = []lessonMeta{
	{id: "lost-delete",
		title: bilingual{"A lost delete becomes a tombstone", "丢失的删除变成墓碑"},
		summary: bilingual{"The DELETED frame of a pod is dropped, the watch fails, the Reflector relists, and the delete reaches the handlers as a DeletedFinalStateUnknown tombstone.",
			"一个 pod 的 DELETED 帧被丢弃，监听失败，反射器全量同步（relist），这次删除以 DeletedFinalStateUnknown 墓碑的形式到达事件处理器。"},
		script: func(*lessonEnv) lessonScript { return &lostDelete{} }},
	{id: "expired-relist",
		title: bilingual{"410 Expired → relist", "410 过期 → 全量同步"},
		summary: bilingual{"The server compacts its history and closes every watch: the Reflector's watch from its last resourceVersion gets 410 Expired, and it relists.",
			"服务器压缩历史并关闭所有监听：反射器从最后的 resourceVersion 重新监听，得到 410 过期（Expired），于是全量同步。"},
		script: func(*lessonEnv) lessonScript { return &expiredRelist{} }},
	{id: "watch-resume",
		title: bilingual{"A dropped watch resumes without a relist", "断开的监听续上，不做全量同步"},
		summary: bilingual{"Every watch is closed and a pod changes meanwhile: the Reflector watches again from its last resourceVersion, the server replays the change, and nothing is listed.",
			"所有监听被关闭，期间一个 pod 发生变化：反射器从最后的 resourceVersion 重新监听，服务器补发这次变化，没有任何列举。"},
		script: func(*lessonEnv) lessonScript { return &watchResume{} }},
	{id: "resync",
		title: bilingual{"A resync replays the cache", "重新同步（resync）重放本地缓存"},
		summary: bilingual{"A pod informer started for the lesson has a handler with a 10 s resync: the lab's clock jumps to the resync timer, and the cache is replayed to the handler without asking the server.",
			"为这一课启动的 pod 通知器有一个 10 秒重新同步的事件处理器：实验台的时钟跳到重新同步的定时器，本地缓存被重放给事件处理器，不向服务器要任何东西。"},
		script: func(*lessonEnv) lessonScript { return &resyncLesson{} }},
	{id: "slow-handler",
		title: bilingual{"A slow handler's backlog", "慢事件处理器的积压"},
		summary: bilingual{"The pod informer's audit handler is made slow and a pod changes five times: audit's notifications pile up in its own buffer while the controller's handler keeps up.",
			"把 pod 通知器的 audit 事件处理器变慢，一个 pod 连续变化五次：audit 的通知堆积在它自己的缓冲区里，而控制器的事件处理器跟得上。"},
		script: func(*lessonEnv) lessonScript { return &slowHandler{} }},
	{id: "queue-dedup",
		title: bilingual{"The work queue deduplicates while a key is processing", "键在处理中时，工作队列去重"},
		summary: bilingual{"The ReplicaSet changes three times while a worker reconciles it: the queue marks the key dirty instead of handing it to a second worker, and one more reconcile covers both later changes.",
			"在 worker 调谐 ReplicaSet 期间它又变化了三次：工作队列只把这个键标记为 dirty，而不交给第二个 worker；之后再一次调谐就覆盖了后面的变化。"},
		script: func(*lessonEnv) lessonScript { return &queueDedup{} }},
	{id: "retries",
		title: bilingual{"Rate-limited retries, then a drop", "限速重试，然后丢弃"},
		summary: bilingual{"Every reconcile fails on purpose: the key is retried after 5, 10, 20, 40 and 80 ms on the lab's clock, then the controller gives up and drops it.",
			"每次调谐都故意失败：这个键在实验台时钟上分别等待 5、10、20、40、80 毫秒后重试，然后控制器放弃并丢弃它。"},
		script: func(*lessonEnv) lessonScript { return &retriesLesson{} }},
	{id: "both-informers",
		title: bilingual{"The same relist, the articles' informer and today's", "同一次全量同步：文章里的通知器和今天的通知器"},
		summary: bilingual{"A second pod informer of the other kind starts on the same server; one missed delete makes both relist: the DeltaFIFO's Replaced deltas and tombstone beside the RealFIFO's one ReplacedAll.",
			"在同一台服务器上再启动一个另一种的 pod 通知器；一次错过的删除让两者都全量同步：增量队列（DeltaFIFO）的逐个 Replaced 增量和墓碑，对比增量队列（RealFIFO）的一个 ReplacedAll。"},
		script: func(*lessonEnv) lessonScript { return &bothInformers{} }},
}

func lessonByID(id string) (lessonMeta, bool) {
	i := slices.IndexFunc(lessonCatalog, func(m lessonMeta) bool { return m.id == id })
	if i < 0 {
		return lessonMeta{}, false
	}
	return lessonCatalog[i], true
}

func lessonList() []lessonListed {
	out := make([]lessonListed, len(lessonCatalog))
	for i, m := range lessonCatalog {
		out[i] = lessonListed{ID: m.id, Title: m.title, Summary: m.summary}
	}
	return out
}

// baseScript is what most lessons do not need: nothing to prepare,
// observe or clean up, no closing words.
type baseScript struct{}

func (baseScript) prepare(*lessonRun) error    { return nil }
func (baseScript) observe(*lessonRun, lab.Hop) {}
func (baseScript) outro(*lessonRun) bilingual  { return bilingual{} }
func (baseScript) cleanup(*lessonRun)          {}

// Reading a hop.

// is reports whether h is stage's event what.
func is(h lab.Hop, stage, what string) bool { return h.Stage == stage && h.What == what }

// res is the resource h is about (a server frame's: its watch's).
func (r *lessonRun) res(h lab.Hop) string { return r.ls.seen.resourceOf(h) }

func attr(h lab.Hop, k string) string { return h.Attrs[k] }

// after is h's delay attribute as a person reads it.
func after(h lab.Hop) string { return humanDuration(attr(h, trace.KeyDelay)) }

// labTime is the lab's clock at h, as hh:mm:ss.mmm.
func labTime(h lab.Hop) string { return h.Time.Format("15:04:05.000") }

// queueNames are a queue's names in both languages.
func queueNames(k informerKind) bilingual {
	if k == articlesInformer {
		return bilingual{"DeltaFIFO", "增量队列（DeltaFIFO）"}
	}
	return bilingual{"RealFIFO", "增量队列（RealFIFO）"}
}

// The world, as a lesson changes it.

// fault calls one of the fake server's fault endpoints, as the page's
// buttons and curl do (the narration tells it as "you: ...").
func (e *lessonEnv) fault(path string) error {
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.serverURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	var res fakeapiserver.FaultResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s", path, resp.Status)
	}
	return nil
}

// webPod is a pod of the ReplicaSet web, running and not being deleted,
// the first by name.
func (e *lessonEnv) webPod() (string, error) {
	objs, _, err := e.srv.List("pods", "default")
	if err != nil {
		return "", err
	}
	var names []string
	for _, o := range objs {
		if o.GetLabels()["app"] == "web" && o.GetDeletionTimestamp() == nil {
			names = append(names, o.GetName())
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no pod of web to use")
	}
	slices.Sort(names)
	return names[0], nil
}

// deleteNow deletes a pod with grace 0, as kubectl delete --grace-period=0:
// a MODIFIED (deletionTimestamp set), then the DELETED.
func (e *lessonEnv) deleteNow(name string) error {
	zero := int64(0)
	return e.pods.Delete(e.ctx, "default", name, listwatch.DeleteOptions{GracePeriodSeconds: &zero})
}

// annotate writes one annotation on an object (a merge patch): a
// MODIFIED that changes nothing else. It returns the new resourceVersion.
func (e *lessonEnv) annotate(resource, namespace, name, value string) (string, error) {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"kinformer.dev/lesson":%q}}}`, value)
	obj, err := e.srv.Patch(resource, namespace, name, fakeapiserver.MergePatchType, []byte(patch))
	if err != nil {
		return "", fmt.Errorf("annotating %s %s/%s: %w", resource, namespace, name, err)
	}
	return obj.GetResourceVersion(), nil
}

// joinKeys writes keys as "a, b, c", or "none".
func joinKeys(keys []string, none string) string {
	if len(keys) == 0 {
		return none
	}
	return strings.Join(keys, ", ")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }

// reasonText is a reflector's reason in both languages (lang.go's words;
// as it came if it is not one of the usual ones).
func reasonText(reason string) bilingual {
	if reason == "the server closed it" {
		return bilingual{reason, "服务器关闭了它"}
	}
	return bilingual{reason, chineseTexts.reason(reason)}
}
