package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kinformer/kinformer/trace"
)

// faultRequested is the server's trace event for a request to one of its
// fault endpoints (fakeapiserver/faulthttp.go), with path=, did= and then=.
const faultRequested = "fault: requested"

// narrator turns the trace into the lines a newcomer reads. It follows each
// object's key through the pipeline and prints one line once the change
// has reached the controller:
//
//	pod default/web-x7k2 deleted (rv 57) → DELETED frame → DeltaFIFO → cache → handler enqueues default/web
//	worker: default/web has 2 of 3 pods → created 1 pod(s)
//
// With --trace it also prints every event as it is, with its time.
type narrator struct {
	mu     sync.Mutex
	out    io.Writer
	start  time.Time
	story  bool // the plain lines
	all    bool // --trace: every event
	chains map[string]*chain
	counts map[string]int // "stage: what" -> events seen, for the summary
	sums   map[string]int // "stage: what" -> the sum of their n= (trace.KeyCount)
	t      *texts         // the language it speaks (lang.go)
	// informer is the informer that runs (pipeline.go): it names the
	// queue hop. unlockedBatch says, per resource, whether the last batch
	// popped was handled with the queue's lock released.
	informer      informerKind
	unlockedBatch map[string]bool
	// behind: keys whose last reconcile found the cache behind the
	// controller's own write (its retry is a wait, not a failure).
	behind map[string]bool
}

func newNarrator(out io.Writer, story, all bool) *narrator {
	return &narrator{out: out, start: time.Now(), story: story, all: all,
		chains: map[string]*chain{}, counts: map[string]int{}, sums: map[string]int{}, t: englishTexts, unlockedBatch: map[string]bool{}, behind: map[string]bool{}}
}

