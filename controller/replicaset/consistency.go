package replicaset

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kinformer/kinformer/clock"
)

// Read your writes: the cache must have reached the controller's own last
// write before a reconcile reads it.
//
// Expectations (expectations.go) and this store guard the same window, the
// time between a write of the controller's and the watch event that brings
// it into the cache, but they guard different things:
//
//   - expectations count pods: "3 creates and 1 delete of mine are still to
//     appear". They let a reconcile run on a stale cache, and keep only
//     manageReplicas from acting on it. They know nothing of versions, and
//     nothing of the ReplicaSet object itself.
//   - this store compares versions: "the newest pod I created is at
//     resourceVersion 9, my last status write at 10; the pod cache has
//     reached 7, the ReplicaSet cache 4". A reconcile does not read at all
//     until every cache it reads has reached the version of the
//     controller's last write to it: the status is not computed from a pod
//     list older than its own creates, and not written over a ReplicaSet
//     older than its own status write (which the server would refuse with
//     409 Conflict, after a wasted round trip).
//
// Neither alone is enough, and both stay, as in kube-controller-manager
// 1.36. This store sees nothing when the informer cannot say how far its
// cache has got (LastStoreSyncResourceVersion is "" unless the informer
// runs client-go 1.36's AtomicFIFO: the articles' informer never can), nor
// a write whose version the client does not return (a pod delete:
// listwatch's TypedClient.Delete returns only an error), nor after its
// bounded wait ends: expectations cover deletes and still hold then.
// Expectations alone do not stop the status from being computed and
// written from a stale cache, and they expire after five minutes, after
// which only versions can tell a stale cache from a current one.
//
// It is kubernetes' pkg/controller/util/consistency (feature gate
// StaleControllerConsistencyReplicaSet, beta and on in 1.36, KEP-5647),
// with one difference: upstream requeues a ReplicaSet whose cache is
// behind for as long as it takes (its queue never drops a key), kinformer's
// work queue drops a key after MaxRetries failures, so the wait here is
// bounded by Options.ReadYourWritesTimeout, after which the reconcile goes
// on with the cache it has (see ensureReady).

// DefaultReadYourWritesTimeout is Options.ReadYourWritesTimeout's default:
// how long a reconcile waits, requeued, for its caches to reach the
// controller's own last writes before it acts on the caches as they are.
// A watch normally delivers within milliseconds, and the event that brings
// the write into the cache queues the ReplicaSet at once; a cache ten
// seconds behind is a stuck watch or a relist, where waiting longer buys
// nothing the expectations do not already guard, and holds back the status.
const DefaultReadYourWritesTimeout = 10 * time.Second

// ConsistencyError is a reconcile's error when a cache it reads has not
// reached the controller's own last write to that resource: the key goes
// back to the queue rate-limited, as any failed reconcile's, but is never
// dropped for it (handleErr).
type ConsistencyError struct {
	ReadRV        string // the cache's LastStoreSyncResourceVersion
	WrittenRV     string // the newest resourceVersion the controller wrote
	GroupResource string // "pods", "replicasets.apps"
}

func (e *ConsistencyError) Error() string {
	return fmt.Sprintf("read version: %s is not as new as written version: %s for group resource %s",
		e.ReadRV, e.WrittenRV, e.GroupResource)
}

// versionReader is what the store asks of an informer: how far its cache
// has got (informer.SharedIndexInformer has it).
type versionReader interface {
	LastStoreSyncResourceVersion() string
}

// consistencyStore records, per ReplicaSet key, the newest resourceVersion
// the controller wrote to each resource on its behalf, and tells a
// reconcile whether the caches have reached them. A nil store records
// nothing and is always ready (Options.DisableReadYourWrites).
type consistencyStore struct {
	clock   clock.Clock
	timeout time.Duration
	readers map[string]versionReader // by group resource

	mu      sync.Mutex
	byOwner map[string]*ownerWrites // by ReplicaSet key
}

// ownerWrites is what one ReplicaSet's reconciles have written.
type ownerWrites struct {
	uid     string            // the ReplicaSet's: one re-created under the same name starts afresh
	written map[string]string // group resource -> newest resourceVersion written
	// waitingSince is when a reconcile first found a cache behind these
	// writes; zero until then. The timeout counts from it.
	waitingSince time.Time
}

func newConsistencyStore(clk clock.Clock, timeout time.Duration, readers map[string]versionReader) *consistencyStore {
	return &consistencyStore{clock: clk, timeout: timeout, readers: readers, byOwner: map[string]*ownerWrites{}}
}

