package main

import "fmt"

// tour is what to try, with the server's real address and the
// resourceVersion of a real list of pods filled in.
func tour(url, listRV string, inf informerKind) string { return englishTexts.tour(url, listRV, inf) }

// tour is the tour in t's language, for the informer that runs.
func (t *texts) tour(url, listRV string, inf informerKind) string {
	k := "kubectl --server " + url
	if t.lang == chinese {
		return fmt.Sprintf(tourZH, url, k, listRV, tourPipelineZH[inf])
	}
	return fmt.Sprintf(`
kinformer demo: a fake Kubernetes API server on %[1]s, two informers
(replicasets, pods) sharing one factory, a ReplicaSet controller with a
work queue, a kubelet that starts pods, and a chaos loop. Ctrl-C stops it.
The chaos loop breaks something every few seconds; to follow the steps below
undisturbed, start it with --chaos-every 0 (make demo ARGS="--chaos-every 0").

%[4]s
Try, in another terminal:
  1. List, as article 004 does with curl (this list was at resourceVersion %[3]s):
       curl %[1]s/api/v1/namespaces/default/pods
  2. Watch from that version (each line is one chunk of the stream):
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"
  3. Watch with kubectl, delete a pod, and see the controller answer here:
       %[2]s get pods -w
       %[2]s delete pod <a web pod>
       %[2]s get rs web
       %[2]s patch rs web -p '{"spec":{"replicas":5}}'    (scale up; then 2 to scale down)
  4. Break it and watch the informers recover, with the server's fault endpoints
     (curl %[1]s/faults lists them all):
       curl -X POST %[1]s/faults/close-watches    (watches resume from their last rv: no relist)
       curl -X POST %[1]s/faults/compact          (history gone; then close-watches: 410 Expired → relist)
       curl -X POST "%[1]s/faults/fail?code=429&count=3&retryAfter=2&verb=list"   (backoff, Retry-After)
     A lost delete, and the tombstone that repairs it:
       curl -X POST "%[1]s/faults/drop?resource=pods&type=DELETED"
       %[2]s delete pod <a web pod> --wait=false    (the pods watch misses the DELETED; it cannot go on past
                                          the hole, so the server ends it: 410 Expired → relist → the pod comes
                                          back as a tombstone)
     A whole outage as one fault (events lost for 3 s, then compaction, then every watch ends):
       curl -X POST "%[1]s/faults/outage?d=3s"
     and see 410 yourself: after the compact, a watch from the old version answers 410 Expired:
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"

`, url, k, listRV, tourPipeline[inf])
}

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

// tourZH is the tour in Chinese, in the words of docs/glossary.md; the
// commands are the same.
const tourZH = `
kinformer 演示：一个假的 Kubernetes API 服务器（在 %[1]s），两个通知器
（replicasets、pods）共用一个通知器工厂，一个带工作队列的 ReplicaSet 控制器，
一个启动 pod 的 kubelet，还有一个混沌循环。按 Ctrl-C 停止。
混沌循环每隔几秒就破坏一点东西；想不受干扰地照着下面的步骤做，就用
--chaos-every 0 启动（make demo ARGS="--chaos-every 0"）。

%[4]s
在另一个终端里试试：
  1. 像文章 004 用 curl 那样列举（这次列举的资源版本 resourceVersion 是 %[3]s）：
       curl %[1]s/api/v1/namespaces/default/pods
  2. 从这个版本开始监听（每一行是流里的一个分块）：
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"
  3. 用 kubectl 监听，删掉一个 pod，看控制器在这里作出反应：
       %[2]s get pods -w
       %[2]s delete pod <某个 web pod>
       %[2]s get rs web
       %[2]s patch rs web -p '{"spec":{"replicas":5}}'    （扩容；再改成 2 就是缩容）
  4. 用服务器的故障端点把它弄坏，看通知器如何恢复
     （curl %[1]s/faults 列出全部端点）：
       curl -X POST %[1]s/faults/close-watches    （监听从最后的 rv 接着来：不做全量同步）
       curl -X POST %[1]s/faults/compact          （历史没了；再 close-watches：410 过期 → 全量同步）
       curl -X POST "%[1]s/faults/fail?code=429&count=3&retryAfter=2&verb=list"   （退避，Retry-After）
     丢掉一次删除，再看墓碑如何补上它：
       curl -X POST "%[1]s/faults/drop?resource=pods&type=DELETED"
       %[2]s delete pod <某个 web pod> --wait=false    （pods 的监听错过了 DELETED；它不能越过这个空洞继续，
                                          所以服务器结束它：410 过期 → 全量同步 → 这个 pod 以墓碑的形式回来）
     把一整次中断当作一个故障（3 秒内事件丢失，然后压缩历史，再结束每个监听）：
       curl -X POST "%[1]s/faults/outage?d=3s"
     亲眼看看 410：压缩之后，从旧版本开始的监听会得到 410 过期：
       curl "%[1]s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%[3]s"

`
