package fakeapiserver

import (
	"fmt"

	"github.com/kinformer/kinformer/api"
)

// SeedPods creates n pods named seed-0, seed-1, ... in namespace, labelled
// app=seed, so a fresh server has something to list and watch.
func (s *Server) SeedPods(namespace string, n int) error {
	for i := range n {
		pod := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("seed-%d", i), Namespace: namespace,
				Labels: map[string]string{"app": "seed"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}},
		}
		if _, err := s.Create(pod); err != nil {
			return fmt.Errorf("seeding pod %s/%s: %w", namespace, pod.Name, err)
		}
	}
	return nil
}
