package deltafifo

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/internal/script"
	"github.com/kinformer/kinformer/trace"
)

// Scenario scripts: testdata/*.txt. Try a sequence of queue operations
// without writing Go. A script is a list of commands, each a line starting
// with "> ", followed by the lines it prints. Lines starting with "#" and
// blank lines are comments. TestScenarios runs every script and compares the
// output; with -update it writes the actual output into the script instead.
// Under -v a script tells its story: its comments and each command as the
// file has them, the queue's trace, and the command's output indented:
//
//	go test ./deltafifo -run TestScenarios -update
//	go test ./deltafifo -run TestScenarios/03-dedup-deletes -v
//
// Commands (keys are "name" or "namespace/name", objects are ConfigMaps
// printed as their resourceVersion):
//
//	fifo delta [replaced] [no-known]  start a DeltaFIFO; replaced sets EmitDeltaTypeReplaced,
//	                                  no-known leaves out the cache (KnownObjects)
//	fifo real [no-known]              start a RealFIFO
//	fifo real atomic [bookmarks] [batch=N]
//	                                  start a RealFIFO with AtomicEvents (and
//	                                  EmitDeltaTypeBookmark, BatchSize N): the
//	                                  queue gets no KnownObjects; pops still fill the cache
//	known foo=1 ns/bar=2              make the cache (the known objects) hold exactly these
//	add foo 1 | update foo 2          Add / Update a ConfigMap foo at resourceVersion 1 / 2
//	delete foo [3]                    Delete foo (its final state at resourceVersion 3)
//	replace foo=1 bar=2 [@rv=10]      Replace with this list (a relist at resourceVersion 10)
//	resync                            Resync
//	pop                               Pop one item and apply it to the cache, as the informer does
//	pop fail                          Pop one item whose processing fails (it is not applied)
//	popbatch                          PopBatch (RealFIFO): apply a batch to the cache in one transaction
//	bookmark 12                       Bookmark (RealFIFO): a watch BOOKMARK at resourceVersion 12
//	storerv                           print the cache's LastStoreSyncResourceVersion
//	synced                            print HasSynced
//	close                             Close the queue
//	queue | cache                     print the queue / the cache
//
// The queue prints as key{deltas} per key for a DeltaFIFO, and as
// "key Type rv | ..." for a RealFIFO; a tombstone as tombstone(rv).
var update = flag.Bool("update", false, "rewrite the expected output of testdata/*.txt scenario scripts")

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts in testdata: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) { runScenarioFile(t, file) })
	}
}

// scenarioVariants are the queues a script that starts a DeltaFIFO runs
// on, each in a subtest of its name: "articles", the DeltaFIFO as the
// script starts it, and "today", the queue of today's informer instead
// (a RealFIFO with AtomicEvents and EmitDeltaTypeBookmark: client-go
// 1.36's AtomicFIFO). Where the two print differently, the script holds
// both outputs, each under its header (internal/script). A script that
// starts a RealFIFO names the queue it is about and runs once.
var scenarioVariants = []string{"articles", "today"}

// todayFIFO is the fifo command the today variant runs instead of a
// script's "fifo delta ...".
var todayFIFO = []string{"real", "atomic", "bookmarks"}

func runScenarioFile(t *testing.T, file string) {
	f, err := script.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	const updateCmd = "go test ./deltafifo -run TestScenarios -update"
	if len(f.Steps) == 0 || !strings.HasPrefix(f.Steps[0].Command, "fifo delta") {
		runScenarioSteps(t, file, f, "", func(i int, got []string) error { return f.Check(i, got, *update, updateCmd) })
	} else {
		got := make([][][]string, len(f.Steps)) // step, variant: output
		for i := range got {
			got[i] = make([][]string, len(scenarioVariants))
		}
		for j, v := range scenarioVariants {
			t.Run(v, func(t *testing.T) {
				runScenarioSteps(t, file, f, v, func(i int, out []string) error {
					got[i][j] = out
					if *update {
						return nil
					}
					return f.CheckVariant(i, v, out, updateCmd)
				})
			})
		}
		if *update && !t.Failed() {
			for i := range f.Steps {
				f.SetVariants(i, scenarioVariants, got[i])
			}
		}
	}
	if *update && !t.Failed() {
		if err := f.Write(); err != nil {
			t.Fatal(err)
		}
	}
}

// runScenarioSteps runs f's commands under variant v ("" or "articles":
// as written; "today": today's queue) and hands each output to check.
func runScenarioSteps(t *testing.T, file string, f *script.File, v string, check func(i int, got []string) error) {
	r := scenario{tracer: trace.ForTest(t), today: v == "today"}
	story := t.Output() // under -v: the script's comments and commands, the queue's trace, the output
	for i, s := range f.Steps {
		f.TellCommand(story, i)
		got, err := r.run(s.Command)
		if err != nil {
			t.Fatalf("%s:%d: %s (%s): %v", file, s.Line, s.Command, v, err)
		}
		if got == nil {
			got = []string{}
		}
		script.TellOutput(story, "  ", got)
		if err := check(i, got); err != nil {
			t.Fatal(err)
		}
	}
	f.TellTrailer(story)
}

