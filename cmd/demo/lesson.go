package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/clock"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/lab"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// Lessons: a mechanism of the articles set up in the running demo, the
// lab paused at the moment it starts, and the pipeline stepped from one
// hop of the story to the next, each narrated in English and Chinese
// (docs/demo.md "Lessons"; the list is lessons.go, the HTTP API
// lesson_http.go). A lesson is a script (lessonScript): what to set up
// while the lab runs, what to do to the world once it is paused, which
// hops are its story and what to say about each, and when it is over.
// Hops that are not part of the story (another resource's bookmark, the
// controller's other work) pass without a stop, and are still recorded in
// the lab's timeline.

// bilingual is a text in both of the demo's languages.
type bilingual struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// say formats the same arguments into an English and a Chinese text.
func say(en, zh string, args ...any) bilingual {
	return bilingual{En: tidy(fmt.Sprintf(en, args...)), Zh: tidy(fmt.Sprintf(zh, args...))}
}

// tidy drops the space an empty quote leaves behind, and any space
// beside Chinese punctuation.
func tidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return cjkSpace.ReplaceAllString(s, "$1$2")
}

var cjkSpace = regexp.MustCompile(`([。，：；！？）」”]) | ([（「“])`)

// plus joins texts, language by language, each part after a space ("" parts skipped).
func (b bilingual) plus(more ...bilingual) bilingual {
	for _, m := range more {
		if m.En != "" {
			b.En += " " + m.En
		}
		if m.Zh != "" {
			b.Zh += m.Zh
		}
	}
	return b
}

// lessonScript is one lesson. Every method runs under the lessons' lock,
// on the goroutine of the request that started or stepped it.
type lessonScript interface {
	// prepare runs while the lab still runs, the demo calm: start what the
	// lesson needs (a second informer) and wait for it.
	prepare(r *lessonRun) error
	// begin runs once the lab is paused: break the world (a fault, a
	// delete, a patch). Its server commits pass; their frames wait.
	begin(r *lessonRun) error
	// intro is the text of index 0: what was set up, what to look for.
	intro(r *lessonRun) bilingual
	// observe sees every hop the lab records, in order, the world's too.
	observe(r *lessonRun, h lab.Hop)
	// narrate says what a hop of the story means; false: not a story hop.
	narrate(r *lessonRun, h lab.Hop) (bilingual, bool)
	// done reports that the story has reached its end; outro is said then.
	done(r *lessonRun) bool
	outro(r *lessonRun) bilingual
	// cleanup undoes what prepare and begin did (the lab runs again).
	cleanup(r *lessonRun)
}

// lessonFrame is one narrated step of a lesson.
type lessonFrame struct {
	step      int
	narration bilingual
	hop       *lab.Hop
}

// lessonRun is a lesson in progress.
type lessonRun struct {
	ls     *lessons
	env    *lessonEnv
	meta   lessonMeta
	script lessonScript
	frames []lessonFrame
	index  int  // the frame shown
	done   bool // the story reached its end
	hops   int  // hops stepped since the start
	said   map[string]int
	ctx    context.Context // the request that started the lesson, while it starts
}

// once reports whether beat is said for the first time, and counts it.
func (r *lessonRun) once(beat string) bool {
	r.said[beat]++
	return r.said[beat] == 1
}

// view is the lab's view after the hop h (its boxes, to quote).
func (r *lessonRun) view(h lab.Hop) lab.View {
	v, err := r.env.lab.StateAt(h.Step)
	if err != nil {
		return lab.View{}
	}
	return v
}

// lessonEnv is the running demo a lesson works in.
type lessonEnv struct {
	lab        *lab.Lab
	srv        *fakeapiserver.Server
	serverURL  string
	client     *listwatch.Client
	pods       *listwatch.TypedClient[*api.Pod]
	factory    informer.SharedInformerFactory
	page       *pageControls
	informer   informerKind
	clock      clock.Clock
	tracer     *trace.Tracer // the lab's: a lesson's informer reports to it
	logger     *slog.Logger
	maxRetries int
	ctx        context.Context // the demo's work: a lesson's informer runs under it
}

// Bounds: a lesson never hangs.
const (
	maxHopsPerNext  = 400              // hops one Next may step looking for a story hop
	maxHopsPerStory = 4000             // hops a whole lesson may step
	nextTimeout     = 90 * time.Second // wall clock one Next may take
	calmTimeout     = 30 * time.Second // how long Start waits for the demo to settle
	calmFor         = 1500 * time.Millisecond
	maxIdlePerNext  = 70 * time.Second // the lab's time one Next may jump over timers that bring no hop
)

