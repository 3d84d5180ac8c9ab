package informer

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/deltafifo"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
	"github.com/stretchr/testify/require"
)

// What the informer does with the items of client-go 1.36's RealFIFO modes
// (handle_batch.go, deltafifo/the_real_fifo_modes.go). Every informer test
// run through queueKinds also runs with all of them on (its RealFIFO-1.36
// subtest).

// podAt is pod(name) at resourceVersion rv.
func podAt(name, rv string) *api.Pod {
	p := pod(name)
	p.ResourceVersion = rv
	return p
}

// client-go: AtomicFIFO (1.36). A relist is one queue item, and the cache
// takes the whole list in one write before any handler is told: the
// handler called for the list's first object (a) already finds the last
// one (c) in the cache. Without the mode, the same relist is four items
// (a tombstone, then one per listed object), and the handler called for a
// finds neither b nor c.
func TestRealFIFO_AtomicReplaceIsOneItem(t *testing.T) {
	for _, tt := range []struct {
		name        string
		atomic      bool
		wantItems   int
		wantAtFirst []string // the cache when the handler is told of a, the list's first object
	}{
		{"AtomicEvents (client-go 1.36)", true, 1, []string{"default/a@5", "default/b@5", "default/c@5"}},
		{"one item per object (the RealFIFO of 1.33)", false, 4, []string{"default/a@5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := trace.ForTest(t)
			cache := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
			require.NoError(t, cache.Add(podAt("a", "1")))
			require.NoError(t, cache.Add(podAt("gone", "1")))
			opts := deltafifo.RealFIFOOptions{AtomicEvents: tt.atomic, Tracer: tr}
			if !tt.atomic {
				opts.KnownObjects = cache
			}
			q := deltafifo.NewRealFIFO(opts)
			// a's Add, already in the cache: popped and dropped, only so that
			// the relist below is not the initial list.
			require.NoError(t, q.Add(podAt("a", "1")))
			_, err := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
			require.NoError(t, err)

			t.Logf("informer: the cache holds %v", cachedKeys(cache))
			t.Log("reflector (played by the test): a relist at rv=5: a, b, c (gone is gone)")
			require.NoError(t, q.Replace([]api.Object{podAt("a", "5"), podAt("b", "5"), podAt("c", "5")}, "5"))
			t.Logf("deltafifo: %d item(s) queued for the relist", q.Len())
			require.Equal(t, tt.wantItems, q.Len())

			var told, atFirst []string
			notify := func(n notification) {
				key, rv := notificationKeyRV(n)
				told = append(told, fmt.Sprintf("%s %s@%s", handlerMethod(n), key, rv))
				if key == "default/a" {
					atFirst = cachedKeys(cache)
					t.Logf("handler: %s %s@%s; the cache holds %v", handlerMethod(n), key, rv, atFirst)
				}
			}
			for q.Len() > 0 {
				_, err := q.Pop(func(d deltafifo.Deltas, initial bool) error {
					return processDeltas(cache, d, initial, tr.Stage(trace.StageInformer), notify)
				})
				require.NoError(t, err)
			}
			require.Equal(t, tt.wantAtFirst, atFirst)
			require.Equal(t, []string{"default/a@5", "default/b@5", "default/c@5"}, cachedKeys(cache))
			t.Logf("handler: told, in order: %v", told)
			require.ElementsMatch(t, []string{"OnDelete (final state unknown) default/gone@1", "OnUpdate default/a@5", "OnAdd default/b@5", "OnAdd default/c@5"}, told)
			require.Equal(t, "OnDelete (final state unknown) default/gone@1", told[0], "deletions first, as client-go orders them")
		})
	}
}

// countingStore counts the writes its Indexer takes: one per Add, Update
// or Delete, one per Transaction (and how many writes each carried).
type countingStore struct {
	indexer.Indexer
	mu      sync.Mutex
	single  int
	batches []int
}

func (c *countingStore) count(single int, batch int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.single += single
	if batch > 0 {
		c.batches = append(c.batches, batch)
	}
}

func (c *countingStore) Add(obj api.Object) error    { c.count(1, 0); return c.Indexer.Add(obj) }
func (c *countingStore) Update(obj api.Object) error { c.count(1, 0); return c.Indexer.Update(obj) }
func (c *countingStore) Delete(obj api.Object) error { c.count(1, 0); return c.Indexer.Delete(obj) }

func (c *countingStore) Transaction(txns ...indexer.Transaction) error {
	c.count(0, len(txns))
	return c.Indexer.(indexer.TransactionStore).Transaction(txns...)
}

