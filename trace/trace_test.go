package trace_test

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/trace"
)

// The nil Tracer is off: every method is safe and does nothing, and a
// stage that checks On builds no event at all.
func TestTracer_NilIsOff(t *testing.T) {
	var tr *trace.Tracer
	require.False(t, tr.On())
	require.Nil(t, tr.Stage(trace.StageReflector))
	require.Nil(t, tr.With(trace.Key("a")))
	tr.Event("nothing", trace.Key("a")) // no panic
	tr.Warn("nothing")
	require.Nil(t, trace.New(nil))
}

// Off costs no allocation: what a stage pays per hop when nobody listens.
func TestTracer_OffAllocatesNothing(t *testing.T) {
	var tr *trace.Tracer
	allocs := testing.AllocsPerRun(100, func() {
		if tr.On() {
			tr.Event("delta queued", trace.Key("default/a"), trace.RV("12"))
		}
	})
	require.Zero(t, allocs)
}

// A stage's events carry its stage and its With attributes; the recorder
// keeps them in order and can pick out one object's path.
func TestRecorder_KeepsEventsInOrderAndFollowsAKey(t *testing.T) {
	rec := trace.NewRecorder()
	server := rec.Tracer().Stage(trace.StageServer)
	fifo := rec.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	server.Event("commit", trace.Type("DELETED"), trace.Key("default/b"), trace.RV("57"))
	server.Event("commit", trace.Type("ADDED"), trace.Key("default/c"), trace.RV("58"))
	fifo.Event("delta queued", trace.Type("Deleted"), trace.Key("default/b"), trace.RV("57"))
	fifo.Warn("tombstone queued", trace.Key("default/d"))

	ev := rec.Events()
	require.Len(t, ev, 4)
	for i, e := range ev {
		require.Equal(t, uint64(i+1), e.Seq)
	}
	require.Equal(t, "deltafifo", ev[2].Stage)
	require.Equal(t, "pods", ev[2].Get(trace.KeyResource))
	require.Equal(t, "57", ev[2].RV())
	require.Equal(t, []string{
		"server: commit type=DELETED key=default/b rv=57",
		"server: commit type=ADDED key=default/c rv=58",
		"deltafifo: delta queued resource=pods type=Deleted key=default/b rv=57",
		"deltafifo: [warning] tombstone queued resource=pods key=default/d",
	}, rec.Lines())

	var path []string
	for _, e := range rec.ForKey("default/b") {
		path = append(path, e.Stage+" "+e.What)
	}
	require.Equal(t, []string{"server commit", "deltafifo delta queued"}, path)

	require.Len(t, rec.Take(), 4)
	require.Empty(t, rec.Events(), "Take forgets what it returns")
}

// Values with spaces are quoted, so a line splits back into its
// attributes; durations print as Go durations.
func TestEvent_StringQuotesWhatNeedsIt(t *testing.T) {
	rec := trace.NewRecorder()
	rec.Tracer().Stage(trace.StageWorkQueue).Event("retry", trace.Key("default/web"), trace.Delay(20e6), trace.Reason("503 from the server"))
	require.Equal(t, []string{`workqueue: retry key=default/web after=20ms reason="503 from the server"`}, rec.Lines())
}

// Func is an ordinary slog.Handler: a slog.Logger built on it works, groups
// included.
func TestFunc_IsAnSlogHandler(t *testing.T) {
	var got []trace.Event
	var mu sync.Mutex
	l := slog.New(trace.Func(func(e trace.Event) { mu.Lock(); got = append(got, e); mu.Unlock() }))
	l.With("stage", "informer").WithGroup("obj").Info("cache add", "key", "default/a")
	require.Len(t, got, 1)
	require.Equal(t, "informer", got[0].Stage)
	require.Equal(t, "default/a", got[0].Get("obj.key"))
}

// fakeT records what ForTest writes and runs its cleanups on demand.
type fakeT struct {
	out      strings.Builder
	cleanups []func()
}