// say prints one line of the demo's own narration (the kubelet, chaos);
// --quiet leaves it out with the rest of the story.
func (n *narrator) say(format string, args ...any) {
	if !n.story {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.printLocked(fmt.Sprintf(format, args...))
}

// block prints a block of text as it is, between narration lines.
func (n *narrator) block(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprint(n.out, text)
}

func (n *narrator) printLocked(line string) {
	fmt.Fprintf(n.out, "%7.2fs  %s\n", time.Since(n.start).Seconds(), line)
}

// count returns how many events of this stage and kind were seen.
func (n *narrator) count(stage, what string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.counts[stage+": "+what]
}

// sum returns the sum of the n= attributes of the events of this stage
// and kind.
func (n *narrator) sum(stage, what string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sums[stage+": "+what]
}

// countWith returns how many events of this stage and kind had attribute
// key equal to value.
func (n *narrator) countWith(stage, what, key, value string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.counts[stage+": "+what+" "+key+"="+value]
}

func (n *narrator) event(e trace.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.counts[e.Stage+": "+e.What]++
	if c, err := strconv.Atoi(e.Get(trace.KeyCount)); err == nil {
		n.sums[e.Stage+": "+e.What] += c
	}
	for _, k := range []string{trace.KeyType, trace.KeyPhase} {
		if v := e.Get(k); v != "" {
			n.counts[e.Stage+": "+e.What+" "+k+"="+v]++
		}
	}
	if n.all {
		fmt.Fprintf(n.out, "%7.3fs  %s\n", time.Since(n.start).Seconds(), e)
	}
	if n.story {
		n.follow(e)
	}
}

// chain is one change's path so far: the server's commit at rv, then each
// hop that carried that version.
type chain struct {
	rv      string
	hops    []string
	inCache bool
}

// follow adds e to its key's chain, and prints the chain when the
// controller's handler has enqueued the change it carries.
func (n *narrator) follow(e trace.Event) {
	key := e.Key()
	switch {
	case e.Stage == trace.StageServer && e.What == "commit":
		res := e.Get(trace.KeyResource)
		if res != "pods" && res != "replicasets" {
			return
		}
		// "pod" and "replicaset" are the kinds' own names in both languages.
		what := fmt.Sprintf(n.t.commit, singular(res), key, n.t.pastTense(e.Get(trace.KeyType)), e.RV())
		n.chains[key] = &chain{rv: e.RV(), hops: []string{what}}
	case e.Stage == trace.StageListWatch && e.What == "frame decoded":
		n.hop(key, e.RV(), fmt.Sprintf(n.t.frame, e.Get(trace.KeyType)))
	case e.Stage == trace.StageDeltaFIFO && e.What == "delta queued":
		n.hop(key, e.RV(), n.t.queue(n.informer))
	case e.Stage == trace.StageDeltaFIFO && e.What == "pop" && e.Get("unlocked") == "true":
		n.hop(key, e.RV(), n.t.unlocked)
	case e.Stage == trace.StageDeltaFIFO && e.What == "pop batch":
		n.unlockedBatch[e.Get(trace.KeyResource)] = e.Get("unlocked") == "true"
	case e.Stage == trace.StageDeltaFIFO && e.What == "tombstone queued":
		// A tombstone carries the last state the cache knew, not the
		// deletion's version: it belongs to whatever chain the key has.
		if c, ok := n.chains[key]; ok {
			c.hops = append(c.hops, n.t.tombstone)
			c.rv = e.RV()
		}
	case e.Stage == trace.StageInformer && e.What == "cache replace":
		// Today's relist: one ReplacedAll item, one cache write.
		n.printLocked(fmt.Sprintf(n.t.replacedAll, e.Get(trace.KeyResource), e.Get(trace.KeyCount), e.RV(), e.Get("gone")))
	case e.Stage == trace.StageInformer && e.What == "cache transaction":
		line := fmt.Sprintf(n.t.batch, e.Get(trace.KeyResource), e.Get(trace.KeyCount), key)
		if n.unlockedBatch[e.Get(trace.KeyResource)] {
			line += n.t.batchUnlocked
		}
		n.printLocked(line)
	case e.Stage == trace.StageInformer && e.What == "store bookmark":
		n.printLocked(fmt.Sprintf(n.t.bookmark, e.Get(trace.KeyResource), e.RV()))
	case e.Stage == trace.StageInformer && strings.HasPrefix(e.What, "cache delete (tombstone") && e.Get("in") == "replace":
		// A key today's relist found gone: like the articles' tombstone,
		// it carries the last state the cache knew.
		if c, ok := n.chains[key]; ok {
			c.hops = append(c.hops, n.t.replacedGone, n.t.cache)
			c.rv, c.inCache = e.RV(), true
		}
	case e.Stage == trace.StageInformer && strings.HasPrefix(e.What, "cache "):
		if c, ok := n.chains[key]; ok && c.rv == e.RV() {
			step := n.t.cache
			switch e.Get("in") {
			case "transaction":
				step = n.t.cacheInBatch
			case "replace":
				step = n.t.cacheInReplace
			}
			c.hops = append(c.hops, step)
			c.inCache = true
		}
	case e.Stage == trace.StageReflector && e.What == "initial events end":
		n.printLocked(fmt.Sprintf(n.t.streamingList, e.Get(trace.KeyResource), e.Get(trace.KeyCount), e.RV()))
	case e.Stage == trace.StageController && e.What == "enqueue":
		from := e.Get("from")
		if from == "replicaset" {
			from = key
		}
		if c, ok := n.chains[from]; ok && c.inCache {
			delete(n.chains, from)
			n.printLocked(strings.Join(append(c.hops, fmt.Sprintf(n.t.enqueues, key)), n.t.chainSep))
		}
	case e.Stage == trace.StageController && e.What == "reconciled":
		if did := e.Get("did"); did != "" && !strings.HasPrefix(did, "nothing") {
			n.printLocked(fmt.Sprintf(n.t.reconciled, key, n.t.found(e.Get("found")), n.t.did(did)))
		}
	case e.Stage == trace.StageController && e.What == "cache behind own write":
		n.behind[key] = true
	case e.Stage == trace.StageController && e.What == "retry":
		line := n.t.retry
		if n.behind[key] {
			line = n.t.cacheWait
			delete(n.behind, key)
		}
		n.printLocked(fmt.Sprintf(line, key, e.Get(trace.KeyCount), humanDuration(e.Get(trace.KeyDelay))))
	case e.Stage == trace.StageController && e.What == "dropped":
		n.printLocked(fmt.Sprintf(n.t.dropped, key, e.Get(trace.KeyReason)))
	case e.Stage == trace.StageReflector && e.What == "phase":
		n.printLocked(n.t.reflectorLine(e))
	case e.Stage == trace.StageServer && e.What == faultRequested:
		// A learner's curl to a fault endpoint: the server says what it did
		// and what the informers will do about it.
		n.printLocked(fmt.Sprintf(n.t.you, n.t.faultDid(e.Get("did")), e.Get("path"), n.t.faultThen(e.Get("path"), e.Get("then"))))
	case e.Stage == trace.StageServer && strings.HasPrefix(e.What, "history compacted"):
		n.printLocked(fmt.Sprintf(n.t.compacted, e.RV()))
	}
}

// hop appends a step to key's chain, if the chain was started by the
// commit of the same resourceVersion.
func (n *narrator) hop(key, rv, step string) {
	if c, ok := n.chains[key]; ok && c.rv == rv {
		c.hops = append(c.hops, step)
	}
}

// reflectorLine phrases a reflector's phase change.
func (t *texts) reflectorLine(e trace.Event) string {
	from, to, why := e.Get("from"), e.Get(trace.KeyPhase), t.reason(e.Get(trace.KeyReason))
	switch {
	case to == "backing off" && from != "" && e.Get(trace.KeyDelay) != "":
		return t.backoffLine(e)
	case from == "":
		return fmt.Sprintf(t.reflector, e.Get(trace.KeyResource), t.phase(to), why)
	case from == to:
		return fmt.Sprintf(t.reflectorAgn, e.Get(trace.KeyResource), t.phase(to), why)
	}
	return fmt.Sprintf(t.reflectorTo, e.Get(trace.KeyResource), t.phase(from), t.phase(to), why)
}

func singular(resource string) string {
	if resource == "replicasets" {
		return "replicaset"
	}
	return strings.TrimSuffix(resource, "s")
}

func pastTense(eventType string) string {
	switch eventType {
	case "ADDED":
		return "created"
	case "MODIFIED":
		return "updated"
	case "DELETED":
		return "deleted"
	}
	return strings.ToLower(eventType)
}
