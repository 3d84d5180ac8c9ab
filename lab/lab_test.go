package lab_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/trace"
)

// generous is how long a step waits for a hop to arrive in these tests:
// it ends as soon as one does, so it costs nothing when the machine is
// fast, and a busy machine gets time.
const generous = 10 * time.Second

// tell writes a line of the test's story under -v, without t.Logf's
// file:line prefix.
func tell(t *testing.T, format string, args ...any) {
	if testing.Verbose() {
		fmt.Fprintf(t.Output(), format+"\n", args...)
	}
}

func newLab(t *testing.T, story *trace.Tracer) *lab.Lab {
	return lab.New(lab.Options{Settle: generous, Next: func(e trace.Event) {
		if story.On() {
			story.Event("passed: "+e.String(), trace.Key(e.Key()))
		}
	}})
}

// stage reports hops one after another, as a stage's goroutine does, and
// says when it is done.
func stage(tr *trace.Tracer, whats ...string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, w := range whats {
			tr.Event(w, trace.Key("default/web-1"))
		}
	}()
	return done
}

// Paused, a stage that reports a hop waits in the trace call; one step
// lets exactly one hop go, the oldest, and the stage runs on to its next
// hop, where it waits again.
func TestLab_PauseHoldsEveryHopAndStepReleasesExactlyOne(t *testing.T) {
	l := newLab(t, trace.ForTest(t))
	l.Pause()
	fifo := l.Tracer().Stage(trace.StageDeltaFIFO)
	done := stage(fifo, "delta queued", "pop")

	require.Eventually(t, func() bool { return len(l.Waiting()) == 1 }, generous, time.Millisecond)
	require.Equal(t, 0, l.State().Step, "nothing passed while paused")

	h, err := l.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, h.Step)
	require.Equal(t, "delta queued", h.What)
	tell(t, "step 1: %s", h.Text)

	h, err = l.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, h.Step)
	require.Equal(t, "pop", h.What)
	tell(t, "step 2: %s", h.Text)
	<-done
	require.Equal(t, 2, l.State().LastStep)
}

// The server's commits are the world, not the pipeline: they pass while
// paused (kubectl keeps working); the frames they make are held.
func TestLab_WorldEventsPassWhilePaused(t *testing.T) {
	l := newLab(t, trace.ForTest(t))
	l.Pause()
	server := l.Tracer().Stage(trace.StageServer)
	server.Event("commit", trace.Type("DELETED"), trace.Key("default/web-1"), trace.RV("57"))
	v := l.State()
	require.Equal(t, 1, v.Step)
	require.True(t, v.Hop.World, "a commit is the world's")
	done := stage(server, "frame sent")
	require.Eventually(t, func() bool { return len(l.Waiting()) == 1 }, generous, time.Millisecond)
	h, err := l.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, "frame sent", h.What)
	require.False(t, h.World)
	<-done
}

// A step that finds no hop waiting moves the lab's clock to its next
// timer: a backoff that would have lasted 30 s ends at once, and what it
// woke reports the next hop. Paused, the clock does not move by itself.
func TestLab_StepMovesTheClockToTheNextTimer(t *testing.T) {
	// A short settle: the step must give up waiting for a hop and move
	// the clock. On a busy machine the woken goroutine may report after
	// the step has given up (ErrIdle); the next step then finds it.
	l := lab.New(lab.Options{Settle: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	l.Pause()
	clk := l.Clock()
	before := clk.Now()
	refl := l.Tracer().Stage(trace.StageReflector)
	armed := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tm := clk.NewTimer(30 * time.Second) // a backoff
		close(armed)
		<-tm.C()
		refl.Event("phase", trace.Phase("listing"), trace.Reason("backoff over"))
	}()
	<-armed
	require.Equal(t, before, clk.Now(), "a paused clock stands still")

	var h lab.Hop
	require.Eventually(t, func() bool {
		var err error
		h, err = l.Step(context.Background())
		return err == nil
	}, generous, time.Millisecond)
	require.Equal(t, "phase", h.What)
	require.Equal(t, 30*time.Second, clk.Now().Sub(before), "the step moved time to the backoff's end")
	tell(t, "the step jumped %v to the backoff's end: %s", clk.Now().Sub(before), h.Text)
	<-done

	_, err := l.Step(context.Background())
	require.ErrorIs(t, err, lab.ErrIdle, "no hop and no timer: nothing to step")
}

// Each stage attaches its contents to its hops (trace.State); the lab
// keeps the latest of every box, per step, so any kept step can be shown
// again: a rewind is read-only and pauses; Resume goes on live.
func TestLab_RewindShowsTheRecordedStateAtAnyStep(t *testing.T) {
	l := newLab(t, trace.ForTest(t))
	fifo := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	cache := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageInformer)
	fifo.Event("delta queued", trace.Key("default/web-1"), trace.StateOf("fifo", "", []string{"default/web-1 Deleted"}))
	fifo.Event("pop", trace.Key("default/web-1"), trace.StateOf("fifo", "", []string{}))
	cache.Event("cache delete", trace.Key("default/web-1"), trace.StateOf("indexer", "", []string{}))

	v := l.State()
	require.Equal(t, 3, v.Step)
	require.Equal(t, []string{}, v.FIFO["pods"])
	require.Equal(t, []string{}, v.Indexer["pods"])

	require.NoError(t, l.Rewind(1))
	v = l.State()
	require.True(t, v.Paused)
	require.True(t, v.Rewound)
	require.Equal(t, 1, v.Step)
	require.Equal(t, []string{"default/web-1 Deleted"}, v.FIFO["pods"], "step 1: the Deleted delta is queued")
	require.NotContains(t, v.Indexer, "pods", "step 1: the cache had not reported yet")
	tell(t, "rewound to step %d: fifo %v", v.Step, v.FIFO["pods"])

	require.ErrorIs(t, l.Rewind(99), lab.ErrNoSuchStep)
	l.Resume()
	v = l.State()
	require.False(t, v.Rewound)
	require.Equal(t, 3, v.Step)
}

