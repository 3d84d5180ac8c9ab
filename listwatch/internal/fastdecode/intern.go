package fastdecode

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Interning: one copy of each string that many decoded objects repeat.
//
// The pods of one Deployment carry the same namespace, label keys and
// values, owner (ReplicaSet name and uid), image, node names, condition
// types and statuses. A decoder that allocates a fresh copy of every
// string it meets makes an informer caching 50,000 pods keep 50,000
// copies of "app.kubernetes.io/name", and leaves as many more behind as
// garbage when a compaction step swaps them for a shared one afterwards.
// So strings are interned while they are decoded: onepass asks the
// Decoder for every string it stores (onepass.Interner), and a string
// already held costs no allocation at all.
//
// Strings that repeat go in one table for the process (sharedStrings),
// found by hash: a string it holds costs a lookup and no allocation, on
// every decoding goroutine, of every watch and list. But some strings of
// an object never repeat (its name, uid, resourceVersion, pod IP), and the
// decoder cannot tell which is which by looking. So a string the table
// does not hold is allocated, as it would be without interning, and only
// handed to the table the second time a decoding goroutine meets it: each
// Decoder remembers the hashes of the strings it allocated (seenStrings,
// a bitset of its own, no lock) and a string whose hash is already there
// has, most likely, been met before. A string never seen again costs what
// it would cost without interning: one allocation, the string itself.
//
// Before the table, a Decoder looks at the object it decoded before this
// one: the objects of one watch or list are mostly alike, field for field
// (the pods of one ReplicaSet, one pod's successive versions), so the
// string at the same place there (the same count of strings into the
// object, seenStrings.last) is compared first, and if equal it is handed
// out again: no hash, no table, and memory the decoder read a moment ago.
// In the pipeline benchmarks 29 of a pod's 33 interned strings are found
// so; a table lookup in a busy decode costs two or three reads that miss
// the processor's cache (docs/performance.md).
//
// The shared table is bounded whatever the workload: sharedStringBuckets
// buckets of sharedStringWays slots, a string going to the bucket its hash
// picks, and taking over a slot there when the bucket is full (the string
// it pushes out is not lost: the objects that hold it keep it alive, and
// the next one to meet it is given a new copy). Its slots are atomic
// pointers: lookups take no lock, and two Decoders handing it the same
// string at once agree on one copy (a compare-and-swap). Beside each slot
// a bucket keeps a tag, 32 more bits of its string's hash, so that a
// lookup reads its bucket and follows a pointer only to a string whose tag
// matches: the strings a decode looks up in the table are mostly ones it
// does not hold (a name, a uid, a resourceVersion: the ones it shares it
// has usually found already, at their place in the object before), and
// without tags each of those lookups followed all four pointers of a full
// bucket to memory no cache held, to compare four strings. A Decoder's
// bitset forgets everything once an eighth of it is set, so unique
// strings do not fill it up and make every string look seen. Strings over
// internMaxLen bytes are not interned at all (a long message or annotation
// is hashed for nothing if it is unique).
//
// Some places in an object hold a string no other object has: its name,
// uid, resourceVersion. Looking those up finds nothing, every time, and
// costs a hash and a read of the table's memory, which another core may
// have just written (in the pipeline benchmarks, a fifth of interning's
// time). So a Decoder counts, place by place, the objects in a row whose
// string there was found nowhere; past uniqueAfter of them the place's
// strings are allocated without a look, as they would be without
// interning, except in every recheckEvery-th object, which looks all its
// strings up: one found (a place that held a name now holds a node name
// that repeats) makes the place looked up again.
//
// Why not unique.Make: its canonical copy is held only as long as some
// unique.Handle is, and a string field cannot hold a Handle, so it would
// share a string within one garbage collection cycle, not across a cache.
const (
	internMaxLen         = 256
	sharedStringWays     = 4
	sharedStringBuckets  = 1 << 11 // × 4 ways: 8,192 strings, 96 KiB of tags and pointers
	sharedStringShift    = 64 - 11 // the hash's top bits pick a bucket
	seenStringBits       = 1 << 16 // per Decoder: 8 KiB, its hash's low bits pick a bit
	seenStringsForgetAt  = seenStringBits / 8
	sharedStringVictimAt = 8  // the hash's bits from here pick the slot a string takes in a full bucket
	sharedStringTagAt    = 20 // the hash's bits from here are a string's tag (none of the above)
	uniqueAfter          = 8  // objects in a row whose string at a place was found nowhere: the place is not looked up
	recheckEvery         = 16 // ... except in every 16th object
)

