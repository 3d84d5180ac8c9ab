package storage

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/internal/script"
)

// The scripts in testdata/*.txt drive a store command by command, in the
// style of etcd raft's datadriven files (internal/script):
//
//	put KEY DATA                     create or update KEY; prints the revision
//	delete KEY                       delete KEY; prints the revision
//	watch NAME KEY [from=REV] [initial] [match=DATA]
//	                                 open a watch (KEY ending in "/" is a prefix);
//	                                 prints what it starts with, or the error
//	events NAME                      what the watch has received since, and
//	                                 whether it ended (and why)
//	list PREFIX [rev=REV] [limit=N]  a list; prints its revision and values
//	compact                          forget the history
//	rev                              the current revision
//
// Values print as DATA@REV.
var updateScripts = flag.Bool("update", false, "rewrite the expected output of testdata/*.txt")

func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			f, err := script.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			r := &scriptRun{t: t, s: newTestStore(t, Options[*val]{}), watches: map[string]*Watcher[*val]{}}
			story := t.Output() // under -v: the script as it reads, comments included
			for i, step := range f.Steps {
				f.TellCommand(story, i)
				got, err := r.run(step.Command)
				if err != nil {
					t.Fatalf("%s:%d: > %s: %v", file, step.Line, step.Command, err)
				}
				script.TellOutput(story, "", got)
				if err := f.Check(i, got, *updateScripts, "go test ./fakeapiserver/storage -run TestScripts -update"); err != nil {
					t.Fatal(err)
				}
			}
			f.TellTrailer(story)
			if *updateScripts && !t.Failed() {
				if err := f.Write(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

type scriptRun struct {
	t       *testing.T
	s       *Store[*val]
	watches map[string]*Watcher[*val]
}

func (r *scriptRun) run(cmd string) ([]string, error) {
	args := strings.Fields(cmd)
	opt := func(name string) (string, bool) {
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				return v, true
			}
			if a == name {
				return "", true
			}
		}
		return "", false
	}
	num := func(name string) uint64 {
		v, _ := opt(name)
		n, _ := strconv.ParseUint(v, 10, 64)
		return n
	}
	switch {
	case args[0] == "put" && len(args) == 3:
		return []string{fmt.Sprintf("rev %d", put(r.t, r.s, args[1], args[2]))}, nil
	case args[0] == "delete" && len(args) == 2:
		return []string{fmt.Sprintf("rev %d", del(r.t, r.s, args[1]))}, nil
	case args[0] == "watch" && len(args) >= 3:
		opts := WatchOptions[*val]{Rev: num("from")}
		_, opts.SendInitialEvents = opt("initial")
		if m, ok := opt("match"); ok {
			opts.Predicate = func(v *val) bool { return v.data == m }
		}
		w, initial, err := r.s.Watch(args[2], opts)
		if err != nil {
			return []string{"error: " + errText(err)}, nil
		}
		r.t.Cleanup(w.Stop)
		r.watches[args[1]] = w
		return append([]string{fmt.Sprintf("watching %s, registered at rev %d", args[2], w.StartRev())}, events(initial)...), nil
	case args[0] == "events" && len(args) == 2:
		w := r.watches[args[1]]
		if w == nil {
			return nil, fmt.Errorf("no watch %s", args[1])
		}
		out := drain(w)
		select {
		case <-w.Done():
			if err := w.Err(); err != nil {
				out = append(out, "ended: "+errText(err))
			} else {
				out = append(out, "ended")
			}
		default:
		}
		if len(out) == 0 {
			out = []string{"(nothing)"}
		}
		return out, nil
	case args[0] == "list" && len(args) >= 2:
		l, err := r.s.List(args[1], ListOptions[*val]{Rev: num("rev"), Limit: int(num("limit"))})
		if err != nil {
			return []string{"error: " + errText(err)}, nil
		}
		out := []string{fmt.Sprintf("rev %d: %s", l.Rev, fmtVals(l.Items))}
		if l.More {
			out = append(out, fmt.Sprintf("more: %d keys follow", l.Remaining))
		}
		return out, nil
	case cmd == "compact":
		r.s.Compact()
		return []string{fmt.Sprintf("compacted through rev %d", r.s.Compacted())}, nil
	case cmd == "rev":
		return []string{fmt.Sprintf("rev %d", r.s.Rev())}, nil
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

// errText names a storage error the way an API server would turn it into
// a status.
func errText(err error) string {
	var ce *CompactedError
	if errors.As(err, &ce) {
		return fmt.Sprintf("compacted: rev %d is older than the history (it starts after %d) -> 410 Expired", ce.Rev, ce.Compacted)
	}
	return err.Error()
}
