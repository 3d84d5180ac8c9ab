package informer

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/kinformer/kinformer/internal/script"
)

// Scenario scripts: testdata/scenarios/*.txt drive the whole pipeline, the
// fake API server, a Reflector, the DeltaFIFO or RealFIFO, the informer
// with its handlers, a work queue and a worker, one command at a time,
// without writing Go. docs/scenarios.md is the guide; this is the
// reference.
//
// A script is a list of commands, each a line starting with "> ",
// followed by what it prints. Lines starting with "#" and blank lines are
// comments. TestScenarios runs every script and compares the output; with
// -update it writes the actual output into the script instead, and
// rewrites each expect line that did not hold to what did. Under -v a
// script tells its story as the file reads: the comments, each command,
// what it printed (written with t.Output, so no file:line prefix):
//
//	go test ./informer -run TestScenarios -update
//	go test ./informer -run TestScenarios/03-tombstone-after-outage -v
//
// Every script runs twice, under the articles' informer (subtest
// "articles", Pipeline Articles) and today's (subtest "today", Pipeline
// Today); where the two print differently, the script holds both outputs,
// each under a header line "[articles]" or "[today]" (internal/script),
// and -update writes them so. docs/scenarios.md, "Two informers, one
// script".
//
// Each run is inside a testing/synctest bubble: time is fake (it
// only moves on "tick"), the server is reached over net.Pipe connections,
// and after every command the harness waits until every goroutine of the
// pipeline is blocked before printing. The queue between Reflector and
// informer is stepped: each write the Reflector makes to it and each Pop
// runs alone, and the next waits until everything the last one set off
// (handler calls, work-queue adds) is over. So the output of a script
// never depends on scheduling.
//
// Commands. Setup, before "start" (server and informer only before the
// first command that needs them):
//
//	server [history=N] [bookmarks=D]   options of the fake server (History, BookmarkInterval)
//	informer [pods|configmaps] [real] [resync=D] [watchlist]
//	                                   the informer: resource (default pods), RealFIFO
//	                                   instead of DeltaFIFO, default resync period,
//	                                   streaming list (SharedIndexInformerOptions.UseWatchList);
//	                                   real and watchlist only matter under Articles
//	handler NAME [resync=D] [feeds] [blocked]
//	                                   add a handler; after start it is a late handler and
//	                                   gets the cache replayed; "feeds" makes it the (one)
//	                                   handler that adds keys to the work queue
//	start                              run the informer until it has synced
//
// The server (KIND is pod or configmap; NAME is in namespace default):
//
//	create KIND NAME [k=v ...]         create (pod: labels; configmap: data)
//	update KIND NAME [k=v ...]         replace labels (pod) or data (configmap)
//	label KIND NAME k=v                merge one label (a PATCH)
//	delete KIND NAME                   delete (a pod: MODIFIED then DELETED, graceful)
//	drop-watches                       end every open watch cleanly (CloseWatches)
//	compact                            forget the event history (410 for older versions)
//	fail VERB CODE [N] [retry=D]       the next N requests (VERB list, watch or any) fail
//	delay D                            delay every watch frame by D (0: off)
//	drop-event TYPE KIND NAME          the next TYPE (ADDED, MODIFIED, DELETED) event of
//	                                   the object is not sent to open watches
//
// Time, handlers, informer, worker:
//
//	tick D                             let D of fake time pass (in steps of at most 100ms)
//	block NAME | release NAME          hold a handler's calls / let them run
//	pause | resume                     stop / restart the informer's Pop: deltas pile up
//	work                               the worker: Get, reconcile, Done, one key at a time,
//	                                   until nothing is ready
//	fail-reconcile KEY [N]             the next N (default 1) reconciles of KEY fail
//
// State and output:
//
//	state                              everything below
//	rv | cache | queue | handlers | workqueue
//	trace STAGES                       which stages' trace lines print: "all", "off",
//	                                   "default", a list "reflector,deltafifo", or
//	                                   changes "+server -informer"
//	expect WHAT VALUE...               fail the script unless it holds (-update rewrites
//	                                   it to what held): rv N | lists N | watches N |
//	                                   cache KEY@RV... | pending NAME N | requeues KEY N |
//	                                   workqueue KEY...; a VALUE articles=V or today=V
//	                                   holds under that informer only
//
// Output: the trace lines (trace.Event.String) of the stages selected
// (default: reflector, deltafifo, informer, workqueue, controller), then
// what the command itself prints. Lines are grouped per step (one queue
// write, one Pop, one work item, one 100ms of a tick); within a step they
// are ordered by stage along the pipeline; the informer's lines come in the
// order it made them (the handlers told of one change by name), each
// notification followed by the handler's call for it. Values that depend on
// timing are rewritten: a handler's pending count is left out (the
// "handlers" command prints it once things have settled), as is how long
// a watch lasted; a jittered backoff prints as its base plus "+jitter".
var updateScenarios = flag.Bool("update", false, "rewrite the expected output of testdata/scenarios/*.txt")

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts in testdata/scenarios: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) { runScenarioScript(t, file) })
	}
}

// scenarioPipelines are the informers every script runs under, each in a
// subtest of its name: the articles' informer, then today's.
var scenarioPipelines = []Pipeline{Articles, Today}

// runScenarioScript runs one script under each of scenarioPipelines, each
// run in its own synctest bubble, telling each command with the comments
// above it and its output (visible with -v), and compares the output with what the file expects
// of that informer, or, with -update, rewrites it: once where both
// informers print the same, both side by side where they differ.
func runScenarioScript(t *testing.T, file string) {
	f, err := script.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(scenarioPipelines))
	got := make([][][]string, len(f.Steps))      // step, pipeline: output
	expects := make([][]*scExpect, len(f.Steps)) // step, pipeline: what an expect found
	for i := range got {
		got[i] = make([][]string, len(scenarioPipelines))
		expects[i] = make([]*scExpect, len(scenarioPipelines))
	}
	for j, p := range scenarioPipelines {
		names[j] = p.String()
		t.Run(p.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newScenarioEnv(t)
				env.pipeline = p
				env.update = *updateScenarios
				t.Cleanup(env.teardown)
				story := t.Output() // under -v: the script's comments, commands and output
				for i, s := range f.Steps {
					f.TellCommand(story, i)
					out, err := env.run(s.Command)
					if err != nil {
						t.Fatalf("%s:%d: > %s (%s): %v", file, s.Line, s.Command, p, err)
					}
					if out == nil {
						out = []string{}
					}
					got[i][j] = out
					expects[i][j] = env.takeExpect()
					script.TellOutput(story, "", out)
					if *updateScenarios {
						continue
					}
					if err := f.CheckVariant(i, p.String(), out, "go test ./informer -run TestScenarios -update"); err != nil {
						t.Fatal(err)
					}
				}
				f.TellTrailer(story)
			})
		})
	}
	if *updateScenarios && !t.Failed() {
		for i := range f.Steps {
			f.SetVariants(i, names, got[i])
			if cmd := scRewriteExpect(names, expects[i]); cmd != "" {
				t.Logf("%s:%d: > %s is now > %s (what happened)", file, f.Steps[i].Line, f.Steps[i].Command, cmd)
				f.Steps[i].Command = cmd
			}
		}
		if err := f.Write(); err != nil {
			t.Fatal(err)
		}
	}
}
