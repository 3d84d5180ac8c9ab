package replicaset

import (
	"cmp"
	"slices"

	"github.com/kinformer/kinformer/api"
)

// podsToDelete picks the n pods to delete when scaling down: the pods that
// matter least go first, in the real controller's order (kubernetes
// pkg/controller ActivePodsWithRanks, without the ranks by node and the
// deletion-cost annotation, which kinformer's types do not have):
//
//  1. not scheduled to a node before scheduled;
//  2. Pending before Unknown before Running;
//  3. not ready before ready;
//  4. ready for less time before ready for longer;
//  5. newer before older (by creationTimestamp).
//
// Ties go by name, so the choice is the same every time.
func podsToDelete(pods []*api.Pod, n int) []*api.Pod {
	ranked := slices.Clone(pods)
	slices.SortStableFunc(ranked, deletionOrder)
	return ranked[:min(n, len(ranked))]
}

// phaseOrder ranks phases for deletion: lower goes first.
var phaseOrder = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// deletionOrder is negative if a should be deleted before b.
func deletionOrder(a, b *api.Pod) int {
	if c := cmp.Compare(scheduled(a), scheduled(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(phaseOrder[a.Status.Phase], phaseOrder[b.Status.Phase]); c != 0 {
		return c
	}
	if c := cmp.Compare(ready(a), ready(b)); c != 0 {
		return c
	}
	if api.IsPodReady(a) && api.IsPodReady(b) {
		// Ready more recently means ready for less time: goes first.
		if c := readySince(b).Compare(readySince(a).Time); c != 0 {
			return c
		}
	}
	// Newer first.
	if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func scheduled(p *api.Pod) int { return boolRank(p.Spec.NodeName != "") }
func ready(p *api.Pod) int     { return boolRank(api.IsPodReady(p)) }

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readySince is when the pod's Ready condition last became True.
func readySince(p *api.Pod) api.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			return c.LastTransitionTime
		}
	}
	return api.Time{}
}
