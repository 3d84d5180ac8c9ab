package informer

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// HandlerOptions.Logger (client-go's HandlerOptions has it too) receives
// that handler's log lines, and the informer's Logger the rest: here the
// warning that the handler's resync period was raised to the minimum, and
// its panic, go to the handler's logger; another handler's panic goes to
// the informer's.
func TestInformer_HandlerLoggerOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var informerLogs, handlerLogs lockedBuffer
		informerLogger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&informerLogs, nil), testLogger(t, "(expected, informer's logger)").Handler()))
		handlerLogger := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&handlerLogs, nil), testLogger(t, "(expected, handler's logger)").Handler()))
		lw := newFakeLW(pod("a"))
		inf := NewSharedIndexInformerWithOptions(lw, &api.Pod{}, testOptions(t, SharedIndexInformerOptions{ResyncPeriod: time.Minute, Logger: informerLogger}))

		tooSmall := 10 * time.Millisecond
		_, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any, bool) { panic("own logger") }},
			HandlerOptions{Name: "with-logger", ResyncPeriod: &tooSmall, Logger: handlerLogger})
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any, bool) { panic("informer's logger") }},
			HandlerOptions{Name: "without"})
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()

		require.Contains(t, handlerLogs.String(), "resync period too small")
		require.Contains(t, handlerLogs.String(), "handler=with-logger")
		require.Contains(t, handlerLogs.String(), "own logger")
		require.NotContains(t, handlerLogs.String(), "handler=without")

		require.Contains(t, informerLogs.String(), "handler=without")
		require.NotContains(t, informerLogs.String(), "resync period too small")
		require.NotContains(t, informerLogs.String(), "with-logger")
	})
}