// internSeed hashes every interned string.
var internSeed = maphash.MakeSeed()

// stringTable is the process's table of strings that repeat.
type stringTable struct {
	buckets [sharedStringBuckets]stringBucket
}

// stringBucket is the slots one hash's top bits pick: a string in each (or
// nil), and its tag.
//
// A tag is a hint, written after its string: a lookup whose tag matches
// still compares the string itself. So a tag that disagrees with its slot
// (a reader between a new string and its tag, or two writers racing for a
// slot, the later tag not the later string's) only makes a lookup miss,
// and a miss costs what it costs without a table: the string allocated.
type stringBucket struct {
	tags [sharedStringWays]atomic.Uint32 // 0: never used
	strs [sharedStringWays]atomic.Pointer[string]
}

var sharedStrings stringTable

// stringTag is h's tag: never 0, so that an unused slot matches nothing.
func stringTag(h uint64) uint32 { return uint32(h>>sharedStringTagAt) | 1 }

// find returns the string equal to b held in h's bucket, if any.
func (t *stringTable) find(h uint64, b []byte) (string, bool) {
	bucket := &t.buckets[h>>sharedStringShift]
	tag := stringTag(h)
	for i := range bucket.tags {
		if bucket.tags[i].Load() != tag {
			continue
		}
		if p := bucket.strs[i].Load(); p != nil && *p == string(b) { // no allocation: Go compares the bytes as they are
			return *p, true
		}
	}
	return "", false
}

// keep puts s, which pins no bigger buffer, in h's bucket, and returns the
// copy to use: s, or an equal string another goroutine put there first.
func (t *stringTable) keep(h uint64, s string) string {
	held := new(string) // allocated here: taking &s would move s to the heap on every call
	*held = s
	for {
		found, slot, was := t.look(h, s)
		if found != nil {
			return *found
		}
		if t.take(h, slot, was, held) {
			return s
		}
		// Another goroutine took the slot since the look, perhaps for
		// the same string: look again, and take its copy if it is.
	}
}

// look finds s in h's bucket (whatever the tags say); if it is not there,
// it returns the slot s would take (the first empty one; in a full bucket
// the one s's hash picks) and what that slot held when looked at.
func (t *stringTable) look(h uint64, s string) (found *string, slot int, was *string) {
	bucket := &t.buckets[h>>sharedStringShift]
	slot = -1
	var held [sharedStringWays]*string
	for i := range bucket.strs {
		p := bucket.strs[i].Load()
		if p != nil && *p == s {
			return p, 0, nil
		}
		if p == nil && slot < 0 {
			slot = i
		}
		held[i] = p
	}
	if slot < 0 { // full: take over the slot s's hash picks
		slot = int(h>>sharedStringVictimAt) & (sharedStringWays - 1)
	}
	return nil, slot, held[slot]
}

// take puts s in slot of h's bucket if the slot still holds was (a
// compare-and-swap), then its tag: two goroutines that looked at once
// cannot both take it, and the later one, looking again, takes the
// earlier one's copy.
func (t *stringTable) take(h uint64, slot int, was, s *string) bool {
	bucket := &t.buckets[h>>sharedStringShift]
	if !bucket.strs[slot].CompareAndSwap(was, s) {
		return false
	}
	bucket.tags[slot].Store(stringTag(h))
	return true
}

