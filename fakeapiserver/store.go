package fakeapiserver

import (
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// store is the server's etcd: every object of every resource, one global
// resourceVersion counter, and a bounded history of changes.
//
// # resourceVersion
//
// Like etcd's revision, rv counts every write to any object of any resource.
// Each write takes the next value and stamps it into the object's
// metadata.resourceVersion; a list is stamped with the value current when it
// was read. Clients only ever hand these numbers back.
//
// # History and compaction
//
// Every write is also appended to history, which keeps the last
// historyLimit events. That is what lets a watch resume from an old
// resourceVersion (replay every event after it) and a paged list read the
// same snapshot across pages (undo, from the current state, every event
// after the snapshot's version). An event that falls off the front moves
// compacted forward; a watch, exact list or continue token older than
// compacted is answered 410 Expired, as the real server answers once its
// watch cache or etcd has compacted the version away.
//
// # Locking
//
// One mutex guards everything. Writers hold it while they commit and while
// they hand the event to every open watcher (a non-blocking channel send per
// watcher), so every watcher sees every event in resourceVersion order.
type store struct {
	mu sync.RWMutex
	rv uint64
	// served are the rows the server serves: the built-ins, then a row per
	// custom resource (crd.go). objects, keys and watchers have an entry
	// for each, and only for those: a row that is no longer served (its
	// CRD deleted) has none, which is how a request that looked it up
	// just before learns it is gone.
	served    []*resource
	objects   map[*resource]map[string]*record
	keys      map[*resource][]string // the keys of objects, kept sorted: lists are in key order
	history   ring
	compacted uint64 // every event with rv > compacted is still in history
	watchers  map[*resource]map[*watcher]struct{}
	rvChanged chan struct{} // closed and replaced on every commit
	// drop, while a drop fault is on, hides matching events from the
	// watches open when they happen (faults.go).
	drop *eventDrop
	// crdChanged keeps served in step with a created or changed CRD
	// (Server.crdChangingLocked).
	crdChanged func(*event)
	tracer     *trace.Tracer // stage "server"; nil: off
	watchIDs   uint64        // numbers the watches, for the trace

	// historyBytes bounds history by the encoded size of the objects its
	// events carry (Options.HistoryBytes); 0: by count only.
	historyBytes int64

	// Durability (durable.go): the log, nil without a data directory (and
	// after Close); persistent says Open was given a directory, so a nil
	// log means writes must be refused rather than kept in memory only.
	wal              *wal
	persistent       bool
	dataDir          string
	snapEveryRecords int
	snapEveryBytes   int64
	recovery         Recovery
}

// record is one stored version of one object. A record is never changed
// after it is made: a write makes a new record, so readers and watchers can
// hold on to old ones without locks.
type record struct {
	res    *resource
	key    string // "namespace/name", or "name" for a cluster-scoped object
	ns     string
	name   string
	rv     uint64
	obj    map[string]any // the whole object as the client sent it, plus server-set fields
	raw    []byte         // obj encoded once, served to every reader
	labels map[string]string
	fields api.Fields
}

// event is one change in history.
type event struct {
	typ  api.EventType // Added, Modified or Deleted
	rv   uint64
	res  *resource
	obj  *record // the state after; for Deleted the last state, stamped with the deletion's rv
	prev *record // the state before; nil for Added
}

func newStore(historyLimit int) *store {
	s := &store{
		objects:   map[*resource]map[string]*record{},
		keys:      map[*resource][]string{},
		watchers:  map[*resource]map[*watcher]struct{}{},
		rvChanged: make(chan struct{}),
		history:   ring{buf: make([]*event, historyLimit)},
	}
	for _, r := range builtinResources {
		s.addRowLocked(r)
	}
	return s
}

// addRowLocked starts serving r.
func (s *store) addRowLocked(r *resource) {
	s.served = append(s.served, r)
	s.objects[r] = map[string]*record{}
	s.watchers[r] = map[*watcher]struct{}{}
}

// servesLocked reports whether r is (still) served.
func (s *store) servesLocked(r *resource) bool {
	_, ok := s.objects[r]
	return ok
}

func objectKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// newRecord stamps obj with rv and indexes it. It takes ownership of obj.
func newRecord(r *resource, obj map[string]any, rv uint64) *record {
	meta := ensureMap(obj, "metadata")
	meta["resourceVersion"] = strconv.FormatUint(rv, 10)
	ns, name := stringAt(meta, "namespace"), stringAt(meta, "name")
	return &record{
		res:    r,
		key:    objectKey(ns, name),
		ns:     ns,
		name:   name,
		rv:     rv,
		obj:    obj,
		raw:    encodeObject(obj),
		labels: stringMap(meta["labels"]),
		fields: r.fieldsOf(obj),
	}
}

// withRV returns a copy of rec stamped with another resourceVersion: the
// object a DELETED event carries.
func (rec *record) withRV(rv uint64) *record {
	return newRecord(rec.res, copyObject(rec.obj), rv)
}

// commitLocked records a change and hands it to the open watchers. The
// caller holds s.mu for writing and has already set s.rv to ev.rv. With a
// log, the record is queued first (see wal.go for when it becomes durable).
func (s *store) commitLocked(ev *event) {
	if s.wal != nil {
		s.logLocked(ev)
	}
	switch ev.typ {
	case api.Deleted:
		delete(s.objects[ev.res], ev.obj.key)
		keys := s.keys[ev.res]
		if i, found := slices.BinarySearch(keys, ev.obj.key); found {
			s.keys[ev.res] = slices.Delete(keys, i, i+1)
		}
	case api.Added:
		s.objects[ev.res][ev.obj.key] = ev.obj
		keys := s.keys[ev.res]
		if i, found := slices.BinarySearch(keys, ev.obj.key); !found {
			s.keys[ev.res] = slices.Insert(keys, i, ev.obj.key)
		}
	default:
		s.objects[ev.res][ev.obj.key] = ev.obj
	}
	if isCRDRow(ev.res) && ev.typ != api.Deleted && s.crdChanged != nil {
		s.crdChanged(ev) // the rows follow the CRD (crd.go)
	}
	if evicted := s.history.push(ev); evicted != nil {
		s.compacted = evicted.rv
	}
	// Bounded by bytes too, keeping at least the newest event: a few
	// versions of a huge object must not pin gigabytes.
	for s.historyBytes > 0 && s.history.bytes > s.historyBytes && s.history.n > 1 {
		s.compacted = s.history.popOldest().rv
	}
	if s.tracer.On() {
		s.tracer.Event("commit", trace.Type(string(ev.typ)), trace.Resource(ev.res.Name), trace.Key(ev.obj.key), trace.RV(strconv.FormatUint(ev.rv, 10)))
	}
	if s.drop == nil || !s.drop.hides(ev) {
		fo := fanOut{ev: ev} // what the watchers can share of the event (watch.go)
		for w := range s.watchers[ev.res] {
			w.deliverLocked(ev, &fo, s.tracer)
		}
	} else {
		s.hideLocked(ev) // faults.go: every watch that would have seen it goes deaf
	}
	close(s.rvChanged)
	s.rvChanged = make(chan struct{})
	if s.wal != nil {
		s.maybeSnapshotLocked()
	}
}

// nextRV hands out the next resourceVersion; the caller holds s.mu.
func (s *store) nextRVLocked() uint64 {
	s.rv++
	return s.rv
}

// compactLocked forgets all history: every older resourceVersion now
// answers 410.
func (s *store) compactLocked() {
	s.history.clear()
	s.compacted = s.rv
	if s.tracer.On() {
		s.tracer.Event("history compacted", trace.RV(strconv.FormatUint(s.rv, 10)), trace.Reason("a watch or list from an older rv now gets 410 Expired"))
	}
}

// forgetBootstrap starts the history after the objects every cluster
// starts with (the namespaces New creates): like a real cluster's first
// writes, which etcd compacted long ago, their versions are too old to
// watch or list exactly from, 410 Expired (15-differential:
// watch-invalid/rv-ancient, list-rv/namespaced-rv-ancient-exact and
// cluster-rv-ancient-exact ask for resourceVersion 1 and 2). Watching or
// listing from the version the server starts at works.
func (s *store) forgetBootstrap() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history.clear()
	s.compacted = s.rv
}