// scenario is the state of a running script: one queue and, unless the
// script said no-known, the cache the queue knows and Pop fills.
type scenario struct {
	queue Queue
	delta *DeltaFIFO // the queue, if it is a DeltaFIFO
	real  *RealFIFO  // the queue, if it is a RealFIFO
	known *sortedKnown
	// tracer is the queue's Tracer: under -v the queue's trace follows
	// each command.
	tracer *trace.Tracer
	// today makes "fifo delta ..." start today's queue (todayFIFO).
	today bool
}

// run executes one command and returns what it prints, or an error if the
// command itself is wrong (a mistake in the script, not in the queue).
func (s *scenario) run(command string) ([]string, error) {
	args := strings.Fields(command)
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	if args[0] == "fifo" {
		if s.today && len(args) > 1 && args[1] == "delta" {
			return s.start(todayFIFO)
		}
		return s.start(args[1:])
	}
	if s.queue == nil {
		return nil, errors.New(`the first command must be "fifo delta" or "fifo real"`)
	}
	switch args[0] {
	case "known":
		if s.known == nil {
			return nil, errors.New("known: this queue has no cache (no-known)")
		}
		objs, _, err := parseList(args[1:])
		if err != nil {
			return nil, err
		}
		if err := s.known.Replace(objs, ""); err != nil {
			return nil, err
		}
		return []string{s.cacheLine()}, nil
	case "add", "update", "delete":
		obj, err := parseObject(args)
		if err != nil {
			return nil, err
		}
		write := map[string]func(api.Object) error{"add": s.queue.Add, "update": s.queue.Update, "delete": s.queue.Delete}[args[0]]
		return s.afterWrite(write(obj)), nil
	case "replace":
		objs, rv, err := parseList(args[1:])
		if err != nil {
			return nil, err
		}
		return s.afterWrite(s.queue.Replace(objs, rv)), nil
	case "resync":
		return s.afterWrite(s.queue.Resync()), nil
	case "pop":
		if len(args) > 2 || (len(args) == 2 && args[1] != "fail") {
			return nil, errors.New(`usage: pop [fail]`)
		}
		return s.pop(len(args) == 2), nil
	case "popbatch":
		if s.real == nil {
			return nil, errors.New("popbatch: only a RealFIFO has PopBatch")
		}
		return s.popBatch(), nil
	case "bookmark":
		if s.real == nil || len(args) != 2 {
			return nil, errors.New("usage: bookmark RESOURCEVERSION (on a RealFIFO)")
		}
		return s.afterWrite(s.real.Bookmark(args[1])), nil
	case "storerv":
		if s.known == nil {
			return nil, errors.New("storerv: this queue has no cache (no-known)")
		}
		return []string{fmt.Sprintf("store rv: %q", s.known.LastStoreSyncResourceVersion())}, nil
	case "synced":
		return []string{fmt.Sprintf("synced: %v", s.queue.HasSynced())}, nil
	case "close":
		s.queue.Close()
		return []string{"closed"}, nil
	case "queue":
		return []string{s.queueLine()}, nil
	case "cache":
		if s.known == nil {
			return nil, errors.New("cache: this queue has no cache (no-known)")
		}
		return []string{s.cacheLine()}, nil
	}
	return nil, fmt.Errorf("unknown command %q", args[0])
}

func (s *scenario) start(opts []string) ([]string, error) {
	if s.queue != nil {
		return nil, errors.New("fifo: a script has one queue")
	}
	if len(opts) == 0 || (opts[0] != "delta" && opts[0] != "real") {
		return nil, errors.New("usage: fifo delta [replaced] [no-known] | fifo real [no-known]")
	}
	withKnown, replaced := true, false
	var realOpts RealFIFOOptions
	for _, o := range opts[1:] {
		size, isBatch := strings.CutPrefix(o, "batch=")
		switch {
		case o == "no-known":
			withKnown = false
		case o == "replaced" && opts[0] == "delta":
			replaced = true
		case o == "atomic" && opts[0] == "real":
			realOpts.AtomicEvents = true
		case o == "bookmarks" && opts[0] == "real":
			realOpts.EmitDeltaTypeBookmark = true
		case isBatch && opts[0] == "real":
			if _, err := fmt.Sscan(size, &realOpts.BatchSize); err != nil {
				return nil, fmt.Errorf("fifo real: %s: %w", o, err)
			}
		default:
			return nil, fmt.Errorf("fifo %s: unknown option %q", opts[0], o)
		}
	}
	var knownObjects KeyListerGetter
	knownText := "none"
	if withKnown {
		k := newKnown()
		s.known, knownObjects, knownText = &k, k, "the cache"
	}
	if opts[0] == "real" {
		if realOpts.AtomicEvents {
			return s.startAtomic(realOpts)
		}
		realOpts.KnownObjects, realOpts.Tracer = knownObjects, s.tracer
		s.real = NewRealFIFO(realOpts)
		s.queue = s.real
		return []string{"RealFIFO, KnownObjects: " + knownText}, nil
	}
	s.delta = NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: knownObjects, EmitDeltaTypeReplaced: replaced, Tracer: s.tracer})
	s.queue = s.delta
	return []string{fmt.Sprintf("DeltaFIFO, EmitDeltaTypeReplaced: %v, KnownObjects: %s", replaced, knownText)}, nil
}