// client-go: InOrderInformersBatchProcess (1.35). PopBatch hands the
// informer up to 1,000 deltas of distinct keys, and the informer applies
// them in one store transaction, then calls the handlers once per delta, in
// order. A repeated key ends a batch. Without the mode (Pop), the same
// deltas are one store write each.
func TestRealFIFO_PopBatchAppliesOneTransaction(t *testing.T) {
	const objects = 1500
	run := func(t *testing.T, batches bool) (*countingStore, []string) {
		store := &countingStore{Indexer: indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)}
		// No tracer on the queue: 1,500 deltas. The story is told below.
		q := deltafifo.NewRealFIFO(deltafifo.RealFIFOOptions{AtomicEvents: true})
		for i := range objects {
			require.NoError(t, q.Add(podAt(fmt.Sprintf("p%04d", i), strconv.Itoa(i+1))))
		}
		t.Log("reflector (played by the test): 1,500 pods added, then p0000 updated twice and p0001 once")
		require.NoError(t, q.Update(podAt("p0000", "1501")))
		require.NoError(t, q.Update(podAt("p0001", "1502")))
		require.NoError(t, q.Update(podAt("p0000", "1503")))

		var told []string
		notify := func(n notification) {
			key, rv := notificationKeyRV(n)
			told = append(told, fmt.Sprintf("%s %s@%s", handlerMethod(n), key, rv))
		}
		process := func(d deltafifo.Deltas, initial bool) error {
			return processDeltas(store, d, initial, nil, notify)
		}
		for q.Len() > 0 {
			var err error
			if batches {
				err = q.PopBatch(func(batch []deltafifo.Delta, initial bool) error {
					t.Logf("informer: PopBatch: %d deltas, %s..%s", len(batch), describe(batch[0].Object), describe(batch[len(batch)-1].Object))
					return processDeltasInBatch(store, deltafifo.DeletionHandlingMetaNamespaceKeyFunc, batch, initial, nil, func(ns []notification) {
						for _, n := range ns {
							notify(n)
						}
					})
				}, func(d deltafifo.Deltas, initial bool) error {
					t.Logf("informer: PopBatch: %s alone", describe(d[0].Object))
					return process(d, initial)
				})
			} else {
				_, err = q.Pop(process)
			}
			require.NoError(t, err)
		}
		t.Logf("store: %d single writes, %d transactions of %v writes", store.single, len(store.batches), store.batches)
		return store, told
	}

	store, told := run(t, true)
	require.Equal(t, []int{1000, 502}, store.batches, "1,000 at most; then the rest, with p0000 and p0001's updates, until p0000 repeats")
	require.Equal(t, 1, store.single, "p0000's second update pops alone")
	require.Len(t, told, objects+3, "one handler call per delta")
	require.Equal(t, "OnAdd default/p0000@1", told[0])
	require.Equal(t, "OnAdd default/p1499@1500", told[objects-1])
	require.Equal(t, []string{"OnUpdate default/p0000@1501", "OnUpdate default/p0001@1502", "OnUpdate default/p0000@1503"}, told[objects:])

	t.Log("the same deltas popped one by one")
	plain, toldPlain := run(t, false)
	require.Empty(t, plain.batches)
	require.Equal(t, objects+3, plain.single)
	require.Equal(t, toldPlain, told, "the handlers cannot tell the difference")
}

// bookmark moves the fake server's resourceVersion on by otherWrites (as
// writes to other resources move the real server's, which is one counter
// for all), then sends a watch BOOKMARK at it to every open watch, and
// returns the version.
func (f *fakeLW) bookmark(otherWrites int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv += otherWrites
	rv := strconv.Itoa(f.rv)
	for _, w := range f.watches {
		w.ch <- listwatch.Event{Type: api.Bookmark, Object: &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: rv}}}
	}
	f.tracer.Event("bookmark sent", trace.RV(rv))
	return rv
}

