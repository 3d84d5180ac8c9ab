package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/controller/replicaset"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// settleTimeout is how long the final check waits for the world to agree
// after the chaos stops: a relist after a compaction and a pod start take
// a few seconds at most.
const settleTimeout = 15 * time.Second

// check is the final check: every informer's cache equals the server, and
// the ReplicaSet has its replicas.
type check struct {
	caches   map[string]string // resource -> "ok" or what differs
	replicas string            // "3 of 3 ready" ...
	ok       bool
	// The numbers replicas is made of, for the Chinese summary; counted
	// is false when replicas is an error instead.
	counted                                bool
	active, statusReplicas, ready, wantRep int
}

func (c check) err() error {
	if c.ok {
		return nil
	}
	return fmt.Errorf("final check failed: replicas %s, caches %v", c.replicas, c.caches)
}

// finalCheck polls until the world agrees or settleTimeout passes. The
// replicas wanted are the ReplicaSet's own spec.replicas: the learner may
// have scaled it.
func finalCheck(srv *fakeapiserver.Server, factory informer.SharedInformerFactory) check {
	deadline := time.Now().Add(settleTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		c := checkOnce(srv, factory)
		if c.ok || time.Now().After(deadline) {
			return c
		}
		<-tick.C
	}
}

func checkOnce(srv *fakeapiserver.Server, factory informer.SharedInformerFactory) check {
	c := check{caches: map[string]string{}, ok: true}
	for _, r := range []listwatch.Resource{listwatch.ReplicaSets, listwatch.Pods} {
		c.caches[r.Resource] = compareCache(srv, factory.InformerFor(r), r.Resource)
		c.ok = c.ok && c.caches[r.Resource] == "ok"
	}
	obj, err := srv.Get("replicasets", "default", "web")
	if err != nil {
		c.replicas, c.ok = err.Error(), false
		return c
	}
	rs := obj.(*api.ReplicaSet)
	want := 1
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	pods, _, _ := srv.List("pods", "default")
	active := 0
	for _, p := range pods {
		if p.GetLabels()["app"] == "web" && p.GetDeletionTimestamp() == nil {
			active++
		}
	}
	c.replicas = fmt.Sprintf("%d pods, status %d replicas %d ready, want %d", active, rs.Status.Replicas, rs.Status.ReadyReplicas, want)
	c.counted, c.active, c.statusReplicas, c.ready, c.wantRep = true, active, int(rs.Status.Replicas), int(rs.Status.ReadyReplicas), want
	c.ok = c.ok && active == want && int(rs.Status.Replicas) == want && int(rs.Status.ReadyReplicas) == want
	return c
}