func (f *fakeT) Output() io.Writer { return &f.out }
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// ForTest writes one line per event (only the stages asked for) and
// nothing once the test has finished: a goroutine that outlives its test
// must not make testing panic.
func TestForTest_WritesLinesUntilTheTestEnds(t *testing.T) {
	ft := &fakeT{}
	tr := trace.ForTest(ft, trace.StageReflector)
	tr.Stage(trace.StageReflector).Event("phase", trace.Phase("listing"))
	tr.Stage(trace.StageServer).Event("commit") // filtered out
	ft.finish()
	tr.Stage(trace.StageReflector).Event("phase", trace.Phase("stopped"))
	require.Equal(t, "reflector: phase phase=listing\n", ft.out.String())
}

// A Recorder shared by a server and a client reads as one story.
func ExampleRecorder() {
	rec := trace.NewRecorder()
	server := rec.Tracer().Stage(trace.StageServer)
	client := rec.Tracer().Stage(trace.StageListWatch)
	server.Event("commit", trace.Type("MODIFIED"), trace.Key("default/web-1"), trace.RV("42"))
	client.Event("frame decoded", trace.Type("MODIFIED"), trace.Key("default/web-1"), trace.RV("42"))
	for _, line := range rec.Lines() {
		fmt.Println(line)
	}
	// Output:
	// server: commit type=MODIFIED key=default/web-1 rv=42
	// listwatch: frame decoded type=MODIFIED key=default/web-1 rv=42
}

// Tee reports each event, with its stage and attributes, to every tracer.
func TestTee_ReportsToEveryTracer(t *testing.T) {
	a, b := trace.NewRecorder(), trace.NewRecorder()
	require.Nil(t, trace.Tee(nil, nil))
	tr := trace.Tee(a.Tracer(), nil, b.Tracer()).Stage(trace.StageInformer).With(trace.Handler("A"))
	tr.Event("OnAdd", trace.Key("default/a"))
	tr.Warn("panic")
	want := []string{"informer: OnAdd handler=A key=default/a", "informer: [warning] panic handler=A"}
	require.Equal(t, want, a.Lines())
	require.Equal(t, want, b.Lines())
}

// A consumer made by Inspect asks stages for their contents: a Tracer on
// it is Inspecting (through With, Stage and Tee too), and a State attribute
// reaches it as Event.State, not as an attribute, and is not printed. Func
// and ForTest consumers are not inspecting, so stages build no State.
func TestInspect_StageContentsReachTheConsumer(t *testing.T) {
	var got []trace.Event
	var mu sync.Mutex
	in := trace.New(trace.Inspect(func(e trace.Event) { mu.Lock(); got = append(got, e); mu.Unlock() }))
	fifo := in.With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	require.True(t, fifo.Inspecting())
	require.True(t, trace.Tee(trace.NewRecorder().Tracer(), in).Inspecting())
	require.False(t, trace.NewRecorder().Tracer().Inspecting())
	require.False(t, trace.ForTest(t).Inspecting())
	var off *trace.Tracer
	require.False(t, off.Inspecting())

	fifo.Event("delta queued", trace.Key("default/a"), trace.RV("7"), trace.StateOf("fifo", "", []string{"default/a"}))
	require.Len(t, got, 1)
	require.NotNil(t, got[0].State)
	require.Equal(t, "fifo", got[0].State.Box)
	require.Equal(t, []string{"default/a"}, got[0].State.Value)
	require.Equal(t, "deltafifo: delta queued resource=pods key=default/a rv=7", got[0].String())
}

// Checkf writes the fact a test asserts as one line of its story.
func TestCheckf_WritesTheFactAsOneStoryLine(t *testing.T) {
	ft := &fakeT{}
	trace.Checkf(ft, "lists %d, watches %d", 1, 1)
	require.Equal(t, "check: lists 1, watches 1\n", ft.out.String())
}