// lessons runs at most one lesson at a time in the demo.
type lessons struct {
	env    lessonEnv
	mu     sync.Mutex // one request at a time
	run    *lessonRun // nil: none
	speed  float64    // the lab's speed before the lesson, restored at the end
	active atomic.Bool
	shown  atomic.Pointer[lessonView] // the last view answered, for a GET during a Next
	hold   reconcileHold
	seen   labWatcher // what the recorded hops say about the reflectors
}

func newLessons(env lessonEnv) *lessons {
	return &lessons{env: env, seen: labWatcher{reflectors: map[string]reflectorSeen{}, watches: map[string]string{}}}
}

// isActive reports whether a lesson runs (the chaos loop waits meanwhile).
func (ls *lessons) isActive() bool { return ls != nil && ls.active.Load() }

// errNoLesson: next, back or stop without a lesson.
var errNoLesson = errors.New("no lesson is running: start one (POST /api/lab/lesson/start?id=...)")

// start sets lesson id up and pauses the lab at its first moment.
func (ls *lessons) start(ctx context.Context, id string) (lessonView, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	meta, ok := lessonByID(id)
	if !ok {
		return lessonView{}, fmt.Errorf("no lesson %q (GET /api/lab/lessons lists them)", id)
	}
	ls.stopLocked()
	l := ls.env.lab
	ls.speed = l.State().Speed
	l.Resume()
	if err := l.SetSpeed(1); err != nil {
		return lessonView{}, err
	}
	r := &lessonRun{ls: ls, env: &ls.env, meta: meta, script: meta.script(&ls.env), said: map[string]int{}, ctx: ctx}
	ls.run = r
	ls.active.Store(true)
	fail := func(err error) (lessonView, error) {
		ls.stopLocked()
		return lessonView{}, fmt.Errorf("lesson %s: %w", id, err)
	}
	if err := ls.waitCalm(ctx); err != nil {
		return fail(err)
	}
	if err := r.script.prepare(r); err != nil {
		return fail(err)
	}
	l.Pause()
	if err := r.script.begin(r); err != nil {
		return fail(err)
	}
	ls.process(r, false)
	r.frames = append(r.frames, lessonFrame{step: l.State().LastStep, narration: r.script.intro(r)})
	return ls.viewLocked(), nil
}

// next steps the pipeline to the lesson's next story hop, or shows the
// next recorded one after a back.
func (ls *lessons) next(ctx context.Context) (lessonView, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r := ls.run
	if r == nil {
		return lessonView{}, errNoLesson
	}
	l := ls.env.lab
	if r.index < len(r.frames)-1 {
		r.index++
		ls.show(r)
		return ls.viewLocked(), nil
	}
	if r.done {
		return ls.viewWith(say("the lesson is over: Back reads it again, Stop ends it",
			"这一课已经结束：“上一步”可以再读一遍，“停止”结束它")), nil
	}
	ctx, cancel := context.WithTimeout(ctx, nextTimeout)
	defer cancel()
	if !l.Paused() { // the learner resumed the lab meanwhile
		l.Pause()
	}
	from := l.Clock().Now()
	for stepped := 0; stepped < maxHopsPerNext; {
		if r.hops >= maxHopsPerStory {
			return ls.viewWith(say("%d hops without reaching the lesson's end: Stop it and start it again",
				"走了 %d 跳也没有走到这一课的结尾：停止，再重新开始", r.hops)), nil
		}
		if _, err := l.Step(ctx); err != nil {
			// A step that found nothing moved the lab's clock over a few
			// timers that brought no hop (a metrics tick): go on while a
			// timer is set, up to maxIdlePerNext of the lab's time.
			_, timer := l.Clock().Next()
			if errors.Is(err, lab.ErrIdle) && timer && l.Clock().Now().Sub(from) < maxIdlePerNext {
				continue
			}
			if errors.Is(err, lab.ErrIdle) {
				return ls.viewWith(say("the pipeline is idle: no hop is waiting and no timer brought one in %s of the lab's time",
					"流水线空闲：没有等待的一跳，实验台的时钟走了 %s 也没有定时器带来新的一跳", humanDuration(l.Clock().Now().Sub(from).String()))), nil
			}
			return ls.viewWith(say("step: %v", "前进一步失败：%v", err)), nil
		}
		stepped++
		r.hops++
		if ls.process(r, true) {
			return ls.viewLocked(), nil
		}
	}
	return ls.viewWith(say("%d hops passed and none was part of this lesson's story: Next goes on",
		"走了 %d 跳，没有一跳属于这一课的故事：“下一步”会继续", maxHopsPerNext)), nil
}