// wroteAt records that the controller wrote resource at rv for the
// ReplicaSet key (whose UID is ownerUID), if rv is newer than what it
// recorded before. A resourceVersion that is not a number is not recorded:
// it could never be compared.
func (s *consistencyStore) wroteAt(key, ownerUID, resource, rv string) {
	if s == nil {
		return
	}
	if _, ok := compareResourceVersions(rv, rv); !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.byOwner[key]
	if !ok || w.uid != ownerUID {
		w = &ownerWrites{uid: ownerUID, written: map[string]string{}}
		s.byOwner[key] = w
	}
	if old, ok := w.written[resource]; ok {
		if c, _ := compareResourceVersions(old, rv); c >= 0 {
			return
		}
	}
	w.written[resource] = rv
}

// clear forgets what was written for key: its ReplicaSet is gone. With a
// UID, only if the record is that ReplicaSet's (a delete event of an old
// ReplicaSet must not clear the writes of its successor of the same name);
// with "", whatever it is.
func (s *consistencyStore) clear(key, ownerUID string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.byOwner[key]; ok && (ownerUID == "" || w.uid == ownerUID) {
		delete(s.byOwner, key)
	}
}

// readiness is ensureReady's answer.
type readiness struct {
	state cacheState
	// behind says which cache is behind which write (cacheBehind and
	// cacheGaveUp).
	behind *ConsistencyError
	// waited says that an earlier answer for these writes was
	// cacheBehind, and for how long, on the store's clock, reconciles of
	// the key have been waiting.
	waited    bool
	waitedFor time.Duration
}

type cacheState int

const (
	cacheNothingWritten cacheState = iota // no write recorded: read the cache
	cacheCaughtUp                         // every cache has reached the writes: record cleared, read
	cacheBehind                           // a cache is behind: requeue (behind says which)
	cacheGaveUp                           // behind for timeout: record cleared, read the stale cache
)

func (st cacheState) String() string {
	return [...]string{"nothing written", "caught up", "behind", "gave up"}[st]
}

// ensureReady tells a reconcile of key whether it may read the caches:
// each cache with a recorded write must have reached that write's version.
// A cache that cannot say ("": not an AtomicFIFO informer) or whose version
// does not compare as a number is not waited for, as upstream does when
// the comparison fails: better a stale read than a ReplicaSet never
// reconciled again. Once every cache has caught up, the record is cleared.
//
// The wait is bounded: the first answer cacheBehind starts a timer on the
// store's clock; an answer after timeout has passed is cacheGaveUp, and the
// record is cleared, so the reconcile goes on with the cache as it is (the
// expectations still guard its pod counts) and the next write starts a new
// wait. Only one worker reconciles a key at a time, so wroteAt and
// ensureReady for one key never race; clear (the delete handler) may, and
// the lock covers it.
func (s *consistencyStore) ensureReady(key string) readiness {
	if s == nil {
		return readiness{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.byOwner[key]
	if !ok {
		return readiness{}
	}
	r := readiness{behind: s.firstBehindLocked(w), waited: !w.waitingSince.IsZero()}
	if r.waited {
		r.waitedFor = s.clock.Since(w.waitingSince)
	}
	switch {
	case r.behind == nil:
		delete(s.byOwner, key)
		r.state = cacheCaughtUp
	case !r.waited:
		w.waitingSince = s.clock.Now()
		r.state = cacheBehind
	case r.waitedFor >= s.timeout:
		delete(s.byOwner, key)
		r.state = cacheGaveUp
	default:
		r.state = cacheBehind
	}
	return r
}

// firstBehindLocked returns the first resource (in name order, so the
// answer is deterministic) whose cache has not reached w's write, or nil.
func (s *consistencyStore) firstBehindLocked(w *ownerWrites) *ConsistencyError {
	for _, r := range slices.Sorted(maps.Keys(w.written)) {
		reader, ok := s.readers[r]
		if !ok {
			continue // not a resource the controller reads
		}
		read := reader.LastStoreSyncResourceVersion()
		if read == "" {
			continue // the informer cannot say: no wait
		}
		c, ok := compareResourceVersions(read, w.written[r])
		if ok && c < 0 {
			return &ConsistencyError{ReadRV: read, WrittenRV: w.written[r], GroupResource: r}
		}
	}
	return nil
}

// compareResourceVersions compares two resourceVersions as the numbers the
// API server makes them (etcd revisions; clients must otherwise treat them
// as opaque): -1, 0 or +1, and ok false if either is not a decimal number
// without leading zeros. Compared as strings of digits, length first, so
// any length works.
func compareResourceVersions(a, b string) (int, bool) {
	if !isResourceVersionNumber(a) || !isResourceVersionNumber(b) {
		return 0, false
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c, true
	}
	return strings.Compare(a, b), true
}

func isResourceVersionNumber(rv string) bool {
	if rv == "" || (rv[0] == '0' && rv != "0") {
		return false
	}
	for _, ch := range rv {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}
