package replicaset

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kinformer/kinformer/api"
)

// The order in which scaling down picks pods, rule by rule.
func TestPodsToDelete_RanksLeastValuablePodsFirst(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	pod := func(name, node string, phase api.PodPhase, readySince time.Duration, created time.Duration) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: api.NewTime(t0.Add(created))},
			Spec: api.PodSpec{NodeName: node}, Status: api.PodStatus{Phase: phase}}
		if readySince >= 0 {
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(t0.Add(readySince))}}
		}
		return p
	}
	const notReady = -1
	pods := []*api.Pod{
		pod("ready-long-ago", "n1", api.PodRunning, 1*time.Minute, 0),
		pod("ready-recently", "n1", api.PodRunning, 5*time.Minute, 0),
		pod("running-not-ready-old", "n1", api.PodRunning, notReady, 0),
		pod("running-not-ready-new", "n1", api.PodRunning, notReady, time.Minute),
		pod("unknown", "n1", api.PodUnknown, notReady, 0),
		pod("pending", "n1", api.PodPending, notReady, 0),
		pod("unscheduled", "", api.PodPending, notReady, 0),
	}
	want := []string{"unscheduled", "pending", "unknown", "running-not-ready-new", "running-not-ready-old",
		"ready-recently", "ready-long-ago"}
	for n := range pods {
		assert.Equal(t, want[:n], names(podsToDelete(pods, n)), "the %d to delete", n)
	}
	assert.Equal(t, want, names(podsToDelete(pods, 100)), "asking for more than there are")
	assert.Equal(t, "ready-long-ago", pods[0].Name, "the caller's slice is not reordered")
}

// Creates go in batches of 1, 2, 4, ...; a batch with a failure is the
// last one, so a create the server refuses is tried a few times, not n.
func TestSlowStartBatch_StopsAfterTheFirstFailingBatch(t *testing.T) {
	var calls atomic.Int32
	ok, err := slowStartBatch(10, 1, func() error { calls.Add(1); return nil })
	assert.NoError(t, err)
	assert.Equal(t, 10, ok, "batches of 1, 2, 4 and the last 3")
	assert.Equal(t, int32(10), calls.Load())

	calls.Store(0)
	ok, err = slowStartBatch(10, 1, func() error {
		if calls.Add(1) == 4 { // the first call of the batch of 4
			return errors.New("refused")
		}
		return nil
	})
	assert.EqualError(t, err, "refused")
	assert.Equal(t, 6, ok, "1 + 2 + the 3 others of the failing batch")
	assert.Equal(t, int32(7), calls.Load(), "no batch after the failing one")
}
