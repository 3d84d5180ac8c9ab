package main

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/internal/syncbuf"
)

// Every number the summary prints that the page shows too is the same
// number: the demo runs with its page, the page's buttons delete a pod and
// compact the history (a relist per informer), the demo stops, and the
// stream's last snapshot, sent as the demo stops, is compared with the
// summary printed. With either informer.
func TestSummary_CountsAgreeWithThePage(t *testing.T) {
	for _, inf := range []string{"today", "articles"} {
		t.Run(inf, func(t *testing.T) {
			var out syncbuf.Buffer
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--web", "127.0.0.1:0", "--chaos-every", "0",
					"--start-delay", "100ms", "--quiet", "--lang", "en", "--informer", inf}, &out)
			}()
			pageRe := regexp.MustCompile(`live view: (http://\S+)/`)
			require.Eventually(t, func() bool { return pageRe.MatchString(out.String()) }, 10*time.Second, time.Millisecond)
			page := pageRe.FindStringSubmatch(out.String())[1]
			resp, sse := openStream(t, context.Background(), http.DefaultClient, page)
			defer resp.Body.Close()
			next := func(what string, ok func(snapshot) bool) {
				t.Helper()
				for i := 0; ; i++ {
					require.Less(t, i, 200, "200 snapshots (50 s) without %s", what)
					if _, s := sse.next(t); ok(s) {
						return
					}
				}
			}
			ready := func(s snapshot) bool { return s.Controller.Ready == 3 && s.Controller.Desired == 3 }
			next("the ReplicaSet ready", ready)
			press := func(button string) {
				req, err := http.NewRequest(http.MethodPost, page+"/api/fault/"+button, nil)
				require.NoError(t, err)
				req.Header.Set("X-Kinformer", "1")
				r, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				r.Body.Close()
				require.Equal(t, http.StatusOK, r.StatusCode, button)
			}
			press("delete-pod")
			next("a pod deleted and replaced", func(s snapshot) bool { return ready(s) && s.Controller.PodsMade > 3 })
			press("compact")
			next("a relist per informer, and the ReplicaSet whole again", func(s snapshot) bool {
				return ready(s) && len(s.Reflectors) == 2 && s.Reflectors[0].Relists > 0 && s.Reflectors[1].Relists > 0
			})
			stop()
			var last snapshot
			for {
				event, s := sse.next(t)
				if event == "end" {
					break
				}
				last = s
			}
			require.NoError(t, <-done)
			sum := out.String()
			t.Log(sum)

			num := func(re string) []int {
				t.Helper()
				m := regexp.MustCompile(re).FindStringSubmatch(sum)
				require.NotNil(t, m, "the summary has %s", re)
				var ns []int
				for _, s := range m[1:] {
					n, err := strconv.Atoi(s)
					require.NoError(t, err)
					ns = append(ns, n)
				}
				return ns
			}
			var relists, restarts, tombstones, replacedAll, batches int
			for _, r := range last.Reflectors {
				relists += r.Relists
				restarts += r.WatchRestarts
			}
			for _, f := range last.FIFOs {
				tombstones += f.Tombstones
				replacedAll += f.ReplacedAll
				batches += f.Batches
			}
			require.Equal(t, num(`watch events received: (\d+) ADDED, (\d+) MODIFIED, (\d+) DELETED, (\d+) BOOKMARK`),
				[]int{last.Totals["ADDED"], last.Totals["MODIFIED"], last.Totals["DELETED"], last.Totals["BOOKMARK"]}, "watch events")
			require.Equal(t, num(`relists: +(\d+)`), []int{relists}, "relists")
			require.Equal(t, num(`watch restarts: +(\d+)`), []int{restarts}, "watch restarts")
			require.Equal(t, num(`tombstones: +(\d+)`), []int{tombstones}, "tombstones")
			require.Equal(t, num(`faults injected: +(\d+)`), []int{last.Faults}, "faults")
			c := last.Controller
			require.Equal(t, num(`reconciles=(\d+) podsCreated=(\d+) podsDeleted=(\d+) statusWrites=\d+ retries=(\d+) dropped=(\d+)`),
				[]int{c.Reconciles, c.PodsMade, c.PodsGone, c.Failures, c.Dropped}, "the controller")
			if inf == "today" {
				require.Equal(t, num(`today's hops: +(\d+) ReplacedAll .*?, (\d+) batches`), []int{replacedAll, batches}, "today's hops")
			}
		})
	}
}
