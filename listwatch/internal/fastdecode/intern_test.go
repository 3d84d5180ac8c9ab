package fastdecode

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/onepass"
)

// same reports whether x and y are one string in memory, not only equal.
func same(x, y string) bool { return x == y && unsafe.StringData(x) == unsafe.StringData(y) }

// A string goes to the shared table the second time a Decoder meets it,
// not the first: a name met once never takes a slot. From then on every
// Decoder gets the shared copy, without allocating.
func TestStrings_SharedOnceMetTwice(t *testing.T) {
	table := new(stringTable)
	var a, b seenStrings
	first := a.intern(table, []byte("app.kubernetes.io/name"))
	_, held := table.find(maphash.String(internSeed, first), []byte(first))
	require.False(t, held, "met once: not shared yet")

	second := a.intern(table, []byte("app.kubernetes.io/name"))
	require.Equal(t, first, second)
	_, held = table.find(maphash.String(internSeed, second), []byte(second))
	require.True(t, held, "met twice: shared")

	other := b.intern(table, []byte("app.kubernetes.io/name"))
	require.True(t, same(second, other), "another Decoder gets the shared copy")
	key := []byte("app.kubernetes.io/name")
	require.Zero(t, testing.AllocsPerRun(100, func() { b.intern(table, key) }), "a shared string costs no allocation")
}

// A string met once costs one allocation, the string itself, as it would
// without interning.
func TestStrings_AStringMetOnceCostsOneAllocation(t *testing.T) {
	table := new(stringTable)
	var l seenStrings
	names := make([][]byte, 1000)
	for i := range names {
		names[i] = fmt.Appendf(nil, "web-7d9f8b6c5d-%05d", i)
	}
	l.intern(table, []byte("warm")) // makes the bitset
	i := 0
	allocs := testing.AllocsPerRun(len(names)-1, func() {
		l.intern(table, names[i])
		i++
	})
	require.Equal(t, float64(1), allocs)
}

// The shared table is bounded by its slots: a full bucket gives a slot
// up to a newcomer, and what it handed out before stays valid. Empty and
// long strings are not interned.
func TestStrings_Bounded(t *testing.T) {
	table := new(stringTable)
	var handed []string
	for i := range sharedStringBuckets * sharedStringWays * 3 {
		s := fmt.Sprint("v", i)
		got := table.intern(s)
		require.Equal(t, s, got)
		handed = append(handed, got)
	}
	held := 0
	for b := range table.buckets {
		for w := range table.buckets[b].strs {
			if table.buckets[b].strs[w].Load() != nil {
				held++
			}
		}
	}
	require.LessOrEqual(t, held, sharedStringBuckets*sharedStringWays)
	for i, s := range handed {
		require.Equal(t, fmt.Sprint("v", i), s, "a string handed out stays what it was")
	}
	long := string(make([]byte, internMaxLen+1))
	require.Equal(t, long, table.intern(long))
	require.Equal(t, "", table.intern(""))
	t.Logf("%d strings interned, %d held: the table's %d slots bound it", len(handed), held, sharedStringBuckets*sharedStringWays)
}

// A Decoder's memory of what it met forgets everything once an eighth of
// it is set, so strings met once (names, uids) do not end up making every
// string look met before.
func TestStrings_SeenForgets(t *testing.T) {
	var l seenStrings
	for i := 0; l.set < seenStringsForgetAt; i++ {
		l.seen(maphash.String(internSeed, fmt.Sprint("n", i)))
	}
	require.False(t, l.seen(maphash.String(internSeed, "n0")), "full: forgotten")
	require.Equal(t, 1, l.set, "then the newcomer set")
}

// Decoders on several goroutines, each with its own memory, meeting the
// same strings agree on one copy of each (run with -race). The strings are
// picked to land in different buckets, so that none pushes another out.
func TestStrings_ConcurrentDecodersAgree(t *testing.T) {
	table := new(stringTable)
	var words []string
	buckets := map[uint64]bool{}
	for i := 0; len(words) < 50; i++ {
		w := fmt.Sprint("label-", i)
		if b := maphash.String(internSeed, w) >> sharedStringShift; !buckets[b] {
			buckets[b] = true
			words = append(words, w)
		}
	}
	got := make([][]string, 8)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			var l seenStrings
			got[g] = make([]string, len(words))
			for round := range 20 {
				for i, w := range words {
					s := l.intern(table, []byte(w))
					if round == 19 {
						got[g][i] = s
					}
				}
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i := range words {
			require.True(t, same(got[0][i], got[g][i]), "goroutine %d holds its own %q", g, words[i])
		}
	}
}