// intern returns the shared copy of s, making s (cloned, in case it is
// part of a bigger string) the shared copy if there is none. It is how
// Compact interns the strings of an object decoded by encoding/json.
func (t *stringTable) intern(s string) string {
	if s == "" || len(s) > internMaxLen {
		return s
	}
	h := maphash.String(internSeed, s)
	if c, ok := t.find(h, unsafe.Slice(unsafe.StringData(s), len(s))); ok {
		return c
	}
	return t.keep(h, strings.Clone(s))
}

// internMap interns the keys and values of m in place and returns m. A
// map's stored key cannot be swapped for an equal string by assignment, so
// each entry is deleted and stored again under the interned key; the keys
// are collected first so the map is not changed while it is ranged over.
// Nothing is allocated for up to 8 entries (the keys fit a stack array)
// and the map keeps its table: deleting and re-adding the same number of
// entries does not grow it.
func (t *stringTable) internMap(m map[string]string) map[string]string {
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
		m[t.intern(k)] = t.intern(v)
	}
	return m
}

// seenStrings is what a Decoder remembers of the strings it met: the
// hashes of those it allocated, one bit each, and the strings it handed
// out for the object before this one, in the order it handed them out.
type seenStrings struct {
	bits    []uint64 // seenStringBits of them, made on first use
	set     int      // bits set since the last forgetting
	last    []string // the previous object's strings, by position
	next    []string // this object's, so far
	misses  []uint8  // misses[k]: objects in a row whose string at position k was found nowhere (at most uniqueAfter)
	objects int      // objects begun
}

// startObject begins a new object: the strings handed out for the one
// before become the ones the new object's are compared with.
func (l *seenStrings) startObject() {
	l.last, l.next = l.next, l.last[:0]
	l.objects++
}

// intern returns a string equal to b: the string the previous object had
// at the same position, if equal (the objects of one watch or list are
// mostly alike, field for field: the pods of one ReplicaSet, one pod's
// successive versions), else t's copy, or a new one, which becomes t's
// copy if b was (most likely) met before.
func (l *seenStrings) intern(t *stringTable, b []byte) string {
	if len(b) == 0 || len(b) > internMaxLen {
		return string(b)
	}
	k := len(l.next)
	if k < len(l.last) && l.last[k] == string(b) { // no allocation, as in find
		l.next = append(l.next, l.last[k])
		return l.last[k]
	}
	s := l.lookUpAt(t, k, b)
	l.next = append(l.next, s)
	return s
}

// lookUpAt is lookUp for the string at position k, unless the strings at
// k were found nowhere in uniqueAfter objects in a row: then it is a new
// copy, not looked up, but in every recheckEvery-th object.
func (l *seenStrings) lookUpAt(t *stringTable, k int, b []byte) string {
	if k >= len(l.misses) {
		l.misses = append(l.misses, make([]uint8, k+1-len(l.misses))...)
	}
	if l.misses[k] >= uniqueAfter && l.objects%recheckEvery != 0 {
		return string(b) // a place whose strings repeat nowhere: a name, a uid, a resourceVersion
	}
	s, shared := l.lookUp(t, b)
	switch {
	case shared:
		l.misses[k] = 0
	case l.misses[k] < uniqueAfter:
		l.misses[k]++
	}
	return s
}

// lookUp returns t's copy of b, or a new one, which becomes t's copy if b
// was (most likely) met before; shared says whether the copy is t's.
func (l *seenStrings) lookUp(t *stringTable, b []byte) (s string, shared bool) {
	h := maphash.Bytes(internSeed, b)
	if s, ok := t.find(h, b); ok {
		return s, true
	}
	s = string(b)
	if l.seen(h) {
		return t.keep(h, s), true
	}
	return s, false
}

// seen reports whether h's bit was set, and sets it.
func (l *seenStrings) seen(h uint64) bool {
	switch {
	case l.bits == nil:
		l.bits = make([]uint64, seenStringBits/64)
	case l.set >= seenStringsForgetAt:
		clear(l.bits)
		l.set = 0
	}
	i := h & (seenStringBits - 1)
	word, bit := &l.bits[i/64], uint64(1)<<(i%64)
	if *word&bit != 0 {
		return true
	}
	*word |= bit
	l.set++
	return false
}
