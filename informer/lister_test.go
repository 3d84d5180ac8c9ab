package informer

import (
	"slices"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/indexer"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/stretchr/testify/require"
)

func names[T api.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetNamespace()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}

// Typed reads from the cache: List by selector, Get, and the same per
// namespace, with or without the namespace index.
// Article: "Kubernetes-Informer" (smartkeyerror) §3, podLister.List(labels.Everything()).
func TestLister_ListGetByNamespace(t *testing.T) {
	for _, withIndex := range []bool{true, false} {
		name := "with the namespace index"
		indexers := indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}
		if !withIndex {
			name, indexers = "scanning without it", nil
		}
		t.Run(name, func(t *testing.T) {
			idx := indexer.NewIndexer(nil, indexers)
			for _, p := range []*api.Pod{
				{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", Labels: map[string]string{"app": "web"}}},
				{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "db-0", Labels: map[string]string{"app": "db"}}},
				{ObjectMeta: api.ObjectMeta{Namespace: "prod", Name: "web-0", Labels: map[string]string{"app": "web"}}},
			} {
				require.NoError(t, idx.Add(p))
			}
			pods := NewLister[*api.Pod](idx)
			t.Logf("informer cache (%s): %v", name, cachedKeys(idx))
			web, err := api.ParseSelector("app=web")
			require.NoError(t, err)

			all, err := pods.List(api.Everything())
			require.NoError(t, err)
			require.Equal(t, []string{"default/db-0", "default/web-0", "prod/web-0"}, names(all))
			t.Logf("lister: List(everything) = %v", names(all))

			webs, err := pods.List(web)
			require.NoError(t, err)
			require.Equal(t, []string{"default/web-0", "prod/web-0"}, names(webs))
			t.Logf("lister: List(app=web) = %v", names(webs))

			inDefault, err := pods.ByNamespace("default").List(api.Everything())
			require.NoError(t, err)
			require.Equal(t, []string{"default/db-0", "default/web-0"}, names(inDefault))
			t.Logf("lister: ByNamespace(default).List(everything) = %v", names(inDefault))

			webInProd, err := pods.ByNamespace("prod").List(web)
			require.NoError(t, err)
			require.Equal(t, []string{"prod/web-0"}, names(webInProd))
			t.Logf("lister: ByNamespace(prod).List(app=web) = %v", names(webInProd))

			everywhere, err := pods.ByNamespace(api.NamespaceAll).List(web)
			require.NoError(t, err)
			require.Len(t, everywhere, 2)

			p, err := pods.ByNamespace("prod").Get("web-0")
			require.NoError(t, err)
			require.Equal(t, "prod", p.Namespace)

			_, err = pods.ByNamespace("prod").Get("db-0")
			require.True(t, listwatch.IsNotFound(err), "the same check as for the server's 404")
			require.EqualError(t, err, `pod "db-0" not found`)
			var statusErr *listwatch.StatusError
			require.ErrorAs(t, err, &statusErr, "the client's error type")
			require.EqualValues(t, 404, statusErr.Status().Code)
			t.Logf("lister: ByNamespace(prod).Get(db-0): %v", err)
		})
	}
}

// Get without a namespace reads a cluster-scoped object; a lister of the
// wrong type reports what it found instead of panicking.
func TestLister_ClusterScopedAndWrongType(t *testing.T) {
	idx := indexer.NewIndexer(nil, nil)
	require.NoError(t, idx.Add(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "prod"}}))

	ns, err := NewLister[*api.Namespace](idx).Get("prod")
	require.NoError(t, err)
	require.Equal(t, "prod", ns.Name)
	t.Logf("lister: Namespace lister Get(prod) = %s", ns.Name)
	_, err = NewLister[*api.Namespace](idx).Get("dev")
	require.True(t, listwatch.IsNotFound(err))
	t.Logf("lister: Namespace lister Get(dev): %v", err)

	_, err = NewLister[*api.Pod](idx).Get("prod")
	require.ErrorContains(t, err, "a lister of *api.Pod found a *api.Namespace")
	t.Logf("lister: Pod lister Get(prod): %v", err)
	_, err = NewLister[*api.Pod](idx).List(api.Everything())
	require.ErrorContains(t, err, "a lister of *api.Pod found a *api.Namespace")
}