// Two Decoders keeping the same string at once agree on one copy. Here
// one looks at the bucket, the other keeps the string, then the first
// tries to take the slot its look found: the slot no longer holds what it
// did, so the take fails, and looking again the first finds the other's
// copy. (A swap against whatever the slot holds would let the later copy
// replace the earlier, each Decoder keeping, and remembering, its own.)
func TestStrings_KeepersAgree(t *testing.T) {
	table := new(stringTable)
	s := "app.kubernetes.io/name"
	h := maphash.String(internSeed, s)
	first, second := strings.Clone(s), strings.Clone(s)

	_, slot, was := table.look(h, s)
	t.Logf("keeper 1 looks: slot %d is free", slot)
	kept := table.keep(h, second)
	require.True(t, same(kept, second))
	t.Logf("keeper 2 keeps its copy there")
	require.False(t, table.take(h, slot, was, &first), "the slot changed since keeper 1 looked")
	t.Logf("keeper 1's take fails: the slot no longer holds what it saw")
	require.True(t, same(second, table.keep(h, first)), "keeper 1, looking again, takes keeper 2's copy")
	t.Logf("keeper 1 looks again and gets keeper 2's copy: one copy")
}

// The objects of one watch or list are mostly alike, field for field, so
// a Decoder first compares each string with the one the object before had
// at the same place: equal, it is that string, with no hash and no table
// (here each object looks up in a new, empty table, where nothing is
// found). A string that differs (the name), or sits elsewhere, is looked
// up as before.
func TestStrings_AnObjectTakesThePreviousObjectsStringsByPlace(t *testing.T) {
	var l seenStrings
	first := []string{"Pod", "v1", "web-7d9f8b6c5d-00001", "default", "Running"}
	second := []string{"Pod", "v1", "web-7d9f8b6c5d-00002", "default", "Pending"}
	var got [2][]string
	for o, strs := range [][]string{first, second} {
		l.startObject()
		table := new(stringTable)
		for _, s := range strs {
			got[o] = append(got[o], l.intern(table, []byte(s)))
		}
	}
	for i := range first {
		if first[i] == second[i] {
			require.True(t, same(got[0][i], got[1][i]), "%q at place %d: the previous object's copy", first[i], i)
			t.Logf("place %d: %q, the previous object's copy", i, first[i])
		} else {
			require.Equal(t, second[i], got[1][i])
			t.Logf("place %d: %q differs from %q: looked up, a new copy", i, second[i], first[i])
		}
	}
	l.startObject()
	moved := l.intern(new(stringTable), []byte("default")) // at place 0 now, not 3
	require.False(t, same(got[1][3], moved), "the same string at another place is not matched by place")
	key := []byte("Pod")
	l.startObject()
	l.intern(new(stringTable), key)
	require.Zero(t, testing.AllocsPerRun(100, func() {
		l.startObject()
		l.intern(nil, key) // found by place: the table is not even looked at
	}), "a string found by place costs no allocation")
}

// A tag is a hint: a lookup follows the pointer only of a slot whose tag
// matches, then compares the string itself. A slot whose tag disagrees
// with its string (a reader between a writer's string and its tag) makes
// a lookup miss, never hand out another string.
func TestStrings_ATagIsAHint(t *testing.T) {
	table := new(stringTable)
	s := table.intern("app.kubernetes.io/name")
	h := maphash.String(internSeed, s)
	bucket := &table.buckets[h>>sharedStringShift]
	slot := -1
	for i := range bucket.strs {
		if p := bucket.strs[i].Load(); p != nil && *p == s {
			slot = i
		}
	}
	require.GreaterOrEqual(t, slot, 0, "held")
	require.Equal(t, stringTag(h), bucket.tags[slot].Load(), "with its tag")

	bucket.tags[slot].Store(stringTag(h) ^ 2) // some other string's tag
	_, held := table.find(h, []byte(s))
	require.False(t, held, "a tag that disagrees: a miss (the string is allocated, as without a table)")
	t.Logf("slot %d of bucket %d: with another tag, a lookup misses", slot, h>>sharedStringShift)

	bucket.tags[slot].Store(stringTag(h))
	_, held = table.find(h, []byte("app.kubernetes.io/other"))
	require.False(t, held, "a matching tag, another string: the string itself is compared")
	got, held := table.find(h, []byte(s))
	require.True(t, held)
	require.True(t, same(s, got), "the tag right again: the shared copy")
	t.Logf("with its tag again: found, the shared copy; another string under the same tag is not")
}