// startAtomic starts a RealFIFO with AtomicEvents: the queue has no
// KnownObjects, but the script keeps a cache that pops fill.
func (s *scenario) startAtomic(opts RealFIFOOptions) ([]string, error) {
	if s.known == nil {
		k := newKnown()
		s.known = &k
	}
	opts.Tracer = s.tracer
	s.real = NewRealFIFO(opts)
	s.queue = s.real
	line := "RealFIFO, AtomicEvents"
	if opts.EmitDeltaTypeBookmark {
		line += ", EmitDeltaTypeBookmark"
	}
	if opts.BatchSize > 0 {
		line += fmt.Sprintf(", BatchSize: %d", opts.BatchSize)
	}
	return []string{line + ", KnownObjects: none (pops fill the cache)"}, nil
}

// popBatch pops a batch (or a single item) if there is one; it never
// blocks. A batch is applied to the cache in one transaction.
func (s *scenario) popBatch() []string {
	if s.real.Len() == 0 && !s.real.IsClosed() {
		return []string{"popbatch: the queue is empty (PopBatch would block)"}
	}
	var line string
	err := s.real.PopBatch(func(batch []Delta, isInInitialList bool) error {
		line = fmt.Sprintf("batch {%s} initial=%v", formatBatch(s.real.keyer, batch), isInInitialList)
		if s.known != nil {
			line += ", one transaction"
			return applyBatch(s.known.Indexer, batch)
		}
		return nil
	}, func(d Deltas, isInInitialList bool) error {
		line = fmt.Sprintf("single {%s} initial=%v", formatBatch(s.real.keyer, d), isInInitialList)
		if s.known != nil {
			return applyDeltas(s.known, d)
		}
		return nil
	})
	return s.afterPop("popbatch", line, line == "", err)
}

// pop pops one item if there is one; it never blocks.
func (s *scenario) pop(fail bool) []string {
	if s.queueLen() == 0 && !s.isClosed() {
		return []string{"pop: the queue is empty (Pop would block)"}
	}
	var line string
	deltas, err := s.queue.Pop(func(d Deltas, isInInitialList bool) error {
		key, _ := keyOf(DeletionHandlingMetaNamespaceKeyFunc, d)
		if key != "" { // a ReplacedAll, SyncAll or Bookmark has none
			key += " "
		}
		line = fmt.Sprintf("pop %s%s initial=%v", key, formatDeltas(d), isInInitialList)
		if fail {
			return errors.New("process failed")
		}
		if s.known != nil {
			return applyDeltas(s.known, d)
		}
		return nil
	})
	return s.afterPop("pop", line, deltas == nil, err)
}

// afterPop is what a pop command prints: the processed line (and the
// processing error, if any), the queue, and the cache if there is one; or
// only the error when nothing was popped.
func (s *scenario) afterPop(cmd, line string, nothingPopped bool, err error) []string {
	if nothingPopped && err != nil {
		return []string{cmd + ": error: " + err.Error()}
	}
	if err != nil {
		line += " -> error: " + err.Error()
	}
	out := []string{line, s.queueLine()}
	if s.known != nil {
		out = append(out, s.cacheLine())
	}
	return out
}

func (s *scenario) afterWrite(err error) []string {
	if err != nil {
		return []string{"error: " + err.Error(), s.queueLine()}
	}
	return []string{s.queueLine()}
}

func (s *scenario) queueLen() int {
	if s.delta != nil {
		return s.delta.Len()
	}
	return s.real.Len()
}

func (s *scenario) isClosed() bool {
	if s.delta != nil {
		return s.delta.IsClosed()
	}
	return s.real.IsClosed()
}

func (s *scenario) queueLine() string {
	if s.delta != nil {
		return "queue: " + formatDeltaFIFO(s.delta)
	}
	return "queue: " + formatRealFIFO(s.real)
}

func (s *scenario) cacheLine() string { return "cache: " + formatCache(s.known) }

// parseObject parses "add foo 1", "update ns/foo 2", "delete foo [3]".
func parseObject(args []string) (api.Object, error) {
	switch {
	case len(args) == 3:
		return cm(args[1], args[2]), nil
	case len(args) == 2 && args[0] == "delete":
		return cm(args[1], ""), nil
	}
	return nil, fmt.Errorf("usage: %s KEY RESOURCEVERSION", args[0])
}

// parseList parses "foo=1 ns/bar=2 @rv=10".
func parseList(args []string) (objs []api.Object, rv string, err error) {
	objs = []api.Object{}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "@rv="); ok {
			rv = v
			continue
		}
		key, version, ok := strings.Cut(a, "=")
		if !ok || key == "" {
			return nil, "", fmt.Errorf("want KEY=RESOURCEVERSION or @rv=N, got %q", a)
		}
		objs = append(objs, cm(key, version))
	}
	return objs, rv, nil
}
