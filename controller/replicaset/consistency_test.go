package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/clock"
)

// fakeCache plays an informer's cache: how far it has got.
type fakeCache struct{ rv string }

func (f *fakeCache) LastStoreSyncResourceVersion() string { return f.rv }

// newTestStore is a store over two fake caches, "pods" and
// "replicasets.apps", on a fake clock, with a one-minute bound.
func newTestStore() (*consistencyStore, *fakeCache, *fakeCache, *clock.FakeClock) {
	clk := clock.NewFakeClock(time.Unix(0, 0))
	pods, rss := &fakeCache{}, &fakeCache{}
	s := newConsistencyStore(clk, time.Minute, map[string]versionReader{"pods": pods, "replicasets.apps": rss})
	return s, pods, rss, clk
}

func TestCompareResourceVersions_AsNumbers(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
		ok   bool
	}{
		{"9", "10", -1, true}, // as numbers, not as strings ("9" > "10")
		{"10", "9", 1, true},
		{"42", "42", 0, true},
		{"18446744073709551616", "18446744073709551615", 1, true}, // past uint64: still compared
		{"", "1", 0, false},
		{"1", "abc", 0, false},
		{"007", "7", 0, false}, // the server never writes leading zeros
		{"-1", "1", 0, false},
	} {
		got, ok := compareResourceVersions(tc.a, tc.b)
		t.Logf("compare(%q, %q) = %d, ok %v", tc.a, tc.b, got, ok)
		assert.Equal(t, tc.ok, ok, "%q vs %q", tc.a, tc.b)
		assert.Equal(t, tc.want, got, "%q vs %q", tc.a, tc.b)
	}
}

// What ensureReady answers for one ReplicaSet, given what the controller
// wrote and how far each cache has got.
func TestConsistencyStore_EnsureReadyComparesEachCacheWithItsWrite(t *testing.T) {
	for _, tc := range []struct {
		name       string
		wrote      map[string]string // resource -> rv written
		pods, rss  string            // the caches' versions
		want       cacheState
		wantBehind *ConsistencyError
	}{
		{name: "nothing written", pods: "1", rss: "1", want: cacheNothingWritten},
		{name: "both caches past the writes", wrote: map[string]string{"pods": "9", "replicasets.apps": "10"},
			pods: "9", rss: "11", want: cacheCaughtUp},
		{name: "pod cache behind its creates", wrote: map[string]string{"pods": "9", "replicasets.apps": "10"},
			pods: "7", rss: "10", want: cacheBehind,
			wantBehind: &ConsistencyError{ReadRV: "7", WrittenRV: "9", GroupResource: "pods"}},
		{name: "ReplicaSet cache behind the status write", wrote: map[string]string{"pods": "9", "replicasets.apps": "10"},
			pods: "12", rss: "4", want: cacheBehind,
			wantBehind: &ConsistencyError{ReadRV: "4", WrittenRV: "10", GroupResource: "replicasets.apps"}},
		{name: "both behind: the first in name order", wrote: map[string]string{"pods": "9", "replicasets.apps": "10"},
			pods: "1", rss: "1", want: cacheBehind,
			wantBehind: &ConsistencyError{ReadRV: "1", WrittenRV: "9", GroupResource: "pods"}},
		{name: "a cache that cannot say (the articles' informer): no wait", wrote: map[string]string{"pods": "9"},
			pods: "", want: cacheCaughtUp},
		{name: "a cache version that is not a number: no wait", wrote: map[string]string{"pods": "9"},
			pods: "x7", want: cacheCaughtUp},
		{name: "a resource the controller does not read: no wait", wrote: map[string]string{"nodes": "9"},
			want: cacheCaughtUp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, pods, rss, _ := newTestStore()
			for r, rv := range tc.wrote {
				s.wroteAt("default/web", "uid-1", r, rv)
			}
			pods.rv, rss.rv = tc.pods, tc.rss
			r := s.ensureReady("default/web")
			t.Logf("wrote %v, caches at pods=%q replicasets=%q: state %v, %v", tc.wrote, tc.pods, tc.rss, r.state, r.behind)
			assert.Equal(t, tc.want, r.state)
			assert.Equal(t, tc.wantBehind, r.behind)
			if tc.want == cacheCaughtUp {
				assert.Equal(t, cacheNothingWritten, s.ensureReady("default/web").state, "caught up: the record is cleared")
			}
		})
	}
}