// snapshotLocked returns the objects of r as they were at resourceVersion
// at, by undoing every later event. The caller checks at >= s.compacted.
func (s *store) snapshotLocked(r *resource, at uint64) map[string]*record {
	cur := s.objects[r]
	snap := make(map[string]*record, len(cur))
	for k, v := range cur {
		snap[k] = v
	}
	s.history.eachNewestFirst(func(ev *event) bool {
		if ev.rv <= at {
			return false
		}
		if !ev.res.sameRow(r) {
			return true
		}
		if ev.typ == api.Added {
			delete(snap, ev.obj.key)
		} else {
			snap[ev.prev.key] = ev.prev
		}
		return true
	})
	return snap
}

// keyRangeLocked returns, in key order, the keys of the current objects of
// r in namespace ns ("" for all) whose relative key (see relativeKey) is at
// least from. Lists are in key order, as the real server's (etcd key
// order); the sorted key index makes a page of a big list cost a binary
// search and the page, not a sort of everything. The slice is only valid
// while the lock is held.
func (s *store) keyRangeLocked(r *resource, ns, from string) []string {
	keys := s.keys[r]
	lo, hi := 0, len(keys)
	if ns != "" {
		lo, _ = slices.BinarySearch(keys, ns+"/")
		hi, _ = slices.BinarySearch(keys, ns+"0") // '0' follows '/' in ASCII
	}
	if from != "" {
		i, _ := slices.BinarySearch(keys, prefixed(ns, from))
		lo = max(lo, i)
	}
	return keys[lo:max(lo, hi)]
}

