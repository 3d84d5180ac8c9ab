package informer

import (
	"context"
	"time"
)

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
// It checks at once, then every 100 ms on the real clock, as client-go does.
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
