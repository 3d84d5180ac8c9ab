package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/internal/syncbuf"
)

// The demo's world is what the tour talks about: the ReplicaSet web (whose
// pods the controller creates), a configmap, and a pod no ReplicaSet owns.
func TestDemo_SeedsTheWorldTheTourDescribes(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	defer srv.Close()
	require.NoError(t, seed(srv, 3))
	_, err := srv.Get("replicasets", "default", "web")
	require.NoError(t, err)
	_, err = srv.Get("configmaps", "default", "settings")
	require.NoError(t, err)
	_, err = srv.Get("pods", "kube-system", "coredns")
	require.NoError(t, err)

	out := tour("http://127.0.0.1:9999", "42", articlesInformer)
	require.Contains(t, out, "curl http://127.0.0.1:9999/api/v1/namespaces/default/pods")
	require.Contains(t, out, `curl "http://127.0.0.1:9999/api/v1/namespaces/default/pods?watch=true&resourceVersion=42"`)
	require.Contains(t, out, "kubectl --server http://127.0.0.1:9999 get pods -w")
	require.NotContains(t, out, "<rv>", "the tour shows real values, not placeholders")
	require.Contains(t, out, "curl -X POST http://127.0.0.1:9999/faults/close-watches")
	require.NotContains(t, out, "/demo/", "the server's fault endpoints replaced the demo's own")
	require.Contains(t, out, "server commit → watch frame → DeltaFIFO → cache")

	today := tour("http://127.0.0.1:9999", "42", todayInformer)
	require.Contains(t, today, "Informer: today's, client-go 1.36's")
	require.Contains(t, today, "server commit → watch frame → RealFIFO → cache")
}

// The whole tour, end to end and sped up, with either informer: the
// controller creates the three pods, the kubelet starts them, the chaos
// loop deletes pods, drops watches and compacts history, and at the end
// every cache equals the server and the ReplicaSet has its replicas. The
// tour's fault endpoints work and are narrated as the learner's doing;
// the narration names the informer's own hops.
func TestDemo_TourEndsWithTheFinalCheckPassed(t *testing.T) {
	for _, tc := range []struct {
		informer string
		hops     []string
	}{
		{"today", []string{"starting two informers (today's informer, client-go 1.36's",
			"streaming list: 1 initial events, then the initial-events-end bookmark at rv ",
			"informer(pods): ReplacedAll: ", "→ RealFIFO → popped, lock released → cache → handler enqueues default/web",
			"today's hops: "}},
		{"articles", []string{"starting two informers (the articles' informer: list then watch",
			"→ DeltaFIFO → cache → handler enqueues default/web", "informer:              the articles' informer"}},
	} {
		t.Run(tc.informer, func(t *testing.T) {
			s := runTour(t, tc.informer)
			for _, hop := range tc.hops {
				require.Contains(t, s, hop)
			}
		})
	}
}

// runTour runs the demo for 6 s with the informer given, pokes two fault
// endpoints, and checks what every run narrates; it returns the output.
func runTour(t *testing.T, inf string) string {
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"--addr", "127.0.0.1:0", "--duration", "6s", "--informer", inf,
			"--chaos-every", "700ms", "--start-delay", "200ms", "--history", "20", "--lang", "en"}, &out)
	}()
	urlRe := regexp.MustCompile(`controller against (http://\S+)`)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "/faults/close-watches") }, 5*time.Second, 5*time.Millisecond)
	url := urlRe.FindStringSubmatch(out.String())[1]
	for _, f := range []string{"compact", "close-watches"} {
		resp, err := http.Post(url+"/faults/"+f, "", nil)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	err := <-done
	t.Log(out.String())
	require.NoError(t, err)
	s := out.String()
	require.Contains(t, s, "you: history compacted at resourceVersion ")
	require.Regexp(t, `you: closed every watch \(\d+ open\) \(POST /faults/close-watches; `, s)
	require.Contains(t, s, "final check PASSED")
	require.Contains(t, s, "handler enqueues default/web", "the narration follows changes to the controller")
	require.Contains(t, s, "worker: default/web: have", "the narration shows the worker's reconciles")
	require.Contains(t, s, "kubelet: pod default/web-", "the kubelet starts the controller's pods")
	require.True(t, strings.Contains(s, "chaos: "), "the chaos loop ran")
	return s
}

// --informer takes today (the default) or articles, and nothing else.
func TestDemo_InformerFlag(t *testing.T) {
	o, err := parseFlags(nil)
	require.NoError(t, err)
	require.Equal(t, todayInformer, o.informer)
	o, err = parseFlags([]string{"--informer", "articles"})
	require.NoError(t, err)
	require.Equal(t, articlesInformer, o.informer)
	_, err = parseFlags([]string{"--informer", "1.33"})
	require.ErrorContains(t, err, "want articles or today")
}
