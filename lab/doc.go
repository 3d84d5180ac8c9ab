// Package lab pauses an informer pipeline, steps it one hop at a time,
// shows what every box holds at each step, and rewinds: RaftScope's
// pause, step and time slider, for the informer. The demo's page
// (cmd/demo, docs/demo.md "The lab") is built on it.
//
// # The idea
//
// Every stage of kinformer reports each hop as a trace event (package
// trace): a frame sent by the server, a frame decoded, a delta queued, a
// pop, a cache write, a notification, a handler call, an enqueue, a
// reconcile. The lab is the trace consumer every stage is given
// (Lab.Tracer), and it is a gate: while the lab is paused, a stage that
// reports a hop waits inside that trace call until the learner steps. One
// step lets exactly one waiting hop go, the oldest; its stage runs on to
// its next hop, and waits there. So, paused, nothing in the pipeline
// moves: each goroutine is parked at its next hop, or idle.
//
// The world does not stop: the fake API server still accepts writes
// (kubectl works), because only the frames it writes to a watch are hops
// (Gated); its commits pass, and are recorded as World hops. The frames
// wait, as they would on a slow connection.
//
// Time does not run either. Every timer of the pipeline (backoff, resync,
// the work queue's delays, the server's bookmarks and watch timeouts) is
// on the lab's Clock, which stands still while paused; a step that finds
// no hop waiting moves that clock to its next timer (Clock.Jump), and
// whatever the timer wakes reports the next hop. A speed below 1 runs the
// clock slower and lets hops go one at a time, by themselves.
//
// # Looking inside
//
// The lab cannot take a stage's lock to look inside it: the stage may be
// parked at the gate holding it. Instead, a stage whose tracer is
// Inspecting (trace.Inspect) attaches a copy of its contents to each
// event that changes them (trace.State), made under its own lock. The lab
// keeps, for every box, the last contents it was given: that is the
// state after each step, and the timeline keeps it per step, so a rewind
// shows the recorded state at any kept hop (read-only; Resume goes on
// live from now). A timeline can be saved and loaded (Recording).
package lab