func TestConsistencyStore_WroteAtKeepsTheNewestPerResource(t *testing.T) {
	s, pods, _, _ := newTestStore()
	for _, rv := range []string{"5", "9", "7", "not-a-number", ""} {
		s.wroteAt("default/web", "uid-1", "pods", rv) // parallel creates end in any order
	}
	pods.rv = "8"
	r := s.ensureReady("default/web")
	require.Equal(t, cacheBehind, r.state)
	assert.Equal(t, "9", r.behind.WrittenRV, "the newest write, whatever order they were recorded in")

	s.wroteAt("default/web", "uid-2", "pods", "3")
	r = s.ensureReady("default/web")
	assert.Equal(t, cacheCaughtUp, r.state, "a write for a new ReplicaSet of the same name replaced the old one's record")
}

func TestConsistencyStore_ClearOnlyTheDeletedReplicaSets(t *testing.T) {
	s, pods, _, _ := newTestStore()
	pods.rv = "1"
	s.wroteAt("default/web", "uid-2", "pods", "9")

	s.clear("default/web", "uid-1") // the delete event of an older web
	assert.Equal(t, cacheBehind, s.ensureReady("default/web").state, "another UID's delete keeps the record")
	s.clear("default/web", "uid-2")
	assert.Equal(t, cacheNothingWritten, s.ensureReady("default/web").state, "its own delete clears it")

	s.wroteAt("default/web", "uid-2", "pods", "9")
	s.clear("default/web", "") // the reconcile that finds it gone
	assert.Equal(t, cacheNothingWritten, s.ensureReady("default/web").state, "no UID clears whatever is there")
}

// The wait is bounded on the store's clock: behind for the timeout, the
// answer is cacheGaveUp and the record is cleared; the next write starts
// a new wait.
func TestConsistencyStore_WaitIsBoundedByTheTimeout(t *testing.T) {
	s, pods, _, clk := newTestStore()
	pods.rv = "4"
	s.wroteAt("default/web", "uid-1", "pods", "9")

	for _, step := range []struct {
		after time.Duration
		want  cacheState
	}{
		{0, cacheBehind},                // the first answer starts the timer
		{59 * time.Second, cacheBehind}, // 59 s: still waiting
		{time.Second, cacheGaveUp},      // 60 s: proceed with the cache as it is
		{time.Second, cacheNothingWritten},
	} {
		clk.Step(step.after)
		r := s.ensureReady("default/web")
		t.Logf("after %v more: state %v, waited %v (%v)", step.after, r.state, r.waitedFor, r.behind)
		require.Equal(t, step.want, r.state)
	}

	s.wroteAt("default/web", "uid-1", "pods", "12")
	require.Equal(t, cacheBehind, s.ensureReady("default/web").state, "a new write, a new wait")
	clk.Step(30 * time.Second)
	pods.rv = "12"
	r := s.ensureReady("default/web")
	assert.Equal(t, cacheCaughtUp, r.state)
	assert.True(t, r.waited)
	assert.Equal(t, 30*time.Second, r.waitedFor)
}

func TestConsistencyStore_NilStoreIsAlwaysReady(t *testing.T) {
	var s *consistencyStore // Options.DisableReadYourWrites
	s.wroteAt("default/web", "uid-1", "pods", "9")
	s.clear("default/web", "uid-1")
	assert.Equal(t, cacheNothingWritten, s.ensureReady("default/web").state)
}

func TestConsistencyError_MessageAsUpstream(t *testing.T) {
	err := &ConsistencyError{ReadRV: "7", WrittenRV: "9", GroupResource: "pods"}
	assert.Equal(t, "read version: 7 is not as new as written version: 9 for group resource pods", err.Error())
}