// A timeline saved and loaded shows the same states at the same steps.
func TestLab_SaveAndLoadARecording(t *testing.T) {
	l := newLab(t, nil)
	fifo := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	fifo.Event("delta queued", trace.Key("default/a"), trace.StateOf("fifo", "", map[string]any{"items": []any{"default/a"}}))
	fifo.Event("pop", trace.Key("default/a"), trace.StateOf("fifo", "", map[string]any{"items": []any{}}))
	var buf bytes.Buffer
	require.NoError(t, l.Save(&buf))

	other := newLab(t, nil)
	require.NoError(t, other.Load(bytes.NewReader(buf.Bytes())))
	v := other.State()
	require.True(t, v.Loaded)
	require.Equal(t, 1, v.Step, "a loaded recording opens at its first step")
	require.Equal(t, map[string]any{"items": []any{"default/a"}}, v.FIFO["pods"])
	require.NoError(t, other.Rewind(2))
	require.Equal(t, map[string]any{"items": []any{}}, other.State().FIFO["pods"])

	require.ErrorContains(t, other.Load(bytes.NewReader([]byte(`{"kinformer":"something else"}`))), "not a lab recording")
	require.ErrorContains(t, other.Load(bytes.NewReader([]byte(`{"hops":`))), "load recording")
}

// Close lets every held hop go, so no goroutine stays parked in a trace
// call after the lab is gone.
func TestLab_CloseReleasesHeldHops(t *testing.T) {
	l := newLab(t, nil)
	l.Pause()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { l.Tracer().Stage(trace.StageWorkQueue).Event("add") })
	}
	require.Eventually(t, func() bool { return len(l.Waiting()) == 3 }, generous, time.Millisecond)
	l.Close()
	wg.Wait()
	require.Equal(t, 3, l.State().LastStep)
	l.Tracer().Stage(trace.StageWorkQueue).Event("add") // after Close nothing is held
	require.Equal(t, 4, l.State().LastStep)
}

// Below speed 1 the hops pass one at a time by themselves, paced.
func TestLab_SlowSpeedLetsHopsGoOneAtATime(t *testing.T) {
	l := newLab(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	require.NoError(t, l.SetSpeed(0.5))
	require.Error(t, l.SetSpeed(0))
	done := stage(l.Tracer().Stage(trace.StageWorkQueue), "add", "get", "done")
	<-done // the pacer let all three go
	require.Equal(t, 3, l.State().LastStep)
	require.Equal(t, 0.5, l.State().Speed)
}

// The clock's timers: Jump fires the next one; a ticker re-arms; Stop
// and Reset behave as time.Timer's.
func TestClock_TimersOnTheLabsTime(t *testing.T) {
	c := lab.NewClock(time.Now())
	c.Pause()
	start := c.Now()
	tm := c.NewTimer(5 * time.Second)
	tk := c.NewTicker(2 * time.Second)
	next, ok := c.Next()
	require.True(t, ok)
	require.Equal(t, start.Add(2*time.Second), next)

	moved, ok := c.Jump()
	require.True(t, ok)
	require.Equal(t, 2*time.Second, moved)
	require.Equal(t, start.Add(2*time.Second), <-tk.C())
	c.Jump()
	require.Equal(t, start.Add(4*time.Second), <-tk.C())
	c.Jump()
	require.Equal(t, start.Add(5*time.Second), <-tm.C())
	require.False(t, tm.Stop(), "fired already")
	tk.Stop()
	_, ok = c.Next()
	require.False(t, ok)

	require.False(t, tm.Reset(time.Second))
	require.True(t, tm.Stop())
	select {
	case <-tm.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	require.Equal(t, start.Add(5*time.Second), c.Now())
}

// Live ends a rewind without a step or a resume: the view is the latest
// step again, and the lab stays paused.
func TestLab_LiveEndsARewindAndStaysPaused(t *testing.T) {
	l := newLab(t, trace.ForTest(t))
	fifo := l.Tracer().With(trace.Resource("pods")).Stage(trace.StageDeltaFIFO)
	fifo.Event("delta queued", trace.Key("default/web-1"))
	fifo.Event("pop", trace.Key("default/web-1"))
	require.NoError(t, l.Rewind(1))
	require.True(t, l.State().Rewound)
	l.Live()
	v := l.State()
	require.False(t, v.Rewound)
	require.Equal(t, 2, v.Step)
	require.True(t, v.Paused, "still paused")
}
