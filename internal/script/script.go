// Package script reads and writes the scenario scripts of kinformer's
// tests (deltafifo/testdata, informer/testdata/scenarios), in the style of
// etcd raft's datadriven files: a command on a line starting with "> ",
// the lines it prints below it, and comment lines ("#", or blank) above
// it. A test runs each command, compares what it printed with the lines
// in the file, and with -update writes what it printed back instead.
//
// A harness may run one script more than once, each run a named variant
// (the informer's scenarios run under "articles" and "today"). Where the
// variants print the same, a step's output is written once; where they
// differ, each variant's lines follow a header line "[name]", one variant
// after the other, so the file shows both side by side:
//
//	> start
//	[articles]
//	deltafifo: delta queued type=Replaced key=default/a rv=4 n=1
//	[today]
//	deltafifo: replaced all n=1 rv=4
package script

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Step is one command of a script with the comment lines above it and the
// output lines below it.
type Step struct {
	Comments []string
	Line     int // line number of the command
	Command  string
	Output   []string
}

// File is a script as read from disk.
type File struct {
	Path    string
	Steps   []Step
	Trailer []string // comment lines after the last command
}

// Read reads and parses the script at path.
func Read(path string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	steps, trailer, err := Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{Path: path, Steps: steps, Trailer: trailer}, nil
}

// Parse splits a script into steps plus the comment lines after the last
// command.
func Parse(text string) (steps []Step, trailer []string, err error) {
	var pending []string
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			steps = append(steps, Step{Comments: pending, Line: i + 1, Command: strings.TrimSpace(line[2:])})
			pending = nil
		case line == "" || strings.HasPrefix(line, "#"):
			pending = append(pending, line)
		case len(steps) == 0:
			return nil, nil, fmt.Errorf("line %d: output before the first command: %q", i+1, line)
		case len(pending) > 0:
			return nil, nil, fmt.Errorf("line %d: output after a comment; put comments before a command: %q", i+1, line)
		default:
			steps[len(steps)-1].Output = append(steps[len(steps)-1].Output, line)
		}
	}
	return steps, pending, nil
}

// String is the script as text, as Parse reads it.
func (f *File) String() string {
	var b strings.Builder
	for _, s := range f.Steps {
		for _, c := range s.Comments {
			b.WriteString(c + "\n")
		}
		b.WriteString("> " + s.Command + "\n")
		for _, o := range s.Output {
			b.WriteString(o + "\n")
		}
	}
	for _, c := range f.Trailer {
		b.WriteString(c + "\n")
	}
	return b.String()
}

// TellCommand writes step i as a story under -v begins it: the comment
// lines above the command (the script's own words: what the next commands
// show and why), then the command, each as one line, as the file has them.
// A harness writes to t.Output(), so the lines carry no file:line prefix
// and show only under -v (or when the test fails).
func (f *File) TellCommand(w io.Writer, i int) {
	s := f.Steps[i]
	for _, c := range s.Comments {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintln(w, "> "+s.Command)
}

// TellOutput writes what a command printed, one line each after indent.
func TellOutput(w io.Writer, indent string, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, indent+l)
	}
}

// TellTrailer writes the comment lines after the last command.
func (f *File) TellTrailer(w io.Writer) {
	for _, c := range f.Trailer {
		fmt.Fprintln(w, c)
	}
}

// Write writes the script back to its file (after -update).
func (f *File) Write() error {
	return os.WriteFile(f.Path, []byte(f.String()), 0o644)
}

// Check compares what step i printed with the lines the file expects. With
// update it records got as the expected output instead. The error names
// the file, the line and the command, and shows both outputs; updateCmd is
// the command that rewrites the scripts, for the message.
func (f *File) Check(i int, got []string, update bool, updateCmd string) error {
	s := &f.Steps[i]
	if update {
		s.Output = got
		return nil
	}
	if want := strings.Join(s.Output, "\n"); strings.Join(got, "\n") != want {
		return fmt.Errorf("%s:%d: > %s\ngot:\n%s\nwant:\n%s\n(if the new output is right: %s)",
			f.Path, s.Line, s.Command, strings.Join(got, "\n"), want, updateCmd)
	}
	return nil
}

// variantHeader reports whether line is a variant header ("[today]") and
// the variant it names.
func variantHeader(line string) (string, bool) {
	if len(line) < 3 || line[0] != '[' || line[len(line)-1] != ']' {
		return "", false
	}
	name := line[1 : len(line)-1]
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return "", false
		}
	}
	return name, true
}

// OutputOf returns the lines the step expects from variant v: those under
// the header "[v]", or every line if the step has no variant headers.
func (s Step) OutputOf(v string) []string {
	var out []string
	cur, split := "", false
	for _, line := range s.Output {
		if name, ok := variantHeader(line); ok {
			cur, split = name, true
			continue
		}
		if !split || cur == v {
			out = append(out, line)
		}
	}
	return out
}

// CheckVariant compares what step i printed under variant v with the
// lines the file expects of that variant (OutputOf).
func (f *File) CheckVariant(i int, v string, got []string, updateCmd string) error {
	s := &f.Steps[i]
	if want := strings.Join(s.OutputOf(v), "\n"); strings.Join(got, "\n") != want {
		return fmt.Errorf("%s:%d: > %s (%s)\ngot:\n%s\nwant:\n%s\n(if the new output is right: %s)",
			f.Path, s.Line, s.Command, v, strings.Join(got, "\n"), want, updateCmd)
	}
	return nil
}

// SetVariants records what each variant printed at step i (got[j] is
// variants[j]'s), for -update: once if every variant printed the same,
// else each variant's lines under its header, in the order given. A
// variant that did not get to step i (nil) is left out.
func (f *File) SetVariants(i int, variants []string, got [][]string) {
	var names []string
	var outs [][]string
	for j, g := range got {
		if g != nil {
			names, outs = append(names, variants[j]), append(outs, g)
		}
	}
	same := true
	for _, o := range outs[1:] {
		same = same && strings.Join(o, "\n") == strings.Join(outs[0], "\n")
	}
	s := &f.Steps[i]
	if same {
		s.Output = outs[0]
		return
	}
	s.Output = nil
	for j, o := range outs {
		s.Output = append(s.Output, "["+names[j]+"]")
		s.Output = append(s.Output, o...)
	}
}
