package informer

import (
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/trace"
)

// Inspect: the cache's and each listener's contents at each hop, for the
// lab.
//
// When the informer's Tracer is Inspecting (a trace.Inspect consumer: the
// demo's lab), its events carry a copy of what the box they are about
// holds after that hop (trace.State), so the lab never has to take a lock
// to look inside:
//
//   - the cache events (cache add, update, delete, replace, transaction,
//     resync, store bookmark): a CacheState, box "indexer", made after the
//     write. Every write to the cache is the informer's own, made under
//     blockDeltas, which is still held when the state is read and the
//     event reported. The per-key events that follow one write of a
//     ReplacedAll or a batch share that write's state.
//   - notify and the On* events: a ListenerState, box "listener", made
//     under the listener's mirror lock (listenerMirror).
//
// Both are unnamed: the lab names them by the event's resource (and
// handler). When the Tracer is not Inspecting, nothing here runs and no
// listener keeps a mirror.

// maxListed caps every list of a State: a box shows the first entries and
// says how many more there are (Truncated).
const maxListed = 200

// CacheState is what the informer's cache (its Indexer) holds, for the lab.
type CacheState struct {
	// Objects are the cached objects, by key.
	Objects []CachedObject `json:"objects"`
	// Indices: index name → indexed value → the keys under it, sorted.
	Indices map[string]map[string][]string `json:"indices"`
	// SyncRV is the last resourceVersion the store recorded (of a write, a
	// relist or a bookmark), where the store records one.
	SyncRV string `json:"syncRV,omitempty"`
	// Truncated counts the entries left out of the lists above, each
	// capped at 200.
	Truncated int `json:"truncated,omitempty"`
}

// CachedObject is one cached object: its key and resourceVersion.
type CachedObject struct {
	Key string `json:"key"`
	RV  string `json:"rv"`
}

// cacheState returns the cache's contents as a State attribute, or nil
// unless t is Inspecting.
func cacheState(t *trace.Tracer, store indexer.Store) []slog.Attr {
	if !t.Inspecting() {
		return nil
	}
	st := CacheState{Indices: map[string]map[string][]string{}, SyncRV: store.LastStoreSyncResourceVersion()}
	keys := slices.Sorted(slices.Values(store.ListKeys()))
	keys = capList(keys, &st.Truncated)
	st.Objects = make([]CachedObject, 0, len(keys))
	for _, k := range keys {
		obj, exists, err := store.GetByKey(k)
		if err != nil || !exists {
			continue
		}
		_, rv := keyAndRV(obj)
		st.Objects = append(st.Objects, CachedObject{Key: k, RV: rv})
	}
	if idx, ok := store.(indexer.Indexer); ok {
		for _, name := range slices.Sorted(maps.Keys(idx.GetIndexers())) {
			values := map[string][]string{}
			for _, v := range capList(slices.Sorted(slices.Values(idx.ListIndexFuncValues(name))), &st.Truncated) {
				keys, err := idx.IndexKeys(name, v)
				if err != nil || len(keys) == 0 {
					continue
				}
				values[v] = capList(slices.Sorted(slices.Values(keys)), &st.Truncated)
			}
			st.Indices[name] = values
		}
	}
	return []slog.Attr{trace.StateOf("indexer", "", st)}
}

// capList cuts a fresh list to maxListed entries, counting the rest into
// truncated.
func capList(list []string, truncated *int) []string {
	if len(list) <= maxListed {
		return list
	}
	*truncated += len(list) - maxListed
	return list[:maxListed:maxListed]
}

// ListenerState is what one handler's listener holds, for the lab.
type ListenerState struct {
	// Pending are the notifications the listener has been given and not
	// yet handed to its handler, oldest first; the one the handler is
	// handling now is not among them.
	Pending []PendingNotification `json:"pending"`
	// Truncated counts the notifications left out of Pending (capped at
	// 200).
	Truncated int `json:"truncated,omitempty"`
}

// PendingNotification is one notification waiting for a handler.
type PendingNotification struct {
	// Type is add, update, resync or delete.
	Type string `json:"type"`
	Key  string `json:"key"`
	RV   string `json:"rv"`
}

// listenerMirror is what a listener keeps for the lab, only when its Tracer
// is Inspecting. The notifications themselves are in pop's ring buffer,
// which only pop's goroutine may touch; the mirror is a copy of what add
// gave and handle has not taken yet, under a lock of its own, updated as
// each one is added and taken. TestProcessorListener_InspectShowsPendingNotifications
// checks it against what the handler is given.
type listenerMirror struct {
	mu      sync.Mutex
	pending []PendingNotification
}

// setTracer gives the listener its Tracer, and a mirror if it inspects.
func (p *processorListener) setTracer(t *trace.Tracer) {
	p.tracer = t
	if t.Inspecting() {
		p.mirror = &listenerMirror{}
	}
}

// added records n, given to the listener, and reports the notify event
// with the listener's state, under the mirror's lock.
func (m *listenerMirror) added(t *trace.Tracer, n PendingNotification, attrs ...slog.Attr) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending = append(m.pending, n)
	t.Event("notify", append(attrs, m.stateLocked())...)
}

// taken records that the oldest notification went to the handler, and
// reports the handler's method with the listener's state, under the
// mirror's lock.
func (m *listenerMirror) taken(t *trace.Tracer, what string, attrs ...slog.Attr) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pending) > 0 {
		m.pending[0] = PendingNotification{}
		m.pending = m.pending[1:]
	}
	t.Event(what, append(attrs, m.stateLocked())...)
}

func (m *listenerMirror) stateLocked() slog.Attr {
	n := min(len(m.pending), maxListed)
	st := ListenerState{Pending: slices.Clone(m.pending[:n:n]), Truncated: len(m.pending) - n}
	if st.Pending == nil {
		st.Pending = []PendingNotification{}
	}
	return trace.StateOf("listener", "", st)
}