// recordsLocked returns the current objects of r in namespace ns ("" for
// all), in key order.
func (s *store) recordsLocked(r *resource, ns, from string) []*record {
	keys := s.keyRangeLocked(r, ns, from)
	out := make([]*record, len(keys))
	for i, k := range keys {
		out[i] = s.objects[r][k]
	}
	return out
}

func prefixed(ns, rel string) string {
	if ns == "" {
		return rel
	}
	return ns + "/" + rel
}

// sortedRecords is recordsLocked for a snapshot (a map that is not the
// live state): it sorts.
func sortedRecords(m map[string]*record, ns, from string) []*record {
	out := make([]*record, 0, len(m))
	for _, rec := range m {
		if (ns == "" || rec.ns == ns) && relativeKey(rec, ns) >= from {
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// ring is the bounded history: the last len(buf) events, oldest first.
type ring struct {
	buf   []*event
	start int
	n     int
	bytes int64 // the encoded size of the objects the events carry
}

func eventBytes(ev *event) int64 { return int64(len(ev.obj.raw)) }

// push appends ev and returns the event that fell off the front, if any.
func (r *ring) push(ev *event) (evicted *event) {
	if len(r.buf) == 0 {
		return ev
	}
	r.bytes += eventBytes(ev)
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = ev
		r.n++
		return nil
	}
	evicted = r.buf[r.start]
	r.bytes -= eventBytes(evicted)
	r.buf[r.start] = ev
	r.start = (r.start + 1) % len(r.buf)
	return evicted
}

// popOldest removes and returns the oldest event; the ring is not empty.
func (r *ring) popOldest() *event {
	ev := r.buf[r.start]
	r.buf[r.start] = nil
	r.start = (r.start + 1) % len(r.buf)
	r.n--
	r.bytes -= eventBytes(ev)
	return ev
}

func (r *ring) at(i int) *event { return r.buf[(r.start+i)%len(r.buf)] }

func (r *ring) clear() {
	for i := range r.buf {
		r.buf[i] = nil
	}
	r.start, r.n, r.bytes = 0, 0, 0
}

// eachNewestFirst calls fn for events from newest to oldest until fn
// returns false.
func (r *ring) eachNewestFirst(fn func(*event) bool) {
	for i := r.n - 1; i >= 0; i-- {
		if !fn(r.at(i)) {
			return
		}
	}
}

// since returns the events with rv > after, oldest first.
func (r *ring) since(after uint64) []*event {
	i := sort.Search(r.n, func(i int) bool { return r.at(i).rv > after })
	out := make([]*event, 0, r.n-i)
	for ; i < r.n; i++ {
		out = append(out, r.at(i))
	}
	return out
}
