package informer

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// Waiting for the cache to sync, two ways.
//
// The articles' way is WaitForCacheSync: ask every HasSynced function at
// once, then again every 100 ms until all say true. It works with any
// func() bool, but it wakes up to 100 ms late, and it keeps a ticker
// running while it waits (in a test, on the real clock: the test waits too).
//
// client-go 1.36's way is WaitFor: each thing to wait for is a DoneChecker,
// whose Done channel is closed the moment it is done, and WaitFor blocks on
// the channels. The queues close theirs when their HasSynced turns true
// (deltafifo.Queue.HasSyncedChecker); the informer closes its own right
// after its queue's (SharedIndexInformer.HasSyncedChecker); a registration
// closes its own once, in addition, its handler has handled the initial
// list (ResourceEventHandlerRegistration.HasSyncedChecker). The factory's
// WaitForCacheSync waits with WaitFor. TestWaitFor_WakesWithoutPolling
// shows the difference.

// InformerSynced is a HasSynced function: an informer's, a registration's,
// or a controller's.
type InformerSynced = func() bool

// syncedPollPeriod is how often WaitForCacheSync checks, as in client-go.
const syncedPollPeriod = 100 * time.Millisecond

// WaitForCacheSync waits until every cacheSyncs function returns true, and
// reports true, or until ctx ends, and reports false. Controllers call it
// before they start their workers, so they never act on a half-filled cache
// ("Kubernetes-Informer" by smartkeyerror, §3; article 004's controller
// Run). Pass the registrations' HasSynced to also wait until the handlers
// have seen the initial list.
//
// It is the articles' wait, and client-go still has it: it checks at once,
// then every 100 ms on the real clock, so it returns up to 100 ms after the
// last cache synced. WaitFor, with the HasSyncedCheckers, returns at that
// moment.
func WaitForCacheSync(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	if allSynced(cacheSyncs) {
		return true
	}
	ticker := time.NewTicker(syncedPollPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-ticker.C:
			if allSynced(cacheSyncs) {
				return true
			}
		}
	}
}

func allSynced(cacheSyncs []InformerSynced) bool {
	for _, synced := range cacheSyncs {
		if !synced() {
			return false
		}
	}
	return true
}

// DoneChecker is something to wait for without polling (client-go 1.36):
// its Done channel is closed once it is done, and never reopened. Name says
// what it is, in WaitFor's log lines. deltafifo.DoneChecker, what the
// queues hand out, is the same interface.
type DoneChecker interface {
	// Name describes what is waited for, e.g. "SharedIndexInformer
	// *api.Pod". It may be computed: call it when logging, not in a loop.
	Name() string
	// Done returns a channel that is closed once it is done.
	Done() <-chan struct{}
}

// IsDone reports, without waiting, whether checker is done.
func IsDone(checker DoneChecker) bool {
	select {
	case <-checker.Done():
		return true
	default:
		return false
	}
}

// WaitFor waits until every checker is done, and reports true, or until ctx
// ends, and reports false. Unlike WaitForCacheSync it does not poll: it
// blocks on the checkers' channels and returns the moment the last one
// closes (under testing/synctest, with no time passing at all).
//
// If what is not empty, WaitFor logs, at Info on logger (slog.Default() if
// nil), "Waiting" for what, then "Done waiting" with the Name of each
// checker as it becomes done, and, if ctx ends first, "Timed out waiting"
// with the cause and the sorted names of the checkers that were not done.
// With what empty it logs nothing.
func WaitFor(ctx context.Context, logger *slog.Logger, what string, checkers ...DoneChecker) bool {
	if logger == nil {
		logger = slog.Default()
	}
	logging := what != ""
	if logging {
		logger.Info("Waiting", "for", what)
	}

	// One goroutine per checker, so each "Done waiting" is logged as soon
	// as that checker is done, not when the ones before it in the list
	// are. The channel has room for every answer: no goroutine outlives
	// WaitFor, which reads them all.
	type answer struct {
		checker DoneChecker
		done    bool
	}
	answers := make(chan answer, len(checkers))
	for _, c := range checkers {
		go func() { answers <- answer{c, waitOne(ctx, c)} }()
	}
	var notDone []string
	for range checkers {
		a := <-answers
		switch {
		case !a.done:
			notDone = append(notDone, a.checker.Name())
		case logging:
			logger.Info("Done waiting", "for", what, "instance", a.checker.Name())
		}
	}
	if len(notDone) == 0 {
		return true
	}
	if logging {
		slices.Sort(notDone)
		logger.Info("Timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", notDone)
	}
	return false
}

// waitOne waits until c is done (true) or ctx ends (false). When both have
// happened select picks either; a checker done by then still counts.
func waitOne(ctx context.Context, c DoneChecker) bool {
	select {
	case <-c.Done():
		return true
	case <-ctx.Done():
		return IsDone(c)
	}
}
