package listwatch

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
)

// Article: Kubernetes Controller 实现机制深度解析 (赵化冰), "K8s HTTP API 的 List Watch 机制",
// and Kubernetes-Informer (smartkeyerror) §1: list, then watch from the
// list's resourceVersion; the watch replays only what changed after it
// (ADDED, MODIFIED, DELETED), never the objects the list already showed.
func TestWatchFromListResourceVersion(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.create(t, pod("default", "listed", nil))
	pods := For[*api.Pod](e.client, Pods)
	ctx := context.Background()

	list, err := pods.List(ctx, "default", ListOptions{})
	require.NoError(t, err)
	w, err := pods.Watch(ctx, "default", ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()

	created := e.create(t, pod("default", "test", nil)).(*api.Pod)
	created.Labels = map[string]string{"changed": "yes"}
	_, err = e.srv.Update(created)
	require.NoError(t, err)
	_, err = e.srv.Delete("configmaps", "default", "nope") // another resource's miss: not seen
	require.Error(t, err)
	_, err = e.srv.Delete("pods", "default", "test")
	require.NoError(t, err)

	var types []api.EventType
	lastRV := list.ResourceVersion
	for len(types) == 0 || types[len(types)-1] != api.Deleted {
		ev := next(t, w)
		require.NoError(t, ev.Err)
		p, ok := ev.Object.(*api.Pod)
		require.True(t, ok, "objects are *api.Pod, got %T", ev.Object)
		assert.Equal(t, "test", p.Name, "the listed pod is not replayed")
		assert.Equal(t, "Pod", p.Kind)
		assert.Greater(t, rvNumber(t, p.ResourceVersion), rvNumber(t, lastRV), "every event is newer than the last")
		lastRV = p.ResourceVersion
		types = append(types, ev.Type)
	}
	// A pod is deleted gracefully: marked (MODIFIED), then removed (DELETED).
	assert.Equal(t, []api.EventType{api.Added, api.Modified, api.Modified, api.Deleted}, types)
	assert.Equal(t, e.srv.ResourceVersion(), lastRV, "the DELETED event carries the deletion's version")
}

// rvNumber reads one of the fake server's resourceVersions (clients must
// treat them as opaque; this test only checks the server's order).
func rvNumber(t *testing.T, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	require.NoError(t, err)
	return n
}

// A watch with no resourceVersion starts with a synthetic ADDED for every
// existing object (article 004's raw watcher relies on this).
func TestWatchWithoutResourceVersionStartsWithSyntheticAdded(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.create(t, pod("default", "a", nil))
	e.create(t, pod("default", "b", nil))
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	for _, want := range []string{"a", "b"} {
		ev := next(t, w)
		assert.Equal(t, api.Added, ev.Type)
		assert.Equal(t, want, ev.Object.GetName())
	}
}

// BOOKMARK frames carry only a resourceVersion; the object is still of the
// watched type (client-go notes §6c).
func TestWatchBookmarkDecodedAsWatchedType(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: time.Minute})
	start := e.srv.ResourceVersion()
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default",
		ListOptions{ResourceVersion: start, AllowWatchBookmarks: true})
	require.NoError(t, err)
	defer w.Stop()
	e.create(t, pod("kube-system", "elsewhere", nil)) // moves the version, not seen in default
	e.blockUntilWaiters(t, 2)                         // the watch's timeout timer and bookmark ticker
	e.clock.Step(time.Minute)

	ev := next(t, w)
	require.Equal(t, api.Bookmark, ev.Type)
	p, ok := ev.Object.(*api.Pod)
	require.True(t, ok, "a bookmark's object is a *api.Pod, got %T", ev.Object)
	assert.Equal(t, e.srv.ResourceVersion(), p.ResourceVersion)
	assert.Empty(t, p.Name)
}

// A streaming list (sendInitialEvents=true): the current state as ADDED
// events, then a BOOKMARK annotated k8s.io/initial-events-end.
func TestWatchSendInitialEventsEndsWithAnnotatedBookmark(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	e.create(t, pod("default", "a", nil))
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{
		SendInitialEvents: ptr(true), ResourceVersionMatch: ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	require.NoError(t, err)
	defer w.Stop()
	ev := next(t, w)
	assert.Equal(t, api.Added, ev.Type)
	assert.Equal(t, "a", ev.Object.GetName())
	ev = next(t, w)
	require.Equal(t, api.Bookmark, ev.Type)
	assert.Equal(t, "true", ev.Object.GetAnnotations()[api.InitialEventsAnnotationKey])
	assert.Equal(t, e.srv.ResourceVersion(), ev.Object.GetResourceVersion())
}

// Reference 14-watch-410-after-apiserver-restart.txt: a watch from a
// compacted version is HTTP 200 and then ONE ERROR frame holding a 410
// Expired Status; the stream ends after it.
func TestWatchExpiredResourceVersionIsErrorEvent(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	old := e.srv.ResourceVersion()
	e.create(t, pod("default", "a", nil))
	e.srv.CompactHistory()

	w, err := NewFilteredListWatchFromClient(e.client, Pods, "default", nil).Watch(context.Background(), ListOptions{ResourceVersion: old})
	require.NoError(t, err, "the refusal comes inside the stream, not as the HTTP status")
	defer w.Stop()
	ev := next(t, w)
	require.Equal(t, api.Error, ev.Type)
	assert.Nil(t, ev.Object)
	var se *StatusError
	require.True(t, errors.As(ev.Err, &se), "Err is a *StatusError: %T", ev.Err)
	assert.Equal(t, int32(410), se.Status().Code)
	assert.True(t, IsResourceExpired(ev.Err))
	assert.Contains(t, ev.Err.Error(), "too old resource version")
	requireClosed(t, w)
}

// timeoutSeconds: the server ends the stream cleanly; the channel closes
// with no Error event and the reflector simply watches again.
func TestWatchTimeoutSecondsEndsCleanly(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default",
		ListOptions{ResourceVersion: e.srv.ResourceVersion(), TimeoutSeconds: ptr(int64(5))})
	require.NoError(t, err)
	defer w.Stop()
	e.blockUntilWaiters(t, 1)
	e.clock.Step(5 * time.Second)
	requireClosed(t, w)
}

