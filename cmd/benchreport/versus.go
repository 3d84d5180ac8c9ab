package main

import (
	"fmt"
	"strings"
)

// Today's informer beside the articles'.
//
// The bench package runs both informers (informer.Today, informer.Articles)
// in the same run of each pipeline benchmark, as sub-benchmarks named
// Today and Articles. Versus puts the figures the issue asks about side by
// side, above the full table: watch events/s, list sync time (Run to
// HasSynced), and the heap during and after the sync.

// versusRow is one line of the comparison: a metric of a benchmark's Today
// and Articles sub-benchmarks.
type versusRow struct {
	label string
	bench string  // the parent benchmark; the sub-benchmarks are bench+"/Today" and bench+"/Articles"
	unit  string  // the metric
	scale float64 // the metric is multiplied by this for display
	shown string  // the unit shown
	above string  // today's is … when the ratio is above 1
	below string  // … and when it is below
}

var versusRows = []versusRow{
	{"watch: 100,000 MODIFIED events", "BenchmarkWatchPipeline100k", "events/s", 1, "events/s", "faster", "slower"},
	{"list sync: 50,000 pods, Run to HasSynced", "BenchmarkListSync50k", "ns/op", 1e-9, "s", "slower", "faster"},
	{"list sync: peak heap above the heap before it", "BenchmarkListSync50k", "peak-heap-MB", 1, "MB", "more", "less"},
	{"list sync: peak live heap (what the GCs found live)", "BenchmarkListSync50k", "peak-live-MB", 1, "MB", "more", "less"},
	{"list sync: the cache after it", "BenchmarkListSync50k", "cache-MB", 1, "MB", "more", "less"},
}

// Versus renders the comparison as a markdown table, or "" if the results
// hold neither pair.
func Versus(results []*Result) string {
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	var rows []string
	runs := 0
	for _, v := range versusRows {
		t, a := byName[v.bench+"/Today"], byName[v.bench+"/Articles"]
		if t == nil || a == nil {
			continue
		}
		tv, tok := t.Metrics[v.unit]
		av, aok := a.Metrics[v.unit]
		if !tok || !aok {
			continue
		}
		runs = max(runs, t.Runs, a.Runs)
		ratio := ""
		if av != 0 {
			r := fmt.Sprintf("%.2f", tv/av)
			ratio = r + "×"
			switch {
			case r == "1.00": // the same, to two digits
			case tv > av:
				ratio += " (" + v.above + ")"
			default:
				ratio += " (" + v.below + ")"
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s %s | %s %s | %s |",
			v.label, num(tv*v.scale), v.shown, num(av*v.scale), v.shown, ratio))
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Today's informer beside the articles', in the same run")
	if runs > 1 {
		fmt.Fprintf(&b, " (means of %d)", runs)
	}
	b.WriteString(" (the `Today` and `Articles` rows of the table below):\n\n")
	b.WriteString("| today vs articles | `Today` | `Articles` | today ÷ articles |\n")
	b.WriteString("|---|--:|--:|--:|\n")
	for _, r := range rows {
		b.WriteString(r)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}
