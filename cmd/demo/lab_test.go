package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/syncbuf"
)

// tell writes one line of the test's story (under -v), without the
// file:line prefix t.Logf adds.
func tell(t *testing.T, format string, args ...any) {
	if testing.Verbose() {
		fmt.Fprintf(t.Output(), format+"\n", args...)
	}
}

// labDemo is the whole demo, in-process, with its page and so its lab.
type labDemo struct {
	page, server string // base URLs
	stop         func()
}

// startLabDemo runs the demo (no chaos) until the ReplicaSet has its three
// ready pods, and returns where its page and its server are.
func startLabDemo(t *testing.T, informer string) *labDemo {
	t.Helper()
	var out syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--web", "127.0.0.1:0", "--chaos-every", "0",
			"--start-delay", "100ms", "--quiet", "--lang", "en", "--informer", informer}, &out)
	}()
	d := &labDemo{stop: func() {
		cancel()
		require.NoError(t, <-done)
	}}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			d.stop()
		}
	})
	pageRe := regexp.MustCompile(`live view: (http://\S+)/`)
	serverRe := regexp.MustCompile(`fake Kubernetes API server on (http://[0-9.:]+)`)
	require.Eventually(t, func() bool { return pageRe.MatchString(out.String()) && serverRe.MatchString(out.String()) },
		30*time.Second, time.Millisecond)
	d.page = pageRe.FindStringSubmatch(out.String())[1]
	d.server = serverRe.FindStringSubmatch(out.String())[1]
	require.Eventually(t, func() bool {
		var s snapshot
		d.get(t, "/api/snapshot", &s)
		return s.Controller.Ready == 3
	}, 60*time.Second, 10*time.Millisecond, "the ReplicaSet's three pods ready")
	return d
}

func (d *labDemo) get(t *testing.T, path string, out any) {
	t.Helper()
	resp, err := http.Get(d.page + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, path)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
}

// post presses one of the lab's buttons; it returns the status code.
func (d *labDemo) post(t *testing.T, path string, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.page+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-Kinformer", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	return resp.StatusCode
}

// labView is the part of lab.View this test reads, as JSON.
type labView struct {
	Paused    bool                      `json:"paused"`
	Step      int                       `json:"step"`
	Rewound   bool                      `json:"rewound"`
	FIFO      map[string]labQueue       `json:"fifo"`
	Indexer   map[string]labCache       `json:"indexer"`
	Listeners map[string]labListener    `json:"listeners"`
	WorkQueue map[string]labWorkQueue   `json:"workqueue"`
	Hop       *labHop                   `json:"hop"`
	Waiting   []labHop                  `json:"waiting"`
	Server    map[string]map[string]any `json:"server"`
}

type labHop struct {
	Step  int               `json:"step"`
	Stage string            `json:"stage"`
	What  string            `json:"what"`
	Text  string            `json:"text"`
	Key   string            `json:"key"`
	World bool              `json:"world"`
	Box   string            `json:"box"`
	Attrs map[string]string `json:"attrs"`
}

type labQueue struct {
	Kind  string `json:"kind"`
	Items []struct {
		Key    string `json:"key"`
		Deltas []struct {
			Type string `json:"type"`
			RV   string `json:"rv"`
		} `json:"deltas"`
	} `json:"items"`
}

// deltas are the types of the deltas queued for key, oldest first.
func (q labQueue) deltas(key string) []string {
	var out []string
	for _, it := range q.Items {
		if it.Key == key {
			for _, d := range it.Deltas {
				out = append(out, d.Type)
			}
		}
	}
	return out
}

type labCache struct {
	Objects []struct {
		Key string `json:"key"`
		RV  string `json:"rv"`
	} `json:"objects"`
}

func (c labCache) has(key string) bool {
	return slices.ContainsFunc(c.Objects, func(o struct {
		Key string `json:"key"`
		RV  string `json:"rv"`
	}) bool {
		return o.Key == key
	})
}

type labListener struct {
	Pending []struct {
		Type string `json:"type"`
		Key  string `json:"key"`
	} `json:"pending"`
}

type labWorkQueue struct {
	Queue      []string `json:"queue"`
	Dirty      []string `json:"dirty"`
	Processing []string `json:"processing"`
}

