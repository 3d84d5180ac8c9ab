package soak

import (
	"context"
	"math/rand/v2"
	"time"
)

// The faults a run injects, each a way a real cluster surprises a client.
const (
	faultDropWatches = "drop-watches"  // every watch ends: reflectors resume from their last rv
	faultCompact     = "compact"       // history forgotten, then watches dropped: 410 Expired, relist
	faultOutage      = "outage"        // events stop reaching the watches, then the history is compacted and the watches break
	faultFail429     = "429-burst"     // the next requests get 429 with Retry-After: back off, no relist
	faultFail500     = "500-burst"     // the next requests get 500
	faultDeletePod   = "delete-rs-pod" // a pod of the ReplicaSet is deleted: the controller replaces it
	faultRestart     = "kill-9"        // the server process is killed and restarted on its data
)

// injectFaults injects a fault about every FaultEvery until ctx ends, and
// counts them by kind. It goes through every kind in a random order, then
// again in another, so a run of a few dozen faults has every kind.
func (r *runner) injectFaults(ctx context.Context) {
	rnd := rand.New(rand.NewPCG(r.cfg.Seed, 1<<32))
	var kinds []string
	for {
		if len(kinds) == 0 {
			kinds = r.proc.kinds()
			rnd.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		}
		wait := time.Duration(rnd.Int64N(int64(2 * r.cfg.FaultEvery)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		kind := kinds[0]
		kinds = kinds[1:]
		if err := r.proc.inject(kind, rnd, r.client); err != nil {
			r.cfg.Logf("fault %s: %v", kind, err)
			continue
		}
		r.faults[kind]++
	}
}
