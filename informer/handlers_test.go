package informer

import (
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/stretchr/testify/require"
)

// An update that crosses the filter becomes an add or a delete, so a handler
// behind the filter sees a consistent world of accepted objects.
func TestFilteringResourceEventHandler_Transitions(t *testing.T) {
	web := pod("p", "app=web")
	web.ResourceVersion = "1"
	db := pod("p", "app=db")
	db.ResourceVersion = "2"
	web2 := pod("p", "app=web")
	web2.ResourceVersion = "3"
	tests := []struct {
		name   string
		notify func(h ResourceEventHandler)
		want   []string
	}{
		{"add accepted", func(h ResourceEventHandler) { h.OnAdd(web, true) }, []string{"add default/p@1 initial"}},
		{"add rejected", func(h ResourceEventHandler) { h.OnAdd(db, false) }, nil},
		{"update within the filter", func(h ResourceEventHandler) { h.OnUpdate(web, web2) }, []string{"update default/p@1->default/p@3"}},
		{"update leaving the filter is a delete of the old object", func(h ResourceEventHandler) { h.OnUpdate(web, db) }, []string{"delete default/p@1"}},
		{"update entering the filter is an add of the new object", func(h ResourceEventHandler) { h.OnUpdate(db, web2) }, []string{"add default/p@3"}},
		{"update outside the filter", func(h ResourceEventHandler) { h.OnUpdate(db, db) }, nil},
		{"delete accepted", func(h ResourceEventHandler) { h.OnDelete(web) }, []string{"delete default/p@1"}},
		{"delete rejected", func(h ResourceEventHandler) { h.OnDelete(db) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			h := FilteringResourceEventHandler{
				FilterFunc: func(obj any) bool { return obj.(*api.Pod).Labels["app"] == "web" },
				Handler:    rec,
			}
			tt.notify(h)
			t.Logf("handler: the filter (app=web) passed on %v", rec.Events())
			require.Equal(t, tt.want, rec.Events())
		})
	}
}

// Unset functions of ResourceEventHandlerFuncs ignore their notifications.
func TestResourceEventHandlerFuncs_NilFuncsIgnore(t *testing.T) {
	var h ResourceEventHandler = ResourceEventHandlerFuncs{}
	h.OnAdd(pod("a"), false)
	h.OnUpdate(pod("a"), pod("a"))
	h.OnDelete(pod("a"))

	adds := 0
	h = ResourceEventHandlerFuncs{AddFunc: func(any, bool) { adds++ }}
	h.OnAdd(pod("a"), false)
	h.OnDelete(pod("a"))
	require.Equal(t, 1, adds)
}