// Article: 000 (the informer's whole path) and 004 (the controller's
// side): a pod deleted while the lab is paused goes nowhere until the
// learner steps; then, one hop a step, its Deleted delta is queued, the
// cache forgets the pod, the controller's handler is notified, the
// ReplicaSet's key is enqueued, waits in the work queue, and is reconciled: each box's contents, as
// the lab shows them, say so at that step. A rewind shows the state before
// the delete again.
func TestLab_StepADeleteThroughEveryBox(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) {
			d := startLabDemo(t, inf)
			var v labView
			require.Equal(t, http.StatusOK, d.post(t, "/api/lab/pause", &v))
			require.True(t, v.Paused)
			before := v.Step
			pods := v.Indexer["pods"]
			require.NotEmpty(t, pods.Objects, "the cache's contents, from the lab")
			pod := pods.Objects[0].Key
			tell(t, "paused at step %d; the cache holds %d pods; deleting %s through the API", before, len(pods.Objects), pod)

			name := pod[strings.Index(pod, "/")+1:]
			req, err := http.NewRequest(http.MethodDelete, d.server+"/api/v1/namespaces/default/pods/"+name+"?gracePeriodSeconds=0", nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "the server accepts writes while the lab is paused")

			// Step, one hop at a time, until the ReplicaSet is reconciled
			// after the cache forgot the pod.
			type seen struct {
				hop labHop
				v   labView
			}
			var hops []seen
			want := []string{"fifo", "cache", "notify", "enqueue", "queued", "reconcile"}
			got := map[string]int{}
			next := 0
			for i := 0; next < len(want); i++ {
				require.Less(t, i, 600, "600 steps without the story's end; saw %v", got)
				var r struct {
					Hop   labHop  `json:"hop"`
					State labView `json:"state"`
				}
				if d.post(t, "/api/lab/step", &r) != http.StatusOK {
					continue // idle for a moment: a busy machine; step again
				}
				hops = append(hops, seen{r.Hop, r.State})
				h, s := r.Hop, r.State
				stage := ""
				switch {
				case h.Box == "fifo/pods" && slices.Contains(s.FIFO["pods"].deltas(pod), "Deleted"):
					stage = "fifo"
				case strings.HasPrefix(h.What, "cache delete") && h.Key == pod && !s.Indexer["pods"].has(pod):
					stage = "cache"
				case h.What == "notify" && h.Key == pod && h.Attrs["type"] == "delete":
					l := s.Listeners["pods/"+h.Attrs["handler"]]
					require.True(t, slices.ContainsFunc(l.Pending, func(p struct {
						Type string `json:"type"`
						Key  string `json:"key"`
					}) bool {
						return p.Key == pod
					}), "the notification waits in the listener: %+v", l)
					stage = "notify"
				case got["notify"] > 0 && h.Stage == "controller" && h.What == "enqueue" && h.Attrs["from"] == pod:
					stage = "enqueue" // the handler, told of the delete, enqueues the pod's owner
				case got["enqueue"] > 0 && h.Stage == "workqueue" && h.Key == "default/web" && strings.HasPrefix(h.What, "add"):
					q := s.WorkQueue["replicaset"]
					require.True(t, slices.Contains(q.Queue, "default/web") || slices.Contains(q.Dirty, "default/web"),
						"the key is in the work queue: %+v (hop %+v)", q, h)
					stage = "queued"
				case got["queued"] > 0 && h.Stage == "controller" && h.What == "reconcile" && h.Key == "default/web":
					stage = "reconcile"
				}
				if stage == "" || got[stage] > 0 {
					continue
				}
				got[stage] = h.Step
				tell(t, "step %d (%s): %s", h.Step, stage, h.Text)
				if stage == want[next] {
					next++
				}
			}
			for i := 1; i < len(want); i++ {
				require.Less(t, got[want[i-1]], got[want[i]], "%s before %s", want[i-1], want[i])
			}
			require.NotEmpty(t, hops)

			// Rewind: the state before the delete, read-only.
			require.Equal(t, http.StatusOK, d.post(t, fmt.Sprintf("/api/lab/rewind?step=%d", before), &v))
			require.True(t, v.Rewound)
			require.Equal(t, before, v.Step)
			require.True(t, v.Indexer["pods"].has(pod), "rewound: the cache holds the pod again")
			require.NotContains(t, v.FIFO["pods"].deltas(pod), "Deleted")
			tell(t, "rewound to step %d: the cache holds %s again", v.Step, pod)

			require.Equal(t, http.StatusOK, d.post(t, "/api/lab/resume", &v))
			require.False(t, v.Paused)
			require.False(t, v.Rewound)
		})
	}
}
