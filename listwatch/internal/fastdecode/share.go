package fastdecode

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/kinformer/kinformer/api"
)

// Sharing: one copy of each map and slice that many cached objects repeat.
//
// Interning strings (intern.go) leaves each pod its own containers for
// them: a labels map (a map of three labels is 336 bytes, more than the
// labels' JSON three times over), an owner reference, a container list.
// The pods of one ReplicaSet have the same labels, owner and containers,
// so an informer caching them can keep one of each, as it keeps one copy
// of each string. That is what a Decoder does when it is told its objects
// are for a read-only cache (Unmarshal's shared): a labels or annotations
// map (onepass hands it over as its entries: StringMap), an owner
// reference list or a container list (decoded in the room, room.go) equal
// to one a recent object had is that object's, not a copy.
//
// Unlike a string, a map or a slice can be written to, and a write to one
// object's shared labels would change every object sharing them. That is
// why it is only done when asked, and why listwatch asks only for the
// objects of requests made with listwatch.ForReadOnlyCache, which an
// informer uses when nothing may write to its objects before they are
// cached (no transform): objects in a cache are read-only anyway (package
// indexer, "Don't mutate what the cache gives you"; its
// CacheMutationDetector catches a write), and handlers and listers get the
// cached objects themselves. A Get, an Update's answer, or a list made by
// a program for itself is never shared.
//
// Conditions are not shared: they carry the times each pod's conditions
// last changed, which differ between pods in a real cluster (the
// benchmarks' pods are copies of one, and would share them).
//
// Each kind of value has a table for the process, of sharedValueSlots
// slots found by hash, holding the value last seen with that hash: bounded
// by its slots, lock-free to read (atomic pointers), a value that lands
// on another's slot taking it over (the objects holding the other keep
// it). A map no other object has (a StatefulSet pod's labels name the
// pod) costs a slot's store, and is then overwritten. What a table can
// keep alive once the objects are gone is bounded too: a map is shared
// only up to sharedMapMaxBytes of keys and values, a list only while it
// fits the room (16 elements), so the three tables hold at most some 20
// MB even if every slot's value has outlived its objects, and in practice
// the values of the objects in the cache.
const (
	sharedValueSlots = 1 << 12
	sharedValueShift = 64 - 12
)

// valueTable holds, per slot, the last value stored with a hash that picks
// it.
type valueTable[T any] struct {
	slots [sharedValueSlots]atomic.Pointer[heldValue[T]]
}

type heldValue[T any] struct {
	h uint64
	v T
}

// slot is h's slot. h is mixed first (splitmix64's finalizer), so that
// every bit of it picks the slot: two lists that differ in their last
// item must not fall on the same slot for want of a good combination.
func (t *valueTable[T]) slot(h uint64) *atomic.Pointer[heldValue[T]] {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return &t.slots[h>>sharedValueShift]
}

// find returns the value held for h, if same says it is the one wanted.
func (t *valueTable[T]) find(h uint64, same func(T) bool) (T, bool) {
	if p := t.slot(h).Load(); p != nil && p.h == h && same(p.v) {
		return p.v, true
	}
	var none T
	return none, false
}

// keep holds v for h, which nothing may change from now on.
func (t *valueTable[T]) keep(h uint64, v T) {
	t.slot(h).Store(&heldValue[T]{h: h, v: v})
}

var (
	sharedMaps       valueTable[map[string]string]
	sharedOwners     valueTable[[]api.OwnerReference]
	sharedContainers valueTable[[]api.Container]
)

// hashOf is a string's hash, as the tables combine them.
func hashOf(s string) uint64 { return maphash.String(internSeed, s) }

// next combines h, the hash so far of a sequence, with x, its next item's.
func next(h, x uint64) uint64 { return (h^x)*0x100000001b3 + 0x9e3779b97f4a7c15 }

// newStringMap is the map kv lists (key, value, key, value...), as a
// decoder that fills a new map makes it.
func newStringMap(kv []string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// sharedMapMaxBytes bounds the keys and values of a map that is shared:
// a table slot keeps its map alive after the objects that held it are
// gone, so a bigger map is not worth a slot (labels and annotations are a
// few hundred bytes; a map with a whole configuration in an annotation is
// its object's own).
const sharedMapMaxBytes = 2048

// sharedStringMap is the map kv lists: one held for a recent object, if
// it has exactly these entries, or a new one, then held.
func sharedStringMap(kv []string) map[string]string {
	var h uint64
	size := 0
	for i := 0; i < len(kv); i += 2 {
		h += next(hashOf(kv[i]), hashOf(kv[i+1])) // a sum: the same in any order
		size += len(kv[i]) + len(kv[i+1])
	}
	if size > sharedMapMaxBytes {
		return newStringMap(kv)
	}
	if m, ok := sharedMaps.find(h, func(m map[string]string) bool { return holdsExactly(m, kv) }); ok {
		return m
	}
	m := newStringMap(kv)
	if len(m) == len(kv)/2 { // no key twice: a later object's equal kv finds it
		sharedMaps.keep(h, m)
	}
	return m
}

// holdsExactly reports whether m has exactly the entries kv lists, no
// key twice.
func holdsExactly(m map[string]string, kv []string) bool {
	if len(m) != len(kv)/2 {
		return false
	}
	for i := 0; i < len(kv); i += 2 {
		if v, ok := m[kv[i]]; !ok || v != kv[i+1] {
			return false
		}
	}
	return true
}

// sharedOwnerRefs is refs (decoded in the room: not to be kept) as one
// list held for a recent object, or as a new exact copy, then held.
func sharedOwnerRefs(refs []api.OwnerReference) []api.OwnerReference {
	var h uint64
	for _, r := range refs {
		h = next(h, hashOf(r.APIVersion))
		h = next(h, hashOf(r.Kind))
		h = next(h, hashOf(r.Name))
		h = next(h, hashOf(r.UID))
		h = next(h, uint64(boolState(r.Controller)<<2|boolState(r.BlockOwnerDeletion)))
	}
	if held, ok := sharedOwners.find(h, func(held []api.OwnerReference) bool { return sameOwnerRefs(held, refs) }); ok {
		return held
	}
	exact := append([]api.OwnerReference(nil), refs...)
	sharedOwners.keep(h, exact)
	return exact
}

// boolState is 0 for nil, 1 for false, 2 for true.
func boolState(b *bool) int {
	switch {
	case b == nil:
		return 0
	case *b:
		return 2
	}
	return 1
}

func sameOwnerRefs(a, b []api.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.APIVersion != y.APIVersion || x.Kind != y.Kind || x.Name != y.Name || x.UID != y.UID ||
			boolState(x.Controller) != boolState(y.Controller) || boolState(x.BlockOwnerDeletion) != boolState(y.BlockOwnerDeletion) {
			return false
		}
	}
	return true
}

// sharedContainerList is cs (decoded in the room) as one list held for a
// recent object, or as a new exact copy, then held.
func sharedContainerList(cs []api.Container) []api.Container {
	var h uint64
	for _, c := range cs {
		h = next(next(h, hashOf(c.Name)), hashOf(c.Image))
	}
	same := func(held []api.Container) bool {
		if len(held) != len(cs) {
			return false
		}
		for i := range held {
			if held[i] != cs[i] {
				return false
			}
		}
		return true
	}
	if held, ok := sharedContainers.find(h, same); ok {
		return held
	}
	exact := append([]api.Container(nil), cs...)
	sharedContainers.keep(h, exact)
	return exact
}