// KEP-5647 (client-go 1.36, with AtomicFIFO): the store knows the server
// version it has reached (LastStoreSyncResourceVersion): the initial list's,
// then each event's, then a bookmark's, which moves it without calling any
// handler. Without AtomicFIFO the informer reports "".
//
// The path of a bookmark: the Reflector reads the BOOKMARK, moves its own
// LastSyncResourceVersion and hands the version to the queue
// (reflector.ReflectorBookmarkStore, which the RealFIFO implements as
// deltafifo.Bookmarker); the queue keeps it in order with the events as a
// Bookmark delta; the informer pops it and records it in its store, calling
// no handler.
func TestInformer_BookmarkAdvancesTheStoreResourceVersion(t *testing.T) {
	for _, tt := range []struct {
		name   string
		atomic bool
	}{{"AtomicFIFO", true}, {"without AtomicFIFO", false}} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := trace.ForTest(t)
				lw := newFakeLW(podAt("a", ""), podAt("b", "")).tracing(tr)
				inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{
					// The articles' informer with the RealFIFO, AtomicFIFO on or off.
					Pipeline: Articles, Queue: RealFIFOQueue, RealFIFO: RealFIFOFeatures{AtomicFIFO: tt.atomic}, Tracer: tr,
				}))
				rec := &recorder{}
				_, err := inf.AddEventHandler(rec)
				require.NoError(t, err)
				runInformer(t, inf)
				synctest.Wait()
				storeRV := func(want string) {
					t.Helper()
					got := inf.LastStoreSyncResourceVersion()
					t.Logf("informer: LastStoreSyncResourceVersion %q (the Reflector's LastSyncResourceVersion %q)", got, inf.LastSyncResourceVersion())
					if !tt.atomic {
						want = ""
					}
					require.Equal(t, want, got)
				}
				storeRV("2") // the list's

				lw.Add(podAt("c", ""))
				synctest.Wait()
				storeRV("3") // the event's

				handled := rec.Len()
				t.Log("server: two writes to other resources, then a BOOKMARK for the pods' watch")
				rv := lw.bookmark(2)
				synctest.Wait()
				require.Equal(t, rv, inf.LastSyncResourceVersion(), "the Reflector took the bookmark")
				storeRV(rv) // the Reflector handed it to the queue (ReflectorBookmarkStore), a Bookmark delta
				require.Equal(t, handled, rec.Len(), "a bookmark calls no handler")
				require.Equal(t, []string{"default/a@1", "default/b@2", "default/c@3"}, cachedKeys(inf.GetStore()))
			})
		})
	}
}

// The modes wired through the informer's options: with ClientGo136() the
// queue is atomic, unlocks and pops batches; HasSynced waits for the
// initial ReplacedAll; a late handler still gets the cache.
func TestInformer_ClientGo136Options(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeLW(podAt("a", ""), podAt("b", ""))
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{
			// The articles' list then watch, with the 1.36 RealFIFO.
			Pipeline: Articles, Queue: RealFIFOQueue, RealFIFO: ClientGo136(),
		})).(*sharedIndexInformer)
		var queue deltafifo.Queue
		inf.wrapQueue = func(q deltafifo.Queue) deltafifo.Queue { queue = q; return q }
		early := &recorder{}
		_, err := inf.AddEventHandler(early)
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()
		require.True(t, inf.HasSynced())
		rf := queue.(*deltafifo.RealFIFO)
		require.Implements(t, (*deltafifo.QueueWithBatch)(nil), rf)
		require.NotNil(t, inf.controller.(*controller).config.ProcessBatch, "batches: the informer's HandleBatch")

		for _, name := range []string{"c", "d", "e"} {
			lw.Add(podAt(name, ""))
		}
		lw.Delete(podAt("a", ""))
		synctest.Wait()
		late := &recorder{}
		_, err = inf.AddEventHandler(late)
		require.NoError(t, err)
		synctest.Wait()
		require.Equal(t, []string{"add default/a@1 initial", "add default/b@2 initial", "add default/c@3", "add default/d@4", "add default/e@5", "delete default/a@6"}, early.Events())
		lateEvents := late.Events()
		slices.Sort(lateEvents)
		require.Equal(t, []string{"add default/b@2 initial", "add default/c@3 initial", "add default/d@4 initial", "add default/e@5 initial"}, lateEvents)
		require.Equal(t, "6", inf.LastStoreSyncResourceVersion())
	})
}

// RealFIFO features given to the articles' informer with its DeltaFIFO
// are ignored, with a warning.
func TestInformer_RealFIFOFeaturesNeedTheRealFIFO(t *testing.T) {
	inf := NewSharedIndexInformerWithOptions(newFakeLW(), &api.Pod{}, testOptions(t, SharedIndexInformerOptions{
		Pipeline: Articles, RealFIFO: ClientGo136(), Logger: expectedLogs(t),
	})).(*sharedIndexInformer)
	require.Equal(t, RealFIFOFeatures{}, inf.realFIFO)
	_, isDelta := inf.newQueue().(*deltafifo.DeltaFIFO)
	require.True(t, isDelta)
	require.Empty(t, inf.LastStoreSyncResourceVersion())
}