// compareCache compares an informer's cache with the server's objects, key
// by key and resourceVersion by resourceVersion.
func compareCache(srv *fakeapiserver.Server, inf informer.SharedIndexInformer, resource string) string {
	objs, _, err := srv.List(resource, "")
	if err != nil {
		return err.Error()
	}
	server := map[string]string{}
	for _, o := range objs {
		server[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	cache := map[string]string{}
	for _, o := range inf.GetStore().List() {
		cache[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	if maps.Equal(server, cache) {
		return "ok"
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(server)) {
		if cache[k] != server[k] {
			diffs = append(diffs, fmt.Sprintf("%s server rv %s cache rv %q", k, server[k], cache[k]))
		}
	}
	for k := range cache {
		if _, ok := server[k]; !ok {
			diffs = append(diffs, k+" only in the cache")
		}
	}
	return strings.Join(diffs, "; ")
}

// summary is what happened, counted from the trace and the controller, and
// the final check.
func summary(n *narrator, s replicaset.Stats, faults int64, c check) string {
	if n.t.lang == chinese {
		return summaryZH(n, s, faults, c)
	}
	var out strings.Builder
	c2 := countsOf(n)
	fmt.Fprintf(&out, "\nsummary\n  informer:              %s\n", n.t.informerName(n.informer))
	if n.informer == todayInformer {
		fmt.Fprintf(&out, "  today's hops:          %d ReplacedAll (a list or relist, one item each), %d batches (%d deltas), %d bookmark deltas\n",
			c2.replacedAll, c2.batches, n.sum(trace.StageDeltaFIFO, "pop batch"), n.count(trace.StageInformer, "store bookmark"))
	}
	fmt.Fprintf(&out, `  watch events received: %d ADDED, %d MODIFIED, %d DELETED, %d BOOKMARK
  relists:               %d (a list after the first, per informer: after 410 Expired or a failure)
  watch restarts:        %d (a new watch after the first, per informer)
  tombstones:            %d (deletes learned from a relist, not from a watch event)
  faults injected:       %d (by the chaos loop and through /faults/)
  controller:            %s
  final check:           replicas: %s
`, n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "ADDED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "MODIFIED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "DELETED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "BOOKMARK"),
		c2.relists, c2.watchRestarts, c2.tombstones, faults, s, c.replicas)
	for _, r := range slices.Sorted(maps.Keys(c.caches)) {
		fmt.Fprintf(&out, "                         %s cache equals the server: %s\n", r, c.caches[r])
	}
	verdict := "PASSED"
	if !c.ok {
		verdict = "FAILED"
	}
	fmt.Fprintf(&out, "  final check %s\n", verdict)
	return out.String()
}

// counts are the summary's numbers that the live page shows too, counted
// from the same trace events as the page's aggregator (sse.go), so that
// the two agree: TestSummary_CountsAgreeWithThePage.
type counts struct {
	relists       int // reflector phase=listing, beyond each informer's first
	watchRestarts int // reflector watch and streaming list, beyond each informer's first
	tombstones    int // deletes learned from a relist
	replacedAll   int // ReplacedAll items queued
	batches       int // batches popped
}

func countsOf(n *narrator) counts {
	const informers = 2
	listings := n.countWith(trace.StageReflector, "phase", trace.KeyPhase, "listing")
	watches := n.count(trace.StageReflector, "watch") + n.count(trace.StageReflector, "streaming list")
	return counts{relists: max(0, listings-informers), watchRestarts: max(0, watches-informers), tombstones: tombstones(n),
		replacedAll: n.countWith(trace.StageDeltaFIFO, "delta queued", trace.KeyType, "ReplacedAll"),
		batches:     n.count(trace.StageDeltaFIFO, "pop batch")}
}

// cacheWaitsZH says, as Stats.String does in English, how many retries
// were waits for the cache to catch up with the controller's own write.
func cacheWaitsZH(s replicaset.Stats) string {
	if s.CacheWaits == 0 {
		return ""
	}
	return fmt.Sprintf("（其中 %d 次是等本地缓存跟上控制器自己的写入）", s.CacheWaits)
}

// tombstones is how many deletes the informers learned from a relist: the
// DeltaFIFO's queued tombstones, or, with today's informer, the keys a
// ReplacedAll found gone.
func tombstones(n *narrator) int {
	if n.informer == todayInformer {
		return n.count(trace.StageInformer, "cache delete (tombstone: final state unknown)")
	}
	return n.count(trace.StageDeltaFIFO, "tombstone queued")
}

// summaryZH is the summary in Chinese, counted the same way.
func summaryZH(n *narrator, s replicaset.Stats, faults int64, c check) string {
	var out strings.Builder
	c2 := countsOf(n)
	replicas := c.replicas
	if c.counted {
		replicas = fmt.Sprintf("%d 个 pod，status 里 %d 个副本、%d 个就绪，期望 %d 个", c.active, c.statusReplicas, c.ready, c.wantRep)
	}
	fmt.Fprintf(&out, "\n总结\n  通知器：          %s\n", n.t.informerName(n.informer))
	if n.informer == todayInformer {
		fmt.Fprintf(&out, "  今天的各跳：      ReplacedAll %d 个（每次列举或全量同步一个条目），批次 %d 个（共 %d 个增量），书签增量 %d 个\n",
			c2.replacedAll, c2.batches, n.sum(trace.StageDeltaFIFO, "pop batch"), n.count(trace.StageInformer, "store bookmark"))
	}
	fmt.Fprintf(&out, `  收到的监听事件：  ADDED %d 个，MODIFIED %d 个，DELETED %d 个，BOOKMARK（书签）%d 个
  全量同步：        %d 次（每个通知器第一次之后的列举：在 410 过期或失败之后）
  重新监听：        %d 次（每个通知器第一次之后的新监听）
  墓碑：            %d 个（从全量同步而不是从监听事件得知的删除）
  注入的故障：      %d 个（来自混沌循环和 /faults/）
  控制器：          调谐 %d 次，创建 pod %d 个，删除 pod %d 个，写 status %d 次，重试 %d 次，丢弃 %d 次%s
  最终检查：        副本：%s
`, n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "ADDED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "MODIFIED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "DELETED"),
		n.countWith(trace.StageListWatch, "frame decoded", trace.KeyType, "BOOKMARK"),
		c2.relists, c2.watchRestarts, c2.tombstones, faults,
		s.Reconciles, s.PodsCreated, s.PodsDeleted, s.StatusWrites, s.Retries, s.Dropped, cacheWaitsZH(s), replicas)
	for _, r := range slices.Sorted(maps.Keys(c.caches)) {
		same := c.caches[r]
		if same == "ok" {
			same = "一致"
		}
		fmt.Fprintf(&out, "                    %s 的本地缓存与服务器：%s\n", r, same)
	}
	verdict := "通过（PASSED）"
	if !c.ok {
		verdict = "失败（FAILED）"
	}
	fmt.Fprintf(&out, "  最终检查%s\n", verdict)
	return out.String()
}