// recordingInterner records the strings onepass asks to be interned.
type recordingInterner struct{ strs [][]byte }

func (r *recordingInterner) String(b []byte) string {
	r.strs = append(r.strs, bytes.Clone(b))
	return string(b)
}

func (r *recordingInterner) StringMap(kv []string) map[string]string { return newStringMap(kv) }

// BenchmarkInternPodStrings: the interning of every string 2,000 pods of
// one ReplicaSet carry (the pipeline benchmarks' pod, bench/testdata/pod.json,
// made distinct per pod), pod by pod in decode order, by one Decoder
// against the shared table (ns per string; strings/pod: how many a pod
// interns). The table and the strings stay in the processor's cache here,
// which in a busy decode they do not: docs/performance.md.
//
// go test ./listwatch/internal/fastdecode -run '^$' -bench InternPodStrings
func BenchmarkInternPodStrings(b *testing.B) {
	var pods [][][]byte
	for _, body := range realisticPods(b, benchPod, 2000) {
		var rec recordingInterner
		dec := onepass.Decoder{Interner: &rec}
		if err := dec.Unmarshal(body, new(api.Pod)); err != nil {
			b.Fatal(err)
		}
		pods = append(pods, rec.strs)
	}
	table := new(stringTable)
	var l seenStrings
	intern := func() int {
		n := 0
		for _, pod := range pods {
			l.startObject()
			for _, s := range pod {
				l.intern(table, s)
			}
			n += len(pod)
		}
		return n
	}
	n := intern() // the table warm, as in a watch
	b.ReportAllocs()
	for b.Loop() {
		intern()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/string")
	b.ReportMetric(float64(n)/float64(len(pods)), "strings/pod")
	b.ReportMetric(0, "ns/op")
}

// A place whose strings repeat nowhere (a name, a uid, a resourceVersion)
// stops being looked up: after uniqueAfter objects in a row found its
// string nowhere, its strings are new copies, with no hash and no table
// read, except in every recheckEvery-th object. A string found there then
// (the place now holds a node name the table has) makes the place looked
// up again. Looked up strings show in the Decoder's memory (l.set: one bit
// for each string looked up and found nowhere).
func TestStrings_APlaceWhoseStringsRepeatNowhereIsNotLookedUp(t *testing.T) {
	table := new(stringTable)
	var l seenStrings
	object := func(name string) string {
		l.startObject()
		l.intern(table, []byte("Pod"))
		return l.intern(table, []byte(name))
	}
	const objects = 4 * recheckEvery
	for i := 1; i <= objects; i++ {
		require.Equal(t, fmt.Sprint("web-", i), object(fmt.Sprint("web-", i)))
	}
	lookedUp := 1 + uniqueAfter + objects/recheckEvery // "Pod" the first time, then the names
	t.Logf("%d objects, each with a new name at place 1: %d strings looked up and found nowhere (\"Pod\" once, the first %d names, then every %dth object's)",
		objects, l.set, uniqueAfter, recheckEvery)
	require.Equal(t, lookedUp, l.set)

	// Node names the table holds, two in turn (one after itself would be
	// found by place).
	nodes := []string{table.intern("node-7"), table.intern("node-8")}
	i := objects + 1
	for ; i%recheckEvery != 0; i++ {
		require.False(t, same(nodes[i%2], object(nodes[i%2])), "object %d: place 1 not looked up, a new copy", i)
	}
	require.True(t, same(nodes[i%2], object(nodes[i%2])), "the recheck object looks place 1 up and finds the table's copy")
	i++
	require.True(t, same(nodes[i%2], object(nodes[i%2])), "and the next object looks it up again")
	t.Logf("place 1 then holds node names the table has: new copies in objects %d-%d; object %d, a recheck, finds the table's, and so does object %d",
		objects+1, i-2, i-1, i)
}
