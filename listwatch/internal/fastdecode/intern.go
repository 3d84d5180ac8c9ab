package fastdecode

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Interning: one copy of each string that many cached objects repeat.
//
// The pods of one Deployment carry the same label keys and values, the same
// annotations, the same owner (ReplicaSet name and uid), image, node names,
// condition types and statuses. encoding/json allocates a fresh copy of
// every one of them for every pod it decodes; an informer caching 50,000
// pods keeps 50,000 copies of "app.kubernetes.io/name". Compact passes
// those strings through decodeInterner, so every pod points at one.
//
// The trade-off, and why it is not unique.Make:
//
//   - unique.Make(s).Value() returns a canonical string, but the canonical
//     copy is only held weakly, for as long as some unique.Handle is alive.
//     A string field cannot hold a Handle, so after the next GC the entry is
//     gone and the next pod gets a new copy: it would dedup within one GC
//     cycle only (a list page, not a cache).
//   - This interner holds its strings strongly, so it is bounded: at most
//     internMaxEntries strings of at most internMaxLen bytes each (about a
//     megabyte with sync.Map's overhead). When it fills up it starts over
//     with an empty table: strings already handed out stay valid (strings
//     are immutable; the cached objects keep them alive), later pods just
//     get new canonical copies. A workload whose label values churn (a new
//     pod-template-hash per rollout) thus cannot grow it without bound.
//   - It is safe for concurrent decoders (the workers decode in
//     parallel): lookups are sync.Map loads, which do not lock; a miss
//     stores once (LoadOrStore), so two decoders agree on one copy.
//   - A hit costs a hash and a compare per string at decode time; a miss
//     costs a clone (so an interned string never pins a bigger decode
//     buffer it was sliced from) and a map entry.
//
// Only strings likely to repeat go through it; names, uids,
// resourceVersions and pod IPs are unique per object and would only fill
// the table.
const (
	internMaxEntries = 8192
	internMaxLen     = 256
)

type interner struct {
	table atomic.Pointer[sync.Map] // string -> string
	n     atomic.Int64             // entries stored in table (roughly: races may overshoot a little)
}

var decodeInterner = newInterner()

func newInterner() *interner {
	in := &interner{}
	in.table.Store(new(sync.Map))
	return in
}

// intern returns the canonical copy of s, adding it if there is room.
func (in *interner) intern(s string) string {
	if s == "" || len(s) > internMaxLen {
		return s
	}
	t := in.table.Load()
	if v, ok := t.Load(s); ok {
		return v.(string)
	}
	c := strings.Clone(s)
	v, loaded := t.LoadOrStore(c, c)
	if !loaded && in.n.Add(1) >= internMaxEntries {
		// Full: start over. Swapping the table (rather than deleting
		// entries) keeps lookups lock-free.
		if in.table.CompareAndSwap(t, new(sync.Map)) {
			in.n.Store(0)
		}
	}
	return v.(string)
}

// internMap interns the keys and values of m in place and returns m. A
// map's stored key cannot be swapped for an equal string by assignment, so
// each entry is deleted and stored again under the interned key; the keys
// are collected first so the map is not changed while it is ranged over.
// Nothing is allocated for up to 8 entries (the keys fit a stack array)
// and the map keeps its table: deleting and re-adding the same number of
// entries does not grow it.
func (in *interner) internMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	keys := make([]string, 0, 8)
	for k := range m {
		keys = append(keys, k)
	}
	for _, k := range keys {
		v := m[k]
		delete(m, k)
		m[in.intern(k)] = in.intern(v)
	}
	return m
}
