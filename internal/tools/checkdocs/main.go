package main

import (
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	root, files, err := repoFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkdocs:", err)
		os.Exit(2)
	}
	r, err := NewRepo(root, files)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkdocs:", err)
		os.Exit(2)
	}
	probs, known, stale := SplitKnown(Check(r, files), knownText)
	for _, p := range known {
		fmt.Println("known:", p)
	}
	for _, k := range stale {
		fmt.Printf("checkdocs: known.txt entry %q matches nothing any more: remove it\n", k)
	}
	for _, p := range probs {
		fmt.Println(p)
	}
	md := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			md++
		}
	}
	if len(probs) > 0 {
		fmt.Printf("checkdocs: %d problem(s) in %d files (%d Markdown)\n", len(probs), len(files), md)
		os.Exit(1)
	}
	fmt.Printf("checkdocs: %d files (%d Markdown) checked, no problems\n", len(files), md)
}

//go:embed known.txt
var knownText string

// SplitKnown separates the findings known.txt lists (FILE KIND TEXT a line)
// from the others, and returns the entries that matched nothing.
func SplitKnown(probs []Problem, known string) (fresh, old []Problem, stale []string) {
	type entry struct{ file, kind, text, line string }
	var entries []entry
	for _, line := range strings.Split(known, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) == 3 {
			entries = append(entries, entry{f[0], f[1], f[2], line})
		}
	}
	used := make([]bool, len(entries))
next:
	for _, p := range probs {
		for i, e := range entries {
			if p.File == e.file && p.Kind == e.kind && strings.Contains(p.Msg, e.text) {
				used[i] = true
				old = append(old, p)
				continue next
			}
		}
		fresh = append(fresh, p)
	}
	for i, e := range entries {
		if !used[i] {
			stale = append(stale, e.line)
		}
	}
	return fresh, old, stale
}

// repoFiles returns the repository's root and its files: those git tracks
// plus new ones it does not ignore, that exist in the work tree. Without git,
// every file under the current directory but .git and bin.
func repoFiles() (string, []string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err == nil {
		root := strings.TrimSpace(string(out))
		cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		cmd.Dir = root
		out, err = cmd.Output()
		if err != nil {
			return "", nil, fmt.Errorf("git ls-files: %w", err)
		}
		var files []string
		seen := map[string]bool{}
		for _, f := range strings.Split(string(out), "\x00") {
			if f == "" || seen[f] {
				continue
			}
			seen[f] = true
			if st, err := os.Stat(filepath.Join(root, f)); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		return root, files, nil
	}
	root, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (d.Name() == ".git" || rel == "bin") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return root, files, err
}
