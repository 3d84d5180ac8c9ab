package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/fakeapiserver"
)

// The demo's world is what the tour talks about.
func TestDemo_SeedsTheWorldTheTourDescribes(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	defer srv.Close()
	require.NoError(t, seed(srv))
	pods, _, err := srv.List("pods", "default")
	require.NoError(t, err)
	require.Len(t, pods, 3)
	for _, p := range pods {
		require.Equal(t, "web", p.GetOwnerReferences()[0].Name)
	}
	_, err = srv.Get("replicasets", "default", "web")
	require.NoError(t, err)
	_, err = srv.Get("configmaps", "default", "settings")
	require.NoError(t, err)

	var out bytes.Buffer
	printTour(&out, "http://127.0.0.1:9999")
	require.Contains(t, out.String(), "curl http://127.0.0.1:9999/api/v1/namespaces/default/pods")
	require.Contains(t, out.String(), "kubectl --server http://127.0.0.1:9999 get pods -w")
}
