package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kinformer/kinformer/lab"
)

// What a lesson quotes of the boxes' contents at a hop (trace.StateOf,
// the lab's View). A box is read through JSON, so that a live value (the
// stage's own Go type) and a loaded recording's (a map) read the same; a
// box that is absent, or that a stage does not report, quotes nothing.

// fifoBox is the fifo box: a DeltaFIFO's or a RealFIFO's items.
type fifoBox struct {
	Kind  string `json:"kind"`
	Items []struct {
		Key    string     `json:"key"`
		Deltas []deltaBox `json:"deltas"`
	} `json:"items"`
	KnownObjects []string `json:"knownObjects"`
}

type deltaBox struct {
	Type      string `json:"type"`
	RV        string `json:"rv"`
	Tombstone bool   `json:"tombstone"` // a Deleted delta carrying a DeletedFinalStateUnknown
	N         *int   `json:"n"`         // the objects a ReplacedAll carries
}

// listenerBox is a handler's listener: what it has not yet handed over.
type listenerBox struct {
	Pending []struct {
		Type string `json:"type"`
		Key  string `json:"key"`
		RV   string `json:"rv"`
	} `json:"pending"`
}

// workqueueBox is the work queue's sets.
type workqueueBox struct {
	Queue      []string `json:"queue"`
	Dirty      []string `json:"dirty"`
	Processing []string `json:"processing"`
	Waiting    []struct {
		Key string    `json:"key"`
		Due time.Time `json:"due"`
	} `json:"waiting"`
}

// cacheBox is an informer's cache.
type cacheBox struct {
	Objects []struct {
		Key string `json:"key"`
		RV  string `json:"rv"`
	} `json:"objects"`
}

