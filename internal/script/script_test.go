package script

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A script survives a round trip: what Parse reads, String writes back.
func TestParse_RoundTrip(t *testing.T) {
	text := "# a story\n> add foo 1\nqueue: foo{Added 1}\n\n# next\n> pop\npop foo\n# the end\n"
	steps, trailer, err := Parse(text)
	require.NoError(t, err)
	require.Len(t, steps, 2)
	require.Equal(t, Step{Comments: []string{"# a story"}, Line: 2, Command: "add foo 1", Output: []string{"queue: foo{Added 1}"}}, steps[0])
	require.Equal(t, []string{"# the end"}, trailer)
	require.Equal(t, text, (&File{Steps: steps, Trailer: trailer}).String())
}

// Output must belong to a command.
func TestParse_RejectsStrayOutput(t *testing.T) {
	_, _, err := Parse("queue: nothing\n> pop\n")
	require.ErrorContains(t, err, "line 1: output before the first command")
	_, _, err = Parse("> pop\n# comment\nstray\n")
	require.ErrorContains(t, err, "line 3: output after a comment")
}

// Check reports a difference with the file, line and both outputs; with
// update it records what was printed, and Write puts it in the file.
func TestFile_CheckAndUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	f := &File{Path: path, Steps: []Step{{Line: 1, Command: "pop", Output: []string{"old"}}}}
	err := f.Check(0, []string{"new"}, false, "go test -update")
	require.ErrorContains(t, err, "s.txt:1: > pop\ngot:\nnew\nwant:\nold")
	require.NoError(t, f.Check(0, []string{"new"}, true, ""))
	require.NoError(t, f.Write())
	back, err := Read(path)
	require.NoError(t, err)
	require.Equal(t, "> pop\nnew\n", back.String())
	require.True(t, strings.HasSuffix(back.Path, "s.txt"))
}

// A step's output may differ between the variants a harness runs: each
// variant's lines then follow its header, and -update writes them so, or
// once where the variants agree.
func TestFile_Variants(t *testing.T) {
	steps, _, err := Parse("> start\n[articles]\nlist\nwatch\n[today]\nstreaming list\n> pop\npop a\n")
	require.NoError(t, err)
	f := &File{Path: "s.txt", Steps: steps}
	require.Equal(t, []string{"list", "watch"}, f.Steps[0].OutputOf("articles"))
	require.Equal(t, []string{"streaming list"}, f.Steps[0].OutputOf("today"))
	require.Equal(t, []string{"pop a"}, f.Steps[1].OutputOf("today"), "no headers: every variant")
	require.NoError(t, f.CheckVariant(0, "today", []string{"streaming list"}, ""))
	require.ErrorContains(t, f.CheckVariant(1, "today", []string{"pop b"}, "go test -update"), "s.txt:7: > pop (today)")

	f.SetVariants(0, []string{"articles", "today"}, [][]string{{"same"}, {"same"}})
	f.SetVariants(1, []string{"articles", "today"}, [][]string{{"pop a"}, {"pop a", "pop b"}})
	require.Equal(t, "> start\nsame\n> pop\n[articles]\npop a\n[today]\npop a\npop b\n", f.String())
}

// A story under -v is the script's own text: each command with the
// comments above it, its output, and the comments after the last one.
func TestFile_TellWritesCommentsCommandsAndOutput(t *testing.T) {
	steps, trailer, err := Parse("# why\n\n> pop\npop a\n# the end\n")
	require.NoError(t, err)
	f := &File{Steps: steps, Trailer: trailer}
	var b strings.Builder
	f.TellCommand(&b, 0)
	TellOutput(&b, "  ", []string{"pop a"})
	f.TellTrailer(&b)
	require.Equal(t, "# why\n\n> pop\n  pop a\n# the end\n", b.String())
}
