package indexer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// mutationDiff shows how now differs from was, one line per changed line of
// their indented JSON: "-" for a line only in was, "+" for a line only in
// now, lines they share left out. Objects that cannot be encoded as JSON are
// shown whole, with %+v.
//
// It is the standard library's stand-in for a structural diff such as
// go-cmp's: the library needs nothing beyond the standard library at run
// time, and a mutated object usually differs in a line or two, which a line
// diff of its JSON shows as plainly.
func mutationDiff(was, now any) string {
	a, errA := json.MarshalIndent(was, "", "  ")
	b, errB := json.MarshalIndent(now, "", "  ")
	if errA != nil || errB != nil {
		return fmt.Sprintf("-%+v\n+%+v\n", was, now)
	}
	return lineDiff(strings.Split(string(a), "\n"), strings.Split(string(b), "\n"))
}

// lineDiff is the textbook longest-common-subsequence diff: lcs[i][j] is the
// length of the longest common subsequence of a[i:] and b[j:], and the walk
// from (0, 0) prints what is not in it. Objects are a few dozen lines, so the
// quadratic table is small.
func lineDiff(a, b []string) string {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&sb, "-%s\n", a[i])
			i++
		default:
			fmt.Fprintf(&sb, "+%s\n", b[j])
			j++
		}
	}
	return sb.String()
}
