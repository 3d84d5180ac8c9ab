package fakeapiserver

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/trace"
)

// Article 004 ("Kubernetes Controller 实现机制深度解析", 赵化冰, 2023-03-09, "K8s
// HTTP API 的 List Watch 机制") prints its watch line without quotes:
//
//	curl http://localhost:8080/api/v1/namespaces/default/pods?watch=true&resourceVersion=770715
//
// A shell ends a command at "&": curl runs in the background with the URL
// cut at watch=true, and "resourceVersion=770715" is a second command that
// sets a shell variable. The server sees a watch without a resourceVersion,
// which starts with a synthetic ADDED of every pod there is, at the pods'
// own versions, older than the list's: the article's sample output (ADDED
// events at 744176 and 744186 after a list at 770715). Quoted, the same
// line watches from the list's version and sees only what changes after it.
// The test runs the line through sh, with curl replaced by a function that
// prints the URL it was given, and asks the server for that URL.
func TestWatch_ArticleCurlLineUnquotedLosesTheResourceVersion(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this machine")
	}
	e := newEnv(t, Options{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	_, err = e.srv.Create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "moves-the-version"}})
	require.NoError(t, err)
	listRV := e.srv.ResourceVersion() // what the article's list returned: newer than every pod
	url := e.http.URL + "/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + listRV

	curlGets := func(line string) string {
		t.Helper()
		cmd := exec.Command(sh, "-c", "curl() { printf '%s\\n' \"$1\"; }\n"+line+"\nwait\n")
		cmd.Dir = t.TempDir() // no file there for the "?" in the URL to match as a glob
		out, err := cmd.Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}

	unquoted := curlGets("curl " + url)
	require.Equal(t, e.http.URL+"/api/v1/namespaces/default/pods?watch=true", unquoted, "the shell cut the URL at &")
	ws := e.watch(strings.TrimPrefix(unquoted, e.http.URL))
	got := ws.nextN(2)
	require.Equal(t, []string{"ADDED a@" + a.ResourceVersion, "ADDED b@" + b.ResourceVersion}, got,
		"synthetic ADDEDs of what exists, older than the list's version")
	trace.Checkf(t, "unquoted, curl got %s: the server answered %v, versions older than the list's %s", unquoted, got, listRV)

	quoted := curlGets(`curl "` + url + `"`)
	require.Equal(t, url, quoted)
	ws = e.watch(strings.TrimPrefix(quoted, e.http.URL))
	c := e.createPod("default", "c", nil)
	require.Equal(t, "ADDED c@"+c.ResourceVersion, ws.next().summary(t), "from the list's version: only what came after it")
	trace.Checkf(t, "quoted, curl got the whole URL: the first event is the pod created after the list, c@%s", c.ResourceVersion)
}

// Article 000 ("Kubernetes-Informer", smartkeyerror, 2020-08-26, §1
// ListAndWatch机制) gives the pod watch URL as
// /api/v1/watch/namespaces/{namespace}/pods?watch=yes: the old spelling,
// with the deprecated /watch/ prefix, which kube-apiserver still serves.
// It is the same stream as ?watch=true on the collection's own path, the
// spelling client-go uses: without a resourceVersion, a synthetic ADDED
// of each pod that exists, then the changes.
func TestWatch_LegacyWatchPathOfACollection(t *testing.T) {
	e := newEnv(t, Options{})
	a := e.createPod("default", "a", nil)
	legacy := e.watch("/api/v1/watch/namespaces/default/pods?watch=yes")
	today := e.watch("/api/v1/namespaces/default/pods?watch=true")
	b := e.createPod("default", "b", nil)
	want := []string{"ADDED a@" + a.ResourceVersion, "ADDED b@" + b.ResourceVersion}
	require.Equal(t, want, legacy.nextN(2), "/api/v1/watch/namespaces/default/pods?watch=yes")
	require.Equal(t, want, today.nextN(2), "/api/v1/namespaces/default/pods?watch=true")
	trace.Checkf(t, "the legacy /api/v1/watch/ path and ?watch=true on the collection sent the same: %v", want)
}
