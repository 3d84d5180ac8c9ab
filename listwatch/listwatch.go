package listwatch

import "context"

// NewFilteredListWatchFromClient returns the ListerWatcher a Reflector
// needs for one resource: List and Watch of r in namespace (""  = every
// namespace), with optionsModifier (if not nil) applied to the options of
// every request, typically to set a label or field selector. List returns
// items of the type r.New makes (*api.Pod for Pods); Watch sets
// watch=true and decodes objects the same way.
//
// As client-go's cache.NewFilteredListWatchFromClient, with the client and
// resource in place of a REST client and resource name.
func NewFilteredListWatchFromClient(c *Client, r Resource, namespace string, optionsModifier func(*ListOptions)) *ListWatch {
	modify := func(opts ListOptions) ListOptions {
		if optionsModifier != nil {
			optionsModifier(&opts)
		}
		return opts
	}
	return &ListWatch{
		ListFunc: func(ctx context.Context, opts ListOptions) (*ObjectList, error) {
			return c.listObjects(ctx, r, namespace, modify(opts))
		},
		WatchFunc: func(ctx context.Context, opts ListOptions) (Watch, error) {
			return c.watch(ctx, r, namespace, modify(opts))
		},
	}
}

// NewListWatchFromClient is NewFilteredListWatchFromClient with a field
// selector ("" selects everything), as client-go's
// cache.NewListWatchFromClient.
func NewListWatchFromClient(c *Client, r Resource, namespace string, fieldSelector string) *ListWatch {
	return NewFilteredListWatchFromClient(c, r, namespace, func(opts *ListOptions) {
		opts.FieldSelector = fieldSelector
	})
}
