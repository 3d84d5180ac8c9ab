package main

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Twins: every page under docs/ has a Chinese twin under docs/zh-CN/, for the readers of the five Chinese
// articles. A twin keeps its page's shape, so that a change to one that
// is not made to the other fails the check:
//   - the same headings, level by level, in the same order;
//   - the same tests (Test…, Example…, Benchmark…, Fuzz…) and the same
//     scenario scripts (….txt) named;
//   - the same code blocks: commands and real outputs, line by line
//     (comments, after # or //, may be translated and are not compared;
//     so may a diagram: a mermaid block, or a block whose twin has Chinese
//     where the English has none);
//   - each links to the other.

// twinOf returns the Chinese twin's path of an English page, or "" if the
// page needs none.
func twinOf(f string) string {
	switch {
	case strings.HasPrefix(f, "docs/") && !strings.HasPrefix(f, "docs/zh-CN/") && strings.HasSuffix(f, ".md"):
		return "docs/zh-CN/" + strings.TrimPrefix(f, "docs/")
	}
	return ""
}

var (
	twinHeadingRe = regexp.MustCompile(`^(#{1,6})\s`)
	twinTestRe    = regexp.MustCompile(`\b(?:Test|Example|Benchmark|Fuzz)[A-Z_][A-Za-z0-9_]*`)
	scriptRe      = regexp.MustCompile(`[A-Za-z0-9_./-]+\.txt\b`)
	commentRe     = regexp.MustCompile(`(^|\s)(#|//).*$`)
)

// shape is what a page and its twin must share.
type shape struct {
	headings []string // "## " + the heading's text (the English text, for messages)
	names    map[string]bool
	blocks   [][]string
	mermaid  []bool // the block is a mermaid diagram
	chinese  []bool // the block holds Chinese
}

var cjkRe = regexp.MustCompile(`\p{Han}`)

func shapeOf(content []byte) shape {
	s := shape{names: map[string]bool{}}
	var f fence
	var block []string
	mermaid, chinese := false, false
	for line := range strings.SplitSeq(string(content), "\n") {
		if f.toggle(line) {
			if !f.inside() {
				s.blocks = append(s.blocks, block)
				s.mermaid = append(s.mermaid, mermaid)
				s.chinese = append(s.chinese, chinese)
				block = nil
			}
			mermaid, chinese = strings.Contains(line, "mermaid"), false
			continue
		}
		if f.inside() {
			l := strings.TrimSpace(commentRe.ReplaceAllString(line, ""))
			chinese = chinese || cjkRe.MatchString(l)
			if l != "" {
				block = append(block, l)
			}
		} else if m := twinHeadingRe.FindStringSubmatch(line); m != nil {
			s.headings = append(s.headings, line)
		}
		for _, n := range twinTestRe.FindAllString(line, -1) {
			s.names[n] = true
		}
		for _, n := range scriptRe.FindAllString(line, -1) {
			if strings.Contains(n, "testdata/") || strings.Count(n, "/") == 0 {
				s.names[path.Base(n)] = true
			}
		}
	}
	return s
}

func level(h string) int { return len(twinHeadingRe.FindStringSubmatch(h)[1]) }

// CheckTwins checks every English page's twin.
func CheckTwins(r *Repo, files []string) []Problem {
	var probs []Problem
	for _, en := range files {
		zh := twinOf(en)
		if zh == "" {
			continue
		}
		report := func(file, format string, args ...any) {
			probs = append(probs, Problem{File: file, Kind: "twin", Msg: fmt.Sprintf(format, args...)})
		}
		if !r.Files[zh] {
			report(en, "no Chinese twin: write %s (same headings, tests, scripts and code blocks)", zh)
			continue
		}
		ec, err1 := r.Read(en)
		zc, err2 := r.Read(zh)
		if err1 != nil || err2 != nil {
			continue
		}
		if !strings.Contains(string(ec), path.Base(zh)+")") {
			report(en, "does not link to its twin %s", zh)
		}
		if !strings.Contains(string(zc), path.Base(en)+")") {
			report(zh, "does not link to its English page %s", en)
		}
		es, zs := shapeOf(ec), shapeOf(zc)
		for i := range max(len(es.headings), len(zs.headings)) {
			if i >= len(es.headings) || i >= len(zs.headings) || level(es.headings[i]) != level(zs.headings[i]) {
				at := "(end of page)"
				if i < len(es.headings) {
					at = fmt.Sprintf("%q", es.headings[i])
				}
				report(zh, "headings differ from %s at heading %d, English %s: English has %d headings, the twin %d",
					en, i+1, at, len(es.headings), len(zs.headings))
				break
			}
		}
		for _, n := range sortedKeys(es.names) {
			if !zs.names[n] {
				report(zh, "does not name %s, which %s names", n, en)
			}
		}
		for _, n := range sortedKeys(zs.names) {
			if !es.names[n] {
				report(zh, "names %s, which %s does not", n, en)
			}
		}
		if len(es.blocks) != len(zs.blocks) {
			report(zh, "has %d code blocks, %s has %d", len(zs.blocks), en, len(es.blocks))
			continue
		}
		for i := range es.blocks {
			if es.mermaid[i] || zs.chinese[i] && !es.chinese[i] {
				continue // a translated diagram
			}
			if !slices.Equal(es.blocks[i], zs.blocks[i]) {
				first := ""
				for j := range max(len(es.blocks[i]), len(zs.blocks[i])) {
					if j >= len(es.blocks[i]) || j >= len(zs.blocks[i]) || es.blocks[i][j] != zs.blocks[i][j] {
						if j < len(es.blocks[i]) {
							first = es.blocks[i][j]
						}
						break
					}
				}
				report(zh, "code block %d differs from %s's (commands and outputs must be the same; first differing English line: %q)", i+1, en, first)
			}
		}
	}
	return probs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