// box reads the box name of one kind of a view into T.
func box[T any](boxes map[string]any, name string) (T, bool) {
	var out T
	v, ok := boxes[name]
	if !ok || v == nil {
		return out, false
	}
	b, err := json.Marshal(v)
	if err != nil || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

// deltasText writes deltas as "[Replaced rv 50, Deleted rv 57 (tombstone)]".
func deltasText(ds []deltaBox) bilingual {
	en, zh := make([]string, len(ds)), make([]string, len(ds))
	for i, d := range ds {
		en[i] = d.Type
		if d.RV != "" {
			en[i] += " rv " + d.RV
		}
		zh[i] = en[i]
		if d.Tombstone {
			en[i], zh[i] = en[i]+" (tombstone)", zh[i]+"（墓碑）"
		}
		if d.N != nil {
			en[i], zh[i] = en[i]+fmt.Sprintf(" (%d objects)", *d.N), zh[i]+fmt.Sprintf("（%d 个对象）", *d.N)
		}
	}
	return bilingual{"[" + strings.Join(en, ", ") + "]", "[" + strings.Join(zh, ", ") + "]"}
}

// quoteFIFOKey: what the queue holds for key, "(the DeltaFIFO now holds
// default/web-x: [Deleted rv 57])".
func quoteFIFOKey(v lab.View, resource, key string, q bilingual) bilingual {
	f, ok := box[fifoBox](v.FIFO, resource)
	if !ok {
		return bilingual{}
	}
	var ds []deltaBox
	for _, it := range f.Items {
		if it.Key == key {
			ds = append(ds, it.Deltas...)
		}
	}
	if len(ds) == 0 {
		return say("(The %s now holds nothing for %s.)", "（%s里现在没有 %s 的条目。）", q.En, key)
	}
	t := deltasText(ds)
	return bilingual{fmt.Sprintf("(The %s now holds %s: %s.)", q.En, key, t.En),
		fmt.Sprintf("（%s里现在有 %s：%s。）", q.Zh, key, t.Zh)}
}

// quoteFIFO: the whole queue, "(the RealFIFO now holds 1 item: ReplacedAll rv 25 (4 objects))".
func quoteFIFO(v lab.View, resource string, q bilingual) bilingual {
	f, ok := box[fifoBox](v.FIFO, resource)
	if !ok {
		return bilingual{}
	}
	var en, zh []string
	for i, it := range f.Items {
		if i == 6 {
			en, zh = append(en, fmt.Sprintf("… %d more", len(f.Items)-i)), append(zh, fmt.Sprintf("……还有 %d 个", len(f.Items)-i))
			break
		}
		t := deltasText(it.Deltas)
		if it.Key != "" {
			t = bilingual{it.Key + " " + t.En, it.Key + " " + t.Zh}
		}
		en, zh = append(en, t.En), append(zh, t.Zh)
	}
	return bilingual{fmt.Sprintf("(The %s now holds %d item(s): %s.)", q.En, len(f.Items), joinKeys(en, "nothing")),
		fmt.Sprintf("（%s里现在有 %d 个条目：%s。）", q.Zh, len(f.Items), joinKeys(zh, "无"))}
}

// quotePending: a listener's pending notifications, "(audit's buffer: 3 pending: update kube-system/coredns rv 31, …)".
func quotePending(v lab.View, name, handler string) bilingual {
	l, ok := box[listenerBox](v.Listeners, name)
	if !ok {
		return bilingual{}
	}
	var parts []string
	for _, p := range l.Pending {
		parts = append(parts, fmt.Sprintf("%s %s rv %s", p.Type, p.Key, p.RV))
	}
	return bilingual{fmt.Sprintf("(%s's buffer now holds %d: %s.)", handler, len(l.Pending), joinKeys(parts, "none")),
		fmt.Sprintf("（%s 的缓冲区里现在有 %d 个：%s。）", handler, len(l.Pending), joinKeys(parts, "无"))}
}

// quoteWorkQueue: the work queue's sets, "(queue [default/web], dirty {default/web}, processing {})".
func quoteWorkQueue(v lab.View, name string) bilingual {
	q, ok := box[workqueueBox](v.WorkQueue, name)
	if !ok {
		return bilingual{}
	}
	var wEn, wZh []string
	for _, w := range q.Waiting {
		due := w.Due.Format("15:04:05.000")
		wEn, wZh = append(wEn, w.Key+" until "+due), append(wZh, w.Key+" 直到 "+due)
	}
	sets := fmt.Sprintf("queue [%s], dirty {%s}, processing {%s}", strings.Join(q.Queue, ", "), strings.Join(q.Dirty, ", "), strings.Join(q.Processing, ", "))
	return bilingual{"(The work queue now: " + sets + ", waiting {" + strings.Join(wEn, ", ") + "}.)",
		"（工作队列现在：" + sets + ", waiting {" + strings.Join(wZh, ", ") + "}。）"}
}

// quoteCacheHas: whether the cache holds key, "(the cache now holds 3 objects; default/web-x is not among them)".
func quoteCacheHas(v lab.View, resource, key string) bilingual {
	c, ok := box[cacheBox](v.Indexer, resource)
	if !ok {
		return bilingual{}
	}
	for _, o := range c.Objects {
		if o.Key == key {
			return say("(The cache now holds %d object(s), %s at rv %s among them.)", "（本地缓存里现在有 %d 个对象，其中 %s 在 rv %s。）",
				len(c.Objects), key, o.RV)
		}
	}
	return say("(The cache now holds %d object(s); %s is not among them.)", "（本地缓存里现在有 %d 个对象，%s 不在其中。）", len(c.Objects), key)
}

// reflectorBox is a Reflector's state.
type reflectorBox struct {
	Phase                   string     `json:"phase"`
	LastSyncResourceVersion string     `json:"lastSyncResourceVersion"`
	BackoffUntil            *time.Time `json:"backoffUntil"`
}

// quoteReflector: "(The Reflector: backing off until 14:31:31.410; last synced rv 22.)".
func quoteReflector(v lab.View, resource string) bilingual {
	r, ok := box[reflectorBox](v.Reflector, resource)
	if !ok {
		return bilingual{}
	}
	if r.BackoffUntil != nil {
		until := r.BackoffUntil.Format("15:04:05.000")
		return say("(The Reflector: %[1]s until %[2]s on the lab's clock; its last synced resourceVersion %[3]s.)",
			"（反射器：%[4]s，直到实验台时钟的 %[2]s；它最后同步的 resourceVersion 是 %[3]s。）", r.Phase, until, r.LastSyncResourceVersion, chineseTexts.phase(r.Phase))
	}
	return say("(The Reflector: %[1]s; its last synced resourceVersion %[2]s.)", "（反射器：%[3]s；它最后同步的 resourceVersion 是 %[2]s。）",
		r.Phase, r.LastSyncResourceVersion, chineseTexts.phase(r.Phase))
}