// The server closing every watch (an API server restart, a load balancer)
// is a clean end too.
func TestWatchServerClosingStreamEndsCleanly(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{ResourceVersion: e.srv.ResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)
	e.srv.CloseWatches()
	requireClosed(t, w)
}

// A watcher filtered by a selector sees an object that stops matching as
// DELETED and one that starts matching again as ADDED (reference 12).
func TestWatchSelectorTransitions(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	created := e.create(t, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default",
		Labels: map[string]string{"app": "demo"}}}).(*api.ConfigMap)
	w, err := For[*api.ConfigMap](e.client, ConfigMaps).Watch(context.Background(), "default",
		ListOptions{ResourceVersion: created.ResourceVersion, LabelSelector: "app=demo"})
	require.NoError(t, err)
	defer w.Stop()

	created.Labels["app"] = "other"
	updated, err := e.srv.Update(created)
	require.NoError(t, err)
	ev := next(t, w)
	assert.Equal(t, api.Deleted, ev.Type)
	assert.Equal(t, updated.GetResourceVersion(), ev.Object.GetResourceVersion())

	cm := updated.(*api.ConfigMap)
	cm.Labels["app"] = "demo"
	_, err = e.srv.Update(cm)
	require.NoError(t, err)
	ev = next(t, w)
	assert.Equal(t, api.Added, ev.Type)
	_, ok := ev.Object.(*api.ConfigMap)
	assert.True(t, ok)
}

// Stop ends the stream and its goroutine promptly, and the server sees the
// connection go.
func TestWatchStopEndsPromptly(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{ResourceVersion: e.srv.ResourceVersion()})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)

	w.Stop()
	w.Stop() // twice is fine
	requireClosed(t, w)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, deadline, time.Millisecond,
		"the server's side of the watch ends too")
}

// Cancelling the context passed to Watch ends the stream the same way,
// with no Error event.
func TestWatchContextCancelEndsPromptly(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	w, err := NewFilteredListWatchFromClient(e.client, Pods, "default", nil).Watch(ctx, ListOptions{ResourceVersion: e.srv.ResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)

	cancel()
	requireClosed(t, w)
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 0 }, deadline, time.Millisecond)
}

// A consumer that stops reading does not block Stop: the goroutine blocked
// sending an event gives up when Stop is called.
func TestWatchStopWhileEventUndelivered(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{})
	require.NoError(t, err)
	e.create(t, pod("default", "unread", nil))
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)
	w.Stop()
	drainUntilClosed(t, w) // what was in flight may or may not arrive; then the channel closes
}

// drainUntilClosed reads w until its channel closes, failing at the deadline.
func drainUntilClosed(t *testing.T, w Watch) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the watch did not end within the deadline")
		}
	}
}

// Garbage in the stream ends it with one Error event wrapping
// ErrMalformedFrame, never a panic.
func TestWatchGarbageFromServerEndsWithError(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	w, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{ResourceVersion: e.srv.ResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()
	require.Eventually(t, func() bool { return e.srv.OpenWatches("pods") == 1 }, deadline, time.Millisecond)
	e.srv.WriteGarbage([]byte("this is not json\n"))

	ev := next(t, w)
	require.Equal(t, api.Error, ev.Type)
	assert.ErrorIs(t, ev.Err, ErrMalformedFrame)
	requireClosed(t, w)
}

// A watch the server refuses before streaming (here 422: resourceVersionMatch
// without sendInitialEvents) returns the *StatusError from Watch itself.
func TestWatchRefusedBeforeStreamingReturnsStatusError(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{})
	_, err := For[*api.Pod](e.client, Pods).Watch(context.Background(), "default",
		ListOptions{ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
	require.Error(t, err)
	assert.True(t, IsInvalid(err), "%v", err)

	e.srv.FailRequests(fakeapiserver.Fault{Verb: "watch", Resource: "pods", Code: 500})
	_, err = For[*api.Pod](e.client, Pods).Watch(context.Background(), "default", ListOptions{})
	assert.True(t, IsInternalError(err), "%v", err)
}
