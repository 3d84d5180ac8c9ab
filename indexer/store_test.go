package indexer

import (
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pod returns a Pod with the given namespace, name, resourceVersion and
// labels (given as key, value, key, value...).
func pod(ns, name, rv string, labels ...string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			p.Labels[labels[i]] = labels[i+1]
		}
	}
	return p
}

// Article: "Kubernetes-Informer" by smartkeyerror §2 (the local key-value
// storage is keyed by namespace/name).
func TestMetaNamespaceKeyFunc(t *testing.T) {
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr string
	}{
		{name: "namespaced object", obj: pod("default", "web-0", "1"), want: "default/web-0"},
		{name: "cluster-scoped object", obj: &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "kube-system"}}, want: "kube-system"},
		{name: "explicit key passes through", obj: ExplicitKey("default/web-0"), want: "default/web-0"},
		{name: "nil", obj: nil, wantErr: "nil object"},
		{name: "typed nil pointer", obj: (*api.Pod)(nil), wantErr: "nil object"},
		{name: "object without a name", obj: &api.Pod{}, wantErr: "without a name"},
		{name: "not an object", obj: 42, wantErr: "int: it has no object metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MetaNamespaceKeyFunc(tt.obj)
			t.Logf("indexer: MetaNamespaceKeyFunc(%s) = %q, err: %v", tt.name, got, err)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestSplitMetaNamespaceKey(t *testing.T) {
	tests := []struct {
		key           string
		wantNamespace string
		wantName      string
		wantErr       bool
	}{
		{key: "default/web-0", wantNamespace: "default", wantName: "web-0"},
		{key: "kube-system", wantName: "kube-system"},
		{key: "/web-0", wantName: "web-0"},
		{key: "a/b/c", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ns, name, err := SplitMetaNamespaceKey(tt.key)
			t.Logf("indexer: SplitMetaNamespaceKey(%q) = namespace %q, name %q, err: %v", tt.key, ns, name, err)
			if tt.wantErr {
				require.ErrorContains(t, err, "unexpected key format")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantNamespace, ns)
			require.Equal(t, tt.wantName, name)
		})
	}
}

// Article: "informer" notes §2.1 (the local cache answers reads instead of
// the API server).
func TestStore_AddGetUpdateDelete(t *testing.T) {
	s := Store(toldStore{NewStore(nil), t})

	require.NoError(t, s.Add(pod("default", "a", "1")))
	require.NoError(t, s.Add(pod("default", "b", "1")))
	got, exists, err := s.GetByKey("default/a")
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, "1", got.GetResourceVersion())

	require.NoError(t, s.Update(pod("default", "a", "2")))
	got, exists, err = s.Get(pod("default", "a", ""))
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, "2", got.GetResourceVersion(), "Update replaces the object under the same key")

	require.NoError(t, s.Delete(pod("default", "a", "2")))
	_, exists, err = s.GetByKey("default/a")
	require.NoError(t, err)
	require.False(t, exists)
	require.NoError(t, s.Delete(pod("default", "a", "2")), "deleting an absent key is not an error")

	require.ElementsMatch(t, []string{"default/b"}, s.ListKeys())
	require.Len(t, s.List(), 1)
	require.NoError(t, s.Resync(), "Resync is a no-op on a store")
}

func TestStore_ReplaceSwapsContent(t *testing.T) {
	s := Store(toldStore{NewStore(nil), t})
	require.NoError(t, s.Add(pod("default", "old", "1")))

	require.NoError(t, s.Replace([]api.Object{pod("default", "a", "5"), pod("default", "b", "5")}, "5"))

	require.ElementsMatch(t, []string{"default/a", "default/b"}, s.ListKeys())
}

// Bad input gets a clear error, never a panic, and changes nothing.
func TestStore_RejectsBadObjects(t *testing.T) {
	s := Store(toldStore{NewStore(nil), t})
	require.ErrorContains(t, s.Add(nil), "nil object")
	require.ErrorContains(t, s.Add((*api.Pod)(nil)), "nil object")
	require.ErrorContains(t, s.Update(&api.Pod{}), "without a name")
	require.ErrorContains(t, s.Delete(nil), "nil object")
	_, _, err := s.Get(nil)
	require.ErrorContains(t, err, "nil object")
	require.ErrorContains(t, s.Replace([]api.Object{pod("default", "a", "1"), nil}, "1"), "item 1")
	require.Empty(t, s.ListKeys())
}

// The cache hands out the objects it holds, not copies: that is why the
// caller must not mutate them (package doc, "Don't mutate what the cache
// gives you").
func TestStore_GetReturnsTheCachedObject(t *testing.T) {
	s := Store(toldStore{NewStore(nil), t})
	p := pod("default", "a", "1")
	require.NoError(t, s.Add(p))
	got, _, err := s.GetByKey("default/a")
	require.NoError(t, err)
	assert.Same(t, p, got)
}