// back shows the previous narrated step, read-only (the lab rewinds to it).
func (ls *lessons) back() (lessonView, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r := ls.run
	if r == nil {
		return lessonView{}, errNoLesson
	}
	if r.index == 0 {
		return ls.viewWith(say("this is the lesson's first step", "这已经是这一课的第一步")), nil
	}
	r.index--
	ls.show(r)
	return ls.viewLocked(), nil
}

// show rewinds the lab to the shown frame's step; the newest is live.
func (ls *lessons) show(r *lessonRun) {
	l := ls.env.lab
	if r.index == len(r.frames)-1 {
		l.Live()
		return
	}
	_ = l.Rewind(r.frames[r.index].step) // a step that left the kept timeline: the view stays where it was
}

// stop ends the lesson: the world is put back and the lab runs again.
func (ls *lessons) stop() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.stopLocked()
}

func (ls *lessons) stopLocked() {
	r := ls.run
	if r == nil {
		return
	}
	ls.hold.release()
	ls.env.lab.Resume()
	r.script.cleanup(r)
	if ls.speed > 0 {
		_ = ls.env.lab.SetSpeed(ls.speed)
	}
	ls.run = nil
	ls.shown.Store(nil)
	ls.active.Store(false)
}

// process reads the hops recorded since the last look, in order: every
// one is observed, and a gated hop of the story becomes a frame. stepping:
// the frames are the learner's to see (the shown one is the newest).
func (ls *lessons) process(r *lessonRun, stepping bool) bool {
	added := false
	for _, h := range ls.seen.scan(ls.env.lab) {
		r.script.observe(r, h)
		if h.World || !stepping {
			continue
		}
		text, ok := r.script.narrate(r, h)
		if !ok {
			continue
		}
		r.frames = append(r.frames, lessonFrame{step: h.Step, narration: text, hop: &h})
		added = true
		if !r.done && r.script.done(r) {
			r.done = true
			last := &r.frames[len(r.frames)-1]
			last.narration = last.narration.plus(r.script.outro(r))
		}
	}
	if added {
		r.index = len(r.frames) - 1
	}
	return added
}

// waitCalm waits until the demo has settled: every cache equals the
// server, the ReplicaSet has its ready replicas, and every reflector has
// been watching for a while (so that a watch a lesson closes is not a
// "very short watch", which relists). Polled on the wall clock while the
// lab runs.
func (ls *lessons) waitCalm(ctx context.Context) error {
	deadline := time.NewTimer(calmTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ls.seen.scan(ls.env.lab)
		why := ls.unsettled()
		if why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ls.env.ctx.Done():
			return ls.env.ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("the demo did not settle in %v (%s): try again in a moment", calmTimeout, why)
		case <-tick.C:
		}
	}
}

// unsettled says why the demo is not calm, "" if it is.
func (ls *lessons) unsettled() string {
	if c := checkOnce(ls.env.srv, ls.env.factory); !c.ok {
		return "replicas: " + c.replicas
	}
	now := ls.env.lab.Clock().Now()
	for res, s := range ls.seen.reflectors {
		if s.phase == "stopped" {
			continue
		}
		if s.phase != "watching" || now.Sub(s.since) < calmFor {
			return fmt.Sprintf("reflector(%s) %s", res, s.phase)
		}
	}
	return ""
}

// reconcileHold keeps the next reconcile busy until released: a slow
// reconcile, on purpose (the work queue lesson).
type reconcileHold struct {
	mu    sync.Mutex
	armed bool
	free  chan struct{} // closed: let it go
}

// arm holds the next reconcile.
func (h *reconcileHold) arm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.free != nil {
		close(h.free)
	}
	h.armed, h.free = true, make(chan struct{})
}

// release lets a held reconcile go, and disarms.
func (h *reconcileHold) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.free != nil {
		close(h.free)
	}
	h.armed, h.free = false, nil
}

// wait is called at the start of every reconcile: the first one after
// arm waits for release (or the demo's end).
func (h *reconcileHold) wait(ctx context.Context) {
	h.mu.Lock()
	if !h.armed {
		h.mu.Unlock()
		return
	}
	h.armed = false
	free := h.free
	h.mu.Unlock()
	select {
	case <-free:
	case <-ctx.Done():
	}
}

// reconcileHook is replicaset.Options.FailReconcile for the demo: the
// lessons' hold, then the page's "make reconcile fail".
func (ls *lessons) reconcileHook(fail func(string) error) func(string) error {
	if ls == nil {
		return fail
	}
	return func(key string) error {
		ls.hold.wait(ls.env.ctx)
		return fail(key)
	}
}
